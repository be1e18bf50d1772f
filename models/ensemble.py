"""A loaded model version: its members, label list, schema, thresholds; spans out of text.

Members are run on the same word tokens; their per-token label distributions are averaged
(weighted) and decoded with the version's per-type thresholds (see :mod:`models.decode`).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from models.crf import CRFMember, rule_tags
from models.crf_stack import CRFStack, stacks_of
from models.decode import LabelIndex, average, decode, thresholds_array
from models.encoder import EncoderMember
from models.version import ModelVersionInfo
from models.words import Words, tokenize
from pipeline.schemas import LabelSchema
from pipeline.spans import Span

MEMBER_KINDS = {"crf": CRFMember, "encoder": EncoderMember}


def load_member(directory: str | Path):
    meta = json.loads((Path(directory) / "member.json").read_text(encoding="utf-8"))
    kind = meta.get("kind")
    if kind not in MEMBER_KINDS:
        raise ValueError(f"{directory}: unknown member kind {kind!r}")
    return MEMBER_KINDS[kind].load(directory)


class Ensemble:
    def __init__(self, info: ModelVersionInfo, schema: LabelSchema, members: dict[str, object]):
        self.info = info
        self.schema = schema
        self.members = members
        self.index = LabelIndex.of(info.labels)
        self.source = f"model:{info.name}"

    @classmethod
    def load(cls, path: str | Path, members: list[str] | None = None) -> "Ensemble":
        """Load a version directory; ``members`` restricts to a subset (ablation)."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        p = Path(path)
        info = ModelVersionInfo.from_dir(p)
        schema = LabelSchema.from_json((p / "schema.json").read_text(encoding="utf-8"))
        names = info.members if members is None else [m for m in info.members if m in members]
        if members is not None and len(names) != len(set(members)):
            unknown = sorted(set(members) - set(info.members))
            raise ValueError(f"model {info.name} has no member(s) {', '.join(unknown)}")
        loaded = {n: load_member(p / "members" / n) for n in names}
        return cls(info, schema, loaded)

    @property
    def locale(self) -> str:
        return self.info.locale

    def member_probs(self, items: list[tuple[str, Words]]) -> dict[str, list[np.ndarray]]:
        return {n: m.predict_proba(items) for n, m in self.members.items()}

    @property
    def active_members(self) -> list[str]:
        """Members whose weight is above zero (a member tuned to weight 0 is not run)."""
        act = [n for n in self.members if float(self.info.weights.get(n, 1.0)) > 0]
        return act or list(self.members)

    def combined_probs(self, items: list[tuple[str, Words]],
                       rule_hits: list[dict] | None = None) -> list[np.ndarray]:
        """The active members' probabilities, averaged with their weights, per document.

        CRF members that share their base features are scored together (:class:`CRFStack`: one
        feature extraction, one lookup per feature). ``rule_hits``: per document the rule
        pack's hits (:func:`pipeline.detection.rules.pack_hits`) when the caller has them, so
        the rule-hit features need no second run of the rules."""
        names = self.active_members
        per: dict[str, list[np.ndarray]] = {}
        for stack in self._stacks(tuple(names)):
            tags = None
            if stack.rule_features and rule_hits is not None:
                tags = [rule_tags(t, w, self.locale, hits=h) for (t, w), h in zip(items, rule_hits)]
            per.update(stack.predict_proba(items, rule_tags=tags))
        for n in names:
            if n not in per:
                per[n] = self.members[n].predict_proba(items)
        w = [float(self.info.weights.get(n, 1.0)) or 1.0 for n in names]
        return [average([per[n][k] for n in names], w) for k in range(len(items))]

    def _stacks(self, names: tuple[str, ...]) -> list[CRFStack]:
        cache = self.__dict__.setdefault("_stack_cache", {})
        if names not in cache:
            cache[names] = stacks_of({n: self.members[n] for n in names})
        return cache[names]

    @property
    def uses_rule_hits(self) -> bool:
        """Whether an active member reads rule hits (then :meth:`predict` can take them)."""
        return any(isinstance(self.members[n], CRFMember) and self.members[n].config.rule_features
                   for n in self.active_members)

    def predict(self, texts: list[str], doc_ids: list[str], *, use_thresholds: bool = True,
                rule_hits: list[dict] | None = None) -> list[list[Span]]:
        items = [(t, tokenize(t)) for t in texts]
        probs = self.combined_probs(items, rule_hits=rule_hits)
        thr = thresholds_array(self.index, self.info.thresholds if use_thresholds else None)
        out = []
        for (text, words), p, doc_id in zip(items, probs, doc_ids):
            spans = []
            for s, e, t, sc in decode(p, words, self.index, thr):
                spans.append(Span(doc_id, s, e, self.schema.category_of(t), t, self.source, round(float(sc), 4)))
            out.append(spans)
        return out
