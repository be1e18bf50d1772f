"""Detection metrics between a system layer and a reference layer (see :func:`evaluate`).

Pure functions over :class:`~pipeline.spans.Span` lists keyed by document id; no store access.
Submodules: ``counts`` (P/R/F1 and averaging), ``entity`` (strict, relaxed, span-only strict and
merged, as the i2b2 2014 / MEDDOCAN scorer), ``tokens`` (whitespace-token and binary PHI
measures), ``characters`` (PHI versus not per non-blank character, document recall),
``operating`` (threshold sweep), ``confusion`` (category confusion table),
``report`` (all of them at once); and, imported by name, ``agreement`` (between annotators:
F1, kappa, alpha, disagreements), ``throughput`` (documents and spans per hour), ``filters``
and ``summaries`` (what the pages show from stored figures).
"""
from pipeline.metrics.confusion import MISSED, SPURIOUS, ConfusionTable, confusion_table
from pipeline.metrics.counts import Aggregate, Counts, Measure, Scores, macro, total, weighted
from pipeline.metrics.entity import merge_spans, relaxed, span_merged, span_strict, strict
from pipeline.metrics.operating import DEFAULT_TARGETS, OperatingCurve, OperatingPoint, operating_curve
from pipeline.metrics.report import MEASURES, DocumentResult, EvaluationReport, evaluate
from pipeline.metrics.tokens import TokenIndex, TokenLabels, binary_measure, per_1000, token_measure

__all__ = [
    "Aggregate", "ConfusionTable", "Counts", "DEFAULT_TARGETS", "DocumentResult", "EvaluationReport", "MEASURES",
    "MISSED", "Measure", "OperatingCurve", "OperatingPoint", "SPURIOUS", "Scores", "TokenIndex", "TokenLabels",
    "binary_measure", "confusion_table", "evaluate", "macro", "merge_spans", "operating_curve", "per_1000",
    "relaxed", "span_merged", "span_strict", "strict", "token_measure", "total", "weighted",
]
