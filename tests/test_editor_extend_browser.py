"""Issue 31, item 2, the last adds: a missed span of several parts that no phrase rule may join
("Last, First", "12 Oak St, Apt 3": a comma rule would join "Boston, MA", two spans) added in
four keys by pointing at its other end (``dashboard/editor/extend.js``), in a real browser
(Debian's chromium through Playwright), keyboard only:

* ``:``, a word's hint letters (typed with Shift: its phrase), then the outlined digit on the
  word where the span ends (1-6: after the selection) or begins (7-0: before it), then the
  label's key; Ctrl+S saves exactly the truth (checked in SQLite);
* nothing is joined unasked: the digits only offer the words of the selection's line;
* discoverable: the key list (?) and a legend on the hint overlay say it; the badges are hidden
  from screen readers and the status line (aria-live) names the word each digit reaches.

The note is made up for the test (no demo text); nothing is printed: assertions compare
offsets, labels and counts.
"""
from __future__ import annotations

import pytest

import browser_helpers as bh

pytestmark = pytest.mark.browser

_why_not = bh.missing_requirements()
if _why_not:
    pytest.skip(f"browser test not possible here: {_why_not}", allow_module_level=True)

import store  # noqa: E402
from pipeline.spans import Document, Span  # noqa: E402

USER = "cy"           # a fresh annotator: her queue holds only the note made here
TEXT = ("Discharge summary\n"
        "Patient: Hollis, Marguerite was admitted early June 2069 for review.\n"
        "Address: 12 Oak St, Apt 3 in Boston, MA with her son.\n"
        "Seen by the ward team.\n")
STATUS = "() => document.querySelector('.wb-ed .wb-status').textContent"
BADGES = """(cls) => [...document.querySelectorAll('.wb-ed .' + cls)]
    .map(b => [Number(b.dataset.a), Number(b.dataset.b), b.dataset.hint])"""


def _at(word: str, end_word: str | None = None) -> tuple[int, int]:
    a = TEXT.index(word)
    return a, (TEXT.index(end_word, a) + len(end_word)) if end_word else a + len(word)


NAME = (*_at("Hollis", "Marguerite"), "PATIENT")          # "Last, First"
STREET = (*_at("12 Oak", "Apt 3"), "STREET")              # "12 Oak St, Apt 3"
DATE = (*_at("early", "2069"), "DATE")                    # begins with a lowercase word: from its end
KEPT = [(*_at("Boston"), "CITY"), (*_at("MA"), "STATE")]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> bh.BrowserProject:
    return bh.prepare_db(tmp_path_factory.mktemp("extend") / "workbench.db", n_docs=2, seed=3)


server = bh.server          # shared module fixtures (browser_helpers)
chromium = bh.chromium


@pytest.fixture(scope="module")
def doc_id(project) -> int:
    """The note, with the annotator's layer holding the truth but the three missed spans."""
    with store.connect(project.db_path) as db:
        store.create_user(db, USER, project.password, "annotator")
        schema = store.get_project(db, project.project_id).schema
        [doc_id] = store.add_documents(db, project.project_id, [Document("extend-test", TEXT)], layer=None)
        layer = [Span(str(doc_id), a, b, schema.category_of(t), t, f"human:{USER}", 1.0) for a, b, t in KEPT]
        store.save_layer(db, doc_id, f"annotator:{USER}", layer, expected_version=0, user=USER)
        store.assign(db, doc_id, USER)
    return doc_id


def _key(hotkeys: dict, t: str) -> str:
    return f"Shift+{hotkeys[t]}" if hotkeys[t].isupper() else hotkeys[t]


def _badge(page, cls: str, a: int, b: int | None = None) -> str:
    """What the badge of class ``cls`` over target [a, b) shows (read off the screen, as a person
    does; for a digit, [a, b) is the selection it makes)."""
    got = [h for x, y, h in page.evaluate(BADGES, cls) if x == a and (b is None or y == b)]
    assert len(got) == 1, f"no single {cls} badge for the target"
    return got[0]


def _selected(page) -> str:
    return page.evaluate("() => window.getSelection().toString()")


def _add(page, hotkeys: dict, target: tuple, start_word: tuple[int, int], shift: bool, back: bool) -> int:
    """Add ``target`` by ``:``, the hint of the word at ``start_word`` (with Shift: its phrase),
    the digit that extends the selection to the target, the label's key: the keys pressed."""
    keys = [":"]
    page.keyboard.press(":")
    hint = _badge(page, "wb-hint", start_word[0])
    typed = [f"Shift+{c.upper()}" if shift else c for c in hint]
    for k in typed:
        page.keyboard.press(k)
    keys += typed
    page.wait_for_function("() => document.querySelector('.wb-ed').dataset.hints === 'extend'")
    digits = page.evaluate(BADGES, "wb-ext")
    assert digits and all(d.isdigit() for *_, d in digits)
    digit = _badge(page, "wb-ext", target[0], target[1])
    assert digit in ("7890" if back else "123456")
    page.keyboard.press(digit)
    keys.append(digit)
    assert _selected(page) == TEXT[target[0]:target[1]]
    page.keyboard.press(_key(hotkeys, target[2]))
    keys.append(target[2])
    page.wait_for_function(f"() => ({STATUS})().startsWith('Added')")
    assert page.evaluate("() => document.querySelector('.wb-ed').dataset.hints") is None, "the digits outlived the label"
    return len(keys)


@pytest.fixture
def page(project, doc_id, server, chromium):
    """The annotator's Annotate page at 1280x800, the note open."""
    p = bh.new_page(chromium, width=1280, height=800)
    bh.sign_in(p, server.url, USER, project.password)
    bh.open_page(p, "annotation", "Annotate")
    bh.editor_ready(p, doc_id)
    bh.wait_idle(p)
    yield p
    p.context.close()


def test_last_first_and_a_street_with_its_flat_are_added_in_four_keys_each_and_saved(project, doc_id, page):
    with bh.screenshot_on_failure(page, "editor-extend"):
        assert bh.editor_text(page) == TEXT
        hotkeys = bh.editor_hotkeys(page)

        # "Last, First": the last name's hint, the digit on the first name (1: the next word)
        assert _add(page, hotkeys, NAME, _at("Hollis"), shift=False, back=False) <= 4
        # "12 Oak St, Apt 3": the number's hint with Shift ("12 Oak St", its phrase), the digit on "3"
        assert _add(page, hotkeys, STREET, _at("12"), shift=True, back=False) <= 4
        # "early June 2069": the year's hint, the digit on "early" before it (7-0 count back)
        assert _add(page, hotkeys, DATE, _at("2069"), shift=False, back=True) <= 4

        # nothing joined unasked: "Boston" and "MA" are still two spans
        spans = sorted(bh.editor_spans(page))
        truth = sorted([NAME, STREET, DATE, *KEPT])
        assert spans == [(*s, False) for s in truth]

        page.keyboard.press("Control+s")
        page.wait_for_function("() => document.querySelector('.wb-ed').dataset.dirty === '0'")
        with store.connect(project.db_path) as db:
            saved = store.read_layer(db, doc_id, f"annotator:{USER}").spans
        assert sorted((s.start, s.end, s.type) for s in saved) == truth
        assert {s.source for s in saved} == {f"human:{USER}"}


def test_the_digits_are_shown_in_the_key_list_and_the_overlay_and_said_to_screen_readers(page):
    """The digits are discoverable: a legend on the overlay and a row of the key list say what
    they do; the badges are hidden from screen readers, and the status line (aria-live) says,
    in a part only screen readers get, the word each digit reaches; Esc closes the digits and
    keeps the selection (any other key closes them and does its own job: a label's key labels,
    as the first test shows)."""
    with bh.screenshot_on_failure(page, "editor-extend-a11y"):
        page.keyboard.press(":")
        legend = page.locator(".wb-ed .wb-hints .wb-hint-legend")
        assert "digit" in legend.text_content()
        for c in _badge(page, "wb-hint", TEXT.index("Seen")):
            page.keyboard.press(c)
        page.wait_for_function("() => document.querySelector('.wb-ed').dataset.hints === 'extend'")
        assert page.evaluate("() => document.querySelector('.wb-ed .wb-hints').getAttribute('aria-hidden')") == "true"
        assert "7-0" in legend.text_content()
        # only the words of "Seen"'s line: "by", "the", "ward", "team"
        line = TEXT.index("Seen"), TEXT.index("\n", TEXT.index("Seen"))
        digits = page.evaluate(BADGES, "wb-ext")
        assert sorted(d for *_, d in digits) == ["1", "2", "3", "4"]
        assert all(line[0] <= a and b <= line[1] for a, b, _ in digits)
        said = page.evaluate("() => document.querySelector('.wb-ed .wb-status .wb-sr').textContent")
        assert "1: 'by'" in said and "4: 'team'" in said
        box = page.locator(".wb-ed .wb-status .wb-sr").bounding_box()
        assert box is None or box["width"] <= 1, "the screen-reader words are shown on screen"
        assert page.evaluate("() => document.querySelector('.wb-ed .wb-status').getAttribute('aria-live')") == "polite"

        page.keyboard.press("Escape")      # closes the digits, keeps the selection
        assert page.evaluate("() => document.querySelector('.wb-ed').dataset.hints") is None
        assert _selected(page) == "Seen"
        page.keyboard.press("?")
        rows = page.evaluate("() => [...document.querySelectorAll('.wb-ed .wb-help th')].map(t => t.textContent)")
        assert any(r.startswith("… then a digit") for r in rows)
        # the key list ends above the window's bottom, and PageDown scrolls it to that row
        help_box = page.locator(".wb-ed .wb-help").bounding_box()
        assert help_box["y"] + help_box["height"] <= page.viewport_size["height"]
        row = page.locator(".wb-ed .wb-help tr", has_text="… then a digit (outlined)")
        for _ in range(4):
            r = row.bounding_box()
            if r["y"] >= help_box["y"] and r["y"] + r["height"] <= help_box["y"] + help_box["height"]:
                break
            page.keyboard.press("PageDown")
        else:
            raise AssertionError("PageDown does not bring the row into the key list's view")
        page.keyboard.press("Escape")
