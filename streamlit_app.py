"""The workbench app: sign-in, navigation by role, and an error boundary around every page.

Run with ``./workbench start`` (or ``streamlit run streamlit_app.py``); the database is
``store.default_db_path()`` (``$WORKBENCH_DB`` overrides).

Writing a page: put ``pages/<name>.py`` in ``dashboard.state.PAGES`` (train, deidentify, metrics
and risk are already listed and appear once their file exists) and start it with::

    from dashboard import state
    ctx = state.page_context("<action>")   # checks the session and the role, on the server
    db, user, project = ctx.db, ctx.user, ctx.project

Per-document checks are in ``store.access``. Raise ``pipeline.errors`` types for problems the
user should read; anything else is shown as "Something went wrong (error id ...)". Keep pages
thin: logic goes in ``pipeline/``, ``store/`` or ``dashboard/components.py``.
"""
from __future__ import annotations

import streamlit as st

import store
from dashboard import auth, state
from dashboard.components import guard, report_error

STALE_JOB_SECONDS = 60.0


@st.cache_resource(show_spinner=False)
def _startup(db_path: str) -> bool:
    """Once per server process and database: fail jobs whose worker died while we were down."""
    store.mark_stale_jobs_failed(store.thread_db(db_path), STALE_JOB_SECONDS)
    return True


def main() -> None:
    st.set_page_config(page_title="De-identification workbench", page_icon=":material/shield_person:",
                       layout="wide")
    try:
        db = state.get_db()
        _startup(str(state.db_path()))
        user = auth.signed_in_user(db)
    except Exception as e:  # noqa: BLE001 - e.g. an unreadable database file: say so, no traceback
        report_error(e)
        st.stop()
        return
    if user is None:
        page = st.navigation([st.Page(auth.sign_in_page, title="Sign in", icon=":material/login:",
                                      url_path="sign-in", default=True)], position="hidden")
        with guard():
            page.run()
        return
    specs = state.available_pages(user)
    pages = [st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.url_path, default=(i == 0))
             for i, spec in enumerate(specs)]
    with guard():
        auth.sidebar(db, user)
    page = st.navigation(pages)
    with guard():
        page.run()


main()
