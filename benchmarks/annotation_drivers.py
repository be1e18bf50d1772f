"""The scripted annotators of ``annotation_effort.py``: one driver per editor, each counting
every key press, click and scroll it makes (see that script's docstring for what counts as one).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import browser_helpers as bh
from annotation_task import Error, Task

#: true while the editor asks before finishing over open suggestions (dashboard/editor/saving.js)
ASKING = "() => !!(document.querySelector('.wb-ed') || {dataset: {}}).dataset.asking"

@dataclass
class Counts:
    keys: int = 0
    clicks: int = 0
    scrolls: int = 0

    @property
    def total(self) -> int:
        return self.keys + self.clicks + self.scrolls


class Driver:
    """What every editor's driver shares: the page, the counts, scrolling a target into view."""

    def __init__(self, page):
        self.page = page
        self.n = Counts()

    def key(self, combo: str) -> None:
        self.n.keys += 1
        self.page.keyboard.press(combo)

    def in_view(self, top: float, bottom: float) -> bool:
        return top >= 0 and bottom <= self.page.viewport_size["height"]


# --------------------------------------------------------------------------- the old component


class OldDriver(Driver):
    """``text_labeler`` in its iframe (see the module docstring)."""

    IFRAME = 'iframe[title*="annotation_tools"]'

    def ready(self, task: Task) -> None:
        self.page.get_by_role("heading", name=task.name).wait_for()
        self.frame = bh.labeler_frame(self.page)
        bh.wait_idle(self.page)

    def _rect(self, a: int, b: int) -> dict:
        return self.frame.evaluate("""([a, b]) => {
            const root = document.getElementById('actual-text');
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            let seen = 0, range = document.createRange(), n, gotStart = false;
            while ((n = walker.nextNode())) {
                const len = n.textContent.length;
                if (!gotStart && a < seen + len) { range.setStart(n, a - seen); gotStart = true; }
                if (gotStart && b <= seen + len) { range.setEnd(n, b - seen); break; }
                seen += len;
            }
            const r = range.getClientRects()[0];
            return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
        }""", [a, b])

    def _bring(self, y_in_frame_top: float, y_in_frame_bottom: float) -> float:
        """Scroll (counted) until the stretch is in view; returns the iframe's top on the page."""
        iframe = self.page.locator(self.IFRAME)
        box = iframe.bounding_box()
        if not self.in_view(box["y"] + y_in_frame_top, box["y"] + y_in_frame_bottom):
            self.n.scrolls += 1
            bh.scroll_to(self.page, iframe, (y_in_frame_top + y_in_frame_bottom) / 2)
            box = iframe.bounding_box()
        return box

    def choose_label(self, label: str) -> None:
        bh.wait_idle(self.page)
        self.frame = bh.labeler_frame(self.page)  # a rerun may have made a new iframe
        if self.frame.evaluate("""(l) => [...document.querySelectorAll('span.cursor-pointer')]
                .some(e => e.textContent.trim() === l && e.classList.contains('bg-primary'))""", label):
            return  # already the chosen label: a person would not click it again
        chip = self.frame.locator("span.cursor-pointer").filter(has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))
        r = chip.evaluate("e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; }")
        box = self._bring(r["top"], r["bottom"])
        self.n.clicks += 1
        chip.click(position={"x": 8, "y": (r["bottom"] - r["top"]) / 2})
        self.frame.wait_for_function("""(l) => [...document.querySelectorAll('span.cursor-pointer')]
            .some(e => e.textContent.trim() === l && e.classList.contains('bg-primary'))""", arg=label)
        del box

    def drag(self, a: int, b: int) -> None:
        bh.wait_idle(self.page)
        self.frame = bh.labeler_frame(self.page)
        r = self._rect(a, b)
        box = self._bring(r["top"], r["bottom"])
        r = self._rect(a, b)
        y = box["y"] + (r["top"] + r["bottom"]) / 2
        x0, x1 = box["x"] + r["left"] + 1, box["x"] + r["right"] - 1
        self.n.clicks += 1
        self.page.mouse.move(x0, y)
        self.page.mouse.down()
        self.page.mouse.move((x0 + x1) / 2, y, steps=2)
        self.page.mouse.move(x1, y, steps=2)
        self.page.mouse.up()
        bh.wait_idle(self.page)

    def fix(self, e: Error) -> None:
        if e.kind == "missing":
            self.choose_label(e.type)
            self.drag(e.start, e.end)
        elif e.kind == "spurious":
            self.choose_label(e.shown_type)
            self.drag(e.shown_start, e.shown_end)      # selecting inside a span of the label removes it
        elif e.kind == "wrong_type":
            self.choose_label(e.shown_type)
            self.drag(e.shown_start, e.shown_end)
            self.choose_label(e.type)
            self.drag(e.start, e.end)
        else:  # wrong boundary
            self.choose_label(e.type)
            self.drag(e.shown_start, e.shown_end)
            self.drag(e.start, e.end)

    def _click_button(self, locator) -> None:
        box = locator.bounding_box()
        if box is None or not self.in_view(box["y"], box["y"] + box["height"]):
            self.n.scrolls += 1
            locator.scroll_into_view_if_needed()
        self.n.clicks += 1
        locator.click()

    def finish_and_next(self, next_task: Task | None) -> None:
        self._click_button(self.page.locator('[data-testid="stBaseButton-secondary"]', has_text="Mark finished"))
        try:
            self.page.get_by_text("Saved and marked finished", exact=False).first.wait_for(timeout=15_000)
        except Exception:  # noqa: BLE001 - e.g. the page refused the save (overlapping spans): go on
            bh.screenshot(self.page, "effort-old-save-refused")
        bh.wait_idle(self.page)
        if next_task is None:
            return
        # the finished note moved to the end of the queue, so "Next" is off: pick it from the list
        select = self.page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').first
        self._click_button(select)
        option = self.page.locator('[data-testid="stSelectboxVirtualDropdown"] [role="option"]').filter(
            has_text=next_task.name).first
        self.n.clicks += 1
        option.click()
        self.page.get_by_role("heading", name=next_task.name).wait_for()


# --------------------------------------------------------------------------- the new editor


class NewDriver(Driver):
    """The workbench's span editor (``dashboard/editor``)."""

    def ready(self, task: Task) -> None:
        bh.editor_ready(self.page, task.doc_id)
        bh.wait_idle(self.page)
        self.hotkeys = bh.editor_hotkeys(self.page)

    def _bring(self, a: int, b: int) -> dict:
        r = bh.editor_rect(self.page, a, b)
        if not (self.in_view(r["top"], r["bottom"]) and bh.editor_note_shows(self.page, r)):
            self.n.scrolls += 1
            bh.editor_scroll_to(self.page, a)
            r = bh.editor_rect(self.page, a, b)
        return r

    def drag(self, a: int, b: int) -> None:
        r = self._bring(a, b)
        self.n.clicks += 1
        bh.mouse_select(self.page, r)

    def click_span(self, a: int, b: int) -> None:
        r = self._bring(a, b)
        self.n.clicks += 1
        self.page.mouse.click((r["left"] + r["right"]) / 2, (r["top"] + r["bottom"]) / 2)

    def label(self, type_: str) -> None:
        key = self.hotkeys.get(type_)
        if key is None:  # no hotkey: type-to-filter ("/", the name, Enter)
            self.key("/")
            for ch in type_.lower():
                self.key(ch)
            self.key("Enter")
        else:
            self.key(key)

    def fix(self, e: Error) -> None:
        if e.kind in ("missing", "wrong_boundary"):
            self.drag(e.start, e.end)
            self.label(e.type)
        elif e.kind == "spurious":
            self.click_span(e.shown_start, e.shown_end)
            self.key("Delete")
        else:
            self.click_span(e.shown_start, e.shown_end)
            self.label(e.type)

    def finish_and_next(self, next_task: Task | None) -> None:
        self.key("Control+Enter")
        # the editor never finishes over unseen suggestions: it asks once. The task's truth is the
        # suggestions the errors left alone, so the annotator accepts them in bulk (← to that
        # answer, Enter); counted like any other key
        try:
            self.page.wait_for_function(ASKING, timeout=3_000)
        except Exception:  # noqa: BLE001 - Playwright's timeout: nothing open, the editor did not ask
            pass
        else:
            self.key("ArrowLeft")
            self.key("Enter")
        if next_task is None:
            self.page.get_by_text("finished", exact=False).first.wait_for()
            bh.wait_idle(self.page)
            return
        bh.editor_ready(self.page, next_task.doc_id)
