"""CRF members scored together: features extracted once, each feature looked up once.

An ensemble's CRF members differ in regularisation (``crf``, ``crf-l1``) or add rule-hit features
on top of the same base features (``crf-rules``). Scored one by one, each member extracted its
features and looked every feature string up in its own attribute table: three members, three
dictionary lookups per feature, the largest cost of detection. A :class:`CRFStack` holds the
members that share one base (:attr:`models.crf.CRFMember.base_feature_key`), one vocabulary that
is the union of their attribute tables, and one sparse weight matrix with the members' label
columns side by side. Per document the base features (plus the rule-hit features, when a member
uses them) are computed once, as the vocabulary rows the strings would be looked up to
(:class:`models.crf_index.FeatureIndex` gathers them from per-form tables without building the
strings), and one sparse product gives all members' emissions.

Given the same feature lists (the index's rows are those of the strings, in their order), the
emissions are bit-for-bit those of
:meth:`models.crf.CRFMember.emissions`: a member's columns receive exactly the weights of the
features it knows, added in the order of the token's feature list, in the same float32
arithmetic; a member never sees the rule-hit features it was not trained with (its rows for them
are empty). A rule member scored alone lists its features in another order, so its sums differ
by float rounding only (below 1e-6; tests/test_detection_speedups.py; on MEDDOCAN dev the
detected spans are identical).
"""
from __future__ import annotations

from dataclasses import replace
from itertools import chain, repeat
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from models.crf import CRFMember, feature_tags
from models.crf_marginals import marginals_all
from models.crf import rule_tags as crf_rule_tags
from models.crf_index import FeatureIndex
from models.words import Words


class CRFStack:
    """CRF members with one base feature key, scored in one pass (see the module docstring)."""

    def __init__(self, members: Sequence[CRFMember]):
        if not members:
            raise ValueError("a CRF stack needs at least one member")
        keys = {m.base_feature_key for m in members}
        if len(keys) != 1:
            raise ValueError("the members of a CRF stack must share their base features")
        self.members = list(members)
        self.names = [m.name for m in self.members]
        self.rule_features = any(m.config.rule_features for m in self.members)
        self._lead = next((m for m in self.members if m.config.rule_features), self.members[0])
        self._base_config = replace(self._lead.config, rule_features=False)   # what every member shares
        vocab: dict[str, int] = {}
        for m in self.members:
            for a in m.attrs:
                if a not in vocab:
                    vocab[a] = len(vocab)
        self.vocab = vocab
        blocks = []
        self.widths: list[int] = []
        for m in self.members:
            order = np.empty(len(m.attrs), dtype=np.int64)      # member row -> union row
            for a, r in m.attrs.items():
                order[r] = vocab[a]
            coo = m.state.tocoo()
            blocks.append(sp.csr_matrix((coo.data.astype(np.float32), (order[coo.row], coo.col)),
                                        shape=(len(vocab), m.state.shape[1])))
            self.widths.append(m.state.shape[1])
        self.weights = sp.hstack(blocks, format="csr") if len(blocks) > 1 else blocks[0]
        self.weights.sort_indices()
        self._index: FeatureIndex | None = None

    def features(self, text: str, words: Words, rule_tags: list[set[str]] | None = None) -> list[list[str]]:
        """The base features of ``words``, plus the rule-hit features when a member uses them
        (``rule_tags``: the tokens' rule tags, computed here when not given)."""
        base = self._lead.base_features(text, words)
        if not self.rule_features:
            return base
        return [b + r for b, r in zip(base, self._lead.rule_features(text, words, tags=rule_tags))]

    def feature_ids(self, feats: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
        """``(indices, indptr)``: per token the vocabulary rows of its known feature strings,
        in their order (what :meth:`document_ids` computes without the strings)."""
        n = len(feats)
        flat = list(map(self.vocab.get, chain.from_iterable(feats), repeat(-1)))
        ids = np.asarray(flat, dtype=np.int64)
        lens = np.fromiter(map(len, feats), dtype=np.int64, count=n)
        known = ids >= 0
        indptr = np.zeros(n + 1, dtype=np.int64)
        if n:
            # per token, how many of its features are known: where the kept ids end
            tok = np.repeat(np.arange(n), lens)
            np.cumsum(np.bincount(tok[known], minlength=n), out=indptr[1:])
        return ids[known], indptr

    def document_ids(self, text: str, words: Words, rule_tags: list[set[str]] | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`feature_ids` of :meth:`features`, gathered from per-form tables
        (:class:`models.crf_index.FeatureIndex`) instead of built as strings: the same ids in
        the same order, in a fraction of the time."""
        lead, base_config = self._lead, self._base_config
        if self._index is None:
            self._index = FeatureIndex(self.vocab, base_config.extended, base_config.line_context, lead.clusters,
                                       base_config.caseless)
        tags = [feature_tags(text, words, base_config, lead.gazetteer)]
        if self.rule_features:
            tags.append(rule_tags if rule_tags is not None else crf_rule_tags(text, words, lead.config.locale))
        return self._index.ids(text, words, tags)

    def emissions(self, feats: list[list[str]]) -> list[np.ndarray]:
        """Per member (in :attr:`names` order) the ``(n_tokens, n_labels)`` emission scores."""
        return self.emissions_of_ids(*self.feature_ids(feats))

    def emissions_of_ids(self, ids: np.ndarray, indptr: np.ndarray) -> list[np.ndarray]:
        """:meth:`emissions` from the tokens' feature rows (:meth:`feature_ids`)."""
        n = len(indptr) - 1
        x = sp.csr_matrix((np.ones(len(ids), dtype=np.float32), ids, indptr), shape=(n, len(self.vocab)))
        em_all = (x @ self.weights).toarray()
        out = []
        col = 0
        for m, w in zip(self.members, self.widths):
            em = em_all[:, col:col + w].astype(np.float64)
            col += w
            if m._unseen:
                em[:, m._unseen] = -1e4
            out.append(em)
        return out

    def predict_proba(self, items: list[tuple[str, Words]], rule_tags: list[list[set[str]]] | None = None,
                      batch_size: int = 32) -> dict[str, list[np.ndarray]]:
        """Marginals per member name, per document (as :meth:`CRFMember.predict_proba`)."""
        per: dict[str, list[np.ndarray]] = {n: [] for n in self.names}
        ems: list[list[np.ndarray]] = [[] for _ in self.members]
        for k, (text, words) in enumerate(items):
            tags = rule_tags[k] if rule_tags is not None else None
            for j, em in enumerate(self.emissions_of_ids(*self.document_ids(text, words, tags))):
                ems[j].append(em)
        # the forward-backward recursions of members with the same labels run together (one
        # Python loop for all; a hierarchical version's category member has labels of its own)
        groups: dict[int, list[int]] = {}
        for j, m in enumerate(self.members):
            groups.setdefault(m.trans.shape[0], []).append(j)
        for idx in groups.values():
            got = marginals_all([self.members[j].trans for j in idx], [ems[j] for j in idx], batch_size)
            for j, probs in zip(idx, got):
                per[self.members[j].name] = probs
        return per


def stacks_of(members: dict[str, object]) -> list[CRFStack]:
    """The CRF members of ``members`` grouped into stacks by base feature key (input order kept)."""
    groups: dict[str, list[CRFMember]] = {}
    for m in members.values():
        if isinstance(m, CRFMember):
            groups.setdefault(m.base_feature_key, []).append(m)
    return [CRFStack(g) for g in groups.values()]
