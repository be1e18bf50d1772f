"""Users (scrypt password hashes, roles), the password policy, sign-in throttling and sessions.

**Hashes.** Passwords are hashed with scrypt (n=2**17, r=8, p=1, 16-byte random salt, about
128 MiB and well over half a second per hash on a small server); the parameters are stored with
the hash (``scrypt$n$r$p$salt$hash``), so a hash made with a lower cost (the old n=2**14) still
verifies and is rehashed at the current cost on the next successful sign-in. The test suite
lowers the cost with ``$WORKBENCH_TEST_SCRYPT_N`` (set only by ``tests/conftest.py``); nothing
else should set it.

**Policy.** :func:`password_problem` is the one place that says what a password must be (the
store enforces it on every create and reset; the Admin page and the command line show its
words): at least :data:`MIN_PASSWORD_LENGTH` characters (a passphrase of several words is the
easy way there), not one of the most common passwords (``common_passwords.txt`` beside this
module, checked case-insensitively, also with digits and symbols stripped), not the username,
and not a few characters repeated.

**Throttling.** Failed sign-ins are counted per name typed in the ``signin_failures`` table, so
a new browser session, another tab or a script gets no fresh start. After
:data:`FREE_FAILURES` failures each further try must wait (30 s, doubling with every failure:
30, 60, 120, 240, 480 s); after :data:`LOCK_AFTER` failures the name is locked until a lead
unlocks it (:func:`unlock_user`). A success clears the count; a count left alone for
:data:`FORGET_AFTER` without a lock is forgotten. Names that are not accounts are counted,
delayed, locked and forgotten the same way, so no answer tells which accounts exist. The
attempt is counted *before* the (slow) password check, so parallel guesses cannot slip through
one window.

**Sessions.** Session tokens are random and only their SHA-256 is stored, so a copy of the
database (a backup) does not hold usable tokens.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlite_utils import Database

from store.audit import audit
from store.db import check_choice, now_iso, parse_time, retrying, transaction
from store.errors import DuplicateError, InvalidValueError, NotFoundError

ROLES = ("annotator", "reviewer", "lead")
#: The scrypt cost of new hashes (n); r and p are fixed.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2 ** 17, 8, 1
#: Lowers the scrypt cost for the test suite only (a power of two); unset in production.
TEST_COST_ENV = "WORKBENCH_TEST_SCRYPT_N"
_MAX_N = 2 ** 20  # never verify a stored hash that asks for more (1 GiB of memory)

MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 1024
MIN_DISTINCT_CHARACTERS = 5
COMMON_PASSWORDS_FILE = Path(__file__).with_name("common_passwords.txt")
#: The policy in one sentence, for forms and ``--help``.
PASSWORD_RULES = (f"at least {MIN_PASSWORD_LENGTH} characters (a passphrase of several words is easiest), "
                  "not a common password, not the username")

FREE_FAILURES = 5          # failed sign-ins of one name before any delay
LOCK_AFTER = 10            # failed sign-ins that lock the name until a lead unlocks it
BASE_DELAY_S = 30.0        # the wait after FREE_FAILURES failures, doubling with each further one
FORGET_AFTER = timedelta(days=30)   # an unlocked count with no failure for this long is forgotten


@dataclass(frozen=True)
class User:
    id: int
    username: str
    role: str
    created_at: str
    disabled: bool = False


@dataclass(frozen=True)
class SignInResult:
    """The outcome of one sign-in attempt.

    ``outcome`` is ``ok`` (``user`` is set), ``refused`` (wrong name or password, or a disabled
    account: deliberately one answer), ``throttled`` (too many failures: try again after
    ``retry_after_s`` seconds; the password was not checked) or ``locked`` (until a lead
    unlocks it). ``failures`` counts this name's failures so far.
    """

    outcome: str
    user: User | None = None
    retry_after_s: float = 0.0
    failures: int = 0

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


@dataclass(frozen=True)
class SignInState:
    """Failed sign-ins recorded for one name (what the Admin page shows)."""

    username: str
    failures: int
    last_failed_at: str | None
    locked: bool


# --------------------------------------------------------------------------- hashing

def scrypt_cost() -> int:
    """The scrypt ``n`` for new hashes: :data:`SCRYPT_N`, unless the test suite lowered it.

    >>> from store.users import scrypt_cost, SCRYPT_N, TEST_COST_ENV
    >>> import os
    >>> scrypt_cost() == int(os.environ.get(TEST_COST_ENV) or SCRYPT_N)
    True
    """
    raw = os.environ.get(TEST_COST_ENV, "").strip()
    if not raw:
        return SCRYPT_N
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 2 or n & (n - 1) or n > _MAX_N:
        raise InvalidValueError(f"{TEST_COST_ENV} must be a power of two between 2 and {_MAX_N}")
    return n


def _maxmem(n: int, r: int, p: int) -> int:
    """Memory scrypt needs (OpenSSL refuses above ``maxmem``, 32 MiB by default)."""
    return 128 * r * (n + p + 2) + 2 ** 20


def hash_password(password: str, *, n: int | None = None, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    n = scrypt_cost() if n is None else n
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32, maxmem=_maxmem(n, r, p))
    return f"scrypt${n}${r}${p}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt" or not 2 <= int(n) <= _MAX_N or int(r) > 64 or int(p) > 16:
            return False
        digest = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt_hex), n=int(n), r=int(r),
                                p=int(p), dklen=len(digest_hex) // 2, maxmem=_maxmem(int(n), int(r), int(p)))
    except (ValueError, TypeError, MemoryError):
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


def needs_rehash(stored: str) -> bool:
    """Whether a stored hash was made at a lower cost than new hashes get (rehash on sign-in)."""
    try:
        scheme, n, r, p, _salt, _digest = stored.split("$")
        return scheme != "scrypt" or int(n) < scrypt_cost() or int(r) < SCRYPT_R or int(p) < SCRYPT_P
    except ValueError:
        return True


@functools.lru_cache(maxsize=4)
def _dummy_hash(n: int) -> str:
    """Checked against for unknown users, so "no such user" takes as long as "wrong password"."""
    return hash_password("not a password", n=n)


# --------------------------------------------------------------------------- password policy

@functools.lru_cache(maxsize=1)
def _common_passwords() -> frozenset[str]:
    lines = COMMON_PASSWORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().casefold() for line in lines if line.strip() and not line.startswith("#"))


def _forms(password: str) -> set[str]:
    """The password as typed (case-folded), without spaces, and its letters alone (so
    ``Password2024!`` is caught as ``password``)."""
    folded = password.casefold().strip()
    letters = "".join(ch for ch in folded if ch.isalpha())
    forms = {folded, re.sub(r"\s+", "", folded)}
    if len(letters) >= 4:
        forms.add(letters)
    return forms


def password_problem(password: str, username: str | None = None) -> str | None:
    """Why ``password`` is not acceptable, in words (never quoting it), or ``None`` if it is.

    >>> import store
    >>> print(store.password_problem("correct horse battery"))
    None
    >>> store.password_problem("abc")
    'password too short: at least 12 characters (a passphrase of several words is easiest)'
    >>> store.password_problem("Password1234!")
    'password too common: it is one of the most used passwords; choose another'
    >>> store.password_problem("anastasia1234", username="anastasia")
    'the password must not be (or be made from) the username'
    """
    if not isinstance(password, str) or not password:
        return "a password cannot be empty"
    if len(password) < MIN_PASSWORD_LENGTH:
        return (f"password too short: at least {MIN_PASSWORD_LENGTH} characters "
                "(a passphrase of several words is easiest)")
    if len(password) > MAX_PASSWORD_LENGTH:
        return f"password too long: at most {MAX_PASSWORD_LENGTH} characters"
    if len(set(password)) < MIN_DISTINCT_CHARACTERS:
        return f"password too simple: use at least {MIN_DISTINCT_CHARACTERS} different characters"
    forms = _forms(password)
    name = (username or "").strip().casefold()
    if name and (name in forms or (len(name) >= 3 and len("".join(ch for ch in password.casefold() if ch.isalpha())
                                                          .replace(name, "")) < 4)):
        return "the password must not be (or be made from) the username"
    if forms & _common_passwords():
        return "password too common: it is one of the most used passwords; choose another"
    return None


def check_password_policy(password: str, username: str | None = None) -> None:
    """Raise :class:`InvalidValueError` with :func:`password_problem`'s words, if any.

    >>> import store
    >>> store.check_password_policy("a long enough passphrase")
    >>> store.check_password_policy("qwerty123456")
    Traceback (most recent call last):
    ...
    store.errors.InvalidValueError: password too common: it is one of the most used passwords; choose another
    """
    problem = password_problem(password, username)
    if problem:
        raise InvalidValueError(problem)


@retrying
def create_user(db: Database, username: str, password: str, role: str, *, user: str | None = None) -> int:
    """Create a user with role ``annotator`` | ``reviewer`` | ``lead``; ``user`` is who created it.
    The password must pass :func:`password_problem`.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> uid = store.create_user(db, "ana", "correct horse battery", "lead", user="admin")
    >>> store.get_user(db, "ana").role
    'lead'
    >>> store.create_user(db, "ben", "correct horse battery", "admin")
    Traceback (most recent call last):
    ...
    store.errors.InvalidValueError: role must be one of annotator, reviewer, lead, not 'admin'
    >>> store.create_user(db, "ben", "abc", "annotator")
    Traceback (most recent call last):
    ...
    store.errors.InvalidValueError: password too short: at least 12 characters (a passphrase of several words is easiest)
    """
    username = (username or "").strip()
    if not username or ":" in username:
        raise InvalidValueError("a username must be non-empty and may not contain ':'")
    check_choice(role, ROLES, "role")
    check_password_policy(password, username)
    hashed = hash_password(password)
    with transaction(db):
        try:
            cur = db.execute("INSERT INTO users (username, role, password_hash, created_at) VALUES (?, ?, ?, ?)",
                             [username, role, hashed, now_iso()])
        except sqlite3.IntegrityError:
            raise DuplicateError(f"a user named {username!r} already exists") from None
        audit(db, user, "user.create", f"user:{username}", detail={"role": role})
    return int(cur.lastrowid)


@retrying
def get_user(db: Database, username: str) -> User | None:
    """The user of that name, or ``None``.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> u = store.get_user(db, "ana")
    >>> u.username, u.role, u.disabled
    ('ana', 'annotator', False)
    >>> print(store.get_user(db, "nobody"))
    None
    """
    rows = list(db.query("SELECT * FROM users WHERE username = ?", [username]))
    return _user(rows[0]) if rows else None


@retrying
def list_users(db: Database, *, include_disabled: bool = True) -> list[User]:
    """Every user (without disabled ones if ``include_disabled`` is false), by username.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ben", "correct horse battery", "reviewer")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "lead")
    >>> store.set_disabled(db, "ben")
    >>> [u.username for u in store.list_users(db)], [u.username for u in store.list_users(db, include_disabled=False)]
    (['ana', 'ben'], ['ana'])
    """
    sql = "SELECT * FROM users" + ("" if include_disabled else " WHERE disabled = 0") + " ORDER BY username"
    return [_user(r) for r in db.query(sql)]


# --------------------------------------------------------------------------- signing in

def delay_after(failures: int) -> float:
    """Seconds a name must wait after its ``failures``-th failed sign-in (0 below
    :data:`FREE_FAILURES`; locked from :data:`LOCK_AFTER` on, see :func:`sign_in_attempt`)."""
    if failures < FREE_FAILURES:
        return 0.0
    return BASE_DELAY_S * 2 ** (failures - FREE_FAILURES)


def _wait_left(failures: int, last_failed_at: str | None, now: datetime) -> float:
    last = parse_time(last_failed_at)
    if last is None:
        return 0.0
    return max(0.0, (last + timedelta(seconds=delay_after(failures)) - now).total_seconds())


@retrying
def sign_in_attempt(db: Database, username: str, password: str, *, now: datetime | None = None) -> SignInResult:
    """Check a sign-in with per-name back-off and lockout (see the module's docstring).

    Every outcome is audited without the password: ``user.login``, ``user.login_failed`` (with
    the reason and the name's failure count) or ``user.login_refused`` (throttled or locked,
    the password unchecked). A success rehashes a hash made at a lower cost.

    >>> import store
    >>> from datetime import datetime, timedelta, timezone
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> t0 = datetime(2070, 1, 2, tzinfo=timezone.utc)
    >>> [store.sign_in_attempt(db, "ana", "wrong guess", now=t0).outcome for _ in range(5)]
    ['refused', 'refused', 'refused', 'refused', 'refused']
    >>> r = store.sign_in_attempt(db, "ana", "correct horse battery", now=t0 + timedelta(seconds=10))
    >>> r.outcome, r.retry_after_s                            # even the right password waits now
    ('throttled', 20.0)
    >>> store.sign_in_attempt(db, "ana", "correct horse battery", now=t0 + timedelta(seconds=31)).user.username
    'ana'
    >>> store.sign_in_attempt(db, "nobody", "wrong guess", now=t0).outcome   # unknown names: the same answers
    'refused'
    """
    name = username if isinstance(username, str) else ""
    now = now or datetime.now(timezone.utc)
    at = now_iso(now)
    # 1. count the attempt first (under the write lock), unless the name must wait or is locked
    with transaction(db):
        row = db.execute("SELECT failures, last_failed_at FROM signin_failures WHERE username = ?", [name]).fetchone()
        failures, last = (int(row[0]), row[1]) if row else (0, None)
        if failures >= LOCK_AFTER:
            audit(db, None, "user.login_refused", f"user:{name}", detail={"reason": "locked", "failures": failures})
            return SignInResult("locked", failures=failures)
        wait = _wait_left(failures, last, now)
        if wait > 0:
            audit(db, None, "user.login_refused", f"user:{name}",
                  detail={"reason": "throttled", "failures": failures, "retry_after_s": round(wait, 1)})
            return SignInResult("throttled", retry_after_s=wait, failures=failures)
        db.execute(
            """INSERT INTO signin_failures (username, failures, last_failed_at) VALUES (?, 1, ?)
               ON CONFLICT (username) DO UPDATE SET failures = failures + 1, last_failed_at = excluded.last_failed_at""",
            [name, at])
        # forget old unlocked counts, of every name alike (locks stay until a lead lifts them)
        db.execute("DELETE FROM signin_failures WHERE last_failed_at < ? AND locked_at IS NULL",
                   [now_iso(now - FORGET_AFTER)])
    # 2. the slow part, outside any transaction
    rows = list(db.query("SELECT * FROM users WHERE username = ?", [name]))
    row_user = rows[0] if rows else None
    if row_user is None:
        verify_password(password or "", _dummy_hash(scrypt_cost()))
        good = False
    else:
        good = verify_password(password or "", row_user["password_hash"])
    new_hash = (hash_password(password) if good and not row_user["disabled"] and needs_rehash(row_user["password_hash"])
                else None)
    # 3. the outcome
    with transaction(db):
        if good and not row_user["disabled"]:
            db.execute("DELETE FROM signin_failures WHERE username = ?", [name])
            rehashed = bool(new_hash) and db.execute(
                "UPDATE users SET password_hash = ? WHERE username = ? AND password_hash = ?",
                [new_hash, name, row_user["password_hash"]]).rowcount == 1
            audit(db, name, "user.login", f"user:{name}", detail={"rehashed": True} if rehashed else None)
            return SignInResult("ok", user=_user(row_user))
        reason = "unknown user" if row_user is None else ("wrong password" if not good else "disabled")
        count = db.execute("SELECT failures FROM signin_failures WHERE username = ?", [name]).fetchone()
        failures = int(count[0]) if count else 1
        if failures >= LOCK_AFTER:
            db.execute("UPDATE signin_failures SET locked_at = COALESCE(locked_at, ?) WHERE username = ?", [at, name])
        audit(db, None, "user.login_failed", f"user:{name}", detail={"reason": reason, "failures": failures})
    if failures >= LOCK_AFTER:
        return SignInResult("locked", failures=failures)
    return SignInResult("refused", retry_after_s=delay_after(failures), failures=failures)


def authenticate(db: Database, username: str, password: str, *, now: datetime | None = None) -> User | None:
    """The user if the password matches, the account is enabled and the name is neither
    throttled nor locked, else ``None`` (:func:`sign_in_attempt` says which).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> store.authenticate(db, "ana", "correct horse battery").username
    'ana'
    >>> print(store.authenticate(db, "ana", "wrong password"))
    None
    >>> [e.action for e in store.list_audit(db, action="user.*")]
    ['user.login_failed', 'user.login', 'user.create']
    """
    return sign_in_attempt(db, username, password, now=now).user


@retrying
def sign_in_states(db: Database, *, now: datetime | None = None) -> dict[str, SignInState]:
    """Failed sign-ins of existing accounts, by username (accounts without failures are absent).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> _ = store.authenticate(db, "ana", "wrong guess")
    >>> state = store.sign_in_states(db)["ana"]
    >>> state.failures, state.locked
    (1, False)
    """
    rows = db.execute(
        """SELECT f.username, f.failures, f.last_failed_at FROM signin_failures f
           JOIN users u ON u.username = f.username ORDER BY f.username""").fetchall()
    return {name: SignInState(name, int(n), last, int(n) >= LOCK_AFTER) for name, n, last in rows}


@retrying
def unlock_user(db: Database, username: str, *, user: str | None = None) -> bool:
    """Clear an account's failed sign-ins (a lead lifting a lockout); audited as ``user.unlock``.
    Returns whether it was locked. :class:`NotFoundError` for an unknown account.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> from datetime import datetime, timedelta, timezone
    >>> t0 = datetime(2070, 1, 2, tzinfo=timezone.utc)       # an hour apart: no waiting between tries
    >>> [store.sign_in_attempt(db, "ana", "wrong guess", now=t0 + timedelta(hours=i)).outcome for i in range(10)][-2:]
    ['refused', 'locked']
    >>> store.sign_in_attempt(db, "ana", "correct horse battery", now=t0 + timedelta(days=1)).outcome
    'locked'
    >>> store.unlock_user(db, "ana", user="lea")
    True
    >>> store.sign_in_attempt(db, "ana", "correct horse battery").outcome
    'ok'
    """
    with transaction(db):
        if db.execute("SELECT 1 FROM users WHERE username = ?", [username]).fetchone() is None:
            raise NotFoundError(f"user {username!r} does not exist")
        row = db.execute("SELECT failures FROM signin_failures WHERE username = ?", [username]).fetchone()
        failures = int(row[0]) if row else 0
        db.execute("DELETE FROM signin_failures WHERE username = ?", [username])
        audit(db, user, "user.unlock", f"user:{username}",
              detail={"failures": failures, "was_locked": failures >= LOCK_AFTER})
    return failures >= LOCK_AFTER


@retrying
def set_password(db: Database, username: str, new_password: str, *, user: str | None = None) -> None:
    """Set a new password (it must pass :func:`password_problem`) and end the user's sessions.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> store.set_password(db, "ana", "staple battery horse", user="ana")
    >>> print(store.authenticate(db, "ana", "correct horse battery"))
    None
    >>> store.authenticate(db, "ana", "staple battery horse").username
    'ana'
    """
    check_password_policy(new_password, username)
    hashed = hash_password(new_password)
    with transaction(db):
        if db.execute("UPDATE users SET password_hash = ? WHERE username = ?", [hashed, username]).rowcount == 0:
            raise NotFoundError(f"user {username!r} does not exist")
        db.execute("DELETE FROM sessions WHERE username = ?", [username])
        audit(db, user, "user.password", f"user:{username}")


@retrying
def set_role(db: Database, username: str, role: str, *, user: str | None = None) -> None:
    """Change a user's role (``annotator`` | ``reviewer`` | ``lead``); ``user`` is who changed it.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> store.set_role(db, "ana", "reviewer", user="lead")
    >>> store.get_user(db, "ana").role
    'reviewer'
    """
    check_choice(role, ROLES, "role")
    with transaction(db):
        if db.execute("UPDATE users SET role = ? WHERE username = ?", [role, username]).rowcount == 0:
            raise NotFoundError(f"user {username!r} does not exist")
        audit(db, user, "user.role", f"user:{username}", detail={"role": role})


@retrying
def set_disabled(db: Database, username: str, disabled: bool = True, *, user: str | None = None) -> None:
    """Disable (or re-enable) an account; disabling ends its sessions.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> token = store.create_session(db, "ana", 3600)
    >>> store.set_disabled(db, "ana", user="lead")
    >>> store.get_user(db, "ana").disabled, store.user_for_session(db, token)
    (True, None)
    >>> store.set_disabled(db, "ana", False, user="lead")    # enabled again; the old session stays ended
    >>> print(store.user_for_session(db, token))
    None
    """
    with transaction(db):
        if db.execute("UPDATE users SET disabled = ? WHERE username = ?", [int(bool(disabled)), username]).rowcount == 0:
            raise NotFoundError(f"user {username!r} does not exist")
        if disabled:
            db.execute("DELETE FROM sessions WHERE username = ?", [username])
        audit(db, user, "user.disable" if disabled else "user.enable", f"user:{username}")


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@retrying
def create_session(db: Database, username: str, ttl_seconds: float, *, now: datetime | None = None) -> str:
    """A new random session token for ``username`` valid for ``ttl_seconds``; only its SHA-256 is
    stored. Expired sessions are purged on the way.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> token = store.create_session(db, "ana", ttl_seconds=3600)
    >>> isinstance(token, str) and len(token) > 20
    True
    >>> store.user_for_session(db, token).username
    'ana'
    """
    now = now or datetime.now(timezone.utc)
    token = secrets.token_urlsafe(32)
    with transaction(db):
        row = db.execute("SELECT disabled FROM users WHERE username = ?", [username]).fetchone()
        if row is None:
            raise NotFoundError(f"user {username!r} does not exist")
        if row[0]:
            raise InvalidValueError(f"user {username!r} is disabled")
        db.execute("DELETE FROM sessions WHERE expires_at <= ?", [now_iso(now)])
        db.execute("INSERT INTO sessions (token_hash, username, created_at, expires_at) VALUES (?, ?, ?, ?)",
                   [_token_hash(token), username, now_iso(now), now_iso(now + timedelta(seconds=ttl_seconds))])
    return token


@retrying
def user_for_session(db: Database, token: str | None, *, now: datetime | None = None) -> User | None:
    """The signed-in user for a token, or ``None`` if unknown, expired or the user is disabled.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> from datetime import datetime, timedelta, timezone
    >>> now = datetime(2070, 1, 2, tzinfo=timezone.utc)
    >>> token = store.create_session(db, "ana", 3600, now=now)
    >>> store.user_for_session(db, token, now=now).username
    'ana'
    >>> print(store.user_for_session(db, token, now=now + timedelta(hours=2)))   # expired
    None
    """
    if not token:
        return None
    rows = list(db.query(
        """SELECT u.* FROM sessions s JOIN users u ON u.username = s.username
           WHERE s.token_hash = ? AND s.expires_at > ? AND u.disabled = 0""",
        [_token_hash(token), now_iso(now)]))
    return _user(rows[0]) if rows else None


@retrying
def end_session(db: Database, token: str | None) -> None:
    """Sign out: forget the session of this token (nothing happens for an unknown one).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> token = store.create_session(db, "ana", 3600)
    >>> store.end_session(db, token)
    >>> print(store.user_for_session(db, token))
    None
    """
    if not token:
        return
    with transaction(db):
        row = db.execute("SELECT username FROM sessions WHERE token_hash = ?", [_token_hash(token)]).fetchone()
        if row is not None:
            db.execute("DELETE FROM sessions WHERE token_hash = ?", [_token_hash(token)])
            audit(db, row[0], "user.logout", f"user:{row[0]}")


def _user(r: dict) -> User:
    return User(id=r["id"], username=r["username"], role=r["role"], created_at=r["created_at"],
                disabled=bool(r["disabled"]))
