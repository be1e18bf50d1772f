"""The task of ``annotation_effort.py``: ``k`` errors injected into a demo note's machine
suggestions (missing, spurious, wrong type, wrong boundary), the original suggestions kept as the
truth. Its own room so the benchmark's driver and table stay readable; see that script's docstring.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

KINDS = ("missing", "spurious", "wrong_type", "wrong_boundary")
#: Types of a spurious span / the wrong type given to a span, per category (i2b2 2014 schema).
WRONG_TYPE = {"PATIENT": "DOCTOR", "DOCTOR": "PATIENT", "CITY": "STATE", "STATE": "CITY", "HOSPITAL": "DEPARTMENT",
              "DATE": "AGE", "AGE": "DATE", "PHONE": "FAX", "MEDICALRECORD": "IDNUM", "STREET": "CITY",
              "ORGANIZATION": "HOSPITAL", "DEPARTMENT": "HOSPITAL", "PROFESSION": "DEPARTMENT"}


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
