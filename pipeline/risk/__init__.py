"""Re-identification risk of de-identified documents: which could still point to a person, and why.

Three families of evidence, each turned into reasons a reviewer can act on:

1. context uniqueness (DeIDClinic): the words around each entity, embedded and compared with the
   contexts of entities in other documents; a context whose best match elsewhere is below the
   threshold is unique (:mod:`.contexts`, :mod:`.embedders`, :mod:`.neighbours`, :mod:`.uniqueness`);
2. quasi-identifier uniqueness: age band, city/state, profession, year, sex and k (:mod:`.quasi`);
3. residual signals: kept spans, unreviewed low-confidence detections, machine-only direct
   identifiers in unseen documents (:mod:`.signals`).

Entry points: :func:`score_run`, :class:`RiskScorer` (with ``rescore``), :func:`triage_order`,
:func:`to_rows` (for ``store.save_risk_scores``), :func:`from_document`.
"""
from pipeline.risk.contexts import Context, extract_contexts
from pipeline.risk.convert import from_document
from pipeline.risk.embedders import Embedder, Embedding, LexicalEmbedder, SentenceEncoderEmbedder, build_embedder
from pipeline.risk.neighbours import ann_best_other, best_other_similarity, exact_best_other
from pipeline.risk.quasi import QuasiIdentifiers, derive, k_counts
from pipeline.risk.scorer import RiskScorer, rescore, score_run, to_rows, triage_order
from pipeline.risk.signals import SIGNALS
from pipeline.risk.types import (AMBER, COLOURS, GREEN, RED, DeidDocument, DeidSpan, Reason, RiskConfig, RiskReport,
                                 colour_for)
from pipeline.risk.uniqueness import DEFAULT_METHOD, METHODS

__all__ = [
    "AMBER", "COLOURS", "Context", "DEFAULT_METHOD", "DeidDocument", "DeidSpan", "Embedder", "Embedding", "GREEN",
    "LexicalEmbedder", "METHODS", "QuasiIdentifiers", "RED", "Reason", "RiskConfig", "RiskReport", "RiskScorer",
    "SIGNALS", "SentenceEncoderEmbedder", "ann_best_other", "best_other_similarity", "build_embedder",
    "colour_for", "derive", "exact_best_other", "extract_contexts", "from_document", "k_counts", "rescore",
    "score_run", "to_rows", "triage_order",
]
