"""How a page gets the database, the signed-in user and the current project.

Every page (``pages/*.py``) starts the same way::

    from dashboard import state

    ctx = state.page_context("train")         # an action of services.access.ACTIONS
    db, user, project = ctx.db, ctx.user, ctx.project
    settings = ctx.settings                   # services.settings.ProjectSettings

:func:`page_context` checks, on the server, every time the page runs:

* the session token in ``st.session_state[TOKEN_KEY]`` belongs to a live session (sessions
  expire after ``WORKBENCH_SESSION_HOURS``, default 8 h) - else :class:`PermissionDenied`;
* the user's role allows the page's action (:func:`services.access.require`) - else
  :class:`PermissionDenied`;
* a project exists; the current one is the project chosen in the sidebar
  (``st.session_state[PROJECT_KEY]``), else the first one.

The navigation (``streamlit_app.py``) also lists only the pages of the user's role, but a page
never relies on that. Errors raised by a page are caught by the shell: messages of
:mod:`pipeline.errors` types are shown as they are, anything else as "Something went wrong
(error id ...)" with a log line naming the type only (see ``dashboard.components.guard``).
Per-document checks (annotators see only their own documents and layers) are in
:mod:`services.access`: ``open_document``, ``read_layer_for``, ``save_layer_as``, ``visible_layers``.

The database is :func:`services.settings.db_path` (``$WORKBENCH_DB`` overrides), opened once per
thread (Streamlit runs each session's script in its own thread) with :func:`services.session.thread_db`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from sqlite_utils import Database

from pipeline.errors import PermissionDenied, WorkbenchError
from services import access, session
from services.maintenance import data_version as _data_version
from services.settings import ProjectSettings
from services.settings import db_path as _db_path

TOKEN_KEY = "wb.token"
PROJECT_KEY = "wb.project_id"
DEFAULT_SESSION_HOURS = 8.0


class NoProjectError(WorkbenchError):
    """There is no project yet (shown as information, not as an error)."""

    show_as = "info"


# --------------------------------------------------------------------------- pages

@dataclass(frozen=True)
class PageSpec:
    """One page of the navigation. ``url_path`` differs from the file name on purpose: Streamlit
    runs ``pages/<name>.py`` by itself (without this shell) for a URL equal to a file name on
    the first run of a server process (its old pages-folder mode); distinct URLs never match."""

    path: str          # relative to the repository root (where streamlit_app.py is)
    title: str
    icon: str
    url_path: str
    action: str        # what the page needs (services.access.ACTIONS)
    optional: bool = False   # registered only if the file exists


PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/home.py", "Home", ":material/home:", "overview", "view_project"),
    PageSpec("pages/annotate.py", "Annotate", ":material/edit_note:", "annotation", "annotate"),
    PageSpec("pages/review.py", "Review", ":material/fact_check:", "adjudication", "review"),
    PageSpec("pages/train.py", "Train", ":material/model_training:", "training", "train", optional=True),
    PageSpec("pages/deidentify.py", "De-identify", ":material/visibility_off:", "deidentification", "deidentify",
             optional=True),
    PageSpec("pages/metrics.py", "Metrics", ":material/monitoring:", "quality", "view_metrics", optional=True),
    PageSpec("pages/risk.py", "Risk", ":material/warning:", "risk-triage", "view_risk", optional=True),
    PageSpec("pages/admin.py", "Admin", ":material/admin_panel_settings:", "administration", "admin"),
)
REPO_ROOT = Path(__file__).resolve().parents[1]


def page_spec(name: str) -> PageSpec:
    """The spec of ``pages/<name>.py`` (``name`` like ``"annotate"``)."""
    for p in PAGES:
        if Path(p.path).stem == name:
            return p
    raise KeyError(name)


def available_pages(user: session.User | None) -> list[PageSpec]:
    """Pages the user's role may open whose file exists, in menu order."""
    return [p for p in PAGES if access.can(user, p.action) and (REPO_ROOT / p.path).is_file()]


def session_ttl_seconds() -> float:
    """Session lifetime: ``$WORKBENCH_SESSION_HOURS`` (default 8 hours)."""
    try:
        hours = float(os.environ.get("WORKBENCH_SESSION_HOURS", DEFAULT_SESSION_HOURS))
    except ValueError:
        hours = DEFAULT_SESSION_HOURS
    return max(60.0, hours * 3600.0)


# --------------------------------------------------------------------------- db, user, project

def db_path() -> Path:
    return _db_path()


def get_db() -> Database:
    """This thread's connection to the app's database."""
    return session.thread_db(db_path())


def data_version(db: Database) -> int:
    """Changes whenever anything in the store does (the newest audit row): a cache key."""
    return _data_version(db)


def token() -> str | None:
    return st.session_state.get(TOKEN_KEY)


def current_user(db: Database | None = None) -> session.User:
    """The signed-in user, checked against the sessions table on every call (expiry, disabled
    accounts, password resets take effect at once). :class:`PermissionDenied` if none."""
    user = session.user_for_session(db or get_db(), token())
    if user is None:
        raise PermissionDenied("you are not signed in (or your session has ended); sign in again")
    return user


def current_project(db: Database | None = None) -> session.Project | None:
    """The project chosen in the sidebar, else the first one; ``None`` when there is none."""
    db = db or get_db()
    project = session.project_or_first(db, st.session_state.get(PROJECT_KEY))
    if project is None or project.id != st.session_state.get(PROJECT_KEY):
        st.session_state.pop(PROJECT_KEY, None)
    return project


def set_current_project(project_id: int) -> None:
    st.session_state[PROJECT_KEY] = int(project_id)


@dataclass(frozen=True)
class PageContext:
    db: Database
    user: session.User
    project: session.Project
    settings: ProjectSettings


def page_context(action: str, *, need_project: bool = True) -> PageContext:
    """Check sign-in and ``action`` for the page and return db, user, project and settings.
    With ``need_project=False`` (the Admin page, which can create the first project)
    ``project`` may be ``None``."""
    db = get_db()
    user = access.require(current_user(db), action)
    project = current_project(db)
    if project is None and need_project:
        raise NoProjectError("there is no project yet: a lead creates one on the Admin page "
                             "or with `python -m pipeline init-project`")
    settings = ProjectSettings.from_settings(project.settings if project else None)
    return PageContext(db=db, user=user, project=project, settings=settings)  # type: ignore[arg-type]
