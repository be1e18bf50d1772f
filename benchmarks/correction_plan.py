"""The planner of ``correction_keys.py`` (``annotation_effort.py --kinds``): the fewest keys
that fix one error from where the cursor is, among the editor's ways to get there (span and word
moves, hints read off the badges the editor draws, jump to text) and its fixes. It mirrors the
editor's moves (``dashboard/editor``: ``findMatches``, ``nextMatch``, ``unitsAround``,
``phraseFrom``, ``stepToken``) from the Python twins of its units and phrases
(:mod:`pipeline.annotation.units`, tested to agree with the JavaScript); the keys are then pressed
in the real app and the result checked, so a plan the editor does not follow shows as "NOT
exact" in the table.
"""
from __future__ import annotations

import re


def units_within(us, a, b):
    """The units ``us`` inside [a, b)."""
    return [u for u in us if a <= u[0] and u[1] <= b]


def jump_plan(text: str, us, cursor: int, a: int, b: int, lands, phrase=None) -> list[str] | None:
    """The fewest keys with which jump to text lands where ``lands((start, end))`` holds: Ctrl+F,
    a piece of the target's text (any piece of [a, b), at most 6 characters), Enter, then Enter
    per further match, the last one Shift+Enter where landing on the phrase from the match
    (``phrase(start)``, the extent phraseFrom selects) gets there. Mirrors ``findMatches``,
    ``nextMatch`` and ``unitsAround`` of dashboard/editor/core.js and the editor's jumpNext; None
    when no piece gets there."""
    best = None
    for n in range(1, min(b - a, 6) + 1):
        if best is not None and n + 2 >= len(best):
            break
        for i0 in range(a, b - n + 1):
            q = text[i0:i0 + n]
            if q != q.strip():
                continue
            keys = _jump_keys(text, us, cursor, q, lands, phrase)
            if keys and (best is None or len(keys) < len(best)):
                best = keys
    return best


def _jump_keys(text, us, cursor, q, lands, phrase=None) -> list[str] | None:
    n = len(q)
    found = [m.start() for m in re.finditer(re.escape(q), text, re.IGNORECASE)]
    found = [i for i in found if i == 0 or not _word(text[i - 1])] or found

    def land(i):
        hit = [(x, y) for x, y in us if x < i + n and i < y]
        return (hit[0][0], hit[-1][1]) if hit else (i, i + n)

    i = next((m for m in found if m >= cursor + 1), found[0])
    for enters in range(1, 5):
        got = land(i)
        if lands(got):
            return ["Control+f", *q, *["Enter"] * enters]
        if phrase is not None and phrase(got[0]) is not None and lands(phrase(got[0])):
            return ["Control+f", *q, *["Enter"] * (enters - 1), "Shift+Enter"]
        i = next((m for m in found if m >= got[1]), found[0])
    return None


def _word(c: str) -> bool:
    from pipeline.annotation.edits import is_word_char

    return is_word_char(c)


def reach_span(text, us, shown, cursor: tuple, target: tuple, on_span: bool, hints: dict | None = None) -> list[str]:
    """Keys that make the shown span ``target`` current from ``cursor`` (a selection, or the
    current span when ``on_span``)."""
    order = [s[:2] for s in shown]
    i = order.index(target[:2])
    after = next((k for k, s in enumerate(order) if s[0] >= cursor[0]), len(order)) + (1 if on_span else 0)
    fwd = i - after + 1 if i >= after else len(order) - after + i + 1
    back = after - i if i < after else after + len(order) - i
    ways = [["."] * fwd, [","] * back]
    if target[3] and sum(s[3] for s in shown) == 1:
        ways.append(["]"])
    name = (hints or {}).get("spans", {}).get(tuple(target[:2]))
    if name:
        ways.append([";", *name])
    jump = jump_plan(text, us, cursor[0], target[0], target[1],
                     lambda got: got[0] == target[0] and got[1] <= target[1])   # landOn: the span is current
    if jump:
        ways.append(jump)
    return min(ways, key=len)


def phrase_from(text: str, shown, a: int) -> tuple[int, int] | None:
    """What the editor's phraseFrom selects from the word at ``a`` (dashboard/editor/phrases.js):
    to the end of its phrase (:func:`pipeline.annotation.units.phrases`, the tested twin of
    core.js's), cut at the end of the shown span ``a`` is in; None outside every word."""
    from pipeline.annotation.units import phrases

    end = next((y for x, y in phrases(text) if x <= a < y), None)
    if end is None:
        return None
    inside = next((s for s in shown if s[0] <= a < s[1]), None)
    return a, min(end, inside[1]) if inside else end


def fit_end(text: str, us, sel: tuple[int, int], b: int) -> list[str] | None:
    """Shift+→ / Shift+← on a selection (the editor's stepToken with extend: the end moves by a
    word; what it then selects is snapped like any selection) until it ends at ``b``; None when
    the keys never get there."""
    from pipeline.annotation.edits import snap_to_words

    a, end = sel
    if end < b:
        n = sum(1 for x, y in us if end < y <= b)
        return ["Shift+ArrowRight"] * n if any(y == b for _, y in us) else None
    keys = []
    while end > b:
        last = [x for x, _ in us if x < end]
        if not last or last[-1] <= a:
            return None
        end = snap_to_words(text, a, last[-1])[1]
        keys.append("Shift+ArrowLeft")
    return keys if end == b else None


def extend_digits(text: str, us, a: int, b: int) -> tuple[dict[int, str], dict[int, str]]:
    """Where a digit extends the selection [a, b) to, as the editor's ``extendTargets``
    (dashboard/editor/core.js) draws them after a word hint: ({end: digit} for the next six units
    on its line, 1-6; {start: digit} for the previous four, 7, 8, 9, 0)."""
    line_start = text.rfind("\n", 0, a) + 1 if a > 0 else 0
    nl = text.find("\n", b)
    line_end = len(text) if nl < 0 else nl
    after = [y for x, y in us if b <= x < line_end][:6]
    before = [x for x, y in reversed(us) if line_start <= x and y <= a][:4]
    return dict(zip(after, "123456")), dict(zip(before, "7890"))


def hint_then_digit(text, us, a: int, b: int, words: dict, phrase, taken=frozenset()) -> list[list[str]]:
    """Plans that pick a word by its hint (``:`` and its letters; typed with Shift, to the end of
    its phrase) and extend that selection to [a, b) with one digit (extend.js): from the target's
    first word forward, or from its last word (or a phrase that ends where it ends) back. A word
    that is a shown span (``taken``) is no pick: its hint makes the span current."""
    shift = lambda name: [f"Shift+{c.upper()}" for c in name]  # noqa: E731
    picks = []                      # (keys, the selection they make)
    for u in (u for u in us if a <= u[0] and u[1] <= b and tuple(u) in words):
        name = words[tuple(u)]
        if (u[0] == a or u[1] == b) and tuple(u) not in taken:
            picks.append(([":", *name], tuple(u)))
        got = phrase(u[0])
        if got is not None and (got[0] == a or got[1] == b) and got[1] <= b:
            picks.append(([":", *shift(name)], got))
    out = []
    for keys, (x, y) in picks:
        after, before = extend_digits(text, us, x, y)
        if x == a and y < b and b in after:
            out.append(keys + [after[b]])
        elif y == b and a < x and a in before:
            out.append(keys + [before[a]])
    return out


def reach_text(text, us, cursor: tuple, a: int, b: int, hints: dict | None = None, shown=()) -> list[str]:
    """Keys that select the text [a, b) (whole units) from a selection ``cursor``; ``shown``: the
    spans on screen (a hint typed with Shift stops at the end of the one it starts in)."""
    first = next(k for k, u in enumerate(us) if u[0] == a)
    last = next(k for k, u in enumerate(us) if u[1] == b)
    grow = ["Shift+ArrowRight"] * (last - first)
    taken = {tuple(s[:2]) for s in shown}

    def phrase(x):          # None where the phrase is a shown span (it would become current)
        got = phrase_from(text, shown, x)
        return None if got is None or got in taken else got
    nxt = next((k for k, u in enumerate(us) if u[0] >= cursor[1]), len(us))
    prev = max((k for k, u in enumerate(us) if u[1] <= cursor[0]), default=-1)
    ways = []
    if first >= nxt:
        ways.append(["ArrowRight"] * (first - nxt + 1) + grow)
    if first <= prev:
        ways.append(["ArrowLeft"] * (prev - first + 1) + grow)
    whole = jump_plan(text, us, cursor[0], a, b, lambda got: got == (a, b), phrase)
    if whole:
        ways.append(whole)
    part = jump_plan(text, us, cursor[0], a, us[first][1], lambda got: got == us[first])
    if part:
        ways.append(part + grow)
    ways += line_plans(text, us, cursor, first, grow)
    ways += hint_then_digit(text, us, a, b, (hints or {}).get("words", {}), phrase, taken)
    name = (hints or {}).get("words", {}).get(tuple(us[first]))
    if name:
        ways.append([":", *name] + grow)
        fit = fit_end(text, us, phrase(a), b) if phrase(a) else None
        if fit is not None:              # typed with Shift: the phrase from the word, then fitted
            ways.append([":", *(f"Shift+{c.upper()}" for c in name)] + fit)
    return min(ways, key=len)


def line_plans(text, us, cursor: tuple, first: int, grow: list[str]) -> list[list[str]]:
    """↓ / ↑ to the first word of the target's line (lines without a word are skipped, as the
    editor's stepLine does), then → to the target."""
    line = lambda i: text.count("\n", 0, i)  # noqa: E731
    lines = sorted({line(x) for x, _ in us})
    here, there = line(cursor[0]), line(us[first][0])
    if here == there or here not in lines:
        return []
    head = next(k for k, u in enumerate(us) if line(u[0]) == there)
    steps = abs(lines.index(there) - lines.index(here))
    arrow = "ArrowDown" if there > here else "ArrowUp"
    return [[arrow] * steps + ["ArrowRight"] * (first - head) + grow]


def plan(inst, text: str, cursor: tuple, hotkeys: dict, on_span: bool = False,
         hints: dict | None = None) -> tuple[list[str], list[str]]:
    """(reach keys, fix keys) for one instance from the cursor (a selection, or the current span
    when ``on_span``); ``hints``: {"spans"|"words": {(start, end): letters}} of what is in view."""
    from pipeline.annotation.units import units

    us = units(text)
    key = lambda t: f"Shift+{hotkeys[t]}" if hotkeys[t].isupper() else hotkeys[t]  # noqa: E731
    a, b, t = inst.target
    shown_at = next((s for s in inst.shown if s[0] == a), None)
    if inst.kind == "add":
        return reach_text(text, us, cursor, a, b, hints, inst.shown), [key(t)]
    if inst.kind == "split":     # select the second part and label it, or cut it off the span
        outer = next(s for s in inst.shown if s[0] < a < s[1])
        cut = ["Shift+ArrowLeft"] * len(units_within(us, a, b))
        point = (hints or {}).get("cuts", {}).get((a, outer[1]))      # ; and a cut point's letters
        ways = [(reach_text(text, us, cursor, a, b, hints, inst.shown), [key(t)]),
                *([([";", *point], [key(t)])] if point and outer[1] == b else []),
                (reach_span(text, us, inst.shown, cursor, outer, on_span, hints), cut + [key(t)])]
        return min(ways, key=lambda w: len(w[0]) + len(w[1]))
    reach = reach_span(text, us, inst.shown, cursor, shown_at, on_span, hints)
    fix = {"accept": ["Enter"], "relabel": [key(t)], "delete": ["Delete"], "extend": ["Shift+ArrowRight"],
           "shrink": ["Shift+ArrowLeft"], "merge": ["Shift+ArrowRight"]}[inst.kind]
    return reach, fix
