"""Accounts and sign-in sessions: who may use the workbench, in which role.

Changes take the acting user (a lead on the Admin page, checked, or the command line's
``cli:<login>``, see :func:`services.access.actor`); a lead can never lock themselves out
(:func:`services.access.check_user_change`). Sessions are server-side rows whose random token
the browser keeps; they end on sign-out, expiry, a password reset or when the account is
disabled.
"""
from __future__ import annotations

from sqlite_utils import Database

import store
from services import access

ROLES = store.ROLES


def list_users(db: Database) -> list[store.User]:
    return store.list_users(db)


def get_user(db: Database, username: str) -> store.User | None:
    return store.get_user(db, username)


def has_lead(db: Database) -> bool:
    """Whether an enabled lead account exists (nobody can manage the workbench without one)."""
    return any(u.role == "lead" and not u.disabled for u in store.list_users(db))


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


# --------------------------------------------------------------------------- sessions

def sign_in(db: Database, username: str, password: str, ttl_seconds: float) -> tuple[store.User, str] | None:
    """The user and a new session token, or ``None`` for a wrong name, password or a disabled account."""
    user = store.authenticate(db, username, password)
    if user is None:
        return None
    return user, store.create_session(db, user.username, ttl_seconds)


def user_for_session(db: Database, token: str | None) -> store.User | None:
    """The live session's user (expiry, disabled accounts, password resets take effect at once)."""
    return store.user_for_session(db, token)


def sign_out(db: Database, token: str | None) -> None:
    store.end_session(db, token)
