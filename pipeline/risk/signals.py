"""Risk signals: small functions with one signature, ``(doc, config) -> list[Reason]``; each
reason carries its level (``red``, ``amber`` or ``info``) and the document takes the highest
(see :mod:`pipeline.risk.scorer`).

- ``keep``: a span kept as written. A kept direct identifier (name, id, contact) is red: the
  released note names the person. Other kept values are noted (info); together they may make a
  rare quasi-identifier combination, which the scorer counts across the corpus.
- ``unreviewed_low_confidence``: a detection below ``confidence_threshold`` that no human
  reviewed. It was replaced, so it is noted (info), not a risk by itself: if its edges were
  wrong, the words left beside it are what ``possible_missed_phi`` looks at.
- ``possible_missed_phi`` and ``phi_like_text``: evidence of PHI left outside every span
  (:mod:`pipeline.risk.residual`).

A span that was detected and replaced or redacted is never a reason for red or amber.
"""
from __future__ import annotations

from typing import Callable

from pipeline.risk.residual import candidate_reasons, shape_reasons
from pipeline.risk.types import (INFO, KEEP, PHI_LIKE_TEXT, POSSIBLE_MISSED_PHI, RED, UNREVIEWED_LOW_CONFIDENCE,
                                 DeidDocument, Reason, RiskConfig, category_words)

Signal = Callable[[DeidDocument, RiskConfig], list[Reason]]


def keep_signal(doc: DeidDocument, config: RiskConfig) -> list[Reason]:
    direct = set(config.direct_categories)
    out = []
    for s in doc.spans:
        if s.action != "keep":
            continue
        if s.category in direct:
            msg = (f"{category_words(s.category).capitalize()} ({s.label}) at characters {s.start}-{s.end} was kept "
                   "as written by the profile: the released note still shows it.")
        else:
            msg = (f"{category_words(s.category).capitalize()} ({s.label}) at characters {s.start}-{s.end} was kept "
                   "as written by the profile (counted with the other kept facts).")
        out.append(Reason(KEEP, msg, s.start, s.end, s.category, s.type, level=RED if s.category in direct else INFO,
                          strength=1.0 if s.category in direct else None))
    return out


def low_confidence_signal(doc: DeidDocument, config: RiskConfig) -> list[Reason]:
    t = config.confidence_threshold
    return [Reason(UNREVIEWED_LOW_CONFIDENCE,
                   f"{category_words(s.category).capitalize()} ({s.label}) at characters {s.start}-{s.end} was replaced, "
                   f"but the model was unsure of it ({s.score:.0%}) and no one reviewed it: check its edges.",
                   s.start, s.end, s.category, s.type, level=INFO)
            for s in doc.spans if s.score < t and not s.human and s.action != "keep"]


SIGNALS: dict[str, Signal] = {
    KEEP: keep_signal,
    UNREVIEWED_LOW_CONFIDENCE: low_confidence_signal,
    POSSIBLE_MISSED_PHI: candidate_reasons,
    PHI_LIKE_TEXT: shape_reasons,
}
