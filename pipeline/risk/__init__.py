"""Re-identification risk of de-identified documents: which could still point to a person, and why.

The colour tells a reviewer where to look (:mod:`.scorer`): **red**, the released note likely
still identifies someone; **amber**, weaker evidence; **green**, neither. A span that was
detected and replaced is not evidence. What is:

1. residual PHI (:mod:`.residual`): text outside every span that a detector reads as PHI below
   its threshold (``DeidDocument.candidates``, given by the caller, who has the model), a rule
   hit detection dropped, text shaped like PHI in any language (e-mail, long number, full
   date, a capitalised word after a person's title), or a word a second opinion trained on the
   project's gold reads as PHI (:mod:`.gold_evidence`: a word classifier of another kind than the
   detector, :mod:`.gold_classifier`, and a memory of how often annotators mark each word,
   :mod:`.gold_memory`);
2. what the profile kept (:mod:`.signals`): a direct identifier kept as written; kept facts
   (age band, city/state, profession, year, sex: :mod:`.quasi`) whose combination fewer than
   ``k`` individuals share;
3. for information only: context uniqueness (DeIDClinic; :mod:`.contexts`, :mod:`.embedders`,
   :mod:`.neighbours`, :mod:`.uniqueness`) and unreviewed low-confidence detections.

Every reason carries its level and a message in words (offsets and kinds, never the text).
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
from pipeline.risk.types import (AMBER, COLOURS, GREEN, INFO, RED, DeidDocument, DeidSpan, Reason, RiskConfig,
                                 RiskReport, colour_for, colour_of)
from pipeline.risk.uniqueness import DEFAULT_METHOD, METHODS

__all__ = [
    "AMBER", "COLOURS", "INFO", "colour_of", "Context", "DEFAULT_METHOD", "DeidDocument", "DeidSpan", "Embedder", "Embedding", "GREEN",
    "LexicalEmbedder", "METHODS", "QuasiIdentifiers", "RED", "Reason", "RiskConfig", "RiskReport", "RiskScorer",
    "SIGNALS", "SentenceEncoderEmbedder", "ann_best_other", "best_other_similarity", "build_embedder",
    "colour_for", "derive", "exact_best_other", "extract_contexts", "from_document", "k_counts", "rescore",
    "score_run", "to_rows", "triage_order",
]
