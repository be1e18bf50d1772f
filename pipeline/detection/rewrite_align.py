"""From a rewrite back to the original: which characters the placeholders replaced.

A generative member (:mod:`models.llm_member`) asks a language model to copy a note with every
piece of PHI replaced by a placeholder (``[PHI]``, or typed ones such as ``[NAME]``). The model
does not copy faithfully: it changes whitespace, drops or adds words, writes a preamble,
repeats the placeholder for each word of a name, stops early. This module recovers, from the
original and the rewrite alone, the original character ranges the placeholders stand for.

How (pure Python, :class:`difflib.SequenceMatcher` from the standard library):

1. Both texts are cut into tokens: letter runs, digit runs, single symbols, and one ``\\n``
   token per line break (a run of blank lines is one token, so reflowed paragraphs still
   anchor). Tokens compare case- and accent-insensitively; whitespace inside a line is ignored.
   Each placeholder in the rewrite is one token that never equals anything in the original.
2. ``SequenceMatcher`` (``autojunk=False``: "de" or "," must stay usable anchors in a long
   note) finds the tokens the rewrite copied. Between two copied stretches lies a *gap*: some
   original tokens, some rewrite tokens. Inside a gap, near-equal words (``ingresado`` /
   ``ingresó``, ratio >= 0.75) are paired too, in order, so a paraphrase around a placeholder
   does not widen its span.
3. A (sub-)gap whose rewrite side holds a placeholder and whose original side holds tokens is
   PHI: its original tokens form the span, split at line breaks (a placeholder at a line end
   never swallows the next line) with sentence punctuation trimmed off its edges (not the
   full stop of an abbreviation, not a bracket the span opened). Several placeholders over one
   stretch separated only by spaces (``[PHI] [PHI]`` for a first and last name) give one span:
   two adjacent PHI spans with only a space between come back as one. A placeholder with no
   original text under it (inserted, or in a preamble) gives none; original text dropped
   without a placeholder is a deletion, not PHI (unless it touches a placeholder: then it is
   inside that placeholder's stretch).
   Punctuation between placeholders (``[PHI], [PHI]``) is a guess when the original has more
   such marks than the rewrite (``Avda. X, 3, 28001``): those copied marks are not trusted as
   anchors, and each is bound to the original mark spaced like it, not ending an
   abbreviation, latest first (:func:`_segments`).
4. After the last copied token nothing anchors the right edge. If the model chose to end
   there, ``k`` placeholders cover at most ``k`` lines of the original. If generation was cut
   at its token limit (``truncated=True``), placeholders there are not placed at all: how far
   their PHI ran is unknown, and the caller rewrites the rest again from
   :attr:`Alignment.covered_end`, where the rewrite stopped accounting for the original.

Labels (:mod:`pipeline.detection.rewrite_labels`): a typed placeholder's tag is resolved against
the project's schema by :func:`~pipeline.detection.rewrite_labels.resolve_tag` (a fine type, a category, or a generic i2b2 type via
:mod:`pipeline.detection.rules.typemap`); an untyped placeholder's spans get the *generic
label*: by default the schema's ``OTHER`` category (PHI of unstated kind), else the one the
caller names (:func:`~pipeline.detection.rewrite_labels.generic_label`).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Iterable


DEFAULT_PLACEHOLDER = "[PHI]"
_LABEL_GROUP = r"(?P<label>[A-Za-z][A-Za-z0-9_\-]*)"
_TOKEN = re.compile(r"[^\W\d_]+|\d+|\n|[^\w\s]|_", re.UNICODE)
_EDGE_PUNCT = frozenset(".,;:!?\"'«»“”()[]{}")
_FUZZY_MIN = 0.75          # similarity at which two different words count as the same word rewritten
_FUZZY_MAX_CELLS = 40_000  # a gap larger than this (tokens x tokens) is not fuzzily paired
_PH_KEY = "\x00placeholder"


@dataclass(frozen=True)
class Placeholder:
    """What the model writes for PHI: a literal (``[PHI]``) or a template with ``{label}``
    (``[{label}]`` matches ``[NAME]``, ``[DATE]``...). Matching ignores case and spaces just
    inside brackets (``[ phi ]``). ``labels``: the tags a typed template accepts (upper case;
    ``None`` = any word), so that bracketed words of the note itself (``[sic]``) are not
    taken for placeholders."""

    template: str = DEFAULT_PLACEHOLDER
    labels: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if not self.template.strip():
            raise ValueError("the placeholder must not be empty")
        if self.template.count("{label}") > 1:
            raise ValueError("the placeholder template may hold {label} once")

    @property
    def typed(self) -> bool:
        return "{label}" in self.template

    def pattern(self) -> re.Pattern:
        return _compile(self.template)

    def render(self, label: str = "") -> str:
        """The placeholder as the prompt shows it (``[NAME]`` for a typed one with ``label``)."""
        return self.template.replace("{label}", label) if self.typed else self.template

    def finditer(self, text: str) -> Iterable[tuple[int, int, str]]:
        """``(start, end, tag)`` of each placeholder in ``text`` (tag ``""`` when untyped)."""
        for m in self.pattern().finditer(text):
            tag = m.group("label").upper() if self.typed else ""
            if self.typed and self.labels is not None and tag not in self.labels:
                continue
            yield m.start(), m.end(), tag


@lru_cache(maxsize=64)
def _compile(template: str) -> re.Pattern:
    """The regular expression of a placeholder template (see :class:`Placeholder`)."""
    parts = []
    for piece in re.split(r"(\{label\})", template.strip()):
        if piece == "{label}":
            parts.append(_LABEL_GROUP)
            continue
        for ch in piece:
            if ch.isspace():
                parts.append(r"\s+")
            elif ch in "[(<{":
                parts.append(re.escape(ch) + r"[ \t]*")
            elif ch in "])>}":
                parts.append(r"[ \t]*" + re.escape(ch))
            else:
                parts.append(re.escape(ch))
    return re.compile("".join(parts), re.IGNORECASE)


@dataclass(frozen=True)
class PlacedSpan:
    """An original character range a placeholder replaced; ``tag``: the placeholder's label."""

    start: int
    end: int
    tag: str = ""


@dataclass
class Alignment:
    """What one rewrite says about its original.

    ``faithfulness``: the share of the rewrite's own tokens (placeholders aside) that are
    copied from the original, in order (1.0: nothing invented; the member uses it as the spans'
    score; 0.0 for a rewrite of placeholders only). ``covered_end``: the original offset up to
    which the rewrite accounts for the text (its last copied token or placed span).
    ``unplaced``: placeholders with no original text under them.
    """

    spans: list[PlacedSpan] = field(default_factory=list)
    placeholders: int = 0
    unplaced: int = 0
    faithfulness: float = 1.0
    covered_end: int = 0


@dataclass(frozen=True)
class _Tok:
    key: str
    start: int
    end: int
    tag: str = ""
    spaced: tuple[bool, bool] = (True, True)   # whitespace (or the text's edge) before, after

    @property
    def is_placeholder(self) -> bool:
        return self.key == _PH_KEY

    @property
    def is_newline(self) -> bool:
        return self.key == "\n"


def _norm(s: str) -> str:
    d = unicodedata.normalize("NFKD", s.casefold())
    return "".join(c for c in d if not unicodedata.combining(c))


def _tokens(text: str, a: int = 0, b: int | None = None) -> list[_Tok]:
    """Tokens of ``text[a:b]`` (offsets into ``text``; spacing judged against the whole text)."""
    b = len(text) if b is None else b
    out: list[_Tok] = []
    for m in _TOKEN.finditer(text, a, b):
        t = m.group()
        if t == "\n":
            if out and out[-1].is_newline and not text[out[-1].end:m.start()].strip():
                out[-1] = _Tok("\n", out[-1].start, m.end())   # blank lines: one break
                continue
            out.append(_Tok("\n", m.start(), m.end()))
        else:
            spaced = (m.start() == 0 or text[m.start() - 1].isspace(), m.end() == len(text) or text[m.end()].isspace())
            out.append(_Tok(_norm(t), m.start(), m.end(), spaced=spaced))
    return out


def _rewrite_tokens(rewrite: str, placeholder: Placeholder) -> list[_Tok]:
    out: list[_Tok] = []
    cursor = 0
    for s, e, tag in placeholder.finditer(rewrite):
        out += _tokens(rewrite, cursor, s)
        out.append(_Tok(_PH_KEY, s, e, tag))
        cursor = e
    out += _tokens(rewrite, cursor)
    # a newline token next to another (after placeholder splitting) is still one break
    merged: list[_Tok] = []
    for t in out:
        if t.is_newline and merged and merged[-1].is_newline:
            continue
        merged.append(t)
    return merged


def _similar(a: str, b: str) -> float:
    if len(a) < 4 or len(b) < 4 or not (a.isalpha() and b.isalpha()):
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _fuzzy_pairs(orig: list[_Tok], rew: list[_Tok]) -> list[tuple[int, int]]:
    """Order-preserving pairs ``(i, j)`` of near-equal words, most total similarity first (DP)."""
    words = [j for j, t in enumerate(rew) if not t.is_placeholder and not t.is_newline]
    n, m = len(orig), len(words)
    if not n or not m or n * m > _FUZZY_MAX_CELLS:
        return []
    sim = [[_similar(orig[i].key, rew[words[k]].key) for k in range(m)] for i in range(n)]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for k in range(m - 1, -1, -1):
            take = sim[i][k] + best[i + 1][k + 1] if sim[i][k] >= _FUZZY_MIN else 0.0
            best[i][k] = max(take, best[i + 1][k], best[i][k + 1])
    pairs: list[tuple[int, int]] = []
    i = k = 0
    while i < n and k < m:
        if sim[i][k] >= _FUZZY_MIN and abs(best[i][k] - (sim[i][k] + best[i + 1][k + 1])) < 1e-12:
            pairs.append((i, words[k]))
            i += 1
            k += 1
        elif best[i + 1][k] >= best[i][k + 1]:
            i += 1
        else:
            k += 1
    return pairs


_CLOSING = {")": "(", "]": "[", "}": "{", "»": "«", "”": "“"}
_OPENING = {v: k for k, v in _CLOSING.items()}


def _trim(cur: list[_Tok], end: int) -> bool:
    """Whether the first (``end=0``) or last (``end=-1``) token of a piece is punctuation to
    leave out: not a full stop ending an abbreviation (``dcha.``), not a bracket matching one
    inside the piece (``Hospital X (Y)``)."""
    if len(cur) < 2:
        return False
    t = cur[end]
    if len(t.key) != 1 or t.key not in _EDGE_PUNCT:
        return False
    if end == -1 and t.key == "." and _abbreviation(cur, len(cur) - 1):
        return False
    pair = (_CLOSING if end == -1 else _OPENING).get(t.key)
    return not (pair and any(x.key == pair for x in cur))


def _pieces(orig: list[_Tok]) -> list[list[_Tok]]:
    """The original tokens under a placeholder, split at line breaks, edge punctuation trimmed."""
    out: list[list[_Tok]] = []
    cur: list[_Tok] = []
    for t in orig + [_Tok("\n", -1, -1)]:
        if t.is_newline:
            while _trim(cur, -1):
                cur.pop()
            while _trim(cur, 0):
                cur.pop(0)
            if cur and not (len(cur) == 1 and cur[0].key in _EDGE_PUNCT):
                out.append(cur)
            cur = []
        else:
            cur.append(t)
    return out


def _place(orig: list[_Tok], rew: list[_Tok], open_left: bool, open_right: bool, result: Alignment) -> int:
    """Spans of one sub-gap; returns the original offset it accounts for (-1: nothing)."""
    tags = [t.tag for t in rew if t.is_placeholder]
    if not tags:
        return -1
    # nothing anchors this edge (the rewrite's start or end): k placeholders cover at most k lines
    if open_right:
        breaks = [k for k, t in enumerate(orig) if t.is_newline and k > 0]
        if len(breaks) >= len(tags):
            orig = orig[:breaks[len(tags) - 1]]
    if open_left:
        breaks = [k for k, t in enumerate(orig) if t.is_newline and k < len(orig) - 1]
        if len(breaks) >= len(tags):
            orig = orig[breaks[-len(tags)] + 1:]
    pieces = _pieces(orig)
    if not pieces:
        result.unplaced += len(tags)
        return orig[-1].end if orig else -1
    distinct = set(tags)
    if len(pieces) == len(tags):
        labels = tags
    else:
        labels = [tags[0] if len(distinct) == 1 else ""] * len(pieces)
    for piece, tag in zip(pieces, labels):
        result.spans.append(PlacedSpan(piece[0].start, piece[-1].end, tag))
    return orig[-1].end


def _is_punct(t: _Tok) -> bool:
    return not t.is_placeholder and not t.is_newline and len(t.key) == 1 and not t.key.isalnum()


def _abbreviation(orig: list[_Tok], i: int) -> bool:
    """A full stop glued to a short word (``Avda.``, ``Dr.``, ``s/n.``): likely inside a name."""
    return (orig[i].key == "." and i > 0 and not orig[i].spaced[0] and orig[i - 1].key.isalpha()
            and len(orig[i - 1].key) <= 4)


def _segments(orig: list[_Tok], rew: list[_Tok]) -> list[tuple[list[_Tok], list[_Tok]]]:
    """One sub-gap cut at the punctuation the rewrite writes *between* two placeholders
    (``[PHI], [PHI]``). Each mark is bound to an equal mark of the original that leaves both
    sides some text, preferring one spaced like it (a full stop followed by a space is not the
    one inside ``x@y.es``), then one that does not end an abbreviation (``Avda.``, ``Dr.``),
    then the latest: the left placeholder's span takes in an ambiguous inner mark (``C/ X, 3``)
    rather than leave it out."""
    ph = [j for j, t in enumerate(rew) if t.is_placeholder]
    if len(ph) < 2:
        return [(orig, rew)]
    seps = [j for j in range(ph[0] + 1, ph[-1]) if _is_punct(rew[j])]
    out: list[tuple[list[_Tok], list[_Tok]]] = []
    bound_o, bound_r = len(orig), len(rew)
    for j in reversed(seps):
        if not any(t.is_placeholder for t in rew[j + 1:bound_r]):
            continue
        same = [i for i in range(bound_o - 2, 0, -1) if orig[i].key == rew[j].key]
        if not same:
            continue
        i = min(same, key=lambda i: (orig[i].spaced != rew[j].spaced, _abbreviation(orig, i), -i))
        out.append((orig[i + 1:bound_o], rew[j + 1:bound_r]))
        bound_o, bound_r = i, j
    out.append((orig[:bound_o], rew[:bound_r]))
    return out[::-1]


def _gap(orig: list[_Tok], rew: list[_Tok], open_left: bool, open_right: bool, result: Alignment) -> int:
    """Pair near-equal words inside one gap, then place the placeholders of each sub-gap."""
    if not any(t.is_placeholder for t in rew):
        return -1
    pairs = _fuzzy_pairs(orig, rew)
    bounds = [(-1, -1)] + pairs + [(len(orig), len(rew))]
    reach = -1
    for k, ((i0, j0), (i1, j1)) in enumerate(zip(bounds, bounds[1:])):
        segs = _segments(orig[i0 + 1:i1], rew[j0 + 1:j1])
        for n, (o, r) in enumerate(segs):
            reach = max(reach, _place(o, r, open_left and k == 0 and n == 0,
                                      open_right and k == len(bounds) - 2 and n == len(segs) - 1, result))
    return reach


def _weak(blocks: list, otoks: list[_Tok], rtoks: list[_Tok]) -> list:
    """The matching blocks without the weak ones: one or two punctuation marks copied between
    two placeholders. Which of several equal marks the rewrite copied is a guess there
    (:func:`_segments` makes it, for the whole stretch at once)."""
    keep = []
    prev_b = 0
    for k, b in enumerate(blocks):
        nxt = blocks[k + 1].b if k + 1 < len(blocks) else len(rtoks)
        weak = (0 < b.size <= 2 and all(_is_punct(t) for t in otoks[b.a:b.a + b.size])
                and any(t.is_placeholder for t in rtoks[prev_b:b.b])
                and any(t.is_placeholder for t in rtoks[b.b + b.size:nxt]))
        if not weak:
            keep.append(b)
        prev_b = b.b + b.size
    return keep


def align_rewrite(original: str, rewrite: str, placeholder: Placeholder | str = DEFAULT_PLACEHOLDER, *,
                  truncated: bool = False) -> Alignment:
    """Where the placeholders of ``rewrite`` sit in ``original`` (see the module notes).

    >>> a = align_rewrite("Seen by Dr. Ana Ruiz on 3 May.", "Seen by Dr. [PHI] on [PHI].")
    >>> [(s.start, s.end) for s in a.spans], a.faithfulness
    ([(12, 20), (24, 29)], 1.0)
    """
    ph = Placeholder(placeholder) if isinstance(placeholder, str) else placeholder
    otoks = _tokens(original)
    rtoks = _rewrite_tokens(rewrite, ph)
    result = Alignment(placeholders=sum(t.is_placeholder for t in rtoks))
    sm = SequenceMatcher(None, [t.key for t in otoks], [t.key for t in rtoks], autojunk=False)
    blocks = sm.get_matching_blocks()          # ends with a (len_a, len_b, 0) sentinel
    copied = sum(b.size for b in blocks)
    blocks = _weak(blocks, otoks, rtoks)
    own = sum(1 for t in rtoks if not t.is_placeholder)
    result.faithfulness = round(copied / own, 4) if own else 0.0
    oi = rj = 0
    last_matched_end = 0
    reach = -1
    for k, b in enumerate(blocks):
        if truncated and b.size == 0:
            break                                # the cut-off tail: left to the caller's next try
        r = _gap(otoks[oi:b.a], rtoks[rj:b.b], k == 0, b.size == 0, result)
        reach = max(reach, r)
        if b.size:
            last_matched_end = otoks[b.a + b.size - 1].end
        oi, rj = b.a + b.size, b.b + b.size
    result.covered_end = max(last_matched_end, reach)
    result.spans.sort(key=lambda s: (s.start, s.end))
    return result


def strip_placeholders(rewrite: str, placeholder: Placeholder | str = DEFAULT_PLACEHOLDER) -> str:
    """``rewrite`` with every placeholder removed (for the content-preservation score)."""
    ph = Placeholder(placeholder) if isinstance(placeholder, str) else placeholder
    pieces, cursor = [], 0
    for s, e, _ in ph.finditer(rewrite):
        pieces.append(rewrite[cursor:s])
        cursor = e
    pieces.append(rewrite[cursor:])
    return " ".join(p for p in pieces)
