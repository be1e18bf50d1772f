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
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np
import scipy.sparse as sp

from models.crf_feature_spec import tag_features
from models.crf_marginals import chain_marginals, marginals_all
from models.crf_features import token_features
from models.crf_tags import Gazetteer, pattern_tags
from models.words import Words
from pipeline.errors import WorkbenchError


@dataclass
class CRFConfig:
    c1: float = 0.0                 # L2 only: on MEDDOCAN dev strict F1 0.964 vs 0.961 with c1=0.05
    c2: float = 0.05
    max_iterations: int = 100
    min_freq: int = 1
    gazetteer: bool = True          # locale word lists + built-in word classes as features
    patterns: bool = True           # date/e-mail/URL/phone/year surface patterns as features
    extended: bool = True           # capitalised-run position, wider context words
    clusters: bool = True           # word clusters learned from the texts (see models.clusters)
    line_context: bool = False      # first word and length of the token's line, 4-character affixes
    rule_features: bool = False     # the locale's rule recognizers' hits as features (pipeline.detection.rules)
    locale: str = "es"              # whose rule pack (set from the training config)
    caseless: bool = False          # shapes without case beside the cased ones (on for English: notes in capitals)


class _Stopped(Exception):
    pass


class IncompatibleModel(WorkbenchError):
    """A saved member this version cannot run (safe to show: names the member and settings only)."""


class CRFMember:
    """Holds exported weights: ``attrs`` (feature string -> row), ``state`` (A x L), ``trans`` (L x L)."""

    kind = "crf"

    def __init__(self, name: str, labels: list[str], attrs: dict[str, int], state: sp.csr_matrix,
                 trans: np.ndarray, config: CRFConfig, gazetteer: Gazetteer | None = None,
                 clusters: dict[str, list[int]] | None = None):
        self.gazetteer = gazetteer
        self.clusters = clusters or None
        self.name = name
        self.labels = list(labels)
        self.attrs = attrs
        self.state = state.tocsr()
        self.trans = trans.astype(np.float64)
        self.config = config

    # ------------------------------------------------------------------ training
    def features(self, text: str, words: Words) -> list[list[str]]:
        return _features(text, words, self.config, self.gazetteer, self.clusters)

    @classmethod
    def train(cls, name: str, items: list[tuple[str, Words]], tags: list[list[str]], labels: list[str],
              config: CRFConfig | None = None, gazetteer: Gazetteer | None = None,
              clusters: dict[str, list[int]] | None = None,
              on_iteration: Callable[[int, float], None] | None = None,
              features: list[list[list[str]]] | None = None) -> "CRFMember":
        """Fit on ``(text, words)`` items and their BIO tags. ``on_iteration(i, loss)`` may raise
        to abort; the exception propagates after crfsuite stops. ``clusters``: see
        :func:`models.clusters.train_clusters` (built from the items' texts when None and enabled).
        ``features``: the items' features when the caller extracted them already (for several
        members at once, :func:`models.crf_parallel.shared_features`); they must be those this
        config computes with this gazetteer and these clusters (in any order per token)."""
        import pycrfsuite

        config = config or CRFConfig()
        if not config.gazetteer:
            gazetteer = None
        if not config.clusters:
            clusters = None
        elif clusters is None:
            from models.clusters import train_clusters
            clusters = train_clusters([t for t, _ in items])
        holder: dict[str, BaseException] = {}

        class Trainer(pycrfsuite.Trainer):
            # pycrfsuite calls the on_* hooks only when verbose; the others would print its log
            def on_start(self, log): pass                            # noqa: E704
            def on_featgen_progress(self, log, percent): pass        # noqa: E704
            def on_featgen_end(self, log): pass                      # noqa: E704
            def on_prepared(self, log): pass                         # noqa: E704
            def on_prepare_error(self, log): pass                    # noqa: E704
            def on_optimization_end(self, log): pass                 # noqa: E704
            def on_end(self, log): pass                              # noqa: E704

            def on_iteration(self, log, info):  # noqa: D401 - crfsuite hook
                if on_iteration is None:
                    return
                try:
                    on_iteration(int(info.get("num", 0)), float(info.get("loss", 0.0)))
                except BaseException as e:  # noqa: BLE001 - re-raised after training returns
                    holder["error"] = e
                    raise _Stopped() from None

        trainer = Trainer(verbose=True)    # hooks only; nothing is printed (above)
        if features is None:
            features = (_features(text, words, config, gazetteer, clusters) for text, words in items)
        for f, y in zip(features, tags):
            trainer.append(f, y)
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
            return cls._from_crfsuite(name, path, labels, config, gazetteer, clusters)

    @classmethod
    def _from_crfsuite(cls, name: str, path: str, labels: list[str], config: CRFConfig,
                       gazetteer: Gazetteer | None = None,
                       clusters: dict[str, list[int]] | None = None) -> "CRFMember":
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
        member = cls(name, labels, attrs, state, trans, config, gazetteer, clusters)
        member._unseen = unseen
        return member

    # ---------------------------------------------------------------- prediction
    _unseen: list[int] = []

    @property
    def feature_key(self) -> str:
        """Equal for members that compute identical features (same switches, same gazetteer and
        clusters), so an ensemble extracts them once for all such members."""
        key = getattr(self, "_feature_key", None)
        if key is None:
            key = self._feature_key = self._key(self.config)
        return key

    @property
    def base_feature_key(self) -> str:
        """The :attr:`feature_key` of this member without rule-hit features: a member with them
        reuses the features of one without (:meth:`rule_features` are added on top)."""
        return self._key(replace(self.config, rule_features=False))

    def _key(self, config: CRFConfig) -> str:
        import hashlib

        h = hashlib.sha256()
        cfg = asdict(config)
        for k in ("c1", "c2", "max_iterations", "min_freq"):
            cfg.pop(k, None)
        h.update(json.dumps(cfg, sort_keys=True).encode())
        h.update(json.dumps(self.gazetteer.to_json() if self.gazetteer else None, sort_keys=True).encode())
        h.update(json.dumps(self.clusters, sort_keys=True).encode())
        return h.hexdigest()

    def base_features(self, text: str, words: Words) -> list[list[str]]:
        """Features without the rule hits (those of a member keyed :attr:`base_feature_key`)."""
        return _features(text, words, replace(self.config, rule_features=False), self.gazetteer, self.clusters)

    def rule_features(self, text: str, words: Words, tags: list[set[str]] | None = None) -> list[list[str]]:
        """The rule-hit features alone; ``base_features`` plus these equal :meth:`features`.
        ``tags``: the tokens' :func:`rule_tags`, when the caller already has them."""
        if not self.config.rule_features:
            return [[] for _ in range(len(words))]
        return tag_features(tags if tags is not None else rule_tags(text, words, self.config.locale))

    def emissions(self, text: str, words: Words, feats: list[list[str]] | None = None) -> np.ndarray:
        if feats is None:
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
        """Per-token label marginals for one document (see :meth:`marginals_batch`)."""
        return self.marginals_batch([em])[0]

    def marginals_batch(self, ems: list[np.ndarray]) -> list[np.ndarray]:
        """Forward-backward over a linear chain (no start/end features, as crfsuite), for many
        documents at once: the recursion runs over positions with documents stacked, in scaled
        probability space (each step renormalised), so its cost is one small matrix product per
        position for the whole batch instead of per document."""
        return chain_marginals([self.trans], [ems])[0]

    def predict_proba(self, items: list[tuple[str, Words]], batch_size: int = 32,
                      features: list[list[list[str]]] | None = None) -> list[np.ndarray]:
        """Marginals per document; ``features`` (from a member with the same :attr:`feature_key`)
        saves extracting them again."""
        if features is None:
            ems = [self.emissions(text, words) for text, words in items]
        else:
            ems = [self.emissions(text, words, f) for (text, words), f in zip(items, features)]
        return self.marginals_all(ems, batch_size)

    def marginals_all(self, ems: list[np.ndarray], batch_size: int = 32) -> list[np.ndarray]:
        """Marginals for many documents' emissions, batched by length (input order kept)."""
        return marginals_all([self.trans], [ems], batch_size)[0]

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
        if self.clusters:
            (d / "clusters.json").write_text(json.dumps(self.clusters, ensure_ascii=False), encoding="utf-8")
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
        clusters = None
        if (d / "clusters.json").is_file():
            clusters = json.loads((d / "clusters.json").read_text(encoding="utf-8"))
        settings = dict(meta.get("config", {}))
        unknown = sorted(set(settings) - set(CRFConfig.__dataclass_fields__))
        if unknown:
            # a member trained by another version of the workbench: its features cannot be
            # computed here, and a model scored on other features than it learned misses PHI
            raise IncompatibleModel(f"CRF member {meta.get('name', d.name)!r} uses settings this version does not know "
                             f"({', '.join(unknown)}); retrain the model with this version")
        member = cls(meta["name"], meta["labels"], attrs, sp.load_npz(d / "state.npz"),
                     np.load(d / "transitions.npy"), CRFConfig(**settings), gaz, clusters)
        member._unseen = list(meta.get("unseen", []))
        return member


def _features(text: str, words: Words, config: CRFConfig, gazetteer: Gazetteer | None,
              clusters: dict[str, list[int]] | None = None) -> list[list[str]]:
    return token_features(text, words, feature_tags(text, words, config, gazetteer), extended=config.extended,
                          clusters=clusters, line_context=config.line_context, caseless=config.caseless)


def feature_tags(text: str, words: Words, config: CRFConfig, gazetteer: Gazetteer | None) -> list[set[str]] | None:
    """Per token the tags its "gz" features come from: gazetteer phrases, surface patterns and
    (when ``config`` uses them) rule hits; None when the config has no tag features at all."""
    tags = None
    if gazetteer is not None or config.patterns or config.rule_features:
        tags = gazetteer.tag(words) if gazetteer is not None else [set() for _ in range(len(words))]
        if config.patterns:
            pattern_tags(text, words, into=tags)
        if config.rule_features:
            for t, g in zip(tags, rule_tags(text, words, config.locale)):
                t |= g
    return tags


def rule_tags(text: str, words: Words, locale: str, hits: dict | None = None) -> list[set[str]]:
    """Tokens covered by each rule recognizer's hits, tagged B-/I-/E-rule:<name>.

    The CRF learns how far to trust each rule and where its boundaries differ from the gold
    conventions; rules it finds useless get no weight. (A model depends on the rule code of its
    time: retrain after changing rules.) ``hits``: the pack's raw hits on ``text``
    (:func:`pipeline.detection.rules.pack_hits`), when the caller has run the rules already."""
    import bisect

    if hits is None:
        try:
            from pipeline.detection.rules import pack_hits
            hits = pack_hits(text, locale)
        except (ImportError, KeyError):
            return [set() for _ in range(len(words))]
    tags: list[set[str]] = [set() for _ in range(len(words))]
    starts, ends = words.starts, words.ends
    for rec_name, spans in hits.items():
        if isinstance(spans, BaseException):
            continue  # a broken rule must not break detection
        name = "rule:" + rec_name
        for sp_ in spans:
            i = bisect.bisect_right(ends, sp_.start)
            j = i
            while j < len(starts) and starts[j] < sp_.end:
                j += 1
            if j == i:
                continue
            tags[i].add("B-" + name)
            for k in range(i + 1, j):
                tags[k].add("I-" + name)
            tags[j - 1].add("E-" + name)
    return tags
