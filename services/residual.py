"""What a passed leak check does and does not say, in words, for the De-identify page.

The leak check (:mod:`pipeline.deid.leaks`) compares the output with the *input spans*: it can
only find PHI that was detected or annotated. So a run's "no leak" says "no detected PHI
remains"; what detection missed is estimated from the model's recall measured on this
project's gold dev notes (stored with the model version by training: character recall and
document recall, :mod:`pipeline.metrics.characters`). Spans from gold are people's work: their
completeness is not measured, and the page says so instead of a number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from sqlite_utils import Database

import store
from pipeline.layers import DETECTED


@dataclass(frozen=True)
class ResidualEstimate:
    """Detection's measured recall and what may remain in a run's detected documents."""

    detected_docs: int                  # documents whose spans were detected
    annotated_docs: int                 # documents whose spans came from a layer people made
    model: str | None                   # the model version the figures come from
    char_recall: float | None           # PHI characters found, on the project's gold dev notes
    document_recall: float | None       # dev notes with all their PHI found
    dev_documents: int | None
    no_model_reason: str = ""           # why no figure applies to this run's detector

    @property
    def may_hold_phi(self) -> int | None:
        """Detected documents expected to hold some missed PHI (rounded up), or None unmeasured."""
        if self.document_recall is None:
            return None
        return math.ceil(self.detected_docs * (1.0 - self.document_recall) - 1e-9)

    def check_words(self) -> str:
        """What the check verified, without overclaiming."""
        said = "Leak check: no detected or annotated PHI remains in the output (text, metadata, ids or file names)"
        if self.detected_docs and self.char_recall is not None:
            return f"{said}; detection recall on this project's gold is {self.char_recall:.1%} of PHI characters."
        if self.detected_docs:
            return (f"{said}; detection recall on this project's gold is not measured"
                    f" ({self.no_model_reason or 'no trained model figures'}).")
        return f"{said}. It can only see the spans it was given."

    def estimate_words(self) -> str:
        """What may remain, from the model's document recall on gold."""
        parts = []
        if self.detected_docs:
            n = self.may_hold_phi
            if n is None:
                parts.append(f"{self.detected_docs} document(s) had detected spans; what the detector missed is not "
                             "estimated: detect with a trained model, measured on gold, to estimate it")
            else:
                parts.append(f"May remain: {self.model or 'the model'} found all PHI in "
                             f"{self.document_recall:.0%} of {self.dev_documents or '?'} gold dev notes with PHI, so about "
                             f"{n} of the {self.detected_docs} detected document(s) may still hold PHI it missed; "
                             "triage them on the Risk page")
        if self.annotated_docs:
            parts.append(f"{self.annotated_docs} document(s) used people's spans: anything their annotators missed "
                         "is not counted")
        if not parts:
            parts.append("The spans came with the documents: PHI they did not mark is not counted")
        return "; ".join(parts) + "."


def residual_estimate(db: Database, project_id: int, counts: dict, *, model_version: str | None = None
                      ) -> ResidualEstimate:
    """The estimate for a run's (or an upload's) ``counts["inputs"]``, from the run's model
    version when it names one of the project's, else the active model."""
    inputs = dict(counts.get("inputs") or {})
    detector = str(counts.get("detector") or "")
    detected = int(inputs.get(DETECTED, 0))
    annotated = sum(int(v) for k, v in inputs.items() if k != DETECTED)
    mv = None
    if model_version:
        mv = next((v for v in store.list_model_versions(db, project_id) if v.name == model_version), None)
    mv = mv or store.active_model(db, project_id)
    if detected and detector and not set(detector.split("+")) - {"rules", "dictionaries", ""}:
        # the run's spans came from rules and dictionaries alone: a model's figures say nothing of them
        return ResidualEstimate(detected_docs=detected, annotated_docs=annotated, model=None, char_recall=None,
                                document_recall=None, dev_documents=None,
                                no_model_reason="this run's detector was rules and dictionaries, not a trained model")
    m = (mv.metrics or {}) if mv is not None else {}
    chars = ((m.get("characters") or {}).get("micro") or {})
    char_recall = chars.get("recall")
    doc_recall = m.get("document_recall")
    dev = m.get("documents_with_phi") or (m.get("evaluated_on") or {}).get("documents")
    return ResidualEstimate(detected_docs=detected, annotated_docs=annotated, model=mv.name if mv else None,
                            char_recall=float(char_recall) if char_recall is not None else None,
                            document_recall=float(doc_recall) if doc_recall is not None else None,
                            dev_documents=int(dev) if dev is not None else None)
