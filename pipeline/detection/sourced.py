"""A project's detector joined with cold-start sources, behind the detector's interface.

Why here and not in ``services/``: joining spans is detection logic with no store in it. The
service (:func:`services.detectors.detector_for`) decides which sources a project may use and
builds a :class:`SourcedDetector`; this module only runs them:

* ``transfer``: another project's model (run without rules or dictionaries) whose spans
  ``mapping`` (:func:`pipeline.schemas.map_schema`) relabels for this project's schema; joined
  with the project's rules and dictionaries model-first, as a project's own model is;
* ``pretrained``: a pretrained member (:mod:`pipeline.detection.pretrained_ner`) whose spans are
  added where nothing else found anything.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from pipeline.detection import pretrained_ner
from pipeline.detection.combine import combine
from pipeline.detection.detector import Detector
from pipeline.detection.merge_policy import merge_model_first
from pipeline.schemas import SchemaMapping
from pipeline.spans import Document, Span


@dataclass
class SourcedDetector:
    """A project's detector plus cold-start sources, with the detector's interface
    (``detect``, ``detect_many``, ``parts``, ``schema``, ``locale``).

    ``base`` gives the project's own spans (its model when ``transfer`` is None, else rules and
    dictionaries only); ``transfer`` is another project's model, run without rules or
    dictionaries, whose spans ``mapping`` relabels; ``pretrained`` names a pretrained member.
    Spans that a mapping drops are counted in ``dropped``.
    """

    base: Detector
    transfer: Detector | None = None
    mapping: SchemaMapping | None = None
    transfer_source: str = ""
    pretrained: str | None = None
    dropped: int = field(default=0)

    @property
    def schema(self):
        return self.base.schema

    @property
    def locale(self) -> str:
        return self.base.locale

    @property
    def layer(self) -> str:
        return self.base.layer

    @property
    def parts(self) -> list[str]:
        out = []
        if self.transfer is not None:
            out.append(self.transfer_source or "model")
        out.extend(self.base.parts)
        if self.pretrained:
            out.append(f"model:{self.pretrained}")
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.detect_many([doc])[0]

    def detect_many(self, docs: Sequence[Document], batch_docs: int = 32) -> list[list[Span]]:
        docs = list(docs)
        if self.transfer is None:
            found = self.base.detect_many(docs, batch_docs=batch_docs)
        else:
            found = self._transferred(docs, batch_docs)
        if self.pretrained:
            extra = pretrained_ner.recognize_many(self.pretrained, [d.text for d in docs], [d.doc_id for d in docs])
            out = []
            for d, spans, more in zip(docs, found, extra):
                more = pretrained_ner.for_schema(more, self.schema)
                rest = combine(more, d.text, policy=self.base.combine_policy)[0] if more else []
                out.append(merge_model_first(spans, rest, {}))
            found = out
        return [[s.with_(doc_id=d.doc_id, layer=self.layer) for s in spans] for d, spans in zip(docs, found)]

    def _transferred(self, docs: list[Document], batch_docs: int) -> list[list[Span]]:
        assert self.transfer is not None and self.mapping is not None
        model_spans = self.transfer.detect_many(docs, batch_docs=batch_docs)
        out = []
        for d, ms in zip(docs, model_spans):
            mapped, dropped = self.mapping.map_spans(ms)
            self.dropped += dropped
            mapped = [s.with_(source=self.transfer_source) for s in mapped] if self.transfer_source else mapped
            cands = self.base.other_candidates(d)
            rest = combine(cands, d.text, policy=self.base.combine_policy)[0] if cands else []
            out.append(merge_model_first(sorted(mapped, key=lambda s: (s.start, s.end)), rest, {}))
        return out
