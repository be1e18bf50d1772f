"""The gold set's boundary conventions per type, learned from its spans, applied to model spans.

A sequence model gets most spans right but runs some too far: an affiliation into the street
after it ("Hospital de Getafe Carretera Toledo"), a relative into the words around it ("madre
Carmen y su"), a title or a key into the name or number ("Doctora Marta ...", "nhc/976421"), a
sentence's full stop into a town ("San Justo."). On MEDDOCAN dev these were over half of the
spans the ensemble missed. Each annotation guideline has its own conventions, so they are
learned from the project's gold spans, never written as rules:

* **edges**: per type, how often each word (lowercased, digits as ``0``) is a span's first or
  last word, against how often it occurs outside every gold span. A model span of type ``t``
  loses an edge word that gold ``t`` spans (almost) never have at that edge while the word is
  common outside PHI (``su`` before a relative, ``y`` after one, ``.`` after a town, ``Doctora``
  before a name), repeatedly, so ``madre Carmen y su`` ends at ``Carmen``;
* **splits**: a word that gold ``t`` spans never hold after their first word, but that often
  begins gold spans (of any type) and rarely occurs outside them, starts a new span there, of the
  type it most often begins (``Carretera`` after a hospital's name begins a street).

A word the gold set never saw changes nothing: only words with evidence move a boundary.

Measured on MEDDOCAN dev (tables learned from the 500 training notes' gold, applied to the
default ensemble's spans; ``benchmarks/detection_meddocan.py``): the edge trims fix a few spans
and break nearly as many (span recall +0.0003), the splits cost 0.004, because the spans that
run too far mostly run into a neighbour without a word of evidence (a hospital into its street,
a street into its town): words that begin streets begin names too. So detection does not apply
them; the benchmark keeps the two rows so the avenue can be measured again.

>>> from pipeline.spans import Document, Span
>>> gold = [Document("d1", "Vive con su madre y su padre.", (Span("d1", 12, 17, "NAME", "FAMILY"),
...                                                          Span("d1", 23, 28, "NAME", "FAMILY")))]
>>> table = learn(gold, min_adjacent=1)
>>> text = "Acude con su madre y su hermano."
>>> [(text[s:e], t) for s, e, t in adjust(text, [(10, 21, "FAMILY")], table)]
[('madre', 'FAMILY')]
"""
from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from pipeline.spans import Document, Span

_TOKEN = re.compile(r"\w+|[^\w\s]")
_DIGIT = re.compile(r"\d")
# a trailing full stop that closes an abbreviation is part of it ("D.F.", "EE.UU.", an initial)
_ABBREV_END = re.compile(r"(?:(?:\b\w{1,3}\.){2,}|(?<![\w.])[A-ZÁÉÍÓÚÑ]\.)$")


def norm(token: str) -> str:
    """The key a word is counted under: lowercased, every digit as ``0``."""
    return _DIGIT.sub("0", token.lower())


@dataclass
class BoundaryTable:
    """Counts learned from gold spans (see the module docstring) and the two decision knobs.

    ``ratio``, ``min_adjacent``: an edge word goes when gold spans of the type have it at that
    edge at most ``ratio`` times as often as they have it just beside that edge (within
    ``context`` words, see :func:`learn`), and the latter happened at least ``min_adjacent``
    times. ``min_starts``, ``start_ratio``: a split needs a word that begins gold spans at least
    ``min_starts`` times, and ``start_ratio`` times as often as it occurs elsewhere (outside
    PHI or inside a span after its first word)."""

    first: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    last: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    inner: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    before: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    after: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    outside: Counter = field(default_factory=Counter)
    starts: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))   # word -> type -> count
    inner_any: Counter = field(default_factory=Counter)
    ratio: float = 0.1
    min_adjacent: int = 3
    min_starts: int = 5
    start_ratio: float = 3.0
    trim: bool = True
    split: bool = True

    # ------------------------------------------------------------------ decisions
    def _drop_edge(self, edge: dict[str, Counter], beside: dict[str, Counter], t: str, w: str) -> bool:
        if t not in beside:
            return False
        n_beside = beside[t].get(w, 0)
        return n_beside >= self.min_adjacent and edge[t].get(w, 0) <= self.ratio * n_beside

    def drop_first(self, t: str, w: str) -> bool:
        return self._drop_edge(self.first, self.before, t, w)

    def drop_last(self, t: str, w: str) -> bool:
        return self._drop_edge(self.last, self.after, t, w)

    def split_type(self, t: str, w: str) -> str | None:
        """The type of a new span starting at word ``w`` inside a span of type ``t``, or None."""
        if t not in self.inner or self.inner[t].get(w, 0) > 0:
            return None
        begins = self.starts.get(w)
        if not begins:
            return None
        n = sum(begins.values())
        if n < self.min_starts or n < self.start_ratio * (self.outside.get(w, 0) + self.inner_any.get(w, 0)):
            return None
        best = max(begins.items(), key=lambda kv: (kv[1], kv[0] == t, kv[0]))
        return best[0]

    # ------------------------------------------------------------------ storage
    _TABLES = ("first", "last", "inner", "before", "after", "starts")
    _KNOBS = ("ratio", "min_adjacent", "min_starts", "start_ratio", "trim", "split")

    def to_json(self) -> dict:
        out: dict = {k: {t: dict(c) for t, c in getattr(self, k).items()} for k in self._TABLES}
        out["outside"] = dict(self.outside)
        out["inner_any"] = dict(self.inner_any)
        out.update({k: getattr(self, k) for k in self._KNOBS})
        return out

    @classmethod
    def from_json(cls, d: dict) -> "BoundaryTable":
        table = cls()
        for k in cls._TABLES:
            setattr(table, k, defaultdict(Counter, {t: Counter(c) for t, c in d.get(k, {}).items()}))
        table.outside = Counter(d.get("outside", {}))
        table.inner_any = Counter(d.get("inner_any", {}))
        for k in cls._KNOBS:
            if k in d:
                setattr(table, k, type(getattr(table, k))(d[k]))
        return table


def learn(docs: Iterable[Document], *, context: int = 2, **knobs) -> BoundaryTable:
    """Count, over the gold spans of ``docs``: each type's first, last and inner words, the
    ``context`` words before and after its spans, which types each word begins, and every word
    outside PHI. ``knobs``: :class:`BoundaryTable` settings (``ratio``, ``min_adjacent``, ...)."""
    table = BoundaryTable(**knobs)
    for doc in docs:
        toks = [(m.start(), m.end(), norm(m.group())) for m in _TOKEN.finditer(doc.text)]
        starts = [s for s, _, _ in toks]
        inside = [False] * len(toks)
        for span in sorted(doc.spans, key=lambda x: (x.start, x.end)):
            t = span.label
            i = bisect_left(starts, span.start)
            while i > 0 and toks[i - 1][1] > span.start:     # a span starting inside a word
                i -= 1
            j = i
            while j < len(toks) and toks[j][0] < span.end:
                inside[j] = True
                j += 1
            if j == i:
                continue
            words = [w for _, _, w in toks[i:j]]
            table.first[t][words[0]] += 1
            table.last[t][words[-1]] += 1
            table.starts[words[0]][t] += 1
            for w in words[1:]:
                table.inner[t][w] += 1
                table.inner_any[w] += 1
            for _, _, w in toks[max(0, i - context):i]:
                table.before[t][w] += 1
            for _, _, w in toks[j:j + context]:
                table.after[t][w] += 1
        for (_, _, w), covered in zip(toks, inside):
            if not covered:
                table.outside[w] += 1
    return table


def adjust_spans(text: str, spans: Sequence[Span], table: BoundaryTable, category_of: Callable[[str], str]) -> list[Span]:
    """:func:`adjust` on the model spans among ``spans`` (source ``model:...``); rule, dictionary
    and human spans are kept as they are. ``category_of``: the schema's type -> category."""
    out: list[Span] = []
    for sp in spans:
        if not sp.source.startswith("model"):
            out.append(sp)
            continue
        for s, e, t in adjust(text, [(sp.start, sp.end, sp.label)], table):
            out.append(sp.with_(start=s, end=e, type=t, category=category_of(t)) if t != sp.label
                       else sp.with_(start=s, end=e))
    return sorted(out, key=lambda x: (x.start, x.end))


def _trim(text: str, toks: list[re.Match], t: str, table: BoundaryTable) -> list[re.Match]:
    i, j = 0, len(toks)
    while j - i > 1:
        changed = False
        if table.drop_first(t, norm(toks[i].group())):
            i += 1
            changed = True
        if j - i > 1 and table.drop_last(t, norm(toks[j - 1].group())):
            last = toks[j - 1]
            if not (last.group() == "." and _ABBREV_END.search(text, toks[i].start(), last.end())):
                j -= 1
                changed = True
        if not changed:
            break
    return toks[i:j]


def adjust(text: str, spans: Sequence[tuple[int, int, str]], table: BoundaryTable) -> list[tuple[int, int, str]]:
    """``spans`` (start, end, type) with the learned conventions applied: split where a word
    begins another span, then edge words trimmed. Offsets stay inside the original spans; a span
    never disappears (its last word stays)."""
    out: list[tuple[int, int, str]] = []
    for s, e, t in spans:
        toks = list(_TOKEN.finditer(text, s, e))
        if not toks:
            out.append((s, e, t))
            continue
        pieces: list[tuple[list[re.Match], str]] = []
        cur, cur_t = [toks[0]], t
        for m in toks[1:]:
            new_t = table.split_type(cur_t, norm(m.group())) if table.split else None
            if new_t is not None:
                pieces.append((cur, cur_t))
                cur, cur_t = [m], new_t
            else:
                cur.append(m)
        pieces.append((cur, cur_t))
        for piece, pt in pieces:
            kept = _trim(text, piece, pt, table) if table.trim else piece
            out.append((kept[0].start(), kept[-1].end(), pt))
    return out
