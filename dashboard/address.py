"""The open note in the page's address: ``?doc=<id>`` on Annotate and Review.

Why: the session state goes with a reload (a new websocket session), the address does not. With
the note's id in the address a reload, a bookmark or a link a reviewer sends opens that note
instead of the first one of the queue. The id is the document's number in the store, never its
file name (a file name can hold PHI).

Each page keeps the last address value it acted on under a key of its own (``seen_key``), so an
address it wrote itself is not taken as a new request on the next run, and choosing another
note in the page (the picker, next, previous) wins over the address until the page writes it.
"""
from __future__ import annotations

import streamlit as st

PARAM = "doc"


def requested_doc(seen_key: str) -> int | None:
    """The note the address asks for, once: a ``?doc=`` value the page has not seen yet (a reload,
    a link), else ``None`` (the page keeps the note it has open)."""
    raw = st.query_params.get(PARAM)
    if not raw or not str(raw).isdigit() or st.session_state.get(seen_key) == str(raw):
        return None
    st.session_state[seen_key] = str(raw)
    return int(raw)


def show_doc(seen_key: str, doc_id: int) -> None:
    """Put ``doc_id`` in the address (only when it differs: writing it sends a message to the
    browser, which replaces the address without a new history entry or a rerun)."""
    value = str(int(doc_id))
    st.session_state[seen_key] = value
    if st.query_params.get(PARAM) != value:
        st.query_params[PARAM] = value
