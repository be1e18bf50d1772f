"""Full detection: the model ensemble, rule recognizers and dictionaries, combined.

``Detector.load(model_dir).detect(doc)`` gives the machine suggestions for one document;
``detect_many`` batches the encoders' windows over many documents (much faster). Each part can
be switched off (``rules=False``, ``dictionaries=False``, ``model=False`` through
:meth:`Detector.without_model`, or a subset of ensemble members) for ablations.

How the parts meet (``policy``):

* ``"model-first"`` (default): the model's spans are kept exactly as decoded (their boundaries are
  what the model was trained and tuned to produce); rule and dictionary spans that overlap no
  model span are added, after :func:`pipeline.combine.combine` has resolved them among
  themselves. Rules and dictionaries thus add recall where the model is silent and never move a
  model boundary.
* ``"union"``: every candidate goes through :func:`pipeline.combine.combine` together (overlaps
  within a category merge, boundaries are cleaned, conflicts resolved by score and source).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from pipeline.schemas import LabelSchema, get_schema
from pipeline.spans import Document, Span

log = logging.getLogger(__name__)

POLICIES = ("model-first", "union")
LOCALE_OF_SCHEMA = {"meddocan": "es", "i2b2-2014": "en"}


@dataclass
class Detector:
    """Detection for one project: schema, locale, and the switchable parts."""

    schema: LabelSchema
    locale: str
    ensemble: object | None = None          # models.ensemble.Ensemble
    rules: bool = True
    dictionaries: bool = True
    policy: str = "model-first"
    use_thresholds: bool = True
    matcher: object | None = field(default=None, repr=False)   # pipeline.dictionaries.DictionaryMatcher
    layer: str = "pre"

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy {self.policy!r}; use one of {', '.join(POLICIES)}")
        if self.dictionaries and self.matcher is None:
            self.matcher = _shipped_matcher(self.locale, self.schema)
            if self.matcher is None:
                self.dictionaries = False

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, model_dir: str | Path, *, members: Sequence[str] | None = None, rules: bool = True,
             dictionaries: bool = True, policy: str = "model-first", use_thresholds: bool = True,
             matcher: object | None = None) -> "Detector":
        """The version at (or active in) ``model_dir`` plus the locale's rules and dictionaries."""
        from models.registry import load_version

        ens = load_version(model_dir, members=list(members) if members is not None else None)
        return cls(schema=ens.schema, locale=ens.locale, ensemble=ens, rules=rules, dictionaries=dictionaries,
                   policy=policy, use_thresholds=use_thresholds, matcher=matcher)

    @classmethod
    def without_model(cls, schema: LabelSchema | str, locale: str | None = None, *, rules: bool = True,
                      dictionaries: bool = True, matcher: object | None = None) -> "Detector":
        """Rules and/or dictionaries alone (no trained model yet, or an ablation)."""
        sch = get_schema(schema) if isinstance(schema, str) else schema
        loc = locale or LOCALE_OF_SCHEMA.get(sch.name, "en")
        return cls(schema=sch, locale=loc, ensemble=None, rules=rules, dictionaries=dictionaries, matcher=matcher)

    @property
    def parts(self) -> list[str]:
        out = []
        if self.ensemble is not None:
            out.append("model:" + "+".join(self.ensemble.active_members))
        if self.rules:
            out.append("rules")
        if self.dictionaries:
            out.append("dictionaries")
        return out

    # ---------------------------------------------------------------- detection
    def detect(self, doc: Document) -> list[Span]:
        return self.detect_many([doc])[0]

    def detect_many(self, docs: Sequence[Document], batch_docs: int = 32) -> list[list[Span]]:
        """Spans per document, in input order; each list sorted and non-overlapping."""
        out: list[list[Span]] = []
        for i in range(0, len(docs), batch_docs):
            chunk = list(docs[i:i + batch_docs])
            model_spans: list[list[Span]] = [[] for _ in chunk]
            if self.ensemble is not None:
                model_spans = self.ensemble.predict([d.text for d in chunk], [d.doc_id for d in chunk],
                                                    use_thresholds=self.use_thresholds)
            for d, ms in zip(chunk, model_spans):
                out.append(self._combine(d, ms))
        return out

    def other_candidates(self, doc: Document) -> list[Span]:
        """Rule and dictionary spans for ``doc`` (may overlap)."""
        cands: list[Span] = []
        if self.rules:
            from pipeline.rules import run_rules

            cands.extend(run_rules(doc.text, doc.doc_id, self.locale, self.schema))
        if self.dictionaries and self.matcher is not None:
            cands.extend(self.matcher.match(doc.text, doc.doc_id))
        return cands

    @property
    def type_policy(self) -> dict[str, str]:
        if self.ensemble is None:
            return {}
        return dict(getattr(self.ensemble.info, "type_policy", {}) or {})

    def _combine(self, doc: Document, model_spans: list[Span]) -> list[Span]:
        from pipeline.combine import combine

        others = self.other_candidates(doc)
        if self.policy == "union":
            kept, _ = combine(model_spans + others, doc.text) if (model_spans or others) else ([], [])
        else:
            rest: list[Span] = []
            if others:
                rest, _ = combine(others, doc.text)
            kept = merge_model_first(model_spans, rest, self.type_policy)
        return [s.with_(doc_id=doc.doc_id, layer=self.layer) for s in kept]


TYPE_POLICIES = ("model+rules", "model", "rules-first")


def merge_model_first(model_spans: list[Span], others: list[Span], type_policy: dict[str, str]) -> list[Span]:
    """Model spans plus rule/dictionary spans, per the type of each rule/dictionary span:

    * ``model+rules`` (default): added where no model span overlaps; where the model's spans
      it overlaps all have its type and lie inside it, it replaces them (the rule saw the whole
      "diciembre-08" where the model stopped at "diciembre");
    * ``model``: never added (the model alone decides this type);
    * ``rules-first``: added, and the model spans it overlaps are dropped (the rules know this
      type's boundaries better, e.g. ages "52 años" or phone numbers).

    ``others`` must not overlap each other (pass them through :func:`pipeline.combine.combine`).
    """
    first = [o for o in others if type_policy.get(o.label) == "rules-first"]
    kept_model = [m for m in model_spans if not any(o.start < m.end and m.start < o.end for o in first)]
    out = kept_model + first
    for o in others:
        pol = type_policy.get(o.label, "model+rules")
        if pol != "model+rules":
            continue
        hit = [m for m in out if o.start < m.end and m.start < o.end]
        if not hit:
            out.append(o)
        elif all(m.label == o.label and o.start <= m.start and m.end <= o.end for m in hit) \
                and any((m.start, m.end) != (o.start, o.end) for m in hit):
            out = [m for m in out if m not in hit] + [o]
    return sorted(out, key=lambda s: (s.start, s.end))


def learn_type_policy(docs: Sequence[Document], model_spans: Sequence[list[Span]], schema: LabelSchema,
                      locale: str, *, min_gain: int = 1) -> dict[str, str]:
    """Per fine type, the way of merging rule/dictionary spans into the model's that gives the
    best strict F1 on ``docs`` (a dev split with gold spans), one type at a time, most frequent
    first. A type moves off the default (``model+rules``) only when that gains at least
    ``min_gain`` in (correct - spurious) spans, so noise on a small dev set does not decide."""
    from pipeline.combine import combine

    base = Detector.without_model(schema, locale)
    others = []
    for d in docs:
        cands = base.other_candidates(d)
        others.append(combine(cands, d.text)[0] if cands else [])
    gold = [{(s.start, s.end, s.label) for s in d.spans} for d in docs]

    def net(policy: dict[str, str]) -> int:
        tp = fp = 0
        for g, ms, os_ in zip(gold, model_spans, others):
            pred = {(s.start, s.end, s.label) for s in merge_model_first(ms, os_, policy)}
            tp += len(pred & g)
            fp += len(pred - g)
        return tp - fp  # near the operating point (TP ~ gold >> FP) F1 moves with TP - FP

    support: dict[str, int] = {}
    for g in gold:
        for _, _, t in g:
            support[t] = support.get(t, 0) + 1
    types = {o.label for os_ in others for o in os_}
    policy: dict[str, str] = {}
    current = net(policy)
    for t in sorted(types, key=lambda t: (-support.get(t, 0), t)):
        best_pol, best = "model+rules", current
        for pol in ("model", "rules-first"):
            trial = {**policy, t: pol}
            v = net(trial)
            if v >= best + min_gain:
                best_pol, best = pol, v
        if best_pol != "model+rules":
            policy[t] = best_pol
            current = best
    return policy


def _shipped_matcher(locale: str, schema: LabelSchema):
    try:
        from pipeline.dictionaries import DictionaryMatcher
    except ImportError:  # pragma: no cover - dictionaries module absent
        return None
    try:
        return DictionaryMatcher.shipped(locale, schema)
    except KeyError:
        log.info("no shipped dictionaries for locale %s", locale)
        return None
