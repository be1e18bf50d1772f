"""The workbench in a real browser (Debian's chromium through Playwright).

What only a browser shows: that a word selected with the mouse in the ``text_labeler``
component (a React widget in an iframe) becomes a span in the annotator's layer in SQLite after
Save; that the Metrics page's plotly charts draw; and that every page renders without an
exception for the role that opens it. Screenshots of every page go to
``test-artifacts/screenshots/<page>.png`` (gitignored) for a person to look at.

Skipped when /usr/bin/chromium or the playwright package is missing. Nothing is printed: the
assertions compare offsets, labels and counts (and ``--assert=plain`` never echoes values).
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
from services import queues  # noqa: E402
from services.settings import ProjectSettings  # noqa: E402
from services import access  # noqa: E402

#: Label clicked in the component (a fine type of the demo's i2b2 2014 schema).
LABEL = "CITY"
#: Pages a lead opens: url path -> (screenshot name, the page's title; Home's is the project's name).
LEAD_PAGES = {"overview": ("home", None), "adjudication": ("review", "Review"), "training": ("train", "Train"),
              "deidentification": ("deidentify", "De-identify"), "quality": ("metrics", "Metrics"),
              "risk-triage": ("risk", "Risk triage"), "administration": ("admin", "Admin")}
METRICS_TABS = ("Model", "Pre-annotations vs gold", "Annotators", "Throughput")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> bh.BrowserProject:
    return bh.prepare_db(tmp_path_factory.mktemp("browser") / "workbench.db", n_docs=30, deid_docs=6)


@pytest.fixture(scope="module")
def server(project):
    with bh.running_server(project.db_path) as srv:
        yield srv


@pytest.fixture(scope="module")
def chromium():
    with bh.browser() as b:
        yield b


@pytest.fixture
def page(chromium):
    p = bh.new_page(chromium)
    try:
        yield p
    finally:
        p.context.close()


def no_crash(page, where: str) -> None:
    """No exception block and no "Something went wrong" box (messages hold no document text)."""
    assert page.locator('[data-testid="stException"]').count() == 0, where
    boxes = page.locator('[data-testid="stAlertContentError"]').all_inner_texts()
    assert not any("Something went wrong" in t or "Traceback" in t for t in boxes), where


def first_free_word(text: str, spans) -> tuple[int, int]:
    """Offsets of a word the labeler will select exactly: letters only, a space before it (the
    component widens a selection to the previous space or punctuation, and a newline is
    neither), a space or punctuation after it, and no span touching it."""
    for m in re.finditer(r"(?<= )[A-Za-z]{5,}(?=[ .,;:])", text):
        a, b = m.span()
        if not any(s.start < b + 1 and a - 1 < s.end for s in spans):
            return a, b
    raise AssertionError("no unannotated word to select in the first queued document")


def drag_select(page, frame, start: int, end: int) -> None:
    """Select ``[start, end)`` of #actual-text with the mouse: down at the word's left edge,
    move, up at its right edge (the component reads ``getSelection()`` on mouseup)."""
    iframe = page.locator('iframe[title*="annotation_tools"]')
    locate = """([a, b]) => {
        const root = document.getElementById('actual-text');
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        let seen = 0, range = document.createRange(), n, gotStart = false;
        while ((n = walker.nextNode())) {
            const len = n.textContent.length;
            if (!gotStart && a < seen + len) { range.setStart(n, a - seen); gotStart = true; }
            if (gotStart && b <= seen + len) { range.setEnd(n, b - seen); break; }
            seen += len;
        }
        const rects = range.getClientRects();
        const r = rects[0];
        return {n: rects.length, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
    }"""
    rect = frame.evaluate(locate, [start, end])
    assert rect["n"] == 1, "the word wraps over two lines"
    # bring the word to the middle of the viewport, then measure the iframe where it now is
    bh.scroll_to(page, iframe, (rect["top"] + rect["bottom"]) / 2)
    box = iframe.bounding_box()
    assert 0 < box["y"] + rect["top"] < page.viewport_size["height"], "the word is not in view"
    y = box["y"] + (rect["top"] + rect["bottom"]) / 2
    x0, x1 = box["x"] + rect["left"] + 1, box["x"] + rect["right"] - 1
    page.mouse.move(x0, y)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, y, steps=3)
    page.mouse.move(x1, y, steps=3)
    page.mouse.up()


def test_annotator_labels_a_word_in_the_real_component_and_saves_it(project, server, page):
    with bh.screenshot_on_failure(page, "annotate"):
        annotate_and_save(project, server, page)


def annotate_and_save(project, server, page) -> None:
    bh.sign_in(page, server.url, "ana", project.password)
    bh.screenshot(page, "home-annotator")
    bh.open_page(page, "annotation", "Annotate")
    no_crash(page, "annotate")

    # what the page opened: the first document of ana's queue, starting from the pre layer
    db = store.connect(project.db_path)
    try:
        proj = store.get_project(db, project.project_id)
        settings = ProjectSettings.from_settings(proj.settings)
        queue = queues.load_queue(db, "ana", proj.id, settings.queue_order, settings.queue_seed)
        doc_id = queue[0].doc_id
        doc = store.get_document(db, doc_id)
        own = store.read_layer(db, doc_id, access.annotator_layer("ana"))
        base = own.spans if own.version > 0 else store.read_layer(db, doc_id, access.PRE).spans
    finally:
        db.close()
    assert LABEL in proj.schema.types
    page.get_by_role("heading", name=doc.name).wait_for()
    start, end = first_free_word(doc.text, base)

    frame = bh.labeler_frame(page)
    shown = frame.evaluate("() => document.getElementById('actual-text').textContent")
    assert shown == doc.text, "the component does not show the document's text as it is stored"
    bh.screenshot(page, "annotate")

    chip = frame.locator("span.cursor-pointer").filter(has_text=re.compile(rf"^\s*{LABEL}\s*$"))
    assert chip.count() == 1
    box = chip.bounding_box()
    chip.click(position={"x": 8, "y": box["height"] / 2})  # on the name, away from its remove icon
    frame.wait_for_function(f"""() => [...document.querySelectorAll('span.cursor-pointer')]
        .some(e => e.textContent.trim() === '{LABEL}' && e.classList.contains('bg-primary'))""")

    drag_select(page, frame, start, end)
    # the component now marks the word under the selected label ...
    frame.wait_for_function("""([a, b]) => [...document.querySelectorAll('#actual-text .labeled')]
        .some(e => e.textContent.length === b - a)""", arg=[start, end])
    # ... and its value reached the server: the page reran and its read-only view (st.html, in
    # the page itself) marks a span of ana's with that label
    page.locator(f'[data-testid="stMain"] span[title^="{LABEL} (LOCATION) | human:ana |"]').first.wait_for()
    page.get_by_text("Unsaved changes.", exact=True).wait_for()
    bh.wait_idle(page)

    page.locator('[data-testid="stBaseButton-primary"]', has_text="Save").click()
    page.get_by_text("Saved (version", exact=False).first.wait_for()
    page.get_by_text("No unsaved changes.", exact=True).wait_for()
    bh.wait_idle(page)
    no_crash(page, "annotate after save")
    bh.screenshot(page, "annotate-saved")

    db = store.connect(project.db_path)
    try:
        saved = store.read_layer(db, doc_id, access.annotator_layer("ana"))
    finally:
        db.close()
    assert saved.version == own.version + 1
    new = [s for s in saved.spans if (s.start, s.end) == (start, end)]
    assert len(new) == 1, "the selected word is not in ana's saved layer"
    assert new[0].type == LABEL and new[0].category == "LOCATION"
    assert new[0].source == "human:ana"
    # everything else ana started from is still there (nothing lost on the way through the widget)
    assert {(s.start, s.end, s.type) for s in base} <= {(s.start, s.end, s.type) for s in saved.spans}
    assert len(saved.spans) == len(base) + 1


def check_review(page) -> None:
    """Open the first document waiting for adjudication."""
    bh.choose_option(page, page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').first)
    page.locator('[data-testid="stMain"] h3').first.wait_for()
    bh.wait_idle(page)
    no_crash(page, "review with a document")


def check_metrics(page) -> None:
    """Every tab but Model (the demo has no trained model) draws plotly charts: the demo has gold,
    pre-annotations, double annotation and finished assignments."""
    drawn = {}
    for tab in METRICS_TABS[1:]:
        page.get_by_role("tab", name=tab).click()
        page.locator('[data-testid="stPlotlyChart"]:visible .main-svg').first.wait_for(state="visible")
        drawn[tab] = page.locator('[data-testid="stPlotlyChart"]:visible:has(.main-svg)').count()
        no_crash(page, f"metrics tab {tab}")
        bh.screenshot(page, "metrics-" + tab.split()[0].lower())
    assert all(n >= 1 for n in drawn.values()), "a Metrics tab drew no plotly chart"
    assert sum(drawn.values()) >= 4, "the Metrics page drew fewer than four plotly charts"
    page.get_by_role("tab", name=METRICS_TABS[0]).click()
    bh.wait_idle(page)


def check_risk(page) -> None:
    """The de-identification run made by the fixture has risk scores: counts, the colour chart,
    and the first document's marked text."""
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(state="visible")
    page.locator('[data-testid="stMain"] h3').first.wait_for()
    assert page.locator('[data-testid="stMetric"]').count() >= 4


def test_every_lead_page_renders_and_metrics_draws_its_charts(project, server, page):
    with bh.screenshot_on_failure(page, "sign-in"):
        bh.sign_in(page, server.url, bh.LEAD, project.password)
    links = page.locator('[data-testid="stSidebarNav"] a').evaluate_all(
        "els => els.map(e => new URL(e.href).pathname.replace(/^\\//, ''))")
    assert {path for path, (name, _) in LEAD_PAGES.items() if name != "home"} <= set(links), \
        "a lead page is missing from the navigation"

    for path, (name, heading) in LEAD_PAGES.items():
        with bh.screenshot_on_failure(page, name):
            if name != "home":  # Home is where sign-in lands
                bh.open_page(page, path, heading)
            no_crash(page, name)
            if name == "review":
                check_review(page)
            if name == "metrics":
                check_metrics(page)
            if name == "risk":
                check_risk(page)
            bh.screenshot(page, name)
