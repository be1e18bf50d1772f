"""The workbench in a real browser (Debian's chromium through Playwright).

What only a browser shows: that the span editor (``dashboard/editor``, JavaScript holding the
working spans) turns keys into exactly the expected spans of the annotator's layer in SQLite
(accept, relabel, remove, add with a label's key, undo, save, finish and next); that the Metrics
page's plotly charts draw; and that every page renders without an exception for the role that
opens it. Screenshots of every page go to
``test-artifacts/screenshots/<page>.png`` (gitignored) for a person to look at.

Skipped when /usr/bin/chromium or the playwright package is missing. Nothing is printed: the
assertions compare offsets, labels and counts (and ``--assert=plain`` never echoes values).
"""
from __future__ import annotations

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

#: Pages a lead opens: url path -> (screenshot name, the page's title; Home's is the project's name).
LEAD_PAGES = {"overview": ("home", None), "adjudication": ("review", "Review"), "training": ("train", "Train"),
              "deidentification": ("deidentify", "De-identify"), "quality": ("metrics", "Metrics"),
              "risk-triage": ("risk", "Risk triage"), "administration": ("admin", "Admin")}
METRICS_TABS = ("Model", "Pre-annotations vs gold", "Annotators", "Throughput")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> bh.BrowserProject:
    return bh.prepare_db(tmp_path_factory.mktemp("browser") / "workbench.db", n_docs=30, deid_docs=6)


server = bh.server          # shared module fixtures (browser_helpers)
chromium = bh.chromium


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


def word_tokens(text: str) -> list[tuple[int, int]]:
    """What the editor's arrow keys step by: units (``units`` in dashboard/editor/core.js, the
    Python twin in :mod:`pipeline.annotation.units`), lone punctuation skipped."""
    from pipeline.annotation.units import units

    return units(text)


def free_words(text: str, spans, n: int) -> list[int]:
    """Indices (in :func:`word_tokens`) of the first ``n`` words of 4+ letters no span touches."""
    toks = word_tokens(text)
    out = [i for i, (a, b) in enumerate(toks)
           if b - a >= 4 and text[a:b].isalpha() and not any(s.start < b and a < s.end for s in spans)]
    assert len(out) >= n, "too few unannotated words in the first queued document"
    return out[:n]


def keys(page, *combos: str) -> None:
    for combo in combos:
        page.keyboard.press(combo)


def status_says(page, words: str) -> None:
    page.wait_for_function("(w) => document.querySelector('.wb-ed .wb-status').textContent.includes(w)", arg=words)


def test_annotator_corrects_suggestions_by_keys_only_saves_finishes_and_moves_on(project, server, page):
    with bh.screenshot_on_failure(page, "annotate-keys"):
        correct_by_keys(project, server, page)


def correct_by_keys(project, server, page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    bh.sign_in(page, server.url, "ana", project.password)
    bh.screenshot(page, "home-annotator")
    bh.open_page(page, "annotation", "Annotate")
    no_crash(page, "annotate")

    # what the page opened: the first document of ana's queue, from the pre layer
    db = store.connect(project.db_path)
    try:
        proj = store.get_project(db, project.project_id)
        settings = ProjectSettings.from_settings(proj.settings)
        queue = queues.load_queue(db, "ana", proj.id, settings.queue_order, settings.queue_seed)
        doc_id, next_id = queue[0].doc_id, queue[1].doc_id
        doc = store.get_document(db, doc_id)
        assert store.read_layer(db, doc_id, access.annotator_layer("ana")).version == 0
        pre = sorted(store.read_layer(db, doc_id, access.PRE).spans, key=lambda s: (s.start, s.end))
    finally:
        db.close()
    assert len(pre) >= 3 and all(not s.source.startswith("human:") for s in pre)
    bh.editor_ready(page, doc_id)
    bh.wait_idle(page)
    assert bh.editor_text(page) == doc.text, "the editor does not show the note as it is stored"
    assert sorted((a, b, t) for a, b, t, _ in bh.editor_spans(page)) == [(s.start, s.end, s.type) for s in pre]
    assert all(sugg for *_, sugg in bh.editor_spans(page)), "untouched suggestions are not shown as such"
    first_line = bh.editor_rect(page, 0, doc.text.index("\n") if "\n" in doc.text else len(doc.text))
    assert first_line["bottom"] < 800, "the note's first line is below the fold at 1280x800"
    bh.screenshot(page, "annotate-1280x800")
    hotkey = bh.editor_hotkeys(page)
    s0, s1, s2 = pre[:3]
    relabel_to = "DOCTOR" if s1.type != "DOCTOR" else "PATIENT"
    w1, w2 = free_words(doc.text, pre, 2)
    toks = word_tokens(doc.text)

    keys(page, "]")                       # the first open suggestion ...
    status_says(page, "suggestion scored")
    keys(page, "Enter")                   # ... accepted; the next open one is current
    status_says(page, "Accepted")
    keys(page, hotkey[relabel_to])        # relabel it
    status_says(page, f"is now {relabel_to}")
    keys(page, "]", "Delete")             # the one after it: removed
    status_says(page, "Removed")
    keys(page, "Escape", *["ArrowRight"] * (w1 + 1), hotkey["PATIENT"])   # a free word, labelled by its key
    status_says(page, "Added")
    keys(page, "Escape", *["ArrowRight"] * (w2 + 1), hotkey["PATIENT"])   # another one ...
    status_says(page, "Added")
    keys(page, "Control+z")               # ... undone
    status_says(page, "Undone")
    keys(page, "?")
    page.locator(".wb-ed .wb-help").wait_for(state="visible")
    bh.screenshot(page, "annotate-keys-overlay")
    keys(page, "Escape")
    keys(page, "Control+s")
    status_says(page, "Saved (version 1)")
    bh.wait_idle(page)
    no_crash(page, "annotate after save")

    expected = {(s.start, s.end, s.type, "model") for s in pre[3:]} | {
        (s0.start, s0.end, s0.type, "human"), (s1.start, s1.end, relabel_to, "human"),
        (*toks[w1], "PATIENT", "human")}

    def stored() -> tuple[set, object]:
        db = store.connect(project.db_path)
        try:
            layer = store.read_layer(db, doc_id, access.annotator_layer("ana"))
        finally:
            db.close()
        return {(s.start, s.end, s.type, "human" if s.source == "human:ana" else "model") for s in layer.spans}, layer

    got, layer = stored()
    assert layer.version == 1 and got == expected

    page.set_viewport_size({"width": 1920, "height": 1080})
    bh.screenshot(page, "annotate-1920x1080")
    page.set_viewport_size({"width": 1280, "height": 800})
    keys(page, "Control+Enter")           # finish and next: suggestions are still open, so it asks first
    status_says(page, "suggestions are still open")
    keys(page, "ArrowRight", "Enter")     # "finish, leaving them open" (they stay suggestions)
    bh.editor_ready(page, next_id)
    bh.wait_idle(page)
    no_crash(page, "annotate, next document")
    got, layer = stored()
    assert layer.version == 2 and layer.status == "finished" and got == expected
    db = store.connect(project.db_path)
    try:
        (asg,) = store.list_assignments(db, user="ana", doc_id=doc_id)
    finally:
        db.close()
    assert asg.status == "finished" and asg.seconds_spent > 0
    assert page.locator(".wb-ed .wb-pos").inner_text() == f"2 of {len(queue)}"
    bh.screenshot(page, "annotate-next")


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
