"""Keys for one correction, per error kind, keyboard only (issue 31: every kind in <= 4 keys).

Run through ``python benchmarks/annotation_effort.py --kinds [--reps N]``.

Each instance is one demo note whose annotator layer is the note's machine spans taken as the
truth, all accepted, with ONE error of one kind put in:

* **accept**: one span is still an open suggestion (it is right: accept it);
* **relabel**: one span has a wrong type; **delete**: a span on a plain word;
* **add**: one span is missing; **extend**: a span of two or more words lost its last word;
* **shrink**: a span took in the next word; **split**: two spans next to each other
  ("Kansas City, Missouri") are one span of the first one's type; **merge**: a span of two or
  more words is two spans.

The cursor starts (one mouse click, setup, not counted) on a word picked at random
(``--start random``), or on the span before the error, where reading the note from the top and
fixing what comes before leaves it (``--start previous``). A planner
then picks the fewest keys from there, among the editor's ways to get to the error: ``.``/``,``
(next / previous span), ``]`` (next open suggestion), ``→``/``←`` (next / previous word, where a
date, phone number, id or e-mail is one word), hints (``;`` and a span's letters, or a cut
point's digit inside a span; ``:`` and a word's letters, typed with Shift for the word to the end
of its phrase, then maybe a digit that extends that selection to a word of its line, for what is
in view: the letters are read off the badges the editor draws, opened
and closed with Esc before the correction, as a person looks before typing; a target out of
view is first paged to with PageDown / PageUp, each one key, when that is shorter) and jump to
text (Ctrl+F, the shortest beginning of the target that gets there, Enter, and Enter again for
each further match, the last one Shift+Enter where the match's phrase is the target); then the
fix (Enter, a label's key, Delete, Shift+→/← to move the span's end or the selection's, a label's
key on a selection inside a span, or Shift+← then a label's key on the current span, to split
it). Where a phrase ends is :func:`pipeline.annotation.units.phrases`, the Python twin of the
editor's (tested to agree). The keys are pressed in the real app (Debian's chromium) and the
editor's spans must then equal the truth exactly, so a plan the editor does not follow shows as
"NOT exact"; keys counted are the keys pressed (a chord such as Ctrl+F, Shift+→ or Shift+A is one
key); mouse events during a correction are counted too (none are made).

The planner is ``correction_plan.py``; this module makes the errors, runs the app and counts.

Targets are spans whose ends are word (unit) ends: the share of the demo's spans that are is
printed with the table (a span starting at '+' in '+1 206 ...' is not: no key selects the '+').
"""
from __future__ import annotations

import random
import statistics
from collections import Counter
from dataclasses import dataclass

import browser_helpers as bh
from correction_plan import units_within, plan

USER = "bea"
KINDS = ("accept", "relabel", "delete", "add", "extend", "shrink", "split", "merge")
WRONG = {"PATIENT": "DOCTOR", "DOCTOR": "PATIENT", "CITY": "STATE", "STATE": "CITY", "HOSPITAL": "DEPARTMENT",
         "DATE": "AGE", "AGE": "DATE", "PHONE": "FAX", "FAX": "PHONE", "MEDICALRECORD": "IDNUM", "STREET": "CITY",
         "ZIP": "IDNUM", "DEPARTMENT": "HOSPITAL", "ORGANIZATION": "HOSPITAL", "PROFESSION": "DEPARTMENT"}


@dataclass
class Instance:
    kind: str
    doc_id: int
    truth: set              # {(start, end, type)}
    shown: list             # [(start, end, type, open suggestion)]
    target: tuple           # what the fix is about (see plan())


# --------------------------------------------------------------------------- the errors


def _aligned(us, a, b) -> bool:
    starts, ends = {x for x, _ in us}, {y for _, y in us}
    return a in starts and b in ends


def make_instance(kind: str, text: str, spans: list, doc_id: int, rng: random.Random) -> Instance | None:
    """One error of ``kind`` in this note, or ``None`` when it has no place for one."""
    from pipeline.annotation.units import units

    us = units(text)
    spans = sorted(spans)
    truth = set(spans)
    ok = [s for s in spans if _aligned(us, s[0], s[1]) and "\n" not in text[s[0]:s[1]]]
    shown = [(a, b, t, False) for a, b, t in spans]

    def with_(drop, add):
        out = [x for x in shown if x[:3] not in drop] + add
        return sorted(out)

    if kind in ("accept", "relabel", "add") and ok:
        s = rng.choice([x for x in ok if kind != "relabel" or x[2] in WRONG] or [None])
        if s is None:
            return None
        if kind == "accept":
            return Instance(kind, doc_id, truth, with_({s}, [(*s, True)]), s)
        if kind == "relabel":
            return Instance(kind, doc_id, truth, with_({s}, [(s[0], s[1], WRONG[s[2]], False)]), s)
        return Instance(kind, doc_id, truth, with_({s}, []), s)
    if kind == "delete":
        free = [u for u in us if u[1] - u[0] >= 4 and text[u[0]:u[1]].isalpha()
                and not any(a <= u[1] + 1 and u[0] - 1 <= b for a, b, _ in spans)]
        if not free:
            return None
        u = rng.choice(free)
        return Instance(kind, doc_id, truth, with_(set(), [(u[0], u[1], "CITY", False)]), (u[0], u[1], "CITY"))
    multi = [s for s in ok if len(units_within(us, s[0], s[1])) >= 2]
    if kind in ("extend", "merge") and multi:
        s = rng.choice(multi)
        inner = units_within(us, s[0], s[1])
        if kind == "extend":
            return Instance(kind, doc_id, truth, with_({s}, [(s[0], inner[-2][1], s[2], False)]), s)
        return Instance(kind, doc_id, truth, with_({s}, [(s[0], inner[0][1], s[2], False), (inner[1][0], s[1], s[2], False)]), s)
    if kind == "shrink":
        cands = []
        for s in ok:
            nxt = next((u for u in us if u[0] >= s[1]), None)
            if nxt and "\n" not in text[s[1]:nxt[1]] and not any(a < nxt[1] and nxt[0] < b for a, b, _ in spans):
                cands.append((s, nxt))
        if not cands:
            return None
        s, nxt = rng.choice(cands)
        return Instance(kind, doc_id, truth, with_({s}, [(s[0], nxt[1], s[2], False)]), s)
    if kind == "split":
        pairs = [(x, y) for x, y in zip(ok, ok[1:]) if not units_within(us, x[1], y[0]) and "\n" not in text[x[1]:y[0]]]
        if not pairs:
            return None
        x, y = rng.choice(pairs)
        return Instance(kind, doc_id, truth, with_({x, y}, [(x[0], y[1], x[2], False)]), y)
    return None


# --------------------------------------------------------------------------- running it


def prepare(db, project_id: int, reps: int, seed: int) -> list[Instance]:
    """Instances (``reps`` per kind, each on its own note) saved as the annotator's layers."""
    import store
    from pipeline.spans import Span

    rng = random.Random(f"kinds:{seed}")
    docs = [d.id for d in store.list_documents(db, project_id)]
    rng.shuffle(docs)
    out: list[Instance] = []
    for kind in KINDS:
        made = 0
        for doc_id in list(docs):
            if made == reps:
                break
            doc = store.get_document(db, doc_id)
            if any(ord(c) > 0xFFFF for c in doc.text):
                continue   # offsets: UTF-16 in the browser, code points here
            pre = store.read_layer(db, doc_id, "pre").spans
            inst = make_instance(kind, doc.text, [(s.start, s.end, s.type) for s in pre], doc_id, rng)
            if inst is None:
                continue
            schema = store.get_project(db, project_id).schema
            layer = [Span(str(doc_id), a, b, schema.category_of(t), t, "model:demo" if sugg else f"human:{USER}", 0.9)
                     for a, b, t, sugg in inst.shown]
            store.save_layer(db, doc_id, f"annotator:{USER}", layer, expected_version=0, user=USER)
            store.assign(db, doc_id, USER)
            docs.remove(doc_id)
            out.append(inst)
            made += 1
        if made < reps:
            raise SystemExit(f"too few notes with room for {reps} '{kind}' errors")
    return out


def aligned_share(db, project_id: int) -> float:
    """Share of the demo's machine spans whose ends are unit ends (what the word moves reach)."""
    import store
    from pipeline.annotation.units import units

    n = ok = 0
    for d in store.list_documents(db, project_id):
        text = store.get_document(db, d.id).text
        us = units(text)
        for s in store.read_layer(db, d.id, "pre").spans:
            n += 1
            ok += _aligned(us, s.start, s.end)
    return ok / max(n, 1)


def _cursor_click(page, text: str, rng: random.Random, inst: Instance, start: str) -> tuple[tuple[int, int], bool]:
    """Setup (not counted): one click that puts the cursor where a correction starts from;
    ``random``: a random word no span touches; ``previous``: the span before the error (where
    reading the note from the top left the cursor). (extent, whether a span is current)."""
    from pipeline.annotation.units import units

    spans = bh.editor_spans(page)
    before = [s for s in spans if s[0] < inst.target[0] and s[:2] != inst.target[:2] and s[1] <= inst.target[0]]
    if start == "previous" and before:
        u, on_span = before[-1][:2], True
    else:
        free = [u for u in units(text) if not any(a < u[1] and u[0] < b for a, b, *_ in spans)]
        u, on_span = rng.choice(free), False
    bh.editor_scroll_to(page, u[0])
    r = bh.editor_rect(page, u[0], u[1])
    page.mouse.click(r["left"] + 2, (r["top"] + r["bottom"]) / 2)
    want = "!!document.querySelector('.wb-ed .wb-s.wb-cur')" if on_span \
        else "document.querySelector('.wb-ed .wb-status').textContent.startsWith('Selected')"
    page.wait_for_function(f"() => {want}")
    return tuple(u), on_span


def read_hints(page) -> dict:
    """Setup (not counted): the letters the editor's hint badges show for the spans and the cut
    points in them (``;``) and the words (``:``) in view, {"spans"|"cuts"|"words": {(start, end):
    letters}} (a cut point's end is its span's); Esc takes them away (the selection or current
    span stays)."""
    out = {}
    for mode, key in (("spans", ";"), ("words", ":")):
        page.keyboard.press(key)
        got = page.evaluate("() => [...document.querySelectorAll('.wb-ed .wb-hint, .wb-ed .wb-cut')].map(b =>"
                            " [Number(b.dataset.a), Number(b.dataset.b), b.dataset.hint, b.classList.contains('wb-cut')])")
        if got:          # with nothing in view no hints open: Esc would clear the selection
            page.keyboard.press("Escape")
        out[mode] = {(a, b): h for a, b, h, cut in got if not cut}
        if mode == "spans":
            out["cuts"] = {(a, b): h for a, b, h, cut in got if cut}
    return out


def _in_view(hints: dict, a: int) -> bool:
    return any(x <= a < y for x, y in hints["words"])


def page_then_plan(page, inst, text, cursor, hotkeys, on_span, hints, best: int):
    """When the target is out of view: PageDown / PageUp (the browser scrolls the note a window
    at a time; the selection stays) until it is in view, then the plan from there with its hints.
    (reach, fix, keys already pressed) when that is fewer keys than ``best``; else the pages are
    scrolled back (setup, not counted) and None."""
    a = inst.target[0]
    if _in_view(hints, a) or best <= 2:
        return None
    below = bh.editor_rect(page, a, inst.target[1])["top"] > page.viewport_size["height"] / 2
    key, back = ("PageDown", "PageUp") if below else ("PageUp", "PageDown")
    pages = []
    for _ in range(3):
        page.keyboard.press(key)
        pages.append(key)
        page.wait_for_timeout(400)        # the browser's smooth scroll settles
        now = read_hints(page)
        if _in_view(now, a):
            reach, fix = plan(inst, text, cursor, hotkeys, on_span, now)
            if len(pages) + len(reach) + len(fix) < best:
                return pages + reach, fix, len(pages)
            break
    for _ in pages:
        page.keyboard.press(back)
    page.wait_for_timeout(80)
    return None


@dataclass
class Measured:
    kind: str
    keys: int
    mouse: int
    via: str
    exact: bool


def _via(reach: list[str], split_label_only: bool = False) -> str:
    """How the correction got to its target, for the table; ``split_label_only``: a split whose
    fix is just the label's key (after ``;`` that is a cut point's hint)."""
    if not reach:
        return "here"
    if reach[0] == ":" and reach[-1].isdigit():      # a digit extends what the hint picked
        return ("phrase hint" if any(k.startswith("Shift+") for k in reach) else "word hint") + ", digit"
    if reach[0] == ":" and any(k.startswith("Shift+") and len(k) == 7 for k in reach):
        return "phrase hint"
    if reach[0] == ";" and split_label_only:
        return "cut hint"
    if "Shift+Enter" in reach:
        return "jump, phrase"
    if reach[0] in ("PageDown", "PageUp"):
        rest = [k for k in reach if k not in ("PageDown", "PageUp")]
        return "page, " + _via(rest, split_label_only) if rest else "page"
    return {"Control+f": "jump", ".": "span walk", ",": "span walk", "]": "next suggestion",
            "ArrowRight": "word moves", "ArrowLeft": "word moves", ";": "span hint", ":": "word hint",
            }.get(reach[0], reach[0])


def run(reps: int, seed: int, width: int, height: int, start: str = "random") -> tuple[list[Measured], float]:
    import store

    tmp = bh.scratch_dir()
    out: list[Measured] = []
    try:
        project = bh.prepare_db(tmp / "workbench.db", n_docs=max(40, 12 * reps), seed=7)   # a note per instance
        with store.connect(project.db_path) as db:
            store.create_user(db, USER, project.password, "annotator")
            instances = {i.doc_id: i for i in prepare(db, project.project_id, reps, seed)}
            share = aligned_share(db, project.project_id)
        rng = random.Random(f"cursor:{seed}")
        with bh.running_server(project.db_path) as server, bh.browser() as b:
            page = bh.new_page(b, width=width, height=height)
            bh.sign_in(page, server.url, USER, project.password)
            bh.open_page(page, "annotation", "Annotate")
            bh.editor_ready(page)
            bh.wait_idle(page)
            hotkeys = bh.editor_hotkeys(page)
            done: set[int] = set()
            while len(done) < len(instances):
                doc_id = int(page.evaluate("() => document.querySelector('.wb-ed').dataset.token.split('.')[0]"))
                inst = instances[doc_id]
                text = bh.editor_text(page)
                assert sorted(bh.editor_spans(page)) == inst.shown, "the editor does not show the prepared layer"
                cursor, on_span = _cursor_click(page, text, rng, inst, start)
                hints = read_hints(page)
                reach, fix = plan(inst, text, cursor, hotkeys, on_span, hints)
                paged = page_then_plan(page, inst, text, cursor, hotkeys, on_span, hints, len(reach) + len(fix))
                if paged:
                    reach, fix, pressed = paged
                else:
                    pressed = 0
                for k in (reach + fix)[pressed:]:
                    page.keyboard.press(k)
                page.wait_for_timeout(100)
                got = sorted(bh.editor_spans(page))
                exact = got == sorted((a, b, t, False) for a, b, t in inst.truth)
                if not exact:     # offsets and labels only, never text
                    want = sorted((a, b, t, False) for a, b, t in inst.truth)
                    print(f"    keys {reach + fix}: missing {sorted(set(want) - set(got))}, extra {sorted(set(got) - set(want))}")
                via = _via(reach, inst.kind == "split" and len(fix) == 1)
                out.append(Measured(inst.kind, len(reach) + len(fix), 0, via, exact))
                seen = "in view" if any(a <= inst.target[0] < b for a, b in hints["words"]) else "out of view"
                print(f"  {inst.kind:<8} keys {len(reach) + len(fix)} ({via}, {seen}) {'exact' if exact else 'NOT exact'}",
                      flush=True)
                done.add(doc_id)
                if len(done) == len(instances):
                    break
                page.keyboard.press(">")
                page.wait_for_function("(d) => { const e = document.querySelector('.wb-ed');"
                                       " return !!e && (e.dataset.token || '').split('.')[0] !== String(d); }", arg=doc_id,
                                       timeout=bh.WAIT_MS)
                bh.editor_ready(page)
                bh.wait_idle(page)
            page.context.close()
    finally:
        bh.remove_dir(tmp)
    return out, share


def table(rows: list[Measured]) -> str:
    lines = [f"{'kind':<9}{'n':>3}{'keys med':>10}{'keys max':>10}{'mouse':>7}{'exact':>7}  reached by"]
    for kind in KINDS:
        rs = [r for r in rows if r.kind == kind]
        if not rs:
            continue
        via = ", ".join(f"{v} {n}" for v, n in Counter(r.via for r in rs).most_common())
        lines.append(f"{kind:<9}{len(rs):>3}{statistics.median(r.keys for r in rs):>10.1f}{max(r.keys for r in rs):>10}"
                     f"{sum(r.mouse for r in rs):>7}{sum(r.exact for r in rs) / len(rs):>7.2f}  {via}")
    return "\n".join(lines)
