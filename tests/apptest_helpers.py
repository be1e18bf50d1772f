"""Helpers for Streamlit ``AppTest`` tests of the workbench pages (reusable by any page's tests).

Typical use::

    from apptest_helpers import demo_app, new_app, sign_in, open_page  # demo_app is a fixture

    def test_something(demo_app):
        at = new_app(demo_app)
        sign_in(at, demo_app, "ana")              # creates the user if needed, puts a session token in
        open_page(at, "annotate")                 # runs the shell, then pages/annotate.py through it
        assert not errors(at)

* ``demo_app`` (fixture): a fresh database with the demo project (30 documents; users ana and
  ben - annotators - and rita - reviewer - plus ``lea``, a lead) and ``$WORKBENCH_DB`` pointing
  at it; ``$WORKBENCH_APPTEST=1`` enables the span editor's injection point (see
  ``dashboard.editor``; ``tests/editor_helpers.py`` drives it).
* :func:`rendered_text` is everything the page sent (all elements, as UTF-8 text) for checks
  that document text was *not* shown; never print it.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
from google.protobuf import text_encoding, text_format
from streamlit.testing.v1 import AppTest

import store
from dashboard.components import TEST_ENV
from dashboard.state import TOKEN_KEY

REPO = Path(__file__).resolve().parents[1]
APP_PATH = REPO / "streamlit_app.py"
PASSWORD = "a long test password"
LEAD = "lea"
RUN_TIMEOUT = 60


@dataclass(frozen=True)
class DemoApp:
    db_path: Path
    project_id: int

    def db(self):
        """A connection for the test's own thread (the app uses its own per script thread)."""
        return store.connect(self.db_path)


def make_demo_db(path: Path, *, n_docs: int = 30, seed: int = 7) -> DemoApp:
    from services.demo import create_demo_project

    db = store.connect(path)
    pid = create_demo_project(db, n_docs=n_docs, seed=seed)
    store.create_user(db, LEAD, PASSWORD, "lead")
    db.close()
    return DemoApp(db_path=path, project_id=pid)


@pytest.fixture
def demo_app(tmp_path, monkeypatch) -> Iterator[DemoApp]:
    app = make_demo_db(tmp_path / "workbench.db")
    monkeypatch.setenv("WORKBENCH_DB", str(app.db_path))
    monkeypatch.setenv(TEST_ENV, "1")
    yield app


def new_app(app: DemoApp | None = None) -> AppTest:
    """An AppTest of ``streamlit_app.py`` (not run yet)."""
    return AppTest.from_file(str(APP_PATH), default_timeout=RUN_TIMEOUT)


def ensure_user(db, username: str, role: str) -> None:
    if store.get_user(db, username) is None:
        store.create_user(db, username, PASSWORD, role)


def sign_in(at: AppTest, app: DemoApp, username: str, role: str = "annotator") -> str:
    """Sign ``username`` in (created with ``role`` if missing) the way the sign-in form does:
    a session token in the session state. Returns the token."""
    db = app.db()
    try:
        ensure_user(db, username, role)
        token = store.create_session(db, username, 3600)
    finally:
        db.close()
    at.session_state[TOKEN_KEY] = token
    return token


def open_page(at: AppTest, name: str) -> AppTest:
    """Run ``pages/<name>.py`` through the shell (first run registers the navigation)."""
    at.run()
    at.switch_page(f"pages/{name}.py")
    return at.run()


def errors(at: AppTest) -> list[str]:
    """Messages of st.error elements and uncaught exceptions (safe: our messages hold no text)."""
    return [e.value for e in at.error] + [e.value for e in at.exception]


def _walk(node: Any) -> Iterator[Any]:
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _walk(child)


def rendered_text(at: AppTest) -> str:
    """Everything the last run rendered, as UTF-8 text (for absence checks; never print it)."""
    parts = []
    for node in _walk(at._tree):  # noqa: SLF001
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(text_format.MessageToString(proto, as_utf8=True))
    return "\n".join(parts)


def shows(at: AppTest, snippet: str) -> bool:
    """Whether ``snippet`` appears in what the page rendered (raw or HTML-escaped)."""
    page = rendered_text(at)
    variants = {snippet, html.escape(snippet), text_encoding.CEscape(snippet, True),
                text_encoding.CEscape(html.escape(snippet), True)}
    return any(v in page for v in variants)
