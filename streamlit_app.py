"""The workbench app: sign-in, navigation by role, and an error boundary around every page.

Run with ``./workbench start`` (or ``streamlit run workbench_app.py``: this script plus the route that
sets the session cookie ``HttpOnly``); the database is
:func:`services.settings.db_path` (``$WORKBENCH_DB`` overrides).

Writing a page: put ``pages/<name>.py`` in ``dashboard.state.PAGES`` (train, deidentify, metrics
and risk are already listed and appear once their file exists) and start it with::

    from dashboard import state
    ctx = state.page_context("<action>")   # checks the session and the role, on the server
    db, user, project = ctx.db, ctx.user, ctx.project

Pages call :mod:`services` (which check the role again on the server and write through the
store) and render; they never import ``store``. Raise ``pipeline.errors`` types for problems the
user should read; anything else is shown as "Something went wrong (error id ...)". Keep pages
thin: logic goes in ``pipeline/`` (pure), ``services/`` (use-cases) or ``dashboard/``.
"""
from __future__ import annotations

import streamlit as st

from dashboard import auth, session_cookie, state
from dashboard.components import guard, report_error
from pipeline.durable import use_private_umask
from services import jobs, session
from services.runtime import go_offline


@st.cache_resource(show_spinner=False)
def _startup(db_path: str) -> bool:
    """Once per server process and database: fail jobs whose worker died while we were down."""
    jobs.fail_stale_jobs(session.thread_db(db_path))
    return True


def main() -> None:
    go_offline()          # the app loads models in-process (and its jobs inherit this): never download
    use_private_umask()   # files the app and the jobs it starts write are owner-only
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
    session_cookie.flush()      # a sign-in or sign-out of the previous run queued a cookie change
    if user is None:
        # every page's address shows the sign-in form (no "page not found"), and the address -
        # with its query, e.g. ?doc=12 - is still there once the rerun after sign-in opens it
        sign_in = [st.Page(auth.sign_in_page, title="Sign in", icon=":material/login:", url_path="sign-in",
                           default=True)]
        sign_in += [st.Page(auth.sign_in_page, title=spec.title, url_path=spec.url_path) for spec in state.PAGES]
        page = st.navigation(sign_in, position="hidden")
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
