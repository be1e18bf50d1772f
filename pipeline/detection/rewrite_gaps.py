"""The spans of one gap: the original tokens between two copied stretches that a placeholder stands for.

Inside a gap near-equal words are paired first (:func:`pipeline.detection.rewrite_tokens.fuzzy_pairs`),
so a paraphrase around a placeholder does not widen its span; each sub-gap is cut at the
punctuation the rewrite writes between placeholders (:func:`_segments`), and the original tokens
under its placeholders become spans, split at line breaks, edge punctuation trimmed
(:func:`_pieces`). Apart from :mod:`pipeline.detection.rewrite_align` (which finds the gaps)
because what counts as PHI inside a gap is its own set of rules.
"""
from __future__ import annotations

from pipeline.detection.rewrite_placeholders import Alignment, PlacedSpan
from pipeline.detection.rewrite_tokens import Tok, abbreviation, fuzzy_pairs, is_punct

_EDGE_PUNCT = frozenset(".,;:!?\"'«»“”()[]{}")


_CLOSING = {")": "(", "]": "[", "}": "{", "»": "«", "”": "“"}
_OPENING = {v: k for k, v in _CLOSING.items()}


def _trim(cur: list[Tok], end: int) -> bool:
    """Whether the first (``end=0``) or last (``end=-1``) token of a piece is punctuation to
    leave out: not a full stop ending an abbreviation (``dcha.``), not a bracket matching one
    inside the piece (``Hospital X (Y)``)."""
    if len(cur) < 2:
        return False
    t = cur[end]
    if len(t.key) != 1 or t.key not in _EDGE_PUNCT:
        return False
    if end == -1 and t.key == "." and abbreviation(cur, len(cur) - 1):
        return False
    pair = (_CLOSING if end == -1 else _OPENING).get(t.key)
    return not (pair and any(x.key == pair for x in cur))


def _pieces(orig: list[Tok]) -> list[list[Tok]]:
    """The original tokens under a placeholder, split at line breaks, edge punctuation trimmed."""
    out: list[list[Tok]] = []
    cur: list[Tok] = []
    for t in orig + [Tok("\n", -1, -1)]:
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


def _place(orig: list[Tok], rew: list[Tok], open_left: bool, open_right: bool, result: Alignment) -> int:
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


def _segments(orig: list[Tok], rew: list[Tok]) -> list[tuple[list[Tok], list[Tok]]]:
    """One sub-gap cut at the punctuation the rewrite writes *between* two placeholders
    (``[PHI], [PHI]``). Each mark is bound to an equal mark of the original that leaves both
    sides some text, preferring one spaced like it (a full stop followed by a space is not the
    one inside ``x@y.es``), then one that does not end an abbreviation (``Avda.``, ``Dr.``),
    then the latest: the left placeholder's span takes in an ambiguous inner mark (``C/ X, 3``)
    rather than leave it out."""
    ph = [j for j, t in enumerate(rew) if t.is_placeholder]
    if len(ph) < 2:
        return [(orig, rew)]
    seps = [j for j in range(ph[0] + 1, ph[-1]) if is_punct(rew[j])]
    out: list[tuple[list[Tok], list[Tok]]] = []
    bound_o, bound_r = len(orig), len(rew)
    for j in reversed(seps):
        if not any(t.is_placeholder for t in rew[j + 1:bound_r]):
            continue
        same = [i for i in range(bound_o - 2, 0, -1) if orig[i].key == rew[j].key]
        if not same:
            continue
        i = min(same, key=lambda i: (orig[i].spaced != rew[j].spaced, abbreviation(orig, i), -i))
        out.append((orig[i + 1:bound_o], rew[j + 1:bound_r]))
        bound_o, bound_r = i, j
    out.append((orig[:bound_o], rew[:bound_r]))
    return out[::-1]


def gap_spans(orig: list[Tok], rew: list[Tok], open_left: bool, open_right: bool, result: Alignment) -> int:
    """Pair near-equal words inside one gap, then place the placeholders of each sub-gap."""
    if not any(t.is_placeholder for t in rew):
        return -1
    pairs = fuzzy_pairs(orig, rew)
    bounds = [(-1, -1)] + pairs + [(len(orig), len(rew))]
    reach = -1
    for k, ((i0, j0), (i1, j1)) in enumerate(zip(bounds, bounds[1:])):
        segs = _segments(orig[i0 + 1:i1], rew[j0 + 1:j1])
        for n, (o, r) in enumerate(segs):
            reach = max(reach, _place(o, r, open_left and k == 0 and n == 0,
                                      open_right and k == len(bounds) - 2 and n == len(segs) - 1, result))
    return reach
