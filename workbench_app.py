"""The workbench's server: Streamlit's app (``streamlit_app.py``, every page) plus one route of
our own, which sets the session cookie ``HttpOnly`` (:mod:`dashboard.cookie_route`; a Streamlit
script cannot send response headers, and a cookie written by page JavaScript is readable by any
script on the page).

Run with ``./workbench start`` or ``streamlit run workbench_app.py`` (Streamlit finds ``app``
and serves it). ``streamlit run streamlit_app.py`` still works, but without the route: signing
in works, and the session then lasts as long as the browser tab (no cookie is ever written by a
script).
"""
from __future__ import annotations

import streamlit as st
from streamlit import config

from dashboard.cookie_route import routes

app = st.App("streamlit_app.py", routes=routes(config.get_option("server.baseUrlPath") or ""))
