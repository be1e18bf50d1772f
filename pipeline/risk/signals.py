"""Residual-risk signals: things left in a document that de-identification did not settle.

A registry of small functions with one signature, ``(doc, config) -> list[Reason]``; each
signal that fires raises the document's level by one step (see :mod:`pipeline.risk.scorer`).

- ``keep``: a span whose action is ``keep`` is in the released text as written.
- ``unreviewed_low_confidence``: a detection below ``confidence_threshold`` that no human
  reviewed (it may be a real identifier that was left, or a wrong boundary).
- ``machine_only_direct_identifier``: a NAME/ID/CONTACT found only by a machine in a document
  no human has seen: where a detector found one, a neighbour it missed is the usual leak.
"""
from __future__ import annotations

from typing import Callable

from pipeline.risk.types import (KEEP, MACHINE_ONLY_DIRECT, UNREVIEWED_LOW_CONFIDENCE, DeidDocument,
                                 Reason, RiskConfig)

Signal = Callable[[DeidDocument, RiskConfig], list[Reason]]


def keep_signal(doc: DeidDocument, config: RiskConfig) -> list[Reason]:
    return [Reason(KEEP, f"{s.label} at {s.start}-{s.end} was kept as written", s.start, s.end, s.category, s.type)
            for s in doc.spans if s.action == "keep"]


def low_confidence_signal(doc: DeidDocument, config: RiskConfig) -> list[Reason]:
    t = config.confidence_threshold
    return [Reason(UNREVIEWED_LOW_CONFIDENCE,
                   f"{s.label} at {s.start}-{s.end} has confidence {s.score:.2f} < {t:.2f} and was not reviewed",
                   s.start, s.end, s.category, s.type)
            for s in doc.spans if s.score < t and not s.human]


def machine_only_signal(doc: DeidDocument, config: RiskConfig) -> list[Reason]:
    if doc.human_seen:
        return []
    direct = set(config.direct_categories)
    return [Reason(MACHINE_ONLY_DIRECT,
                   f"direct identifier {s.label} at {s.start}-{s.end} was only machine-detected; "
                   "no human has seen this document", s.start, s.end, s.category, s.type)
            for s in doc.spans if s.category in direct and not s.human]


SIGNALS: dict[str, Signal] = {
    KEEP: keep_signal,
    UNREVIEWED_LOW_CONFIDENCE: low_confidence_signal,
    MACHINE_ONLY_DIRECT: machine_only_signal,
}
