"""Writing the session cookie from the app (reading it is ``st.context.cookies``).

A Streamlit script cannot set response headers, so a tiny Components v2 element writes the
cookie from the page itself (it runs in the app's document, not an iframe): ``Path=/``,
``SameSite=Strict`` (never sent with another site's requests), ``Secure`` over https, and a
``Max-Age`` equal to the server session's lifetime. The value is the signed token of
:func:`services.session.cookie_for`, never a password, and never in the URL.

A write is queued in ``st.session_state`` (:func:`queue_write`, :func:`queue_clear`) and
performed by :func:`flush` on the next script run that reaches it, because a sign-in ends with
``st.rerun()`` before its own run could render anything.
"""
from __future__ import annotations

import streamlit as st

from services.session import COOKIE_NAME

PENDING_KEY = "wb.cookie_pending"

_JS = """
export default function(component) {
  const { data } = component;
  if (!data || !data.name) return;
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${data.name}=${data.value}; Path=/; Max-Age=${data.max_age}; SameSite=Strict${secure}`;
}
"""

_writer = st.components.v2.component("workbench_session_cookie", js=_JS)


def queue_write(value: str, max_age_s: float) -> None:
    st.session_state[PENDING_KEY] = {"name": COOKIE_NAME, "value": value, "max_age": max(0, int(max_age_s))}


def queue_clear() -> None:
    st.session_state[PENDING_KEY] = {"name": COOKIE_NAME, "value": "", "max_age": 0}


def flush() -> None:
    """Write a queued cookie change (an invisible element)."""
    pending = st.session_state.pop(PENDING_KEY, None)
    if pending:
        _writer(data=pending, key=f"wb-cookie-{pending['max_age']}-{len(pending['value'])}", height=0)


def read() -> str | None:
    """The cookie the browser sent with this session's connection."""
    try:
        return st.context.cookies.get(COOKIE_NAME)
    except Exception:  # noqa: BLE001 - no browser (AppTest, bare mode): no cookie
        return None
