"""Sessions survive a reload, a new tab and a deep link (issue 15, item 5), in Debian's chromium.

The session token lives in a signed, expiring cookie (never in the URL); the server's session
row stays the authority, so signing out ends it and an altered cookie is ignored. The cookie is
``HttpOnly`` (issue 29, item 3: page scripts could read it), named for this installation and
port, and bound to the port: the same value replayed to a server on another port is refused.
"""
from __future__ import annotations

import pytest

import browser_helpers as bh

pytestmark = pytest.mark.browser

_skip = bh.missing_requirements()
if _skip:
    pytest.skip(_skip, allow_module_level=True)

import store  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

from services.session import LEGACY_COOKIE_NAME, cookie_name, token_from_cookie  # noqa: E402


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return bh.prepare_db(tmp_path_factory.mktemp("session") / "w.db", n_docs=20)


@pytest.fixture(scope="module")
def server(project):
    with bh.running_server(project.db_path) as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    with bh.browser() as b:
        yield b


def _port(url: str) -> int:
    return int(urlsplit(url).port)


def _session_cookie(page) -> dict:
    """The session cookie, once the server's route has set it (a moment after the sign-in's rerun)."""
    for _ in range(200):
        found = [c for c in page.context.cookies()
                 if c["name"].startswith("wb_") and c["name"] != LEGACY_COOKIE_NAME and c["value"]]
        if found:
            return found[0]
        page.wait_for_timeout(100)
    raise AssertionError("the session cookie was not written within 20 s")


def _signed_in_as(page, username: str) -> bool:
    return page.locator('[data-testid="stSidebar"]').get_by_text(username, exact=False).count() > 0


def _wait_for_document(page, name: str) -> None:
    """The page shows the document (its name in the main area's text or in the queue's picker)."""
    page.wait_for_function("""name => {
        const main = document.querySelector('[data-testid="stMain"]');
        if (!main) return false;
        return main.innerText.includes(name) || [...main.querySelectorAll('input')].some(i => (i.value || '').includes(name));
    }""", arg=name)


def _sign_in_form(page):
    return page.locator('[data-testid="stForm"]').get_by_role("button", name="Sign in")


def _anas_document(project) -> tuple[int, str]:
    db = store.connect(project.db_path)
    try:
        a = [x for x in store.list_assignments(db, user="ana", project_id=project.project_id)][-1]
        return a.doc_id, a.doc_name
    finally:
        db.close()


def test_reload_and_a_new_tab_keep_the_session_and_a_deep_link_opens_the_document(project, server, browser):
    doc_id, doc_name = _anas_document(project)
    context = browser.new_context(viewport={"width": 1280, "height": 800})     # one browser profile, two tabs
    page = context.new_page()
    page.set_default_timeout(bh.WAIT_MS)
    with bh.screenshot_on_failure(page, "session-reload"):
        bh.sign_in(page, server.url, "ana")
        cookie = _session_cookie(page)
        assert cookie["name"] == cookie_name(project.db_path, _port(server.url))   # this installation and port
        assert cookie["sameSite"] == "Strict" and cookie["expires"] > 0
        assert cookie["httpOnly"] is True                               # page scripts cannot read it
        assert cookie["path"] == "/_stcore/stream"                      # sent with the websocket only
        assert cookie["value"] not in page.evaluate("document.cookie")
        assert cookie["value"].split(".")[1] not in page.url           # never in the URL
        port = _port(server.url)                                        # bound to this server's port
        assert token_from_cookie(project.db_path, cookie["value"], port=port) == cookie["value"].split(".")[1]
        assert token_from_cookie(project.db_path, cookie["value"], port=port + 1) is None
        page.reload()
        bh.wait_idle(page)
        page.locator('[data-testid="stSidebar"]').get_by_text("ana", exact=False).first.wait_for()
        assert _sign_in_form(page).count() == 0
        tab = page.context.new_page()                                   # same browser, new tab
        tab.set_default_timeout(bh.WAIT_MS)
        tab.goto(f"{server.url}/annotation?doc={doc_id}")
        _wait_for_document(tab, doc_name)
        assert _signed_in_as(tab, "ana")
        tab.close()
        # signing out ends the session everywhere this browser would reuse it
        page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Sign out").click()
        _sign_in_form(page).wait_for()
        bh.wait_idle(page)
        page.reload()
        _sign_in_form(page).wait_for()
    context.close()


def test_a_deep_link_signed_out_shows_sign_in_then_the_document(project, server, browser):
    doc_id, doc_name = _anas_document(project)
    page = bh.new_page(browser, width=1280, height=800)
    with bh.screenshot_on_failure(page, "session-deep-link"):
        page.goto(f"{server.url}/annotation?doc={doc_id}")
        form = page.locator('[data-testid="stForm"]')
        form.get_by_label("Username").wait_for()
        assert page.get_by_text("Page not found").count() == 0
        form.get_by_label("Username").fill("ana")
        form.get_by_label("Password", exact=True).fill(project.password)
        form.get_by_role("button", name="Sign in").click()
        _wait_for_document(page, doc_name)
        assert "doc=" in page.url and _signed_in_as(page, "ana")
    page.close()


def test_an_altered_cookie_is_ignored(project, server, browser):
    page = bh.new_page(browser, width=1280, height=800)
    with bh.screenshot_on_failure(page, "session-altered"):
        bh.sign_in(page, server.url, "ana")
        cookie = _session_cookie(page)
        version, token, expires, sig = cookie["value"].split(".")
        forged = f"{version}.{token}.{int(expires) + 86400}.{sig}"        # a longer life, same signature
        page.context.add_cookies([{**cookie, "value": forged}])
        page.reload()
        _sign_in_form(page).wait_for()
        assert not _signed_in_as(page, "ana")
    page.close()
