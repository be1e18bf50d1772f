"""What the project's detector still sees in a released note, outside its spans: the
candidates risk scoring weighs as evidence of PHI left (:mod:`pipeline.risk.residual`).

* :func:`model_candidates`: the model's probability that each word is PHI (one minus the
  probability of "outside", averaged over the active members as detection does), on the
  *released* text; words outside every span whose probability reaches ``floor`` are joined
  into stretches, each with its highest probability and most likely type. Detection keeps a
  word only above its tuned threshold, so these are the near misses.
* :func:`rule_candidates`: rule and word-list hits on the released text that lie outside
  every span: detection saw them and dropped them (or the note's spans came from elsewhere).
* :func:`lexical_words` + :func:`pipeline.risk.lexical.lexical_candidates`: evidence that needs
  no model (a relative's kinship word where the schema has a relatives type, a rare capitalised
  word beside a replaced span, an identifier-shaped token), from the locale's own words.
* the second opinion (:class:`pipeline.risk.gold_evidence.GoldOpinion`, trained on the
  project's gold by :mod:`services.gold_opinion`): words a classifier of another kind, or the
  annotators' own habits, read as PHI.

Both return :class:`pipeline.risk.DeidSpan` with ``action="none"``; nothing here reads or
logs text beyond computing on it.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from models.words import tokenize
from pipeline.detection.detector import Detector
from pipeline.detection.rules import has_pack, pack_hits
from pipeline.locales import load_vocabulary
from pipeline.risk import DeidDocument, DeidSpan
from pipeline.risk.gold_evidence import GoldOpinion
from pipeline.risk.lexical import LexicalConfig, LexicalWords, lexical_candidates
from pipeline.schemas import LabelSchema
from pipeline.spans import Document

DEFAULT_FLOOR = 0.02


def _free(spans: Sequence[DeidSpan], start: int, end: int) -> bool:
    return not any(s.start < end and start < s.end for s in spans)


def model_candidates(detector: Detector, docs: Sequence[DeidDocument], floor: float = DEFAULT_FLOOR
                     ) -> list[list[DeidSpan]]:
    """Per document, stretches of words outside its spans the model reads as PHI (>= ``floor``)."""
    ens = detector.ensemble
    if ens is None or not docs:
        return [[] for _ in docs]
    texts = [detector.text_for_model(d.text) for d in docs]    # what its detection read
    items = [(t, tokenize(t)) for t in texts]
    hits = ([pack_hits(detector.pack.text_for_detection(d.text), detector.locale) for d in docs]
            if ens.uses_rule_hits and has_pack(detector.locale) else None)
    probs = ens.combined_probs(items, rule_hits=hits)
    index, schema = ens.index, ens.schema
    out = []
    for doc, (_, words), p in zip(docs, items, probs):
        out.append(_stretches(doc, words, np.asarray(p, dtype=np.float64), index, schema, floor))
    return out


def _stretches(doc: DeidDocument, words, p: np.ndarray, index, schema, floor: float) -> list[DeidSpan]:
    if not len(words):
        return []
    phi = 1.0 - p[:, 0]
    by_type = p[:, index.b_cols] + p[:, index.i_cols]
    found: list[DeidSpan] = []
    run: list[int] = []

    def close() -> None:
        if run:
            a, b = words.starts[run[0]], words.ends[run[-1]]
            best = max(run, key=lambda j: phi[j])
            typ = index.types[int(np.argmax(by_type[best]))]
            found.append(DeidSpan(a, b, schema.category_of(typ), typ, action="none",
                                  score=round(float(phi[best]), 4), source="model"))
            run.clear()

    for j in range(len(words)):
        if phi[j] >= floor and _free(doc.spans, words.starts[j], words.ends[j]):
            if run and run[-1] != j - 1:
                close()
            run.append(j)
        else:
            close()
    close()
    return found


def rule_candidates(detector: Detector, doc: DeidDocument) -> list[DeidSpan]:
    """Rule and list hits on the released text outside every span of ``doc``."""
    if not (detector.rules or detector.dictionaries):
        return []
    hits = detector.other_candidates(Document(doc.doc_id, doc.text))
    return [DeidSpan(s.start, s.end, s.category, s.type, action="none", score=float(s.score or 1.0), source=s.source)
            for s in hits if _free(doc.spans, s.start, s.end)]


def kinship_words(locale: str) -> str:
    """The locale pack's kinship words as a regex alternation ("" when it has none): Spanish from
    its relatives rule, English from the kinship part of its name-context words."""
    base = locale.split("_")[0].split("-")[0].lower()
    if base == "es":
        from pipeline.detection.rules.es.organizations import KINSHIP_WORDS
        return KINSHIP_WORDS
    if base == "en":
        from pipeline.locales.en.ward_steps import KINSHIP_WORDS
        return KINSHIP_WORDS
    return ""


def lexical_words(schema: LabelSchema, locale: str) -> LexicalWords:
    """What :mod:`pipeline.risk.lexical` needs from the schema and the locale."""
    relatives = schema.types_in_role("relative")
    typ = relatives[0] if relatives else ""
    return LexicalWords(kinship=kinship_words(locale), relative_type=typ,
                        relative_category=schema.category_of(typ) if typ else "NAME",
                        safe=load_vocabulary(locale.split("_")[0]).safe)


def with_candidates(detector: Detector | None, docs: Sequence[DeidDocument], *, rules: bool = True,
                    floor: float = DEFAULT_FLOOR, lexical: LexicalConfig | None = LexicalConfig(),
                    opinion: GoldOpinion | None = None) -> list[DeidDocument]:
    """``docs`` with their candidates set (in place, and returned): the model's near misses, rule
    hits detection dropped, (``lexical``, None: off) lexical evidence and the second opinion
    trained on the project's gold (``opinion``, :mod:`services.gold_opinion`). Neither a
    detector nor an opinion: unchanged."""
    if detector is None and opinion is None:
        return list(docs)
    if detector is not None:
        schema = getattr(detector, "schema", None)
        words = lexical_words(schema, detector.locale) if lexical is not None and schema is not None else None
        for doc, found in zip(docs, model_candidates(detector, docs, floor)):
            doc.candidates = found + (rule_candidates(detector, doc) if rules else [])
            if words is not None:
                doc.candidates += lexical_candidates(doc, words, lexical)
    if opinion is not None:
        for doc in docs:
            doc.candidates = [c for c in doc.candidates if not c.source.startswith("gold:")] + opinion.candidates(doc)
    return list(docs)
