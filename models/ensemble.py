"""A loaded model version: its members, label list, schema, thresholds; spans out of text.

Members are run on the same word tokens; their per-token label distributions are averaged
(weighted) and decoded with the version's per-type thresholds (see :mod:`models.decode`).

Two refinements from the seed papers, both stored in the version and off unless trained so:

* **MASK-style member choice** (``info.category_members``): per category, only the listed members
  vote for that category's B/I columns (their weights renormalised over the list); ``O`` and
  unlisted categories use every member. Each token's row is then renormalised to sum to 1. It is
  an average over the chosen members, not a union (max): the per-type thresholds, tuned on the
  same combination, are what buys recall, and an average keeps them meaningful.
* **Hierarchical mode** (``info.mode == "hierarchical"``, the German pipeline's superclass/subclass
  design): a category member (``info.category_member``, a CRF over coarse-category BIO labels)
  predicts category spans, the type members predict type spans as in the flat mode, and
  :func:`pipeline.detection.hierarchy.combine_hierarchical` joins them (disagreements become the
  OTHER category with an uncertain type and :data:`~pipeline.detection.hierarchy.UNCERTAIN_SCORE`).
  ``Ensemble.load(..., mode="flat")`` or :meth:`Ensemble.set_mode` forces the flat ensemble of
  the same members (the ablation); the category member is then never loaded.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from models.crf import CRFMember, rule_tags
from models.crf_stack import CRFStack, stacks_of
from models.decode import LabelIndex, average, decode, thresholds_array
from models.version import ModelVersionInfo
from models.words import Words, tokenize
from pipeline.detection.hierarchy import MODES, combine_hierarchical
from pipeline.schemas import LabelSchema
from pipeline.spans import Span

def _encoder_member():
    from models.encoder import EncoderMember   # imports torch: only when a version has an encoder member
    return EncoderMember


#: member kind -> a function giving its class (imported when a member of that kind is loaded)
MEMBER_KINDS = {"crf": lambda: CRFMember, "encoder": _encoder_member}


def label_vote_weights(names: Sequence[str], weights: Sequence[float], labels: Sequence[str], schema: LabelSchema,
                       category_members: Mapping[str, Sequence[str]] | None) -> np.ndarray | None:
    """Per member and label column, its weight in the MASK-style vote: a member not listed for a
    label's category gets 0 there; ``None`` when no category names members (the plain average).
    A category whose listed members are all absent (an ablation on a subset) keeps every member.

    >>> from pipeline.schemas import MEDDOCAN
    >>> w = label_vote_weights(["crf", "crf-rules"], [1.0, 1.0], ["O", "B-FECHAS", "I-FECHAS"], MEDDOCAN,
    ...                        {"DATE": ["crf-rules"]})
    >>> w.tolist()
    [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    """
    if not category_members:
        return None
    w = np.tile(np.asarray(weights, dtype=np.float64)[:, None], (1, len(labels)))
    for j, lab in enumerate(labels):
        if lab == "O":
            continue
        chosen = category_members.get(schema.category_of(lab[2:]))
        if not chosen or not any(n in chosen for n in names):
            continue
        for k, n in enumerate(names):
            if n not in chosen:
                w[k, j] = 0.0
    return w


def vote(prob_lists: Sequence[np.ndarray], label_weights: np.ndarray) -> np.ndarray:
    """One document's members' ``(n_tokens, n_labels)`` probabilities combined column by column
    with ``label_weights`` (:func:`label_vote_weights`), each row renormalised to sum to 1."""
    out = np.zeros_like(prob_lists[0], dtype=np.float64)
    for p, w in zip(prob_lists, label_weights):
        out += p * w[None, :]
    out /= np.maximum(label_weights.sum(axis=0), 1e-12)[None, :]
    out /= np.maximum(out.sum(axis=1, keepdims=True), 1e-12)
    return out.astype(np.float32)


def combine_members(per: Mapping[str, Sequence[np.ndarray]], names: Sequence[str], weights: Sequence[float],
                    n_docs: int, label_weights: np.ndarray | None = None) -> list[np.ndarray]:
    """Per document the members' probabilities combined: the weighted average, or the
    per-category vote when ``label_weights`` is given. Training and detection share it, so the
    thresholds are tuned on exactly what is decoded."""
    if label_weights is None:
        return [average([per[n][k] for n in names], list(weights)) for k in range(n_docs)]
    return [vote([per[n][k] for n in names], label_weights) for k in range(n_docs)]


def load_member(directory: str | Path):
    meta = json.loads((Path(directory) / "member.json").read_text(encoding="utf-8"))
    kind = meta.get("kind")
    if kind not in MEMBER_KINDS:
        raise ValueError(f"{directory}: unknown member kind {kind!r}")
    return MEMBER_KINDS[kind]().load(directory)


class Ensemble:
    def __init__(self, info: ModelVersionInfo, schema: LabelSchema, members: dict[str, object]):
        self.info = info
        self.schema = schema
        self.members = members
        self.index = LabelIndex.of(info.labels)
        self.source = f"model:{info.name}"
        self.mode = "hierarchical" if info.mode == "hierarchical" and info.category_member else "flat"
        self._category: object | None = None
        #: what the hierarchical join did, summed over every :meth:`predict` (for ablations)
        self.outcomes: Counter = Counter()

    @classmethod
    def load(cls, path: str | Path, members: list[str] | None = None, mode: str | None = None) -> "Ensemble":
        """Load a version directory; ``members`` restricts to a subset (ablation); ``mode``
        ``"flat"`` runs a hierarchical version as the flat ensemble of its type members."""
        p = Path(path)
        info = ModelVersionInfo.from_dir(p)
        schema = LabelSchema.from_json((p / "schema.json").read_text(encoding="utf-8"))
        names = info.members if members is None else [m for m in info.members if m in members]
        if members is not None and len(names) != len(set(members)):
            unknown = sorted(set(members) - set(info.members))
            raise ValueError(f"model {info.name} has no member(s) {', '.join(unknown)}")
        loaded = {n: load_member(p / "members" / n) for n in names}
        ens = cls(info, schema, loaded)
        if mode is not None:
            ens.set_mode(mode)
        return ens

    def set_mode(self, mode: str) -> "Ensemble":
        """Choose ``"flat"`` or ``"hierarchical"`` (only for a version trained hierarchical)."""
        if mode not in MODES:
            raise ValueError(f"unknown ensemble mode {mode!r}; use one of {', '.join(MODES)}")
        if mode == "hierarchical" and not (self.info.mode == "hierarchical" and self.info.category_member):
            raise ValueError(f"model {self.info.name} was trained flat: it has no category member")
        self.mode = mode
        return self

    @property
    def hierarchical(self) -> bool:
        return self.mode == "hierarchical"

    @property
    def category_model(self):
        """The category member, loaded on first use (a version run flat never loads it)."""
        if self._category is None:
            self._category = load_member(Path(self.info.path) / "members" / self.info.category_member)
        return self._category

    @property
    def label_weights(self) -> np.ndarray | None:
        """The MASK-style vote's per-label member weights for the active members (None: plain average)."""
        names = tuple(self.active_members)
        cache = self.__dict__.setdefault("_vote_cache", {})
        if names not in cache:
            w = [float(self.info.weights.get(n, 1.0)) or 1.0 for n in names]
            cache[names] = label_vote_weights(names, w, self.info.labels, self.schema, self.info.category_members)
        return cache[names]

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
        return self._combined(self._probs_of(self.active_members, items, rule_hits), len(items))

    def _combined(self, per: dict[str, list[np.ndarray]], n_docs: int) -> list[np.ndarray]:
        names = self.active_members
        w = [float(self.info.weights.get(n, 1.0)) or 1.0 for n in names]
        return combine_members(per, names, w, n_docs, self.label_weights)

    def _probs_of(self, names: list[str], items: list[tuple[str, Words]],
                  rule_hits: list[dict] | None) -> dict[str, list[np.ndarray]]:
        """Per member name its probabilities; CRF members sharing base features in one stack."""
        per: dict[str, list[np.ndarray]] = {}
        for stack in self._stacks(tuple(names)):
            tags = None
            if stack.rule_features and rule_hits is not None:
                tags = [rule_tags(t, w, self.locale, hits=h) for (t, w), h in zip(items, rule_hits)]
            per.update(stack.predict_proba(items, rule_tags=tags))
        for n in names:
            if n not in per:
                per[n] = self._member(n).predict_proba(items)
        return per

    def _member(self, name: str):
        if name in self.members:
            return self.members[name]
        if self.info.category_member and name == self.info.category_member:
            return self.category_model
        raise KeyError(name)

    def _stacks(self, names: tuple[str, ...]) -> list[CRFStack]:
        cache = self.__dict__.setdefault("_stack_cache", {})
        if names not in cache:
            cache[names] = stacks_of({n: self._member(n) for n in names})
        return cache[names]

    @property
    def uses_rule_hits(self) -> bool:
        """Whether an active member reads rule hits (then :meth:`predict` can take them)."""
        return any(isinstance(self.members[n], CRFMember) and self.members[n].config.rule_features
                   for n in self.active_members)

    def predict(self, texts: list[str], doc_ids: list[str], *, use_thresholds: bool = True,
                rule_hits: list[dict] | None = None) -> list[list[Span]]:
        items = [(t, tokenize(t)) for t in texts]
        if not self.hierarchical:
            probs = self.combined_probs(items, rule_hits=rule_hits)
            return self._decode_types(items, probs, doc_ids, use_thresholds)
        # the category member shares the CRF stack of the type members with its base features
        cat = self.info.category_member
        per = self._probs_of([*self.active_members, cat], items, rule_hits)
        type_spans = self._decode_types(items, self._combined(per, len(items)), doc_ids, use_thresholds)
        cat_index = self.__dict__.setdefault("_cat_index", LabelIndex.of(self.info.category_labels))
        thr = thresholds_array(cat_index, self.info.category_thresholds if use_thresholds else None)
        out = []
        for (text, words), p, doc_id, typed in zip(items, per[cat], doc_ids, type_spans):
            cats = [Span(doc_id, s, e, c, "", self.source, round(float(sc), 4))
                    for s, e, c, sc in decode(p, words, cat_index, thr)]
            r = combine_hierarchical(cats, typed, self.schema, fallback_types=self.info.fallback_types)
            self.outcomes.update(r.counts)
            self.outcomes["flagged"] += len(r.flagged)
            out.append(r.spans)
        return out

    def _decode_types(self, items: list[tuple[str, Words]], probs: list[np.ndarray], doc_ids: list[str],
                      use_thresholds: bool) -> list[list[Span]]:
        thr = thresholds_array(self.index, self.info.thresholds if use_thresholds else None)
        out = []
        for (text, words), p, doc_id in zip(items, probs, doc_ids):
            spans = []
            for s, e, t, sc in decode(p, words, self.index, thr):
                spans.append(Span(doc_id, s, e, self.schema.category_of(t), t, self.source, round(float(sc), 4)))
            out.append(spans)
        return out
