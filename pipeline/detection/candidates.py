"""Rule and dictionary candidates for one document: what detection adds to (or uses instead of)
a trained model.

Separate from :mod:`pipeline.detection.detector` because training needs the same candidates to
learn how they join the model's spans (:func:`pipeline.detection.merge_policy.learn_type_policy`),
and the models package must never import the detector that loads models.

A locale without a rule pack (``de`` today) has no rule candidates rather than an error, and a
locale without shipped lists has no dictionary candidates: detection then rests on the model,
and :class:`~pipeline.detection.detector.Detector` says which parts it has.
"""
from __future__ import annotations

import logging

from pipeline.detection.rules import run_rules
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

log = logging.getLogger(__name__)


def shipped_matcher(locale: str, schema: LabelSchema):
    """The locale's shipped dictionaries as one matcher, or ``None`` when it ships none."""
    from pipeline.detection.dictionaries import DictionaryMatcher

    try:
        return DictionaryMatcher.shipped(locale, schema)
    except KeyError:
        log.info("no shipped dictionaries for locale %s", locale)
        return None


def candidates(doc: Document, schema: LabelSchema, locale: str, *, rules: bool = True,
               matcher=None, hits: dict | None = None) -> list[Span]:
    """Rule spans (when ``rules``) then dictionary spans (when a ``matcher`` is given) for ``doc``;
    they may overlap each other (:func:`pipeline.detection.combine.combine` decides). ``hits``:
    the rule pack's hits on the text (:func:`pipeline.detection.rules.pack_hits`), if computed."""
    out: list[Span] = []
    if rules:
        out.extend(run_rules(doc.text, doc.doc_id, locale, schema, hits=hits))
    if matcher is not None:
        out.extend(matcher.match(doc.text, doc.doc_id))
    return out
