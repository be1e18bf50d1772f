"""What the app needs around every page run: this thread's connection, the signed-in user of a
session token, the session cookie, and the current project.

Streamlit runs each browser session's script in a thread of its own, and a SQLite connection
may only be used by the thread that opened it, so :func:`thread_db` keeps one per thread.

Sessions survive a reload, a new tab and a deep link through a cookie: a browser session's
own memory (``st.session_state``) dies with its websocket. The cookie carries the server-side
session token with its expiry, signed with a key derived from the installation's secret
(:func:`cookie_for` / :func:`token_from_cookie`); the server's ``sessions`` row stays the
authority, so signing out, a password reset or a disabled account end the cookie's use at once,
and a cookie that was altered, is expired, or belongs to another installation is ignored. It is
never put in a URL, and page scripts cannot read it (``HttpOnly``, see
:mod:`dashboard.session_cookie`).

Cookies ignore ports, so a browser sends it to every server on the same host. Two things keep it
to this server: its name is the installation's and the port's own (:func:`cookie_name`, so two
workbenches side by side never overwrite or read each other's), and the signature covers the
port this server listens on, so the value replayed to another server of the same installation
(another port) or of another installation (another key) is refused. A session ended here is also
refused after a restore brings its row back (:mod:`store.session_ends`).
"""
from __future__ import annotations

import hashlib
import hmac
import os
import time

from sqlite_utils import Database

import store
from services.settings import project_secret
from services.users import sign_in, sign_out, user_for_session

#: The name of the first, unbound cookie (readable by scripts); a sign-in clears it.
LEGACY_COOKIE_NAME = "wb_session"
_COOKIE_VERSION = "v2"

User = store.User
Project = store.Project

__all__ = ["LEGACY_COOKIE_NAME", "Project", "cookie_name", "User", "cookie_for", "project_or_first", "sign_in", "sign_out", "thread_db",
           "token_from_cookie", "user_for_session"]


def _cookie_key(database: str | os.PathLike) -> bytes:
    return hmac.new(project_secret(database), b"workbench session cookie " + _COOKIE_VERSION.encode(),
                    hashlib.sha256).digest()


def _signature(key: bytes, token: str, expires: int, port: int) -> str:
    return hmac.new(key, f"{token}|{expires}|{int(port)}".encode(), hashlib.sha256).hexdigest()


def cookie_name(database: str | os.PathLike, port: int) -> str:
    """The session cookie's name for this installation and port: ``wb_`` and 16 hex digits of
    a keyed hash, so it says nothing about either.

    >>> import tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "w.db"
    >>> name = cookie_name(db, 8501)
    >>> name.startswith("wb_") and len(name) == 19, name == cookie_name(db, 8501), name == cookie_name(db, 8502)
    (True, True, False)
    """
    digest = hmac.new(_cookie_key(database), f"cookie name|{int(port)}".encode(), hashlib.sha256).hexdigest()
    return f"wb_{digest[:16]}"


def cookie_for(database: str | os.PathLike, token: str, ttl_seconds: float, *, port: int,
               now: float | None = None) -> str:
    """The signed cookie value for a session token, valid for ``ttl_seconds`` at the server
    listening on ``port``.

    >>> import tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "w.db"
    >>> value = cookie_for(db, "tok123", 3600, port=8501, now=1_000_000)
    >>> token_from_cookie(db, value, port=8501, now=1_000_100), token_from_cookie(db, value, port=8501, now=1_003_601)
    ('tok123', None)
    >>> token_from_cookie(db, value.replace("tok123", "tok124"), port=8501, now=1_000_100) is None   # altered
    True
    >>> token_from_cookie(db, value, port=8502, now=1_000_100) is None                         # another port
    True
    """
    expires = int((time.time() if now is None else now) + ttl_seconds)
    return f"{_COOKIE_VERSION}.{token}.{expires}.{_signature(_cookie_key(database), token, expires, port)}"


def token_from_cookie(database: str | os.PathLike, value: str | None, *, port: int,
                      now: float | None = None) -> str | None:
    """The session token a cookie carries, if its signature holds for this installation and
    ``port`` and it has not expired."""
    if not value or not isinstance(value, str) or len(value) > 512:
        return None
    parts = value.split(".")
    if len(parts) != 4 or parts[0] != _COOKIE_VERSION or not parts[2].isdigit() or len(parts[2]) > 12:
        return None
    _, token, expires_s, sig = parts
    expires = int(expires_s)
    if expires < (time.time() if now is None else now):
        return None
    if not hmac.compare_digest(sig, _signature(_cookie_key(database), token, expires, port)):
        return None
    return token


def thread_db(path: str | os.PathLike) -> Database:
    """This thread's cached connection to the database at ``path`` (the app's long-lived one:
    the per-thread cache of :func:`store.thread_db` owns it and closes it; never close it here)."""
    return store.thread_db(path)


def project_or_first(db: Database, project_id: int | None) -> store.Project | None:
    """Project ``project_id`` if it exists, else the first project; ``None`` when there is none."""
    if project_id is not None:
        try:
            return store.get_project(db, int(project_id))
        except (store.NotFoundError, TypeError, ValueError):
            pass
    projects = store.list_projects(db)
    return projects[0] if projects else None
