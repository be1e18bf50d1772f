"""Accounts (username, role, enabled or not) and their sessions.

What is left of the original module once password hashing and policy (:mod:`store.passwords`)
and sign-in throttling (:mod:`store.signin`) moved out: the ``users`` and ``sessions`` tables.
Changing a password or disabling an account ends the account's sessions, so both live here.

**Sessions.** Session tokens are random and only their SHA-256 is stored, so a copy of the
database (a backup) does not hold usable tokens. A session that ends (sign-out, password reset,
disabled account) is also recorded beside the database (:mod:`store.session_ends`), so restoring
a backup that still holds its row does not bring it back.
"""
from __future__ import annotations

import hashlib
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlite_utils import Database

from store.audit import audit
from store.db import check_choice, now_iso, retrying, transaction
from store.errors import DuplicateError, InvalidValueError, NotFoundError
from store.passwords import check_password_policy, hash_password
from store.session_ends import ended_hashes, record_ended

ROLES = ("annotator", "reviewer", "lead")
#: The longest username (accounts, and any name typed at sign-in: longer input is refused).
MAX_USERNAME_LENGTH = 64


@dataclass(frozen=True)
class User:
    id: int
    username: str
    role: str
    created_at: str
    disabled: bool = False


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
    if len(username) > MAX_USERNAME_LENGTH:
        raise InvalidValueError(f"a username has at most {MAX_USERNAME_LENGTH} characters")
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
        _end_sessions_of(db, username)
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
            _end_sessions_of(db, username)
        audit(db, user, "user.disable" if disabled else "user.enable", f"user:{username}")


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _end_sessions_of(db: Database, username: str) -> None:
    """Delete ``username``'s sessions, recorded beside the database first (in the caller's
    transaction)."""
    rows = db.execute("SELECT token_hash, expires_at FROM sessions WHERE username = ?", [username]).fetchall()
    record_ended(db, [(h, exp) for h, exp in rows])
    db.execute("DELETE FROM sessions WHERE username = ?", [username])


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
    """The signed-in user for a token, or ``None`` if unknown, expired, ended (also when a
    restored database brought its row back) or the user is disabled.

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
    if not token or _token_hash(token) in ended_hashes(db):
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
        row = db.execute("SELECT username, expires_at FROM sessions WHERE token_hash = ?",
                         [_token_hash(token)]).fetchone()
        if row is not None:
            record_ended(db, [(_token_hash(token), row[1])])
            db.execute("DELETE FROM sessions WHERE token_hash = ?", [_token_hash(token)])
            audit(db, row[0], "user.logout", f"user:{row[0]}")


def _user(r: dict) -> User:
    return User(id=r["id"], username=r["username"], role=r["role"], created_at=r["created_at"],
                disabled=bool(r["disabled"]))
