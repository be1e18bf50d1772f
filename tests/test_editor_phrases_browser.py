"""Issue 31, item 2: phrase picks in the span editor (``dashboard/editor/phrases.js``), in a real
browser (Debian's chromium through Playwright), keyboard only:

* (``phrases`` in ``core.js`` against its Python twin: ``test_editor_keyboard_browser.py``)
* a missed full name (a span of two or more words) is added with ``:``, its first word's hint
  letters typed with Shift and the label's key, and a span that wrongly holds two is split with
  ``;``, the digit of the cut point where the second begins and its label's key: at most 4 keys
  each, from a cursor on a random word; Ctrl+S then saves exactly the truth (checked in SQLite);
* while the word hints show, the phrases in view are underlined; Shift+Enter in jump to text
  selects from the match to the end of its phrase;
* PageDown pages by the part of the note below the sticky toolbar (no line goes under it
  unseen: with the browser's own step this test fails) and keeps the hints open.

Nothing is printed: assertions compare offsets, labels and counts.
"""
from __future__ import annotations

import random
import re

import pytest

import browser_helpers as bh

pytestmark = pytest.mark.browser

_why_not = bh.missing_requirements()
if _why_not:
    pytest.skip(f"browser test not possible here: {_why_not}", allow_module_level=True)

import store  # noqa: E402
from pipeline.annotation import edits as ops  # noqa: E402
from pipeline.annotation.units import phrases, units  # noqa: E402
from pipeline.spans import Span  # noqa: E402

USER = "bea"          # a fresh annotator: her queue holds only the prepared note
HINTS = """(sel) => Object.fromEntries([...document.querySelectorAll(sel)]
    .map(b => [b.dataset.a, b.dataset.hint]))"""
STATUS = "() => document.querySelector('.wb-ed .wb-status').textContent"

server = bh.server          # shared module fixtures (browser_helpers)
chromium = bh.chromium


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> bh.BrowserProject:
    return bh.prepare_db(tmp_path_factory.mktemp("phrases") / "workbench.db", n_docs=16, seed=11)


@pytest.fixture
def page(chromium):
    p = bh.new_page(chromium, width=1280, height=800)
    yield p
    p.context.close()


def _strong(word: str) -> bool:
    return bool(re.match(r"[A-Z0-9]", word))


def _plan(text: str, pre: list[tuple[int, int, str]]):
    """(missed, x, y) in this note, or None: ``missed`` a span of two or more words that is
    exactly a phrase; ``x``, ``y`` two spans one after the other on a line with no word between
    them, ``y`` beginning a phrase with a capital or a digit (merged, a cut point is there)."""
    us, ph = units(text), phrases(text)
    starts, ends = {a for a, _ in us}, {b for _, b in us}
    ok = [s for s in pre if s[0] in starts and s[1] in ends and "\n" not in text[s[0]:s[1]] and s[0] < 1500]
    missed = [s for s in ok if " " in text[s[0]:s[1]] and s[:2] in ph]
    pairs = [(x, y) for x, y in zip(ok, ok[1:])
             if not [u for u in us if x[1] <= u[0] and u[1] <= y[0]] and "\n" not in text[x[1]:y[0]]
             and _strong(text[y[0]:y[1]]) and y[0] in {a for a, _ in ph}]
    for m in missed:
        for x, y in pairs:
            if m not in (x, y):
                return m, x, y
    return None


def _prepare(project) -> tuple[int, set, tuple, tuple, tuple]:
    """The annotator's layer of one note: the truth (its machine spans, all accepted) with one
    span missing and two spans merged into one of the first one's type."""
    with store.connect(project.db_path) as db:
        store.create_user(db, USER, project.password, "annotator")
        schema = store.get_project(db, project.project_id).schema
        for d in store.list_documents(db, project.project_id):
            text = store.get_document(db, d.id).text
            pre = sorted((s.start, s.end, s.type) for s in store.read_layer(db, d.id, "pre").spans)
            got = _plan(text, pre)
            if got is None or any(ord(c) > 0xFFFF for c in text):
                continue
            missed, x, y = got
            shown = [s for s in pre if s not in (missed, x, y)] + [(x[0], y[1], x[2])]
            layer = [Span(str(d.id), a, b, schema.category_of(t), t, f"human:{USER}", 1.0) for a, b, t in shown]
            store.save_layer(db, d.id, f"annotator:{USER}", layer, expected_version=0, user=USER)
            store.assign(db, d.id, USER)
            return d.id, set(pre), missed, x, y
    raise AssertionError("no demo note has a missed phrase and two spans to split")


def _key(hotkeys: dict, t: str) -> str:
    return f"Shift+{hotkeys[t]}" if hotkeys[t].isupper() else hotkeys[t]


def _shows(page, r: dict) -> bool:
    return bh.editor_note_shows(page, r) and r["bottom"] <= page.viewport_size["height"]


def _hint_for(page, a: int, kind: str = "wb-hint") -> str:
    """What the badge (``wb-hint``: a word's or span's; ``wb-cut``: a cut point's) over offset
    ``a`` shows (read off the screen, as a person does)."""
    hints = page.evaluate(HINTS, f".wb-ed .{kind}")
    assert str(a) in hints, "the target has no hint: it is not in view"
    return hints[str(a)]


def test_a_missed_name_is_added_and_a_span_split_in_four_keys_each_and_saved(project, server, page):
    doc_id, truth, missed, x, y = _prepare(project)
    with bh.screenshot_on_failure(page, "editor-phrases"):
        bh.sign_in(page, server.url, USER, project.password)
        bh.open_page(page, "annotation", "Annotate")
        bh.editor_ready(page, doc_id)
        bh.wait_idle(page)
        text = bh.editor_text(page)
        hotkeys = bh.editor_hotkeys(page)
        spans = bh.editor_spans(page)
        assert (x[0], y[1], x[2], False) in spans and not [s for s in spans if s[:2] == missed[:2]]
        # setup (not counted): the target in view, the cursor on a random word no span touches
        bh.editor_scroll_to(page, missed[0])
        rng = random.Random(5)
        free = [u for u in units(text) if not any(a < u[1] and u[0] < b for a, b, *_ in spans)]
        near = [u for u in free if abs(u[0] - missed[0]) < 300 and _shows(page, bh.editor_rect(page, *u))]
        u = rng.choice(near)
        r = bh.editor_rect(page, *u)
        page.mouse.click(r["left"] + 2, (r["top"] + r["bottom"]) / 2)
        page.wait_for_function(f"() => ({STATUS})().startsWith('Selected')")

        # add: ":", the first word's letters with Shift (the whole name), the label's key
        page.keyboard.press(":")
        assert page.evaluate("() => CSS.highlights.has('wb-phrase') && CSS.highlights.get('wb-phrase').size > 0")
        hint = _hint_for(page, missed[0])
        presses = [*(f"Shift+{c.upper()}" for c in hint), _key(hotkeys, missed[2])]
        for k in presses:
            page.keyboard.press(k)
        assert 1 + len(presses) <= 4
        page.wait_for_function(f"() => ({STATUS})().startsWith('Added')")
        assert (missed[0], missed[1], missed[2], False) in bh.editor_spans(page)
        assert page.evaluate("() => !CSS.highlights.has('wb-phrase')"), "the underline outlived the hints"

        # split: ";", the digit of the cut point where the second span begins, its label's key
        bh.editor_scroll_to(page, y[0])
        page.keyboard.press(";")
        hint = _hint_for(page, y[0], "wb-cut")
        assert hint.isdigit()
        presses = [*hint, _key(hotkeys, y[2])]
        for k in presses:
            page.keyboard.press(k)
        assert 1 + len(presses) <= 4
        page.wait_for_function(f"() => ({STATUS})().startsWith('Split')")
        assert sorted(bh.editor_spans(page)) == sorted((a, b, t, False) for a, b, t in truth)

        page.keyboard.press("Control+s")
        page.wait_for_function("() => document.querySelector('.wb-ed').dataset.dirty === '0'")
        with store.connect(project.db_path) as db:
            saved = store.read_layer(db, doc_id, f"annotator:{USER}").spans
        assert {(s.start, s.end, s.type) for s in saved} == truth
        assert all(s.source == f"human:{USER}" for s in saved)

        # Shift+Enter in jump to text: from the match to the end of its phrase (the name is now a
        # span of exactly that extent, so it becomes the current span)
        page.keyboard.press("Escape")
        word = text[missed[0]:text.index(" ", missed[0])]
        starts = [m.start() for m in re.finditer(re.escape(word), text, re.IGNORECASE)
                  if m.start() == 0 or not ops.is_word_char(text[m.start() - 1])]
        page.keyboard.press("Control+f")
        page.keyboard.type(word)
        if starts[0] != missed[0]:            # an earlier match first: Enter, then Enter per match
            page.keyboard.press("Enter")
            for _ in range(starts.index(missed[0]) - 1):
                page.keyboard.press("Enter")
        page.keyboard.press("Shift+Enter")
        page.wait_for_function("() => !!document.querySelector('.wb-ed .wb-s.wb-cur')")
        cur = page.evaluate("() => Number(document.querySelector('.wb-ed .wb-s.wb-cur').dataset.i)")
        assert sorted(bh.editor_spans(page))[cur][:2] == missed[:2]


def test_page_down_hides_no_line_under_the_toolbar_and_keeps_the_hints(project, server, page):
    """PageDown pages by the note's part below the sticky toolbar: the last word shown before it
    is still shown after it (the browser's own step is the window's, and lines went under the
    toolbar unseen); word hints stay open and the words then in view get letters."""
    with store.connect(project.db_path) as db:
        docs = store.list_documents(db, project.project_id)
        doc_id = max(docs, key=lambda d: len(store.get_document(db, d.id).text)).id
        store.create_user(db, "cy", project.password, "annotator")
        store.assign(db, doc_id, "cy")
    with bh.screenshot_on_failure(page, "editor-page-down"):
        bh.sign_in(page, server.url, "cy", project.password)
        bh.open_page(page, "annotation", "Annotate")
        bh.editor_ready(page, doc_id)
        bh.wait_idle(page)
        text = bh.editor_text(page)
        us = units(text)
        bh.editor_scroll_to(page, us[len(us) // 4][0])        # setup: stuck toolbar, note below
        page.wait_for_timeout(200)
        shown = [u for u in us if _shows(page, bh.editor_rect(page, *u))]
        last, first = shown[-1], shown[0]
        assert last != us[-1], "the note fits the window: nothing to page to"
        page.keyboard.press(":")
        before = page.evaluate(HINTS, ".wb-ed .wb-hint")
        page.keyboard.press("PageDown")
        page.wait_for_timeout(400)
        assert _shows(page, bh.editor_rect(page, *last)), "the last word shown went out of view"
        assert not _shows(page, bh.editor_rect(page, *first)), "PageDown did not page"
        assert page.evaluate("() => document.querySelector('.wb-ed').dataset.hints") == "words"
        after = page.evaluate(HINTS, ".wb-ed .wb-hint")
        assert str(last[0]) in after and set(after) != set(before)
