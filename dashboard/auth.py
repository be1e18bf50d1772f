"""Sign-in, sign-out, the first lead account, and the sidebar with who is signed in.

A successful sign-in (:func:`services.users.sign_in`, scrypt) creates a server-side session
whose random token is kept in ``st.session_state`` and, signed and with its expiry, in an
``HttpOnly`` cookie bound to this installation and port (:mod:`dashboard.session_cookie`, never
in the URL), so a reload, a new tab or a deep link find the session again; the token is checked on every script run
(``dashboard.state.current_user``). Sessions end after ``WORKBENCH_SESSION_HOURS`` (default 8),
on sign-out, on a password reset and when the account is disabled.

Guessing is slowed down in the database, per name typed, not in this browser session (a new
session, tab or script would start afresh): after a few failures each try must wait longer,
after more the name is locked until a lead unlocks it. The page says so in words that are the
same for names that are not accounts, so it never tells whether an account exists, and says how
the only lead, once locked, is unlocked: on the command line (``users unlock``), since no lead
can reach the Admin page then.

The first lead account is made on the command line (``python -m pipeline init-project`` or
``python -m pipeline users add``), never from the browser: whoever reached the page first would
otherwise become the lead. While no enabled lead exists the sign-in page says how to make one.
"""
from __future__ import annotations

import streamlit as st
from sqlite_utils import Database

from dashboard import session_cookie, state
from dashboard.components import guard
from services import projects, session, users

LAST_USER_KEY = "wb.last_user"
PASSWORD_CHANGED_KEY = "wb.password_changed"

REFUSED = "Wrong username or password, or the account is disabled."
LOCKED = ("Too many failed sign-ins with this username: sign-in is locked until a lead unlocks it on the "
          "Admin page. If no other lead can sign in (the only lead is locked), unlock it on the machine that "
          "runs the workbench: `python -m pipeline users unlock <username>`.")


def _seconds(s: float) -> str:
    n = max(1, int(round(s)))
    return f"{n} seconds" if n < 120 else f"{round(n / 60)} minutes"


def refusal_message(outcome: str, retry_after_s: float = 0.0) -> str:
    """What the page says about a refused sign-in: the same words whether or not the name is an
    account (failures of unknown names are counted and delayed the same way)."""
    if outcome == "locked":
        return LOCKED
    if outcome == "throttled":
        return (f"Too many failed sign-ins with this username: wait {_seconds(retry_after_s)} "
                "before trying again.")
    if retry_after_s > 0:
        return f"{REFUSED} Too many failed sign-ins: the next try must wait {_seconds(retry_after_s)}."
    return REFUSED


def signed_in_user(db: Database) -> session.User | None:
    """The user of this browser session's token - or of the session cookie the browser sent
    (a reload, a new tab, a deep link) - or ``None`` (a dead token or cookie is dropped)."""
    tok = state.token()
    from_cookie = False
    if not tok:
        tok = session.token_from_cookie(state.db_path(), session_cookie.read(state.db_path()),
                                        port=session_cookie.server_port())
        from_cookie = tok is not None
        if not tok:
            return None
    user = session.user_for_session(db, tok)
    if user is None:
        st.session_state.pop(state.TOKEN_KEY, None)
        if session_cookie.read(state.db_path()):
            session_cookie.queue_clear(state.db_path())
        return None
    if from_cookie:
        start_session(user, tok, write_cookie=False)
    return user


def start_session(user: session.User, tok: str, *, write_cookie: bool = True) -> None:
    """Keep the new session's token (and, after a sign-in, the cookie); a different user than
    the last one in this browser session starts from a clean session state (no one else's
    unsaved work)."""
    if st.session_state.get(LAST_USER_KEY) not in (None, user.username):
        for k in list(st.session_state.keys()):
            del st.session_state[k]
    st.session_state[state.TOKEN_KEY] = tok
    st.session_state[LAST_USER_KEY] = user.username
    if write_cookie:
        ttl = state.session_ttl_seconds()
        value = session.cookie_for(state.db_path(), tok, ttl, port=session_cookie.server_port())
        session_cookie.queue_write(state.db_path(), value, ttl)


def sign_out(db: Database) -> None:
    session.sign_out(db, state.token())
    for k in list(st.session_state.keys()):
        del st.session_state[k]
    session_cookie.queue_clear(state.db_path())


def sign_in_page() -> None:
    """The only page shown to someone who is not signed in."""
    db = state.get_db()
    st.title("De-identification workbench")
    if not users.has_lead(db):
        _no_lead_notice()  # sign-in stays possible for other accounts
    with st.form("signin", clear_on_submit=False):
        username = st.text_input("Username", key="signin.username", max_chars=users.MAX_USERNAME_LENGTH)
        password = st.text_input("Password", type="password", key="signin.password")
        submitted = st.form_submit_button("Sign in", key="signin.submit")
    if submitted:
        with guard():
            signed = users.sign_in(db, (username or "").strip(), password or "", state.session_ttl_seconds())
            if not signed.ok:
                st.error(refusal_message(signed.outcome, signed.retry_after_s))
                return
            start_session(signed.user, signed.token)
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
    if st.session_state.pop(PASSWORD_CHANGED_KEY, False):
        st.sidebar.success("Password changed; your other sessions were signed out.")
    with st.sidebar.expander("Change my password"):
        with st.form("auth.password", clear_on_submit=True):
            current = st.text_input("Current password", type="password", key="auth.pw_current")
            new = st.text_input("New password", type="password", key="auth.pw_new",
                                help="at least 12 characters, or a passphrase of several words; not a common password, not easy to guess")
            again = st.text_input("New password again", type="password", key="auth.pw_again")
            changed = st.form_submit_button("Change password", key="auth.pw_submit")
        if changed:
            with guard():
                if new != again:
                    st.error("The two new passwords differ; nothing was changed.")
                else:
                    result = users.change_own_password(db, user, current or "", new or "", state.session_ttl_seconds())
                    if not result.ok:
                        st.error(refusal_message(result.outcome, result.retry_after_s).replace(
                            "Wrong username or password", "Wrong current password"))
                    else:
                        start_session(result.user, result.token)
                        st.session_state[PASSWORD_CHANGED_KEY] = True
                        st.rerun()
    if st.sidebar.button("Sign out", key="auth.signout", icon=":material/logout:"):
        sign_out(db)
        st.rerun()
