"""Sign-in, sign-out, the first lead account, and the sidebar with who is signed in.

A successful sign-in (:func:`services.users.sign_in`, scrypt) creates a server-side session
whose random token is kept in ``st.session_state`` - never in the URL or a cookie - and checked
on every script run (``dashboard.state.current_user``). Sessions end
after ``WORKBENCH_SESSION_HOURS`` (default 8), on sign-out, on a password reset and when the
account is disabled.

The first lead account is made on the command line (``python -m pipeline init-project`` or
``python -m pipeline users add``), never from the browser: whoever reached the page first would
otherwise become the lead. While no enabled lead exists the sign-in page says how to make one.
"""
from __future__ import annotations

import time

import streamlit as st
from sqlite_utils import Database

from dashboard import state
from dashboard.components import guard
from services import projects, session, users

FAILED_KEY = "wb.failed_signins"
LAST_USER_KEY = "wb.last_user"
MAX_FREE_FAILURES = 5


def signed_in_user(db: Database) -> session.User | None:
    """The user of this browser session's token, or ``None`` (token dropped if it is dead)."""
    tok = state.token()
    if not tok:
        return None
    user = session.user_for_session(db, tok)
    if user is None:
        st.session_state.pop(state.TOKEN_KEY, None)
    return user


def start_session(user: session.User, tok: str) -> None:
    """Keep the new session's token; a different user than the last one in this browser
    session starts from a clean session state (no one else's unsaved work)."""
    if st.session_state.get(LAST_USER_KEY) not in (None, user.username):
        for k in list(st.session_state.keys()):
            del st.session_state[k]
    st.session_state[state.TOKEN_KEY] = tok
    st.session_state[LAST_USER_KEY] = user.username
    st.session_state[FAILED_KEY] = 0


def sign_out(db: Database) -> None:
    session.sign_out(db, state.token())
    for k in list(st.session_state.keys()):
        del st.session_state[k]


def sign_in_page() -> None:
    """The only page shown to someone who is not signed in."""
    db = state.get_db()
    st.title("De-identification workbench")
    if not users.has_lead(db):
        _no_lead_notice()  # sign-in stays possible for other accounts
    with st.form("signin", clear_on_submit=False):
        username = st.text_input("Username", key="signin.username")
        password = st.text_input("Password", type="password", key="signin.password")
        submitted = st.form_submit_button("Sign in", key="signin.submit")
    if submitted:
        with guard():
            failures = int(st.session_state.get(FAILED_KEY, 0))
            if failures >= MAX_FREE_FAILURES:
                time.sleep(min(10.0, 0.5 * (failures - MAX_FREE_FAILURES + 1)))  # slow down guessing
            signed = session.sign_in(db, (username or "").strip(), password or "", state.session_ttl_seconds())
            if signed is None:
                st.session_state[FAILED_KEY] = failures + 1
                st.error("Wrong username or password, or the account is disabled.")
                return
            start_session(*signed)
            st.rerun()


def _no_lead_notice() -> None:
    st.warning("No lead account exists yet, so nobody can manage this workbench. On the machine that runs "
               "it, create one with `python -m pipeline users add <name> --role lead` (or run "
               "`python -m pipeline init-project`), then sign in here.")


PROJECT_SELECT_KEY = "wb.project_select"


def _project_chosen() -> None:
    state.set_current_project(int(st.session_state[PROJECT_SELECT_KEY]))


def sidebar(db: Database, user: session.User) -> None:
    """Who is signed in, the project switcher, and sign-out."""
    st.sidebar.markdown(f"**{user.username}** · {user.role}")
    found = projects.list_projects(db)
    if found:
        current = state.current_project(db)
        ids = [p.id for p in found]
        names = {p.id: p.name for p in found}
        # the widget follows the current project (which a page may change, e.g. after creating one)
        st.session_state[PROJECT_SELECT_KEY] = current.id if current is not None and current.id in ids else ids[0]
        st.sidebar.selectbox("Project", ids, format_func=lambda i: names.get(i, str(i)), key=PROJECT_SELECT_KEY,
                             on_change=_project_chosen)
    if st.sidebar.button("Sign out", key="auth.signout", icon=":material/logout:"):
        sign_out(db)
        st.rerun()
