"""Annotation effort: input events and wall time to correct one pre-annotated note.

A demo note's machine suggestions (its ``pre`` layer) are taken as the truth; ``k`` errors are
injected into them before the annotator opens the note, in equal shares of four kinds:

* **missing**: a suggestion is deleted (the annotator must add it back);
* **spurious**: a span is put on a plain word (the annotator must remove it);
* **wrong type**: a suggestion gets another fine type (the annotator must relabel it);
* **wrong boundary**: a two-word suggestion is cut to its first word (the annotator must fix
  the extent).

A scripted annotator then corrects the note in the real app (Debian's chromium through
Playwright, at ``--width`` x ``--height``), saves it as finished and moves on to the next
document of the queue. Every input it makes is counted: key presses, clicks (a mouse drag that
selects text is one), and scroll gestures (one each time a target is out of view, however far).
The annotator reads from the top: errors are fixed in the order they appear. Wall time runs
from the note being shown to the next note being shown. The saved layer is then
compared with the truth (``exact`` = the same spans and types).

Two editors:

* ``new``: the workbench's own span editor (``dashboard/editor``): a drag and a label key adds a
  span or fixes a boundary, a click and a label key relabels, a click and Delete removes;
  Ctrl+Enter saves as finished and opens the next document of the queue as it was shown.
* ``old``: ``streamlit-annotation-tools`` 1.0.1's ``text_labeler`` as the Annotate page used it
  until issue 15 (commit 025d284): choose a label chip, then select text to add a span or select
  inside a span of that label to remove it; "Mark finished" at the bottom of the page; the
  finished note moves to the end of the queue, so the next one is picked from the queue list.
  That page and component are gone, so ``--editor old`` only runs on that commit; the figures
  measured there (same script, same machine) are kept below in :data:`RECORDED_OLD` and printed
  beside the new ones.

    python benchmarks/annotation_effort.py [--editor new|old] [--k 4 8] [--reps 3]
    python benchmarks/annotation_effort.py --kinds [--reps 3]   # keys per error kind, keyboard only

Prints a table (medians over ``--reps`` notes; ``exact`` is the share of notes saved exactly
right; ``ev/err`` the events per error, finishing aside; then the events per error of each kind,
scrolls included, and to finish and move on) and the ratios old/new; no document text.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import browser_helpers as bh  # noqa: E402

USER = "bea"          # a fresh annotator whose queue holds only the benchmark's notes
KINDS = ("missing", "spurious", "wrong_type", "wrong_boundary")
#: Types of a spurious span / the wrong type given to a span, per category (i2b2 2014 schema).
WRONG_TYPE = {"PATIENT": "DOCTOR", "DOCTOR": "PATIENT", "CITY": "STATE", "STATE": "CITY", "HOSPITAL": "DEPARTMENT",
              "DATE": "AGE", "AGE": "DATE", "PHONE": "FAX", "MEDICALRECORD": "IDNUM", "STREET": "CITY",
              "ORGANIZATION": "HOSPITAL", "DEPARTMENT": "HOSPITAL", "PROFESSION": "DEPARTMENT"}

#: Figures of ``--editor old`` measured on commit 025d284 (the last with the old component), on
#: the 2-core development machine, 1280x800, medians over 3 notes: {k: {column: value}}.
RECORDED_OLD: dict[int, dict[str, float]] = {
    4: {'events': 22, 'keys': 0, 'clicks': 13, 'scrolls': 9, 'seconds': 14.05, 'exact': 0.67, 'missing': 3.0, 'spurious': 4.0, 'wrong_type': 8.0, 'wrong_boundary': 5.0, 'finish_and_next': 5},
    8: {'events': 37, 'keys': 0, 'clicks': 23, 'scrolls': 14, 'seconds': 20.13, 'exact': 0.67, 'missing': 4.0, 'spurious': 2.5, 'wrong_type': 6.0, 'wrong_boundary': 5.0, 'finish_and_next': 4},
}


# --------------------------------------------------------------------------- the task


@dataclass
class Error:
    kind: str
    start: int            # the extent the annotator must end up with (the truth) ...
    end: int
    type: str             # ... and its type (for spurious: the type of the injected span)
    shown_start: int      # what the note shows before the fix
    shown_end: int
    shown_type: str


@dataclass
class Task:
    doc_id: int
    name: str
    truth: list           # [(start, end, type)]
    errors: list[Error] = field(default_factory=list)
    lines: int = 0        # of the note as written


def _selectable(text: str, a: int, b: int) -> bool:
    """A target both editors select exactly with one drag: on one line, with a space or punctuation
    (never a newline) on both sides (the old component widens a selection up to those)."""
    if a <= 0 or b >= len(text) or "\n" in text[a:b]:
        return False
    punct = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
    return text[a - 1] in punct and text[b] in punct and text[b] != "\n"


def make_task(db, doc_id: int, k: int, seed: int) -> Task | None:
    """Inject ``k`` errors (in turn missing, spurious, wrong type, wrong boundary) into the note's
    ``pre`` layer; the original layer is the truth. ``None`` (and nothing written) when the note
    has too few places for them."""
    import store
    from pipeline.spans import Span

    doc = store.get_document(db, doc_id)
    text = doc.text
    pre = store.read_layer(db, doc_id, "pre")
    spans = sorted(pre.spans, key=lambda s: s.start)
    rng = random.Random(f"effort:{seed}:{doc_id}")
    truth = [(s.start, s.end, s.type) for s in spans]
    used: set[int] = set()
    errors: list[Error] = []
    shown = list(spans)

    def pick(ok) -> Span | None:
        cands = [s for s in spans if id(s) not in used and ok(s)]
        if not cands:
            return None
        s = rng.choice(cands)
        used.add(id(s))
        return s

    for i in range(k):
        kind = KINDS[i % len(KINDS)]
        if kind == "missing":
            s = pick(lambda s: _selectable(text, s.start, s.end))
            if s is None:
                continue
            shown.remove(s)
            errors.append(Error(kind, s.start, s.end, s.type, s.start, s.end, s.type))
        elif kind == "wrong_type":
            s = pick(lambda s: s.type in WRONG_TYPE and _selectable(text, s.start, s.end))
            if s is None:
                continue
            bad = WRONG_TYPE[s.type]
            shown[shown.index(s)] = s.with_(type=bad, category=_category(db, doc_id, bad))
            errors.append(Error(kind, s.start, s.end, s.type, s.start, s.end, bad))
        elif kind == "wrong_boundary":
            def two_words(s):
                m = re.match(r"[A-Za-z]+(?= )", text[s.start:s.end])
                return bool(m) and _selectable(text, s.start, s.end) and _selectable(text, s.start, s.start + m.end())
            s = pick(two_words)
            if s is None:
                continue
            cut = s.start + re.match(r"[A-Za-z]+", text[s.start:s.end]).end()
            shown[shown.index(s)] = s.with_(end=cut)
            errors.append(Error(kind, s.start, s.end, s.type, s.start, cut, s.type))
        else:  # spurious: a plain word of 5+ letters, away from every span
            words = [m.span() for m in re.finditer(r"[a-z]{5,}", text)
                     if _selectable(text, *m.span())
                     and not any(t.start <= m.end() + 1 and m.start() - 1 <= t.end for t in spans)
                     and not any(e.kind == "spurious" and e.shown_start == m.start() for e in errors)]
            if not words:
                continue
            a, b = rng.choice(words)
            shown.append(Span(str(doc_id), a, b, "LOCATION", "CITY", "model:demo", 0.51))
            errors.append(Error(kind, a, b, "CITY", a, b, "CITY"))
    if len(errors) < k:
        return None
    shown.sort(key=lambda s: s.start)
    store.save_layer(db, doc_id, "pre", shown, expected_version=pre.version, user=None, status="finished")
    return Task(doc_id=doc_id, name=doc.name, truth=truth, errors=errors, lines=text.count("\n") + 1)


def _category(db, doc_id: int, type_: str) -> str:
    import store

    schema = store.get_project(db, store.get_document(db, doc_id).project_id).schema
    return schema.category_of(type_)


# --------------------------------------------------------------------------- counting inputs


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
        if next_task is None:
            self.page.get_by_text("finished", exact=False).first.wait_for()
            bh.wait_idle(self.page)
            return
        bh.editor_ready(self.page, next_task.doc_id)


# --------------------------------------------------------------------------- one run


@dataclass
class Result:
    editor: str
    k: int
    counts: Counts
    seconds: float
    exact: bool
    per_kind: dict


def run(editor: str, ks: list[int], reps: int, width: int, height: int, seed: int,
        verbose: bool = False) -> list[Result]:
    import store

    tmp = bh.scratch_dir()
    results: list[Result] = []
    try:
        project = bh.prepare_db(tmp / "workbench.db", n_docs=30, seed=7)
        with store.connect(project.db_path) as db:
            store.create_user(db, USER, project.password, "annotator")
            docs = iter([d.id for d in store.list_documents(db, project.project_id)
                         if len(store.read_layer(db, d.id, "pre").spans) >= 12])
            plan = [(k, r) for k in ks for r in range(reps)]
            tasks = []
            for k, r in plan:
                for doc_id in docs:
                    task = make_task(db, doc_id, k, seed + r)
                    if task is not None:
                        store.assign(db, doc_id, USER)
                        tasks.append(task)
                        break
                else:
                    raise SystemExit(f"too few notes with room for {k} errors for {len(plan)} runs")
        with bh.running_server(project.db_path) as server, bh.browser() as b:
            page = bh.new_page(b, width=width, height=height)
            bh.sign_in(page, server.url, USER, project.password)
            bh.open_page(page, "annotation", "Annotate")
            driver_cls = NewDriver if editor == "new" else OldDriver
            for i, ((k, _), task) in enumerate(zip(plan, tasks)):
                d = driver_cls(page)
                with bh.screenshot_on_failure(page, f"effort-{editor}"):
                    d.ready(task)
                t0 = time.perf_counter()
                per_kind: dict[str, float] = {}
                for e in sorted(task.errors, key=lambda e: e.shown_start):  # reading from the top
                    before = d.n.total
                    d.fix(e)
                    per_kind[e.kind] = per_kind.get(e.kind, 0) + d.n.total - before
                for kind in KINDS:  # events per error of the kind
                    if kind in per_kind:
                        per_kind[kind] /= sum(e.kind == kind for e in task.errors)
                before = d.n.total
                d.finish_and_next(tasks[i + 1] if i + 1 < len(tasks) else None)
                per_kind["finish_and_next"] = d.n.total - before
                seconds = time.perf_counter() - t0
                with store.connect(project.db_path) as db:
                    saved = store.read_layer(db, task.doc_id, f"annotator:{USER}").spans
                got = {(s.start, s.end, s.type) for s in saved}
                exact = got == set(task.truth)
                if not exact and verbose:
                    print(f"    missing {sorted(set(task.truth) - got)}, extra {sorted(got - set(task.truth))}, "
                          f"errors {[(e.kind, e.start, e.end, e.shown_start, e.shown_end) for e in task.errors]}")
                results.append(Result(editor, len(task.errors), d.n, seconds, exact, per_kind))
                print(f"  {editor} k={len(task.errors)} note {i + 1}/{len(tasks)} ({task.lines} lines): {d.n.total} events "
                      f"({d.n.keys} keys, {d.n.clicks} clicks, {d.n.scrolls} scrolls), {seconds:.1f} s, "
                      f"{'exact' if exact else 'NOT exact'}", flush=True)
            page.context.close()
    finally:
        bh.remove_dir(tmp)
    return results


def summarise(results: list[Result]) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    for k in sorted({r.k for r in results}):
        rs = [r for r in results if r.k == k]
        med = lambda f: statistics.median(f(r) for r in rs)  # noqa: E731
        out[k] = {"events": med(lambda r: r.counts.total), "keys": med(lambda r: r.counts.keys),
                  "clicks": med(lambda r: r.counts.clicks), "scrolls": med(lambda r: r.counts.scrolls),
                  "seconds": med(lambda r: r.seconds), "exact": sum(r.exact for r in rs) / len(rs)}
        for kind in (*KINDS, "finish_and_next"):
            vals = [r.per_kind[kind] for r in rs if kind in r.per_kind]
            if vals:
                out[k][kind] = statistics.median(vals)
    return out


def table(new: dict, old: dict) -> str:
    """Medians per editor and k; then events per error of each kind and to finish and move on."""
    cols = ("events", "keys", "clicks", "scrolls", "seconds", "exact")
    kinds = (*KINDS, "finish_and_next")
    short = {"missing": "miss", "spurious": "spur", "wrong_type": "type", "wrong_boundary": "bound",
             "finish_and_next": "finish"}
    lines = [f"{'editor':<8}{'k':>3}" + "".join(f"{c:>9}" for c in cols) + f"{'ev/err':>8}"
             + "".join(f"{short[c]:>7}" for c in kinds)]
    for name, figures in (("old", old), ("new", new)):
        for k, row in sorted(figures.items()):
            per_error = (row["events"] - row.get("finish_and_next", 0)) / k
            lines.append(f"{name:<8}{k:>3}" + "".join(
                f"{row[c]:>9.2f}" if c in ("seconds", "exact") else f"{row[c]:>9.0f}" for c in cols)
                + f"{per_error:>8.2f}" + "".join(f"{row.get(c, float('nan')):>7.1f}" for c in kinds))
    for k in sorted(set(new) & set(old)):
        lines.append(f"ratio old/new k={k}: events {old[k]['events'] / new[k]['events']:.1f}x, "
                     f"time {old[k]['seconds'] / new[k]['seconds']:.1f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--editor", choices=("new", "old"), default="new")
    ap.add_argument("--k", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=800)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the medians to this file")
    ap.add_argument("--verbose", action="store_true", help="offsets (never text) of what a run got wrong")
    ap.add_argument("--kinds", action="store_true",
                    help="keys for one correction per error kind, keyboard only (benchmarks/correction_keys.py); "
                         "--reps instances per kind")
    ap.add_argument("--start", choices=("random", "previous"), default="random",
                    help="with --kinds: the cursor starts on a random word, or on the span before the error")
    args = ap.parse_args(argv)
    why = bh.missing_requirements()
    if why:
        print(f"cannot run: {why}", file=sys.stderr)
        return 2
    if args.kinds:
        import correction_keys as ck

        rows, share = ck.run(args.reps, args.seed, args.width, args.height, args.start)
        print(ck.table(rows))
        print(f"keys: key presses of the correction (a chord is one), from a cursor on "
              f"{'a random word' if args.start == 'random' else 'the span before the error'}; "
              f"mouse: mouse events in it. {share:.0%} of the demo's machine spans end on word (unit) ends.")
        return 0
    measured = summarise(run(args.editor, args.k, args.reps, args.width, args.height, args.seed, args.verbose))
    if args.json:
        Path(args.json).write_text(json.dumps({args.editor: measured}, indent=1))
    if args.editor == "old":
        print(table({}, measured))
    else:
        print(table(measured, {k: v for k, v in RECORDED_OLD.items() if k in measured}))
        if RECORDED_OLD:
            print("old: recorded on commit 025d284 (see RECORDED_OLD); new: measured now")
    return 0


if __name__ == "__main__":
    sys.exit(main())
