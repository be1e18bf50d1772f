"""What the app needs around every page run: this thread's connection, the signed-in user of a
session token, and the current project.

Streamlit runs each browser session's script in a thread of its own, and a SQLite connection
may only be used by the thread that opened it, so :func:`thread_db` keeps one per thread.
"""
from __future__ import annotations

import os

from sqlite_utils import Database

import store
from services.users import sign_in, sign_out, user_for_session

User = store.User
Project = store.Project

__all__ = ["Project", "User", "project_or_first", "sign_in", "sign_out", "thread_db", "user_for_session"]


def thread_db(path: str | os.PathLike) -> Database:
    """This thread's cached connection to the database at ``path``."""
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
