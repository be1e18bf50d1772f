"""Adjudication: two or more annotators' layers of a document become one gold layer.

Where the annotators agree, their spans go into the draft gold as they are; for each
disagreement (:func:`pipeline.metrics.agreement.disagreements`) the reviewer takes one
annotator's spans or neither (:func:`draft_gold`), may edit the result, and saves it as gold.
Then :func:`possible_misses` closes the loop with the model: suggestions of the ``pre`` layer
that gold lacks (no overlapping gold span) and nobody dismissed, for the reviewer to confirm
(:func:`confirm_miss`) or dismiss.

Pure functions over spans: the Review page's use-cases (reading the layers, saving gold,
remembering dismissals) are in :mod:`services.review`.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from pipeline.errors import WorkbenchError
from pipeline.layers import GOLD
from pipeline.metrics.agreement import Disagreement, DocumentAgreement, agreement, disagreements
from pipeline.spans import Span

NEITHER = "neither"
EDITED = "edited"     # the reviewer changed the spans of a disagreement by hand


class ReviewError(WorkbenchError):
    """Gold that cannot be saved yet (undecided disagreements); safe to show."""


def document_disagreements(doc_id: int | str, layers: Mapping[str, Sequence[Span]]) -> list[Disagreement]:
    """What the reviewer decides: the disagreements, and the spans every annotator holds only
    unreviewed (accepted in bulk or left open), kind ``unreviewed``: those are not agreed, so they
    stay out of the draft gold until the reviewer takes them."""
    return disagreements(str(doc_id), layers, unreviewed_apart=True)


def document_agreement(doc_id: int | str, layers: Mapping[str, Sequence[Span]], text: str) -> DocumentAgreement | None:
    """Strict and relaxed F1 (mean over pairs) and the number of disagreements for one document;
    ``None`` with fewer than two layers."""
    if len(layers) < 2:
        return None
    sid = str(doc_id)
    report = agreement({a: {sid: list(sp)} for a, sp in layers.items()}, {sid: text})
    return report.per_document[0] if report.per_document else None


def choice_options(d: Disagreement) -> list[str]:
    """What the reviewer can take for a disagreement: each annotator's spans, or neither."""
    return sorted(d.labels) + [NEITHER]


def disagreement_spans(d: Disagreement, layers: Mapping[str, Sequence[Span]]) -> dict[str, list[Span]]:
    """Each annotator's spans inside disagreement ``d`` (full :class:`Span` objects)."""
    out: dict[str, list[Span]] = {}
    for who, triples in d.spans.items():
        wanted = set(triples)
        out[who] = [s for s in layers.get(who, ()) if (s.start, s.end, s.label) in wanted]
    return out


def _gold_span(s: Span, doc_id: int | str, reviewer: str) -> Span:
    return s.with_(doc_id=str(doc_id), layer=GOLD, source=f"human:{reviewer}", score=1.0)


def draft_gold(doc_id: int | str, layers: Mapping[str, Sequence[Span]], found: Sequence[Disagreement],
               choices: Mapping[int, str | None], reviewer: str) -> list[Span]:
    """Gold from the annotators' layers: every span outside the disagreements (where all agree),
    plus, for disagreement ``i``, the spans of annotator ``choices[i]`` in it (nothing for
    ``neither`` or an undecided one). Spans get layer ``gold``, source ``human:<reviewer>``."""
    out: dict[tuple[int, int, str], Span] = {}
    for who, spans in layers.items():
        for s in spans:
            if any(d.start < s.end and s.start < d.end for d in found):
                continue
            out.setdefault((s.start, s.end, s.label), _gold_span(s, doc_id, reviewer))
    for i, d in enumerate(found):
        who = choices.get(i)
        if not who or who == NEITHER:
            continue
        if who not in d.spans:
            raise ReviewError(f"document {doc_id}: {who} is not one of the annotators of disagreement {i + 1}")
        wanted = set(d.spans[who])
        for s in layers[who]:
            if (s.start, s.end, s.label) in wanted:
                out.setdefault((s.start, s.end, s.label), _gold_span(s, doc_id, reviewer))
    return sorted(out.values(), key=lambda s: (s.start, s.end, s.label))


def agreed_gold(doc_id: int | str, layers: Mapping[str, Sequence[Span]], found: Sequence[Disagreement],
                reviewer: str) -> list[Span]:
    """Where gold starts: the spans every annotator agrees on (everything outside the
    disagreements), as gold spans of ``reviewer``."""
    return draft_gold(doc_id, layers, found, {}, reviewer)


def infer_choices(gold: Sequence[Span], found: Sequence[Disagreement]) -> dict[int, str]:
    """For saved gold, which version each disagreement took: an annotator's (gold holds exactly
    their spans there), :data:`NEITHER` (no gold span there) or :data:`EDITED` (anything else)."""
    out: dict[int, str] = {}
    for i, d in enumerate(found):
        inside = frozenset((s.start, s.end, s.label) for s in gold if d.start < s.end and s.start < d.end)
        if not inside:
            out[i] = NEITHER
            continue
        out[i] = next((who for who in sorted(d.spans) if frozenset(d.spans[who]) == inside), EDITED)
    return out


def check_all_decided(found: Sequence[Disagreement], decided: Iterable[int]) -> None:
    """Refuse gold while a disagreement is undecided (the editor reports which it holds decided:
    a version chosen, or the spans there changed by hand)."""
    done = {int(i) for i in decided if str(i).lstrip("-").isdigit()}
    check_decided(found, {i: "decided" for i in range(len(found)) if i in done})


def undecided(found: Sequence[Disagreement], choices: Mapping[int, str | None]) -> list[int]:
    """Indices of disagreements without a choice."""
    return [i for i in range(len(found)) if not choices.get(i)]


def check_decided(found: Sequence[Disagreement], choices: Mapping[int, str | None]) -> None:
    """Refuse to make gold while a disagreement is undecided (:class:`ReviewError`)."""
    left = undecided(found, choices)
    if left:
        shown = ", ".join(str(i + 1) for i in left[:10]) + (" ..." if len(left) > 10 else "")
        raise ReviewError(f"{len(left)} disagreement(s) are still undecided ({shown}); choose a version or "
                          "'neither' for each before saving gold")


def as_gold(spans: Iterable[Span], doc_id: int | str, reviewer: str) -> list[Span]:
    """Spans edited by the reviewer, as gold spans (human spans keep their source)."""
    out = []
    for s in spans:
        src = s.source if s.source.startswith("human:") else f"human:{reviewer}"
        out.append(s.with_(doc_id=str(doc_id), layer=GOLD, source=src, score=1.0))
    return sorted(out, key=lambda s: (s.start, s.end, s.label))


# --------------------------------------------------------------------------- possible misses

def dismissed_keys(dismissed: Iterable[Any]) -> set[tuple[int, int, str, str]]:
    """Keys of ``store.DismissedMiss`` rows (or spans) for :func:`possible_misses`."""
    return {(int(d.start), int(d.end), d.category, d.type or "") for d in dismissed}


def possible_misses(pre: Iterable[Span], gold: Sequence[Span],
                    dismissed: set[tuple[int, int, str, str]] | Iterable[Any] = ()) -> list[Span]:
    """Suggestions of the ``pre`` layer with no overlapping gold span that were not dismissed,
    sorted by offsets: candidates for "the reviewers missed this"."""
    keys = dismissed if isinstance(dismissed, set) else dismissed_keys(dismissed)
    out = []
    for s in pre:
        if (s.start, s.end, s.category, s.type or "") in keys:
            continue
        if any(g.start < s.end and s.start < g.end for g in gold):
            continue
        out.append(s)
    return sorted(out, key=lambda s: (s.start, s.end, s.label))


def confirm_miss(gold: Sequence[Span], miss: Span, reviewer: str) -> list[Span]:
    """Gold with ``miss`` added as a reviewer's span."""
    added = _gold_span(miss, miss.doc_id, reviewer)
    keys = {(s.start, s.end, s.label) for s in gold}
    out = list(gold) + ([] if (added.start, added.end, added.label) in keys else [added])
    return sorted(out, key=lambda s: (s.start, s.end, s.label))
