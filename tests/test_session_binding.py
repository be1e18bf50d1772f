"""The session cookie and the sessions behind it (issue 29, item 3).

* A restore must not bring back sessions that were ended: sign in, back up, sign out, restore,
  replay the token - it was signed in again. Ended sessions are now also recorded beside the
  database (``<db>.sessions-ended``), which no backup holds.
* The cookie is bound to the installation and the port, and named for both: the value replayed
  to another port or another installation is refused.
* The cookie is set ``HttpOnly`` by the server's route from a one-time grant; the page sees the
  grant, never the token. The browser side is in ``test_browser_session.py``.
Passwords here are synthetic; no test prints one.
"""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import store
from dashboard import cookie_grants, cookie_route, session_cookie
from services import maintenance, session, users

PASSWORD = "a long test password"
TTL = 3600.0


@pytest.fixture
def installation(tmp_path):
    path = tmp_path / "workbench.db"
    db = store.connect(path)
    store.create_user(db, "ana", PASSWORD, "annotator")
    store.create_user(db, "lea", PASSWORD, "lead")
    db.close()
    return path


def _signed_in(path, token) -> str | None:
    db = store.connect(path)
    try:
        user = users.user_for_session(db, token)
        return user.username if user else None
    finally:
        db.close()


def _sign_in(path, name="ana") -> str:
    db = store.connect(path)
    try:
        signed = users.sign_in(db, name, PASSWORD, TTL)
        assert signed.ok
        return signed.token
    finally:
        db.close()


@pytest.mark.parametrize("how", ["sign-out", "password reset", "disabled"])
def test_a_restore_does_not_bring_back_an_ended_session(installation, tmp_path, how):
    token = _sign_in(installation)
    other = _sign_in(installation, "lea")                     # a session that was never ended
    backup = maintenance.backup(installation, tmp_path / "backup.db")
    db = store.connect(installation)
    if how == "sign-out":
        users.sign_out(db, token)
    elif how == "password reset":
        users.set_password(db, "cli:root", "ana", "another long passphrase")
    else:
        users.set_disabled(db, "cli:root", "ana", True)
    db.close()
    assert _signed_in(installation, token) is None
    maintenance.restore(backup, installation, user="cli:root")
    db = store.connect(installation)
    assert db.execute("SELECT COUNT(*) FROM sessions WHERE username = 'ana'").fetchone()[0] == 1  # the row is back
    db.close()
    assert _signed_in(installation, token) is None            # and refused
    assert _signed_in(installation, other) == "lea"           # a live session stays
    record = installation.with_name(installation.name + ".sessions-ended")
    assert record.stat().st_mode & 0o077 == 0 and token not in record.read_text()


def test_the_record_of_ended_sessions_is_pruned_of_expired_entries(installation, monkeypatch):
    from store import session_ends

    monkeypatch.setattr(session_ends, "PRUNE_ABOVE_BYTES", 300)
    db = store.connect(installation)
    old = store.create_session(db, "ana", TTL, now=datetime(2001, 1, 1, tzinfo=timezone.utc))   # long expired
    store.end_session(db, old)
    live = [store.create_session(db, "ana", TTL) for _ in range(4)]
    for t in live:
        store.end_session(db, t)
    record = session_ends.ended_path(db).read_text().split()
    assert len(record) == 2 * 4                               # the expired one was dropped
    assert all(store.user_for_session(db, t) is None for t in live + [old])
    db.close()


def test_the_cookie_is_bound_to_the_installation_and_the_port(installation, tmp_path):
    other_installation = tmp_path / "other" / "workbench.db"
    value = session.cookie_for(installation, "tok123", TTL, port=8501)
    assert session.token_from_cookie(installation, value, port=8501) == "tok123"
    assert session.token_from_cookie(installation, value, port=8502) is None          # another port
    assert session.token_from_cookie(other_installation, value, port=8501) is None    # another installation
    names = {session.cookie_name(installation, 8501), session.cookie_name(installation, 8502),
             session.cookie_name(other_installation, 8501)}
    assert len(names) == 3 and session.LEGACY_COOKIE_NAME not in names


def _client() -> TestClient:
    return TestClient(Starlette(routes=cookie_route.routes()), base_url="http://127.0.0.1:8501")


def test_the_route_sets_the_cookie_http_only_once_per_grant(installation):
    value = session.cookie_for(installation, "tok123", TTL, port=8501)
    grant = cookie_grants.issue(session_cookie.set_cookie_headers("wb_abc", value, int(TTL)))
    assert "tok123" not in grant
    client = _client()
    r = client.post(cookie_route.route_path(), content=grant, headers={"Origin": "http://127.0.0.1:8501"})
    assert r.status_code == 204
    set_cookies = r.headers.get_list("set-cookie")
    assert set_cookies[0] == f"wb_abc={value}; Path=/_stcore/stream; Max-Age=3600; HttpOnly; SameSite=Strict"
    assert set_cookies[1].startswith(f"{session.LEGACY_COOKIE_NAME}=; Path=/; Max-Age=0")
    assert client.post(cookie_route.route_path(), content=grant).status_code == 403             # used
    again = cookie_grants.issue(["wb_abc=x"])
    assert client.post(cookie_route.route_path(), content=again,
                       headers={"Origin": "http://127.0.0.1:9999"}).status_code == 403          # another origin
    assert client.post(cookie_route.route_path(), content=again, headers={
        "Origin": "https://wb.example", "X-Forwarded-Host": "wb.example"}).status_code == 204    # behind a proxy
    assert client.post(cookie_route.route_path(), content="x" * 1000).status_code == 403        # oversized
    assert client.get(cookie_route.route_path()).status_code == 405
    https = TestClient(Starlette(routes=cookie_route.routes()), base_url="https://wb.example")
    r = https.post(cookie_route.route_path(), content=cookie_grants.issue(["wb_abc=y; HttpOnly"]))
    assert r.headers["set-cookie"].endswith("; Secure")


def test_the_page_gets_a_grant_never_the_token(installation, monkeypatch):
    import streamlit as st

    state: dict = {}
    monkeypatch.setattr(st, "session_state", state)
    value = session.cookie_for(installation, "tok123", TTL, port=session_cookie.server_port())
    session_cookie.queue_write(installation, value, TTL)
    pending = state[session_cookie.PENDING_KEY]
    assert set(pending) == {"grant", "url"} and "tok123" not in repr(pending)
    headers = cookie_grants.redeem(pending["grant"])
    assert headers[0].startswith(session.cookie_name(installation, session_cookie.server_port()) + "=v2.tok123.")
    assert "HttpOnly" in headers[0]


def test_a_grant_with_a_double_underscore_still_gives_a_component_key_streamlit_takes(installation, monkeypatch):
    """url-safe grants can hold "__", Streamlit's event delimiter: the key was the grant's first 12
    characters and the sign-in failed with BidiComponentInvalidIdError (found by a browser test)."""
    import streamlit as st
    from streamlit.components.v2.bidi_component.main import _make_trigger_id

    keys = []
    monkeypatch.setattr(st, "session_state", {session_cookie.PENDING_KEY: {"grant": "ab__cd-ef_gh", "url": "/x"}})
    monkeypatch.setattr(session_cookie, "_writer", lambda **kw: keys.append(kw["key"]))
    session_cookie.flush()
    assert len(keys) == 1 and "ab__cd" not in keys[0]
    _make_trigger_id(keys[0], "change")          # what raised BidiComponentInvalidIdError on the grant's prefix
    with pytest.raises(Exception, match="__"):
        _make_trigger_id("wb-cookie-ab__cd-ef_gh", "change")
    assert session_cookie.writer_key("ab__cd-ef_gh") != session_cookie.writer_key("ab__cd-ef_gi")
