"""Full detection: the model ensemble, rule recognizers and dictionaries, combined.

``Detector.load(model_dir).detect(doc)`` gives the machine suggestions for one document;
``detect_many`` batches the encoders' windows over many documents (much faster). Each part can
be switched off (``rules=False``, ``dictionaries=False``, ``model=False`` through
:meth:`Detector.without_model`, or a subset of ensemble members) for ablations.

How the parts meet (``policy``):

* ``"model-first"`` (default): the model's spans are kept as decoded (their boundaries are what
  the model was trained and tuned to produce), less the edges gold sets leave out (a leading
  title, a place's full stop, an age's "de edad", a label glued to a name, a trailing function
  word); rule and dictionary
  spans that overlap no model span are added, after :func:`pipeline.detection.combine.combine`
  has resolved them among themselves. Rules and dictionaries add recall where the model is
  silent; they move a model boundary only where the model ran two entities together and a rule
  or list shows where one ends: a contact line or header field (format rules), a town after an
  organisation (place lists), a first name after a relative (first-name list), a street's
  opening word after an organisation or a name; an acronym in brackets after an organisation
  is added. Each is a boundary step (:mod:`pipeline.detection.steps`) with its measurement
  beside it; the locale's pack (:func:`pipeline.detection.steps.registry.pack_for`) says which
  run, in which order, with which words, and the schema which types are organisations, streets
  and relatives.
* ``"union"``: every candidate goes through :func:`pipeline.detection.combine.combine` together
  (overlaps within a category merge, boundaries are cleaned, conflicts resolved by score and source).

The detector is the one place that loads trained models (:mod:`models.registry`); everything
else in :mod:`pipeline.detection` is model-free, so :mod:`models` can use it while training.
A locale without a rule pack or shipped lists simply lacks that part (see :attr:`Detector.parts`).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from models.registry import load_version
from pipeline.detection.candidates import candidates, shipped_matcher
from pipeline.detection.combine import CombinePolicy, combine
from pipeline.detection.conventions import apply_convention, get_convention
from pipeline.detection.rules import has_pack, pack_hits
from pipeline.detection.source_policy import source_key
from pipeline.detection.step_policy import combine_model_first, sparable
from pipeline.detection.steps.registry import LocalePack, StepContext, pack_for
from pipeline.layers import PRE
from pipeline.schemas import LabelSchema, default_locale, get_schema
from pipeline.spans import Document, Span

log = logging.getLogger(__name__)

POLICIES = ("model-first", "union")


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
    matcher: object | None = field(default=None, repr=False)   # pipeline.detection.dictionaries.DictionaryMatcher
    layer: str = PRE
    # the identifiers it suggests (pipeline.detection.conventions); None: the model's, else "all"
    convention: str | None = None

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy {self.policy!r}; use one of {', '.join(POLICIES)}")
        if self.convention is None:
            info = getattr(self.ensemble, "info", None)
            self.convention = getattr(info, "convention", None) or "all"
        get_convention(self.convention)
        if self.rules and not has_pack(self.locale):
            self.rules = False
        if self.dictionaries and self.matcher is None:
            self.matcher = shipped_matcher(self.locale, self.schema)
            if self.matcher is None:
                self.dictionaries = False

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, model_dir: str | Path, *, members: Sequence[str] | None = None, rules: bool = True,
             dictionaries: bool = True, policy: str = "model-first", use_thresholds: bool = True,
             matcher: object | None = None, mode: str | None = None,
             convention: str | None = None) -> "Detector":
        """The version at (or active in) ``model_dir`` plus the locale's rules and dictionaries.
        ``mode``: ``"flat"`` runs a hierarchical version as the flat ensemble of its type members
        (the ablation); ``None`` runs it as trained. ``convention``: which identifiers it suggests
        (:mod:`pipeline.detection.conventions`); ``None``: the one recorded with the version."""
        ens = load_version(model_dir, members=list(members) if members is not None else None)
        if mode is not None:
            ens.set_mode(mode)
        return cls(schema=ens.schema, locale=ens.locale, ensemble=ens, rules=rules, dictionaries=dictionaries,
                   policy=policy, use_thresholds=use_thresholds, matcher=matcher, convention=convention)

    @classmethod
    def without_model(cls, schema: LabelSchema | str, locale: str | None = None, *, rules: bool = True,
                      dictionaries: bool = True, matcher: object | None = None,
                      convention: str | None = None) -> "Detector":
        """Rules and/or dictionaries alone (no trained model yet, or an ablation)."""
        sch = get_schema(schema) if isinstance(schema, str) else schema
        loc = locale or default_locale(sch)
        return cls(schema=sch, locale=loc, ensemble=None, rules=rules, dictionaries=dictionaries, matcher=matcher,
                   convention=convention)

    @property
    def parts(self) -> list[str]:
        out = []
        if self.ensemble is not None:
            part = "model:" + "+".join(self.ensemble.active_members)
            if getattr(self.ensemble, "hierarchical", False):
                part += f" under {self.ensemble.info.category_member} (hierarchical)"
            out.append(part)
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
            out.extend(self._detect_chunk(list(docs[i:i + batch_docs])))
        return out

    def _detect_chunk(self, chunk: list[Document]) -> list[list[Span]]:
        # detection reads the pack's view of each note (same length: the spans' offsets are the note's)
        chunk = [self._viewed(d) for d in chunk]
        # the rules run once per document: their hits are both rule spans and (for a member with
        # rule-hit features) model features
        want_hits = self.rules or (self.ensemble is not None and self.ensemble.uses_rule_hits)
        hits = [pack_hits(d.text, self.locale) for d in chunk] if want_hits and has_pack(self.locale) else None
        model_spans: list[list[Span]] = [[] for _ in chunk]
        if self.ensemble is not None:
            model_spans = self.ensemble.predict([self._model_view(d.text) for d in chunk],
                                                [d.doc_id for d in chunk],
                                                use_thresholds=self.use_thresholds, rule_hits=hits)
        return [self._combine(d, ms, hits[k] if hits is not None else None)
                for k, (d, ms) in enumerate(zip(chunk, model_spans))]

    def text_for_model(self, text: str) -> str:
        """What the model reads for ``text``: the pack's view for detection (English: exported
        characters as plain ones, a hard-wrapped note's wrap breaks as blanks), then its view for models when the version asks
        for it (``case_view``, a cold start's: English truecases lines in one case); the same
        length either way, so the model's offsets are the note's."""
        return self._model_view(self.pack.text_for_detection(text))

    def _viewed(self, doc: Document) -> Document:
        """``doc`` with the text detection reads (the locale pack's view), itself when unchanged."""
        view = self.pack.text_for_detection(doc.text)
        return doc if view == doc.text else replace(doc, text=view)

    def _model_view(self, text: str) -> str:
        if self.ensemble is not None and getattr(self.ensemble.info, "case_view", False):
            return self.pack.text_for_model(text)
        return text

    def other_candidates(self, doc: Document, hits: dict | None = None) -> list[Span]:
        """Rule and dictionary spans for ``doc`` (may overlap), but those of the sources the model
        mutes (:attr:`muted_sources`), read on the pack's view of the note as detection reads it;
        ``hits``: its rule pack hits, if known."""
        return self._other_candidates(self._viewed(doc), hits)

    def _other_candidates(self, doc: Document, hits: dict | None = None) -> list[Span]:
        found = candidates(doc, self.schema, self.locale, rules=self.rules,
                           matcher=self.matcher if self.dictionaries else None, hits=hits)
        muted = self.muted_sources
        return [s for s in found if source_key(s, doc.text) not in muted] if muted else found

    @property
    def pack(self) -> LocalePack:
        """The locale's boundary steps and words (:mod:`pipeline.locales`)."""
        return pack_for(self.locale)

    @property
    def combine_policy(self) -> CombinePolicy:
        """How candidates are resolved among themselves: the defaults, with the locale's titles."""
        return CombinePolicy(words=self.pack.words)

    @property
    def type_policy(self) -> dict[str, str]:
        if self.ensemble is None:
            return {}
        return dict(getattr(self.ensemble.info, "type_policy", {}) or {})

    @property
    def spared_steps(self) -> tuple[str, ...]:
        """The pack's steps the model's own spans are spared from, learned on its dev notes
        (:mod:`pipeline.detection.step_policy`), those the pack lets be spared; none without a model."""
        if self.ensemble is None:
            return ()
        allowed = sparable(self.pack)
        return tuple(n for n in getattr(self.ensemble.info, "spared_steps", ()) or () if n in allowed)

    @property
    def muted_sources(self) -> frozenset[str]:
        """The rule and dictionary sources the model's detector leaves out, learned on its dev notes
        (:mod:`pipeline.detection.source_policy`); none without a model."""
        if self.ensemble is None:
            return frozenset()
        return frozenset(getattr(self.ensemble.info, "muted_sources", ()) or ())

    def _combine(self, doc: Document, model_spans: list[Span], hits: dict | None = None) -> list[Span]:
        others = self._other_candidates(doc, hits)   # doc: already the pack's view
        pack, resolve = self.pack, self.combine_policy
        if self.policy == "union":
            kept, _ = combine(model_spans + others, doc.text, policy=resolve) if (model_spans or others) else ([], [])
        else:
            ctx = StepContext(doc.text, self.schema, pack.words, candidates=others)
            kept = combine_model_first(doc, model_spans, others, pack, ctx, resolve, self.type_policy,
                                       self.spared_steps)
        kept = apply_convention(kept, doc.text, self.convention)
        return [s.with_(doc_id=doc.doc_id, layer=self.layer) for s in kept]

