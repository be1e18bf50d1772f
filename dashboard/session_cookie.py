"""Writing the session cookie from the app, ``HttpOnly`` (reading it is ``st.context.cookies``).

A Streamlit script cannot set response headers, and a cookie written by page JavaScript
(``document.cookie``) is one every script on the page can read too. So a script run builds the
``Set-Cookie`` header and leaves it under a one-time grant (:mod:`dashboard.cookie_grants`); a
tiny invisible Components v2 element posts the grant to the server's own route
(:mod:`dashboard.cookie_route`, mounted by ``workbench_app.py``), whose answer sets the cookie:
``HttpOnly`` (no script reads it), ``Path`` the websocket's own (``/_stcore/stream``: the one
request that reads it, so the browser sends it nowhere else, not to this server's other paths nor
to other apps' pages on the host), ``SameSite=Strict`` (never sent with another
site's requests), ``Secure`` over https, and a ``Max-Age`` equal to the server session's
lifetime. The page only ever sees the grant (single use, a minute), never the token.

Its name is the installation's and the port's (:func:`services.session.cookie_name`), and its
value, signed by :func:`services.session.cookie_for`, is bound to this server's port: cookies
ignore ports, so a browser also sends it to other servers on the same host, and there it is
worth nothing.

A write is queued in ``st.session_state`` (:func:`queue_write`, :func:`queue_clear`) and
performed by :func:`flush` on the next script run that reaches it, because a sign-in ends with
``st.rerun()`` before its own run could render anything.
"""
from __future__ import annotations

import hashlib
import os

import streamlit as st
from streamlit import config

from dashboard import cookie_grants
from dashboard.cookie_route import route_path
from services import session

PENDING_KEY = "wb.cookie_pending"

_JS = """
export default function(component) {
  const { data } = component;
  if (!data || !data.grant || !data.url) return;
  fetch(data.url, {method: "POST", body: data.grant, credentials: "same-origin", cache: "no-store",
                   headers: {"Content-Type": "text/plain"}}).catch(() => {});
}
"""

_writer = st.components.v2.component("workbench_session_cookie", js=_JS)


def server_port() -> int:
    """The port this server listens on (the cookie is bound to it)."""
    return int(config.get_option("server.port"))


def name(database: str | os.PathLike) -> str:
    return session.cookie_name(database, server_port())


def cookie_path(base_url_path: str = "") -> str:
    """The websocket's path (Streamlit reads cookies from its handshake alone).

    >>> cookie_path(""), cookie_path("/wb/")
    ('/_stcore/stream', '/wb/_stcore/stream')
    """
    base = base_url_path.strip("/")
    return f"/{base}/_stcore/stream" if base else "/_stcore/stream"


def set_cookie_headers(cookie: str, value: str, max_age_s: int, path: str = "/_stcore/stream") -> list[str]:
    """The ``Set-Cookie`` values for the route (it adds ``Secure`` over https); the first,
    script-readable ``wb_session`` cookie of earlier versions is cleared with them.

    >>> set_cookie_headers("wb_x", "v2.t.1.s", 60)[0]
    'wb_x=v2.t.1.s; Path=/_stcore/stream; Max-Age=60; HttpOnly; SameSite=Strict'
    """
    return [f"{cookie}={value}; Path={path}; Max-Age={int(max_age_s)}; HttpOnly; SameSite=Strict",
            f"{session.LEGACY_COOKIE_NAME}=; Path=/; Max-Age=0; SameSite=Strict"]


def _queue(database: str | os.PathLike, value: str, max_age_s: float) -> None:
    max_age = max(0, int(max_age_s))
    base = config.get_option("server.baseUrlPath") or ""
    grant = cookie_grants.issue(set_cookie_headers(name(database), value, max_age, cookie_path(base)))
    st.session_state[PENDING_KEY] = {"grant": grant, "url": route_path(base)}


def queue_write(database: str | os.PathLike, value: str, max_age_s: float) -> None:
    _queue(database, value, max_age_s)


def queue_clear(database: str | os.PathLike) -> None:
    _queue(database, "", 0)


def flush() -> None:
    """Send a queued cookie change to the route (an invisible element)."""
    pending = st.session_state.pop(PENDING_KEY, None)
    if pending:
        _writer(data=pending, key=writer_key(pending["grant"]), height=0)


def writer_key(grant: str) -> str:
    """The invisible element's key: one per grant, in hex. The grant itself (url-safe base64) can
    hold "__", which Streamlit refuses in a component's key (the sign-in then failed with
    BidiComponentInvalidIdError, about once in 370 sign-ins: a browser test met it)."""
    return "wb-cookie-" + hashlib.sha256(grant.encode("ascii")).hexdigest()[:16]


def read(database: str | os.PathLike) -> str | None:
    """The cookie the browser sent with this session's connection."""
    try:
        return st.context.cookies.get(name(database))
    except Exception:  # noqa: BLE001 - no browser (AppTest, bare mode): no cookie
        return None
