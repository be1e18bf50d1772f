"""Issue 31, items 2 and 3, in a real browser (Debian's chromium through Playwright), keyboard only:

* the word moves' units and the phrases Shift picks (``units``, ``phrases`` in
  ``dashboard/editor/core.js``) equal their Python twins (:mod:`pipeline.annotation.units`) on
  demo notes and notes with dates, phones, ids, e-mails, names and addresses;
* jump to text adds a missed span in 4 keys (Ctrl+F, one letter, Enter, the label's key); a
  second Enter goes to the next match; Esc in the field puts the selection back;
* no keyboard trap: Tab leaves the note and Shift+Tab comes back; Esc (with nothing selected)
  gives the keys back to the page; the editor's keys do nothing while the focus is elsewhere;
  Enter on a focused button of the page is not swallowed;
* a whole annotate-and-finish flow with Tab and keys only (the Annotate page reached from the
  sidebar by Tab and Enter), the finished layer checked in SQLite;
* the accessibility tree Chromium gives screen readers names a span "Louis, patient name" (its
  badge is not glued to the word).

Nothing is printed: assertions compare offsets, labels, counts and roles.
"""
from __future__ import annotations

import pytest

import browser_helpers as bh

pytestmark = pytest.mark.browser

_why_not = bh.missing_requirements()
if _why_not:
    pytest.skip(f"browser test not possible here: {_why_not}", allow_module_level=True)

import store  # noqa: E402
from dashboard.editor import HERE as EDITOR_DIR  # noqa: E402
from dashboard.editor import spoken  # noqa: E402
from pipeline.annotation import edits as ops  # noqa: E402
from pipeline.annotation.units import phrases, units  # noqa: E402

USER = "ana"
FOCUS = """() => { const a = document.activeElement, ed = document.querySelector('.wb-ed');
    return !a || a === document.body ? 'body' : a.classList.contains('wb-note') ? 'note'
        : ed && ed.contains(a) ? 'editor' : 'page'; }"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> bh.BrowserProject:
    return bh.prepare_db(tmp_path_factory.mktemp("keyboard") / "workbench.db", n_docs=12, seed=5)


server = bh.server          # shared module fixtures (browser_helpers)
chromium = bh.chromium


@pytest.fixture
def page(chromium):
    p = bh.new_page(chromium, width=1280, height=800)
    yield p
    p.context.close()


def _doc(project, doc_id):
    db = store.connect(project.db_path)
    try:
        return store.get_document(db, doc_id).text, store.read_layer(db, doc_id, f"annotator:{USER}")
    finally:
        db.close()


def _shown_doc(page) -> int:
    return int(page.evaluate("() => document.querySelector('.wb-ed').dataset.token.split('.')[0]"))


def _open_annotate(page, server, project) -> tuple[int, str]:
    bh.sign_in(page, server.url, USER, project.password)
    bh.open_page(page, "annotation", "Annotate")
    bh.editor_ready(page)
    bh.wait_idle(page)
    doc_id = _shown_doc(page)
    return doc_id, bh.editor_text(page)


def _one_letter_target(text: str, spans) -> tuple[str, int, int]:
    """A letter whose first word-start match (jump to text's rule) from the top is a unit no span
    touches: (letter, unit start, unit end)."""
    us = units(text)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        starts = [i for i in range(len(text)) if text[i].lower() == letter
                  and (i == 0 or not ops.is_word_char(text[i - 1]))]
        if not starts:
            continue
        u = next(u for u in us if u[0] <= starts[0] < u[1])
        if not any(a < u[1] and u[0] < b for a, b, *_ in spans):
            return letter, u[0], u[1]
    raise AssertionError("no letter leads to a free word")


def test_units_and_phrases_match_the_python_twins(chromium, project):
    """``units`` and ``phrases`` of core.js against :mod:`pipeline.annotation.units` (phrases:
    what a word hint typed with Shift selects, ``test_editor_phrases_browser.py``)."""
    page = bh.new_page(chromium)
    try:
        page.set_content("<html><body></body></html>")
        page.add_script_tag(content=(EDITOR_DIR / "core.js").read_text(encoding="utf-8"))
        db = store.connect(project.db_path)
        try:
            texts = [store.get_document(db, d.id).text for d in store.list_documents(db, project.project_id)]
        finally:
            db.close()
        texts.append("Seen 03/14/2021 10:30; MRN-55-1234, a.b@x.org, (617) 555-1234 or 617-555-1234. "
                     "Dr.Núñez 🙂 2021-03-14, id A7:B9.")
        texts.append("Seen Walter Austin MD at 1234 Main Street, Apt #4B, Boston MA 02115 on Mar 14, 2021 and "
                     "9th of May.\n🙂 María de la Cruz; John A. Smith; Johnson & Johnson.  Two  Spaces ÉLODIE DURAND")
        for text in texts:
            for name, twin in (("units", units), ("phrases", phrases)):
                js = page.evaluate(f"(t) => {name}(t)", text)
                assert [(ops.from_utf16(text, a), ops.from_utf16(text, b)) for a, b in js] == twin(text), name
        got = [texts[-2][a:b] for a, b in units(texts[-2])]
        for whole in ("03/14/2021", "10:30", "MRN-55-1234", "a.b@x.org", "(617) 555-1234", "617-555-1234", "2021-03-14"):
            assert whole in got
        got = [texts[-1][a:b] for a, b in phrases(texts[-1])]
        for whole in ("Seen Walter Austin", "MD", "1234 Main Street", "Apt #4B", "Boston", "MA", "02115",
                      "Mar 14, 2021", "9th of May", "María de la Cruz", "John A. Smith", "Johnson & Johnson",
                      "Two", "Spaces", "ÉLODIE DURAND"):
            assert whole in got
    finally:
        page.context.close()


def test_jump_to_text_adds_a_missed_span_in_four_keys(project, server, page):
    with bh.screenshot_on_failure(page, "editor-jump"):
        doc_id, text = _open_annotate(page, server, project)
        letter, a, b = _one_letter_target(text, bh.editor_spans(page))
        key = bh.editor_hotkeys(page)["PATIENT"]
        before = bh.editor_spans(page)
        assert page.evaluate(FOCUS) == "note"
        presses = ["Control+f", letter, "Enter", key]
        for k in presses:
            page.keyboard.press(k)
        page.wait_for_function("() => document.querySelector('.wb-ed .wb-status').textContent.startsWith('Added')")
        assert len(presses) == 4
        assert sorted(bh.editor_spans(page)) == sorted(before + [(a, b, "PATIENT", False)])
        assert page.evaluate(FOCUS) == "note"

        # Enter right after a jump goes to the next match; Esc in the field puts the selection back
        page.keyboard.press("Control+z")                     # nothing selected now: the search starts at the top
        page.keyboard.press("Control+f")
        page.keyboard.press(letter)
        page.keyboard.press("Enter")
        first = page.evaluate("() => getSelection().toString()")
        page.keyboard.press("Enter")
        second_at = page.evaluate("""() => { const s = getSelection(); if (!s.rangeCount) return -1;
            const r = document.createRange(); r.setStart(document.querySelector('.wb-ed .wb-note'), 0);
            r.setEnd(s.anchorNode, s.anchorOffset); return r.toString().length; }""")
        cur = page.evaluate("() => { const c = document.querySelector('.wb-ed .wb-s.wb-cur'); return c ? 1 : 0; }")
        assert first == text[a:b]
        assert second_at > a or cur, "the second Enter did not go on to the next match"
        page.keyboard.press("Escape")
        page.keyboard.press("ArrowRight")
        chosen = page.evaluate("() => getSelection().toString()")
        page.keyboard.press("Control+f")
        page.keyboard.type("zzqx")
        page.keyboard.press("Escape")
        assert page.evaluate("() => getSelection().toString()") == chosen
        assert page.evaluate(FOCUS) == "note"
        assert sorted(bh.editor_spans(page)) == sorted(before)


def test_tab_leaves_the_editor_esc_gives_the_keys_back_and_keys_act_only_with_focus(project, server, page):
    with bh.screenshot_on_failure(page, "editor-tab"):
        doc_id, text = _open_annotate(page, server, project)
        before = bh.editor_spans(page)
        key = bh.editor_hotkeys(page)["PATIENT"]
        assert page.evaluate(FOCUS) == "note"
        page.keyboard.press("Tab")                           # out of the note, out of the editor
        assert page.evaluate(FOCUS) in ("page", "body")
        page.keyboard.press("Shift+Tab")                     # and back
        assert page.evaluate(FOCUS) == "note"
        page.keyboard.press("Shift+Tab")                     # the toolbar is before the note
        assert page.evaluate(FOCUS) == "editor"
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUS) == "note"

        # Esc with nothing selected gives the keys back: label keys then do nothing
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Escape")                         # clears the selection
        assert page.evaluate(FOCUS) == "note"
        page.keyboard.press("Escape")                         # gives the keys back
        assert page.evaluate(FOCUS) == "body"
        for k in ("ArrowRight", key, ".", "Delete", "]", "Enter"):
            page.keyboard.press(k)
        page.wait_for_timeout(300)
        assert sorted(bh.editor_spans(page)) == sorted(before)
        assert page.evaluate("() => !document.querySelector('.wb-ed .wb-s.wb-cur')")

        # Enter on a focused link of the page is the link's (not swallowed): the sidebar's first
        # link (Home) opens Home
        page.locator('[data-testid="stSidebarNav"] a').first.focus()
        assert page.evaluate(FOCUS) == "page"
        page.keyboard.press("Enter")
        page.wait_for_function("() => !document.querySelector('.wb-ed')", timeout=bh.WAIT_MS)


def test_spans_are_named_for_screen_readers(project, server, page):
    with bh.screenshot_on_failure(page, "editor-aria"):
        doc_id, text = _open_annotate(page, server, project)
        spans = bh.editor_spans(page)
        cdp = page.context.new_cdp_session(page)
        nodes = [n for n in cdp.send("Accessibility.getFullAXTree")["nodes"] if not n.get("ignored")]
        marks = [n.get("name", {}).get("value", "") for n in nodes if n["role"]["value"] == "mark"]
        assert len(marks) == len(spans)
        for (a, b, typ, sugg), name in zip(sorted(spans), marks):
            want = f"{text[a:b]}, {spoken(typ)}"
            assert name.startswith(want), "a span is not read as its text and its label"
            assert ("suggestion scored" in name) == sugg
        assert any(name.split(", ")[1] == "patient name" for name in marks) or "PATIENT" not in {t for *_, t, _ in spans}
        # the badges are not read out glued to the words ("LouisPATIENT")
        snapshot = page.locator(".wb-ed .wb-note").aria_snapshot()
        for a, b, typ, _ in spans:
            assert f"{text[a:b]}{typ}" not in snapshot and f"{text[a:b]} {typ}" not in snapshot
        region = [n for n in nodes if n["role"]["value"] == "region" and "annotation editor" in n.get("name", {}).get("value", "")]
        assert len(region) == 1


def test_annotate_and_finish_with_tab_and_keys_only(project, server, page):
    with bh.screenshot_on_failure(page, "editor-keys-only"):
        keys_only_flow(project, server, page)


def keys_only_flow(project, server, page) -> None:
    bh.sign_in(page, server.url, "ben", project.password)
    # to Annotate from the sidebar: Tab until its link has the focus, then Enter
    for _ in range(40):
        page.keyboard.press("Tab")
        href = page.evaluate("() => document.activeElement && document.activeElement.getAttribute('href') || ''")
        if href.rstrip("/").endswith("annotation"):
            break
    else:
        raise AssertionError("Tab never reached the Annotate link")
    page.keyboard.press("Enter")
    bh.editor_ready(page)
    bh.wait_idle(page)
    doc_id = _shown_doc(page)
    db = store.connect(project.db_path)
    try:
        text = store.get_document(db, doc_id).text
    finally:
        db.close()
    assert page.evaluate(FOCUS) == "note", "the note does not have the keys when it opens"
    spans = bh.editor_spans(page)
    open_ = [s for s in spans if s[3]]
    assert len(open_) >= 3
    keys = bh.editor_hotkeys(page)
    letter, a, b = _one_letter_target(text, spans)
    # accept the first suggestion, remove the next, add a missed name by jumping to it
    for k in ("]", "Enter", "Delete", "Control+f", letter, "Enter", keys["PATIENT"]):
        page.keyboard.press(k)
    page.wait_for_function("() => document.querySelector('.wb-ed .wb-status').textContent.startsWith('Added')")
    shown = bh.editor_spans(page)
    assert (a, b, "PATIENT", False) in shown
    assert (*open_[0][:3], False) in shown and not [s for s in shown if s[:2] == open_[1][:2]]
    # the threshold field is reachable from the note with Shift+Tab (it is in the toolbar)
    for _ in range(30):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("() => document.activeElement.classList.contains('wb-threshold')"):
            break
    else:
        raise AssertionError("Shift+Tab never reached the threshold field")
    page.keyboard.press("Enter")                              # back to the note
    assert page.evaluate(FOCUS) == "note"
    # finish: asked about the open suggestions; → to "finish, leaving them open", Enter
    page.keyboard.press("Control+Enter")
    page.wait_for_function("() => !!document.querySelector('.wb-ed').dataset.asking")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("() => document.activeElement.dataset.action") == "finish_anyway"
    page.keyboard.press("Enter")
    page.wait_for_function("(d) => { const e = document.querySelector('.wb-ed');"
                           " return !!e && (e.dataset.token || '').split('.')[0] !== String(d); }", arg=doc_id,
                           timeout=bh.WAIT_MS)
    bh.editor_ready(page)
    db = store.connect(project.db_path)
    try:
        layer = store.read_layer(db, doc_id, "annotator:ben")
    finally:
        db.close()
    assert layer.status == "finished"
    got = {(s.start, s.end, s.type): s.source.startswith("human:") for s in layer.spans}
    assert got[(a, b, "PATIENT")] and got[open_[0][:3]]
    assert open_[1][:3] not in got
    assert page.evaluate(FOCUS) == "note", "the next note does not have the keys"


def test_shrink_split_and_merge_a_span_by_keys(project, server, page):
    """Shift+← cuts the current span's last word off (a label's key then labels it: a split),
    Shift+→ into the next span takes it in whole (a merge): back to the span as it was."""
    with bh.screenshot_on_failure(page, "editor-split-merge"):
        doc_id, text = _open_annotate(page, server, project)
        before = sorted(bh.editor_spans(page))
        us = units(text)
        a, b, typ, _ = next(s for s in before if len([u for u in us if s[0] <= u[0] and u[1] <= s[1]]) == 2)
        last = [u for u in us if a <= u[0] and u[1] <= b][-1]
        first_end = [u for u in us if a <= u[0] and u[1] <= b][0][1]
        key = bh.editor_hotkeys(page)[typ]
        key = f"Shift+{key}" if key.isupper() else key
        # make the span current: jump to its whole text (Ctrl+F, the text, Enter)
        page.keyboard.press("Control+f")
        page.keyboard.type(text[a:b])
        page.keyboard.press("Enter")
        page.wait_for_function("() => !!document.querySelector('.wb-ed .wb-s.wb-cur')")
        page.keyboard.press("Shift+ArrowLeft")
        page.keyboard.press(key)                              # split: the cut-off word gets the label
        page.wait_for_function("() => document.querySelector('.wb-ed .wb-status').textContent.startsWith('Split')")
        after = sorted(bh.editor_spans(page))
        assert (a, first_end, typ, False) in after and (last[0], last[1], typ, False) in after
        assert len(after) == len(before) + 1
        page.keyboard.press(",")                              # the previous span: the first part
        page.keyboard.press("Shift+ArrowRight")               # into the second part: merged
        page.wait_for_timeout(200)
        merged = sorted(bh.editor_spans(page))
        assert (a, b, typ, False) in merged and len(merged) == len(before)
        assert [s for s in merged if s[:2] != (a, b)] == [s for s in before if s[:2] != (a, b)]
