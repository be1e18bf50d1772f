"""Never losing one's place (issue 31, item 4), in Debian's chromium through Playwright.

* Annotate and Review put the open note in the address (``?doc=<id>``) and a reload opens it
  again, not the queue's first note;
* "next" (``>``) opens the next unfinished note in the queue order, skipping one finished
  meanwhile (in another tab);
* a disagreement already settled (gold saved) is reopened from the Review page: the editor
  shows it open, the reopening is in the audit log, and deciding it again by key saves gold.
* Admin stays on the tab of an action, and a reload keeps it (``?tab=``).

Nothing is printed: assertions compare ids, counts and statuses.
"""
from __future__ import annotations

import re

import pytest

import browser_helpers as bh

pytestmark = pytest.mark.browser

_why_not = bh.missing_requirements()
if _why_not:
    pytest.skip(f"browser test not possible here: {_why_not}", allow_module_level=True)

import store  # noqa: E402
from pipeline.annotation import adjudication as adj  # noqa: E402
from services import queues, review  # noqa: E402


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The demo project, its server and one chromium for the whole module: (project, server, browser)."""
    project = bh.prepare_db(tmp_path_factory.mktemp("place") / "workbench.db", n_docs=30, seed=7)
    with bh.running_server(project.db_path) as server, bh.browser() as chromium:
        yield project, server, chromium


@pytest.fixture
def page(app):
    tab = bh.new_page(app[2], width=1280, height=800)
    yield tab
    tab.context.close()


def _doc_in_url(page) -> int | None:
    m = re.search(r"[?&]doc=(\d+)", page.url)
    return int(m.group(1)) if m else None


def _wait_doc_in_url(page, doc_id: int) -> None:
    page.wait_for_function("(d) => new URL(location.href).searchParams.get('doc') === String(d)", arg=doc_id)


def _cookie_written(page) -> None:
    """The session cookie is set by a route a moment after the sign-in's rerun: a reload or a link
    opened before it would be signed out."""
    for _ in range(200):
        if any(c["name"].startswith("wb_") and c["value"] for c in page.context.cookies()):
            return
        page.wait_for_timeout(100)
    raise AssertionError("the session cookie was not written within 20 s")


def _press(page, key: str) -> None:
    """A key for the editor: focus it first (its keys act while it has focus)."""
    page.focus(".wb-ed")
    page.keyboard.press(key)


def _queue(project, user: str) -> list:
    with store.connect(project.db_path) as db:
        return queues.load_queue(db, user, project.project_id)


def test_annotate_reload_stays_on_the_note_and_next_skips_a_finished_one(app, page):
    project, server, _ = app
    todo = [a.doc_id for a in _queue(project, "ana") if a.status != "finished"]
    assert len(todo) >= 4
    with bh.screenshot_on_failure(page, "place-annotate"):
        bh.sign_in(page, server.url, "ana", project.password)
        _cookie_written(page)
        bh.open_page(page, "annotation", "Annotate")
        bh.editor_ready(page, todo[0])
        _wait_doc_in_url(page, todo[0])
        _press(page, ">")                                   # next: the second note
        bh.editor_ready(page, todo[1])
        _wait_doc_in_url(page, todo[1])
        bh.wait_idle(page)
        page.reload()                                       # the session survives (cookie), the place too
        bh.editor_ready(page, todo[1])
        bh.wait_idle(page)
        assert _doc_in_url(page) == todo[1]
        assert page.locator(".wb-ed").get_attribute("data-token").split(".")[0] == str(todo[1])

        # the note after it is finished elsewhere (another tab): "next" skips it
        with store.connect(project.db_path) as db:
            store.set_assignment_status(db, todo[2], "ana", "finished", by="ana")
        _press(page, ">")
        bh.editor_ready(page, todo[3])
        _wait_doc_in_url(page, todo[3])
        _press(page, "<")                                   # previous still steps back through the queue
        bh.editor_ready(page, todo[2])
        bh.wait_idle(page)


def _settled_doc(project) -> tuple[int, list]:
    """A document awaiting adjudication with two or more disagreements, settled by the lead (gold
    saved, finished), as the Review page would have done it."""
    with store.connect(project.db_path) as db:
        lead = store.get_user(db, bh.LEAD)
        for item in review.review_queue(db, project.project_id):
            layers = review.finished_layers(db, item.doc_id)
            found = adj.document_disagreements(item.doc_id, layers)
            if len(found) >= 2:
                first = sorted(layers)[0]
                gold = adj.draft_gold(item.doc_id, layers, found, {i: first for i in range(len(found))}, bh.LEAD)
                review.save_gold(db, lead, item.doc_id, gold, 0)
                return item.doc_id, found
    raise AssertionError("no document with two disagreements in the demo")


def test_review_reload_stays_and_a_settled_disagreement_is_reopened(app, page):
    project, server, _ = app
    doc_id, found = _settled_doc(project)
    with bh.screenshot_on_failure(page, "place-review"):
        bh.sign_in(page, server.url, bh.LEAD, project.password)
        _cookie_written(page)
        page.goto(f"{server.url}/adjudication?doc={doc_id}")   # a link to the settled note
        bh.editor_ready(page, doc_id)
        bh.wait_idle(page)
        page.reload()
        bh.editor_ready(page, doc_id)
        bh.wait_idle(page)
        assert _doc_in_url(page) == doc_id
        assert page.locator(".wb-ed .wb-dlist li.wb-done").count() == len(found)   # all settled

        page.get_by_text("Settled disagreements", exact=False).first.click()
        page.get_by_role("button", name="Reopen").first.click()   # disagreement 1
        page.wait_for_function("(n) => document.querySelectorAll('.wb-ed .wb-dlist li.wb-done').length === n",
                               arg=len(found) - 1)
        bh.wait_idle(page)
        assert "wb-done" not in (page.locator(".wb-ed .wb-dlist li").first.get_attribute("class") or "")
        with store.connect(project.db_path) as db:
            assert store.read_layer(db, doc_id, "gold").status == "in_progress"
            [row] = store.list_audit(db, doc_id=doc_id, action="review.reopen")
            assert row.user == bh.LEAD and row.detail["start"] == found[0].start
        page.reload()                                        # still open after a reload
        bh.editor_ready(page, doc_id)
        bh.wait_idle(page)
        assert page.locator(".wb-ed .wb-dlist li.wb-done").count() == len(found) - 1

        _press(page, "2")                                    # decide it again: the second annotator's
        page.wait_for_function("(n) => document.querySelectorAll('.wb-ed .wb-dlist li.wb-done').length === n",
                               arg=len(found))
        _press(page, "Control+s")
        page.wait_for_function("() => document.querySelector('.wb-ed .wb-status').textContent.includes('Gold saved')")
        bh.wait_idle(page)
        with store.connect(project.db_path) as db:
            gold = store.read_layer(db, doc_id, "gold")
        assert gold.version == 2 and gold.status == "finished"


def test_admin_stays_on_the_tab_of_an_action_and_after_a_reload(app, page):
    project, server, _ = app
    with bh.screenshot_on_failure(page, "place-admin"):
        bh.sign_in(page, server.url, bh.LEAD, project.password)
        _cookie_written(page)
        bh.open_page(page, "administration", "Admin")
        page.get_by_role("tab", name="Settings").click()
        page.wait_for_url("**tab=Settings*")
        bh.wait_idle(page)
        page.get_by_role("button", name="Save settings").click()
        page.get_by_text("Settings saved").first.wait_for()
        bh.wait_idle(page)
        assert page.get_by_role("tab", name="Settings").get_attribute("aria-selected") == "true"
        page.reload()
        page.get_by_role("tab", name="Settings").wait_for()
        bh.wait_idle(page)
        assert page.get_by_role("tab", name="Settings").get_attribute("aria-selected") == "true"
