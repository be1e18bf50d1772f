"""How candidate spans from rules, dictionaries, models and people become one set of annotations.

Detection takes the *union* of every source for recall (a missed name is a privacy breach; a
spurious one costs a reviewer a click), then makes the result usable: one span per stretch of
text, never overlapping. The policy, in order:

1. **Clean boundaries** (machine spans only; a person's span is taken as drawn). Leading and
   trailing blanks go; trailing ``, ; :`` go; a trailing ``.`` goes unless it closes an
   abbreviation (``EE.UU.``, ``D.F.``, an initial ``J.``); an unbalanced closing bracket or
   quote goes. In NAME spans leading titles go: ``Dr. Smith`` -> ``Smith`` (titles are never part
   of a name: a surrogate replaces the name and keeps the title). A span left empty is dropped.
   Titles and abbreviations are a language's words: the locale pack's (``policy.words``,
   :meth:`CombinePolicy.for_locale`), the default pack's when no locale is given.
2. **Merge within a category.** Spans of the same category that overlap merge into one
   covering span ("10 de octubre" from a model and "octubre de 2016" from a rule give
   "10 de octubre de 2016"). Spans of one category separated only by spaces or tabs (at most
   ``max_gap`` characters, never a newline or punctuation) merge too, for the categories in
   ``merge_whitespace`` (default NAME, DATE, AGE, PROFESSION): "January" + "2071" is one DATE,
   "Pedro" + "Rivera" one NAME, but "Pedro" and "De Miguel" on the next line stay two, and
   "28036" (ZIP) + "Madrid" (CITY) stay two because LOCATION is not merged on blanks (an
   address is several spans). The merged span takes its label and source from the member of
   highest source priority (then the longest, then the best score) and the highest score among
   members; members whose label lost go to the alternatives.
3. **Resolve across categories.** First, containment (``containment=True``): a span lying
   strictly inside a longer span of another category whose source is at least as trusted loses
   to it, whatever the scores ("Miguel", a first name, inside the street "Calle Miguel Benitez 90"
   found by a rule; a dictionary hit has score 1.0 but no context). Then, where spans of
   different categories still overlap (a dictionary LOCATION and a model NAME on "Clarkfield")
   the one ranked first by ``resolve_by`` survives:
   by default higher score, then source priority (human > model > rule > dict), then the longer
   span, then the earlier one. Losers go to the alternatives so a reviewer can switch.

``combine`` returns ``(kept, alternatives)``: ``kept`` sorted and non-overlapping,
``alternatives`` (which may overlap ``kept`` and each other) with the offsets they were proposed
with after cleaning. It works on one document at a time.

Model-first detection's repairs of a model's boundaries are the locale's boundary steps
(:mod:`pipeline.detection.steps`); how rule and dictionary spans then join the model's is
:mod:`pipeline.detection.merge_policy`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from pipeline.detection.steps.registry import default_words, pack_for
from pipeline.detection.steps.words import BoundaryWords
from pipeline.spans import Span, SpanError, dedupe

DEFAULT_PRIORITY: tuple[str, ...] = ("human", "model", "rule", "dict", "import")
DEFAULT_RESOLVE: tuple[str, ...] = ("score", "priority", "length")
DEFAULT_MERGE_WHITESPACE: frozenset[str] = frozenset({"NAME", "DATE", "AGE", "PROFESSION"})
_OPENERS = {")": "(", "]": "[", "»": "«", "”": "“", '"': '"', "'": "'"}


@dataclass(frozen=True)
class CombinePolicy:
    """The knobs of :func:`combine`; see the module docstring for what each does."""

    source_priority: tuple[str, ...] = DEFAULT_PRIORITY
    resolve_by: tuple[str, ...] = DEFAULT_RESOLVE
    merge_whitespace: frozenset[str] = DEFAULT_MERGE_WHITESPACE
    max_gap: int = 3
    trim_human: bool = False
    containment: bool = True
    strip_titles: frozenset[str] = field(default_factory=lambda: frozenset({"NAME"}))
    words: BoundaryWords | None = None      # titles and abbreviations: the locale pack's; None: the default pack's

    @classmethod
    def for_locale(cls, locale: str) -> "CombinePolicy":
        """The default policy with ``locale``'s titles and abbreviations (its pack's words)."""
        return cls(words=pack_for(locale).words)

    def priority(self, source: str) -> int:
        kind = source.split(":", 1)[0]
        try:
            return self.source_priority.index(kind)
        except ValueError:
            return len(self.source_priority)


_PAIRS = {"(": ")", "[": "]", "«": "»", "“": "”", '"': '"', "'": "'"}


_SHORT_YEAR = re.compile(r"'\d\d")


def _balanced_strip(text: str, s: int, e: int) -> tuple[int, int]:
    """Drop a bracket or quote that is not closed inside the span, or that encloses all of it."""
    if e - s > 2 and text[s] in _PAIRS and text[e - 1] == _PAIRS[text[s]] \
            and text[s] not in text[s + 1:e - 1] and text[e - 1] not in text[s + 1:e - 1]:
        s, e = s + 1, e - 1
    changed = True
    while changed and e > s:
        changed = False
        last = text[e - 1]
        if last in _OPENERS:
            inner = text[s:e - 1]
            opener = _OPENERS[last]
            n_open = inner.count(opener) if opener != last else inner.count(last)
            if (opener != last and n_open == 0) or (opener == last and n_open % 2 == 0):
                e -= 1
                changed = True
        first = text[s] if e > s else ""
        if first in "([«“" and first not in text[s + 1:e] and {"(": ")", "[": "]", "«": "»", "“": "”"}[first] not in text[s + 1:e]:
            s += 1
            changed = True
        elif first in "\"'" and text[s + 1:e].count(first) == 0 and not (first == "'" and _SHORT_YEAR.fullmatch(text, s, e)):
            s += 1   # (an abbreviated year keeps its apostrophe: "AAA repair ('97)", icu_invented_p find f268)
            changed = True
    return s, e


def clean_span(span: Span, text: str, policy: CombinePolicy = CombinePolicy()) -> Span | None:
    """``span`` with blanks, trailing punctuation and (for NAME) leading titles removed; None if empty.
    Titles and the abbreviations that keep their dot are ``policy.words``'s."""
    words = policy.words if policy.words is not None else default_words()
    s, e = span.start, span.end
    for _ in range(4):
        before = (s, e)
        while s < e and text[s].isspace():
            s += 1
        while e > s and (text[e - 1].isspace() or text[e - 1] in ",;:"):
            e -= 1
        if e > s and text[e - 1] == "." and not words.abbreviation_end.search(text[s:e]):
            e -= 1
        s, e = _balanced_strip(text, s, e)
        if span.category in policy.strip_titles and e > s:
            m = words.title.match(text, s, e)
            if m:
                s = m.end()  # a title alone is not a name: the span empties and is dropped
        if (s, e) == before:
            break
    if e <= s:
        return None
    return span if (s, e) == (span.start, span.end) else span.with_(start=s, end=e)


def _rank_key(span: Span, policy: CombinePolicy) -> tuple:
    key: list = []
    for crit in policy.resolve_by:
        if crit == "score":
            key.append(-span.score)
        elif crit == "priority":
            key.append(policy.priority(span.source))
        elif crit == "length":
            key.append(-(span.end - span.start))
        else:
            raise ValueError(f"unknown resolve_by criterion {crit!r}; use score, priority, length")
    key.extend([span.start, span.end, span.label, span.source])
    return tuple(key)


def _label_key(span: Span, policy: CombinePolicy) -> tuple:
    """Which member of a same-category cluster names the merged span."""
    return (policy.priority(span.source), -(span.end - span.start), -span.score, span.start, span.label, span.source)


def _gap_ok(text: str, a_end: int, b_start: int, policy: CombinePolicy) -> bool:
    gap = text[a_end:b_start]
    return 0 <= len(gap) <= policy.max_gap and all(c in " \t\u00a0" for c in gap)


def _merge_category(spans: list[Span], text: str, policy: CombinePolicy) -> tuple[list[Span], list[Span]]:
    """Merge one category's spans (sorted by start) into clusters; returns (merged, alternatives)."""
    merged: list[Span] = []
    alternatives: list[Span] = []
    cluster: list[Span] = []
    c_end = -1

    def flush() -> None:
        if not cluster:
            return
        best = min(cluster, key=lambda x: _label_key(x, policy))
        start = min(x.start for x in cluster)
        end = max(x.end for x in cluster)
        score = max(x.score for x in cluster)
        merged.append(best.with_(start=start, end=end, score=score))
        alternatives.extend(x for x in cluster if x.label != best.label)

    for sp in spans:
        if cluster:
            overlapping = sp.start < c_end
            adjacent = (sp.category in policy.merge_whitespace
                        and sp.start >= c_end and _gap_ok(text, c_end, sp.start, policy))
            if overlapping or adjacent:
                cluster.append(sp)
                c_end = max(c_end, sp.end)
                continue
            flush()
        cluster = [sp]
        c_end = sp.end
    flush()
    return merged, alternatives


def combine(spans: Iterable[Span], text: str, *, source_priority: Sequence[str] | None = None,
            resolve_by: Sequence[str] | None = None, merge_whitespace: Iterable[str] | None = None,
            max_gap: int | None = None, policy: CombinePolicy | None = None) -> tuple[list[Span], list[Span]]:
    """Union of candidate spans for one document -> ``(kept, alternatives)``; see the module docstring.

    Keyword arguments override fields of ``policy`` (default :class:`CombinePolicy`). Raises
    :class:`SpanError` for spans outside the text, without a category, or from several documents.
    """
    pol = policy or CombinePolicy()
    changes: dict = {}
    if source_priority is not None:
        changes["source_priority"] = tuple(source_priority)
    if resolve_by is not None:
        changes["resolve_by"] = tuple(resolve_by)
    if merge_whitespace is not None:
        changes["merge_whitespace"] = frozenset(merge_whitespace)
    if max_gap is not None:
        changes["max_gap"] = max_gap
    if changes:
        pol = CombinePolicy(**{**pol.__dict__, **changes})

    items = list(spans)
    if not items:
        return [], []
    doc_ids = {s.doc_id for s in items}
    if len(doc_ids) > 1:
        raise SpanError(f"combine works on one document at a time; got {len(doc_ids)} document ids")
    n = len(text)
    cleaned: list[Span] = []
    for s in items:
        if not (0 <= s.start < s.end <= n):
            raise SpanError(f"{s.doc_id}: span {s.start}-{s.end} ({s.label}) lies outside the text (length {n})")
        if not s.category:
            raise SpanError(f"{s.doc_id}: span {s.start}-{s.end} has no category")
        if s.source.startswith("human") and not pol.trim_human:
            cleaned.append(s)
            continue
        c = clean_span(s, text, pol)
        if c is not None:
            cleaned.append(c)

    # 2. merge within each category
    by_cat: dict[str, list[Span]] = {}
    for s in cleaned:
        by_cat.setdefault(s.category, []).append(s)
    merged: list[Span] = []
    alternatives: list[Span] = []
    for cat in sorted(by_cat):
        group = sorted(by_cat[cat], key=lambda x: (x.start, -x.end, pol.priority(x.source)))
        m, alt = _merge_category(group, text, pol)
        merged.extend(m)
        alternatives.extend(alt)

    # 3a. a span inside a longer span of another category from an equally or more trusted
    # source loses to it ("Miguel" in "Calle Miguel Benitez 90", "Madrid" in "Hospital ... Madrid")
    if pol.containment:
        survivors: list[Span] = []
        for s in merged:
            if any(o.category != s.category and o.start <= s.start and s.end <= o.end
                   and (o.end - o.start) > (s.end - s.start) and pol.priority(o.source) <= pol.priority(s.source)
                   for o in merged):
                alternatives.append(s)
            else:
                survivors.append(s)
        merged = survivors

    # 3b. resolve the remaining overlaps across categories, best first
    kept: list[Span] = []
    taken: list[tuple[int, int]] = []
    for s in sorted(merged, key=lambda x: _rank_key(x, pol)):
        if any(s.start < e and b < s.end for b, e in taken):
            alternatives.append(s)
            continue
        kept.append(s)
        taken.append((s.start, s.end))
    kept.sort(key=lambda x: (x.start, x.end))
    alternatives.sort(key=lambda x: (x.start, x.end, x.label))
    return kept, dedupe(alternatives)

