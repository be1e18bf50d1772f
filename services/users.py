"""Accounts and sign-in sessions: who may use the workbench, in which role.

Changes take the acting user (a lead on the Admin page, checked, or the command line's
``cli:<login>``, see :func:`services.access.actor`); a lead can never lock themselves out
(:func:`services.access.check_user_change`). Sessions are server-side rows whose random token
the browser keeps; they end on sign-out, expiry, a password reset or when the account is
disabled.

Passwords follow one policy, :func:`store.password_problem` (the store enforces it; the Admin
page and the command line show its words before asking the store). Failed sign-ins are counted
per name in the database: after :data:`store.signin.FREE_FAILURES` each try waits longer, after
:data:`store.LOCK_AFTER` the name is locked until a lead unlocks it (:func:`unlock`).
"""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from sqlite_utils import Database

import store
from pipeline.errors import WorkbenchError
from services import access
from services.settings import db_path_of, project_secret

ROLES = store.ROLES
PASSWORD_RULES = store.PASSWORD_RULES
LOCK_AFTER = store.LOCK_AFTER
MAX_USERNAME_LENGTH = store.MAX_USERNAME_LENGTH


@dataclass(frozen=True)
class SignIn:
    """What a sign-in attempt gave: ``user`` and ``token`` when ``outcome`` is ``ok``; otherwise
    ``refused`` (one answer for a wrong name, a wrong password and a disabled account),
    ``throttled`` (wait ``retry_after_s`` seconds) or ``locked`` (until a lead unlocks it). The
    same answers come for names that are not accounts, so they never tell which ones exist."""

    outcome: str
    user: store.User | None = None
    token: str | None = None
    retry_after_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.outcome == "ok" and self.token is not None


def list_users(db: Database) -> list[store.User]:
    return store.list_users(db)


def get_user(db: Database, username: str) -> store.User | None:
    return store.get_user(db, username)


def has_lead(db: Database) -> bool:
    """Whether an enabled lead account exists (nobody can manage the workbench without one)."""
    return any(u.role == "lead" and not u.disabled for u in store.list_users(db))


def password_problem(password: str, username: str | None = None) -> str | None:
    """Why a password would be refused, in words (never quoting it), or ``None``."""
    return store.password_problem(password, username)


def check_password(password: str, username: str | None = None) -> None:
    """Raise the store's :class:`store.InvalidValueError` when the policy refuses ``password``."""
    store.check_password_policy(password, username)


def create_user(db: Database, actor: store.User | str | None, username: str, password: str, role: str) -> int:
    return store.create_user(db, username, password, role, user=access.actor(actor, "manage_users"))


def set_role(db: Database, actor: store.User | str | None, username: str, role: str) -> None:
    if isinstance(actor, store.User):
        access.check_user_change(actor, username, role=role)
    store.set_role(db, username, role, user=access.actor(actor, "manage_users"))


def set_password(db: Database, actor: store.User | str | None, username: str, password: str) -> None:
    """A new password for ``username``; their sessions end."""
    store.set_password(db, username, password, user=access.actor(actor, "manage_users"))


def set_disabled(db: Database, actor: store.User | str | None, username: str, disabled: bool) -> None:
    """Disable (ending their sessions) or re-enable an account."""
    if isinstance(actor, store.User):
        access.check_user_change(actor, username, disable=disabled)
    store.set_disabled(db, username, disabled, user=access.actor(actor, "manage_users"))


def unlock(db: Database, actor: store.User | str | None, username: str) -> bool:
    """Lift a lockout (and forget the failed sign-ins) of ``username`` (leads; audited).
    Returns whether the account was locked."""
    return store.unlock_user(db, username, user=access.actor(actor, "manage_users"))


def sign_in_states(db: Database) -> dict[str, store.SignInState]:
    """Accounts with failed sign-ins (count, locked or not), for a lead's list of users."""
    return store.sign_in_states(db)


def name_key(db: Database) -> bytes | None:
    """The key that hashes sign-in names that are not accounts (derived from the installation's
    secret, so the app and the command line count the same wrong name together); ``None`` for a
    database without a file (the store then uses a key of this process)."""
    try:
        secret = project_secret(db_path_of(db))
    except WorkbenchError:
        return None
    return hmac.new(secret, b"workbench sign-in names v1", hashlib.sha256).digest()


# --------------------------------------------------------------------------- sessions

def sign_in(db: Database, username: str, password: str, ttl_seconds: float) -> SignIn:
    """Check the name and password (with the per-name back-off and lockout) and, when they are
    right, start a session."""
    result = store.sign_in_attempt(db, username, password, name_key=name_key(db))
    if result.user is None:
        return SignIn(result.outcome, retry_after_s=result.retry_after_s)
    return SignIn("ok", user=result.user, token=store.create_session(db, result.user.username, ttl_seconds))


def user_for_session(db: Database, token: str | None) -> store.User | None:
    """The live session's user (expiry, disabled accounts, password resets take effect at once)."""
    return store.user_for_session(db, token)


def sign_out(db: Database, token: str | None) -> None:
    store.end_session(db, token)


def change_own_password(db: Database, user: store.User, current: str, new: str,
                        ttl_seconds: float) -> SignIn:
    """A signed-in user changes their own password: the current one is checked like a sign-in
    (counted and slowed down the same way, so this is no side door for guessing), the new one
    must pass the policy. Every session of the user ends (other browsers are signed out) and a
    new one starts for this browser: its token is in the result."""
    check = store.sign_in_attempt(db, user.username, current, name_key=name_key(db))
    if check.user is None:
        return SignIn(check.outcome, retry_after_s=check.retry_after_s)
    store.set_password(db, user.username, new, user=user.username)
    return SignIn("ok", user=check.user, token=store.create_session(db, user.username, ttl_seconds))
