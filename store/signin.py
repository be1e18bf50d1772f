"""Signing in: per-name back-off and lockout of failed sign-ins, and a lead lifting a lockout.

Split out of :mod:`store.users` because throttling has its own table (``signin_failures``) and
rules; accounts (:mod:`store.users`) and password checks (:mod:`store.passwords`) know nothing
of it.

**Throttling.** Failed sign-ins are counted per name typed in the ``signin_failures`` table, so
a new browser session, another tab or a script gets no fresh start. After
:data:`FREE_FAILURES` failures each further try must wait (30 s, doubling with every failure:
30, 60, 120, 240, 480 s); after :data:`LOCK_AFTER` failures the name is locked until a lead
unlocks it (:func:`unlock_user`). A success clears the count; a count left alone for
:data:`FORGET_AFTER` without a lock is forgotten. Names that are not accounts are counted,
delayed, locked and forgotten the same way, so no answer tells which accounts exist. The
attempt is counted *before* the (slow) password check, so parallel guesses cannot slip through
one window.

**What is kept of a typed name.** A name that is not an account is never stored as typed (it may
be a password typed into the wrong box): its failure count and its audit rows use
``unknown:`` and a keyed hash of it (:func:`recorded_name`, keyed with a key derived from the
installation's secret, which the service passes in), so the same wrong name is still counted
and locked, and nobody holding the database can read it or test guesses against it. Names
longer than :data:`MAX_USERNAME_LENGTH` are refused in one line before anything is stored.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlite_utils import Database

from store.audit import audit
from store.db import now_iso, parse_time, retrying, transaction
from store.errors import InvalidValueError, NotFoundError
from store.passwords import _dummy_hash, hash_password, needs_rehash, scrypt_cost, verify_password
from store.users import MAX_USERNAME_LENGTH, User, _user

FREE_FAILURES = 5          # failed sign-ins of one name before any delay
LOCK_AFTER = 10            # failed sign-ins that lock the name until a lead unlocks it
BASE_DELAY_S = 30.0        # the wait after FREE_FAILURES failures, doubling with each further one
FORGET_AFTER = timedelta(days=30)   # an unlocked count with no failure for this long is forgotten
UNKNOWN_PREFIX = "unknown:"         # recorded names of non-accounts (":" is never in a username)
#: Used when a caller passes no key (a database without a file, doctests): hashes then differ
#: from one process to the next, so the service always passes the installation's key.
_PROCESS_KEY = secrets.token_bytes(32)


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


def recorded_name(db: Database, name: str, key: bytes | None) -> str:
    """The name as the failure count and the audit log keep it: an account's name as it is,
    anything else as ``unknown:`` and 24 hex digits of a keyed hash.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "annotator")
    >>> recorded_name(db, "ana", b"k" * 32), recorded_name(db, "my password 123", b"k" * 32)[:8]
    ('ana', 'unknown:')
    >>> recorded_name(db, "x", b"k" * 32) == recorded_name(db, "x", b"k" * 32) != recorded_name(db, "x", b"j" * 32)
    True
    """
    if db.execute("SELECT 1 FROM users WHERE username = ?", [name]).fetchone() is not None:
        return name
    digest = hmac.new(key or _PROCESS_KEY, b"sign-in name|" + name.encode("utf-8", "surrogatepass"),
                      hashlib.sha256).hexdigest()
    return UNKNOWN_PREFIX + digest[:24]


@retrying
def sign_in_attempt(db: Database, username: str, password: str, *, now: datetime | None = None,
                    name_key: bytes | None = None) -> SignInResult:
    """Check a sign-in with per-name back-off and lockout (see the module's docstring).

    Every outcome is audited without the password: ``user.login``, ``user.login_failed`` (with
    the reason and the name's failure count) or ``user.login_refused`` (throttled or locked,
    the password unchecked). A success rehashes a hash made at a lower cost. A name that is not
    an account is kept only as :func:`recorded_name` (keyed with ``name_key``); one longer than
    :data:`MAX_USERNAME_LENGTH` raises :class:`InvalidValueError` and nothing is stored.

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
    if len(name) > MAX_USERNAME_LENGTH:
        raise InvalidValueError(f"a username has at most {MAX_USERNAME_LENGTH} characters")
    now = now or datetime.now(timezone.utc)
    at = now_iso(now)
    typed, name = name, recorded_name(db, name, name_key)
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
    rows = list(db.query("SELECT * FROM users WHERE username = ?", [typed]))
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
