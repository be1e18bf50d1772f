"""Overlapping spans of one document joined, never dropped: "Pedro Garcia" and "Garcia Lopez" on
"Pedro Garcia Lopez" become one span over the union of their characters, so no character of
either survives de-identification. The union takes the label and action of its strongest member
(:func:`strength`). Split from :mod:`pipeline.deid.engine`; :mod:`pipeline.deid.resolved` applies
it to a document's spans.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from pipeline.deid.operators import rewrites
from pipeline.spans import Span


#: Tie-break between overlapping spans of the same length: the more directly identifying
#: category labels the union (a name before an id, an id before a contact, ... OTHER last).
CATEGORY_RANK: dict[str, int] = {c: i for i, c in enumerate(
    ("NAME", "ID", "CONTACT", "LOCATION", "DATE", "AGE", "PROFESSION", "OTHER"))}
ActionOf = Callable[[Span], str]


@dataclass(frozen=True)
class OverlapGroup:
    """Input spans that overlap (directly or through a chain) and the one span that covers them.

    ``span`` covers the union of the members' characters and carries the strongest member's
    category, type, source, score and layer; ``members`` are the input spans, strongest first
    (the others are the alternatives the result keeps and counts).
    """

    span: Span
    members: tuple[Span, ...]

    @property
    def alternatives(self) -> tuple[Span, ...]:
        return self.members[1:]


def strength(span: Span, action_of: ActionOf | None = None) -> tuple:
    """Sort key, strongest first: a span the profile rewrites before one it keeps (so a kept
    span never shields a rewritten one's characters), then the longer, then the more directly
    identifying category (:data:`CATEGORY_RANK`), then the higher score, the earlier start, the label."""
    kept = action_of is not None and not rewrites(action_of(span))
    return (kept, -(span.end - span.start), CATEGORY_RANK.get(span.category, len(CATEGORY_RANK)), -span.score,
            span.start, span.label, span.source, span.layer)


def overlap_groups(spans: Iterable[Span], action_of: ActionOf | None = None) -> list[OverlapGroup]:
    """Group overlapping spans (nested, chained or partial; exact duplicates too) into one span
    each over the union of their characters, sorted by offset; never raises.

    ``action_of(span)``: the profile's action for a span, to rank rewritten spans above kept ones.

    >>> a, b = Span("d", 0, 12, "NAME"), Span("d", 6, 18, "NAME")
    >>> [(g.span.start, g.span.end, len(g.alternatives)) for g in overlap_groups([a, b, Span("d", 20, 25, "ID")])]
    [(0, 18, 1), (20, 25, 0)]
    """
    ordered = sorted(spans, key=lambda s: (s.start, s.end, s.label, s.source, -s.score, s.layer))
    groups: list[OverlapGroup] = []
    current: list[Span] = []
    end = -1
    for s in ordered:
        if current and s.start < end:
            current.append(s)
            end = max(end, s.end)
            continue
        if current:
            groups.append(_group(current, action_of))
        current, end = [s], s.end
    if current:
        groups.append(_group(current, action_of))
    return groups


def _group(members: list[Span], action_of: ActionOf | None) -> OverlapGroup:
    if len(members) == 1:           # the common case: nothing to rank
        return OverlapGroup(members[0], (members[0],))
    ranked = tuple(sorted(members, key=lambda s: strength(s, action_of)))
    top = ranked[0]
    start, end = min(s.start for s in members), max(s.end for s in members)
    span = top if (top.start, top.end) == (start, end) else top.with_(start=start, end=end)
    return OverlapGroup(span, ranked)


def resolve_overlaps(spans: Iterable[Span], action_of: ActionOf | None = None) -> tuple[list[Span], int]:
    """One span per group of overlapping spans, covering their union (see :func:`overlap_groups`);
    returns the spans sorted by offset and how many input spans were merged into another
    (exact duplicates included), so ``len(result) + merged == len(spans)``."""
    groups = overlap_groups(list(spans), action_of)
    return [g.span for g in groups], sum(len(g.members) - 1 for g in groups)
