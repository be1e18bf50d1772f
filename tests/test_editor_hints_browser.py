"""Issue 31, item 2: hint navigation in the span editor (``dashboard/editor/hints.js``), in a real
browser (Debian's chromium through Playwright), keyboard only:

* ``;`` puts a letter on every span in view; its letters and a label's key relabel it (<= 4 keys);
* ``:`` puts letters (one or two, prefix-free) on every word in view; a missed one-word span is added with ``:``, the
  word's letters and the label's key (<= 4 keys) from a random place;
* the badges are hidden from the accessibility tree (aria-hidden), Esc takes them away and
  changes nothing; a key that is no letter closes them and does what it always does.

Nothing is printed: assertions compare offsets, labels, counts and roles.
"""
from __future__ import annotations

import random

import pytest

import browser_helpers as bh

pytestmark = pytest.mark.browser

_why_not = bh.missing_requirements()
if _why_not:
    pytest.skip(f"browser test not possible here: {_why_not}", allow_module_level=True)

from pipeline.annotation.units import units  # noqa: E402

USER = "ana"
HINTS = """() => [...document.querySelectorAll('.wb-ed .wb-hint')].filter(b => !b.hidden)
    .map(b => [b.dataset.hint, Number(b.dataset.a), Number(b.dataset.b)])"""


# the keyboard tests' fixtures (a demo project, its server, chromium, a 1280x800 page): module
# scoped, so this module gets its own project and server
from test_editor_keyboard_browser import chromium, page, project, server  # noqa: E402,F401


def _open(page, server, project) -> str:
    bh.sign_in(page, server.url, USER, project.password)
    bh.open_page(page, "annotation", "Annotate")
    bh.editor_ready(page)
    bh.wait_idle(page)
    return bh.editor_text(page)


def _type(page, keys) -> None:
    for k in keys:
        page.keyboard.press(k)


def _key(hotkeys, t) -> str:
    return f"Shift+{hotkeys[t]}" if hotkeys[t].isupper() else hotkeys[t]


def test_a_span_reached_by_its_hint_is_relabelled_in_four_keys_or_fewer(project, server, page):
    with bh.screenshot_on_failure(page, "editor-hints-span"):
        _open(page, server, project)
        hotkeys = bh.editor_hotkeys(page)
        page.keyboard.press(";")
        hints = page.evaluate(HINTS)
        spans = bh.editor_spans(page)
        assert hints, "no span hint in view"
        assert all(len(h) == 1 for h, _, _ in hints) or len(hints) > 26
        assert {(a, b) for _, a, b in hints} <= {s[:2] for s in spans}
        page.keyboard.press("Escape")                       # setup only: which span is the last in view
        hint, a, b = hints[-1]
        old = next(s for s in spans if s[:2] == (a, b))
        new_type = "DOCTOR" if old[2] != "DOCTOR" else "PATIENT"
        presses = [";", *hint, _key(hotkeys, new_type)]
        _type(page, presses)
        assert len(presses) <= 4
        page.wait_for_function("() => document.querySelector('.wb-ed .wb-status').textContent.includes('is now')")
        want = sorted([s for s in spans if s[:2] != (a, b)] + [(a, b, new_type, False)])
        assert sorted(bh.editor_spans(page)) == want
        assert not page.evaluate(HINTS)


def test_a_missed_word_is_added_by_its_hint_in_four_keys_from_a_random_place(project, server, page):
    with bh.screenshot_on_failure(page, "editor-hints-word"):
        text = _open(page, server, project)
        hotkeys = bh.editor_hotkeys(page)
        spans = bh.editor_spans(page)
        free = [u for u in units(text) if not any(a < u[1] and u[0] < b for a, b, *_ in spans)]
        rng = random.Random(3)
        start = rng.choice(free[: len(free) // 2])
        r = bh.editor_rect(page, *start)                    # setup: the cursor on a random word
        page.mouse.click(r["left"] + 2, (r["top"] + r["bottom"]) / 2)
        page.wait_for_function("() => document.querySelector('.wb-ed .wb-status').textContent.startsWith('Selected')")
        page.keyboard.press(":")
        hints = page.evaluate(HINTS)
        page.keyboard.press("Escape")
        names = [h for h, _, _ in hints]
        assert len(hints) > 26 and {len(h) for h in names} == {1, 2}
        assert not any(x != y and y.startswith(x) for x in names for y in names), "hints are not prefix-free"
        singles = {(a, b) for h, a, b in hints if len(h) == 1}
        assert all(text[a].isupper() or text[a].isdigit() for a, b in singles if (a, b) in free) or \
            not any(text[a].isupper() or text[a].isdigit() for h, a, b in hints if len(h) == 2 and (a, b) in free)
        in_view = [(h, a, b) for h, a, b in hints if (a, b) in free and (a, b) != start]
        hint, a, b = in_view[rng.randrange(len(in_view))]
        presses = [":", *hint, _key(hotkeys, "PATIENT")]
        _type(page, presses)
        assert len(presses) <= 4
        page.wait_for_function("() => document.querySelector('.wb-ed .wb-status').textContent.startsWith('Added')")
        assert sorted(bh.editor_spans(page)) == sorted(spans + [(a, b, "PATIENT", False)])


def test_hints_are_hidden_from_screen_readers_and_esc_cancels(project, server, page):
    with bh.screenshot_on_failure(page, "editor-hints-aria"):
        _open(page, server, project)
        before = bh.editor_spans(page)
        page.keyboard.press(";")
        assert page.evaluate(HINTS)
        assert page.evaluate("() => document.querySelector('.wb-ed .wb-hints').getAttribute('aria-hidden')") == "true"
        snap = page.locator(".wb-ed").aria_snapshot()
        hints = page.evaluate(HINTS)
        letters = {h.upper() for h, _, _ in hints}
        # no badge text reaches the tree: the spans read as before (text, label), no lone letters
        assert not any(line.strip().strip("- ").strip('"') in letters for line in snap.splitlines())
        page.keyboard.press(";")                            # ; again: letters on the words
        assert page.evaluate("() => document.querySelector('.wb-ed').dataset.hints") == "words"
        page.keyboard.press("Escape")
        assert not page.evaluate(HINTS)
        assert page.evaluate("() => !document.querySelector('.wb-ed .wb-hints')")
        assert page.evaluate("() => !document.querySelector('.wb-ed').dataset.hints")
        assert sorted(bh.editor_spans(page)) == sorted(before)
        assert page.evaluate("() => !document.querySelector('.wb-ed .wb-s.wb-cur') && !getSelection().toString()")
        # a key that is no letter closes them and acts as always: . makes the first span current
        page.keyboard.press(";")
        page.keyboard.press(".")
        assert not page.evaluate(HINTS)
        assert page.evaluate("() => !!document.querySelector('.wb-ed .wb-s.wb-cur')")
        # keys only with the editor's focus: ; does nothing once the keys are the page's
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")
        page.keyboard.press(";")
        assert not page.evaluate(HINTS)
