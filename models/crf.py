"""The CRF member: a linear-chain CRF on rich word features (python-crfsuite for training).

Training uses crfsuite's L-BFGS. For prediction the learned weights are exported to numpy (a
sparse attribute x label matrix and the label transition matrix) and marginals are computed
with a vectorised forward-backward: the ensemble needs full per-token label distributions, and
asking crfsuite for them one (label, position) at a time is far too slow. Loading a saved member
therefore needs only numpy/scipy.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import scipy.sparse as sp

from models.crf_features import Gazetteer, pattern_tags, token_features
from models.words import Words


@dataclass
class CRFConfig:
    c1: float = 0.05
    c2: float = 0.01
    max_iterations: int = 100
    min_freq: int = 1
    gazetteer: bool = True          # locale word lists + built-in word classes as features
    patterns: bool = True           # date/e-mail/URL/phone/year surface patterns as features


class _Stopped(Exception):
    pass


class CRFMember:
    """Holds exported weights: ``attrs`` (feature string -> row), ``state`` (A x L), ``trans`` (L x L)."""

    kind = "crf"

    def __init__(self, name: str, labels: list[str], attrs: dict[str, int], state: sp.csr_matrix,
                 trans: np.ndarray, config: CRFConfig, gazetteer: Gazetteer | None = None):
        self.gazetteer = gazetteer
        self.name = name
        self.labels = list(labels)
        self.attrs = attrs
        self.state = state.tocsr()
        self.trans = trans.astype(np.float64)
        self.config = config

    # ------------------------------------------------------------------ training
    def features(self, text: str, words: Words) -> list[list[str]]:
        return _features(text, words, self.config, self.gazetteer)

    @classmethod
    def train(cls, name: str, items: list[tuple[str, Words]], tags: list[list[str]], labels: list[str],
              config: CRFConfig | None = None, gazetteer: Gazetteer | None = None,
              on_iteration: Callable[[int, float], None] | None = None) -> "CRFMember":
        """Fit on ``(text, words)`` items and their BIO tags. ``on_iteration(i, loss)`` may raise
        to abort; the exception propagates after crfsuite stops."""
        import pycrfsuite

        config = config or CRFConfig()
        if not config.gazetteer:
            gazetteer = None
        holder: dict[str, BaseException] = {}

        class Trainer(pycrfsuite.Trainer):
            def on_iteration(self, log, info):  # noqa: D401 - crfsuite hook
                if on_iteration is None:
                    return
                try:
                    on_iteration(int(info.get("num", 0)), float(info.get("loss", 0.0)))
                except BaseException as e:  # noqa: BLE001 - re-raised after training returns
                    holder["error"] = e
                    raise _Stopped() from None

        trainer = Trainer(verbose=False)
        for (text, words), y in zip(items, tags):
            trainer.append(_features(text, words, config, gazetteer), y)
        trainer.set_params({
            "c1": config.c1, "c2": config.c2, "max_iterations": config.max_iterations,
            "feature.possible_transitions": True, "feature.minfreq": config.min_freq,
        })
        with tempfile.TemporaryDirectory(prefix="crf-") as tmp:
            path = os.path.join(tmp, "model.crfsuite")
            try:
                trainer.train(path)
            except _Stopped:
                pass
            if "error" in holder:
                raise holder["error"]
            return cls._from_crfsuite(name, path, labels, config, gazetteer)

    @classmethod
    def _from_crfsuite(cls, name: str, path: str, labels: list[str], config: CRFConfig,
                       gazetteer: Gazetteer | None = None) -> "CRFMember":
        import pycrfsuite

        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        info = tagger.info()
        col = {l: k for k, l in enumerate(labels)}
        attrs: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        for (attr, label), w in info.state_features.items():
            if label not in col:
                continue
            r = attrs.setdefault(attr, len(attrs))
            rows.append(r)
            cols.append(col[label])
            vals.append(w)
        state = sp.csr_matrix((np.asarray(vals, dtype=np.float32), (rows, cols)), shape=(len(attrs), len(labels)))
        trans = np.zeros((len(labels), len(labels)))
        for (a, b), w in info.transitions.items():
            if a in col and b in col:
                trans[col[a], col[b]] = w
        # labels crfsuite never saw can never be predicted: forbid them outright
        seen = set(tagger.labels())
        unseen = [col[l] for l in labels if l not in seen]
        tagger.close()
        member = cls(name, labels, attrs, state, trans, config, gazetteer)
        member._unseen = unseen
        return member

    # ---------------------------------------------------------------- prediction
    _unseen: list[int] = []

    def emissions(self, text: str, words: Words) -> np.ndarray:
        feats = self.features(text, words)
        indptr = [0]
        indices: list[int] = []
        get = self.attrs.get
        for f in feats:
            for a in f:
                r = get(a)
                if r is not None:
                    indices.append(r)
            indptr.append(len(indices))
        x = sp.csr_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr),
                          shape=(len(feats), len(self.attrs)))
        em = np.asarray((x @ self.state).todense(), dtype=np.float64)
        if self._unseen:
            em[:, self._unseen] = -1e4
        return em

    def marginals(self, em: np.ndarray) -> np.ndarray:
        """Forward-backward in log space over the linear chain (no start/end features, as crfsuite)."""
        n, L = em.shape
        if n == 0:
            return np.zeros((0, L), dtype=np.float32)
        trans = self.trans
        alpha = np.empty((n, L))
        beta = np.empty((n, L))
        alpha[0] = em[0]
        for t in range(1, n):
            a = alpha[t - 1][:, None] + trans
            m = a.max(axis=0)
            alpha[t] = em[t] + m + np.log(np.exp(a - m).sum(axis=0))
        beta[n - 1] = 0.0
        for t in range(n - 2, -1, -1):
            b = trans + (em[t + 1] + beta[t + 1])[None, :]
            m = b.max(axis=1)
            beta[t] = m + np.log(np.exp(b - m[:, None]).sum(axis=1))
        logz = alpha[n - 1].max() + np.log(np.exp(alpha[n - 1] - alpha[n - 1].max()).sum())
        p = np.exp(alpha + beta - logz)
        p /= p.sum(axis=1, keepdims=True)
        return p.astype(np.float32)

    def predict_proba(self, items: list[tuple[str, Words]]) -> list[np.ndarray]:
        return [self.marginals(self.emissions(text, words)) for text, words in items]

    # ------------------------------------------------------------------- storage
    def save(self, directory: str | Path) -> None:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        names = [None] * len(self.attrs)
        for a, r in self.attrs.items():
            names[r] = a
        (d / "attributes.txt").write_text("\n".join(names), encoding="utf-8")
        sp.save_npz(d / "state.npz", self.state)
        np.save(d / "transitions.npy", self.trans)
        (d / "member.json").write_text(json.dumps({
            "kind": self.kind, "name": self.name, "labels": self.labels,
            "unseen": list(self._unseen), "config": asdict(self.config),
        }, indent=1), encoding="utf-8")
        if self.gazetteer is not None:
            (d / "gazetteer.json").write_text(json.dumps(self.gazetteer.to_json(), ensure_ascii=False),
                                              encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path) -> "CRFMember":
        d = Path(directory)
        meta = json.loads((d / "member.json").read_text(encoding="utf-8"))
        names = (d / "attributes.txt").read_text(encoding="utf-8").split("\n")
        attrs = {a: i for i, a in enumerate(names)} if names != [""] else {}
        gaz = None
        if (d / "gazetteer.json").is_file():
            gaz = Gazetteer.from_json(json.loads((d / "gazetteer.json").read_text(encoding="utf-8")))
        member = cls(meta["name"], meta["labels"], attrs, sp.load_npz(d / "state.npz"),
                     np.load(d / "transitions.npy"), CRFConfig(**meta.get("config", {})), gaz)
        member._unseen = list(meta.get("unseen", []))
        return member


def _features(text: str, words: Words, config: CRFConfig, gazetteer: Gazetteer | None) -> list[list[str]]:
    tags = None
    if gazetteer is not None or config.patterns:
        tags = [set() for _ in range(len(words))]
        if gazetteer is not None:
            for t, g in zip(tags, gazetteer.tag(words)):
                t |= g
        if config.patterns:
            for t, g in zip(tags, pattern_tags(text, words)):
                t |= g
    return token_features(text, words, tags)
