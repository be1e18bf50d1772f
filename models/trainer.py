"""Training job: members, thresholds, dev metrics, one immutable model version.

``train_ensemble(train_docs, dev_docs, schema, config, out_dir, progress=..., should_stop=...)``
is what the command line, the app's job runner and the benchmark call. It is seeded, reports
progress (done/total, a message, live loss and dev F1), early-stops encoders on dev F1, tunes
per-type thresholds on dev for the target recall, and publishes ``out_dir/<version>``
atomically (see :mod:`models.version`). ``should_stop()`` returning True (or raising) cancels
the run: nothing is published and earlier versions are untouched.

``TrainConfig.mode = "hierarchical"`` also fits a category member (:data:`CATEGORY_MEMBER`: the
``crf`` settings on BIO tags of the schema's coarse categories) beside the type members, in the
same side-by-side fit, tunes its per-category thresholds on dev like the type thresholds, and
records the hierarchical output's dev metrics (``metrics["hierarchical"]``) next to the flat
ensemble's; see :mod:`models.ensemble` for how a version joins the two.
``TrainConfig.category_members`` picks, per category, the members that vote for its types.
"""
from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from models.crf import CRFConfig, CRFMember
from models.crf_features import Gazetteer
from models.crf_parallel import fit_crfs
from models.decode import LabelIndex, average, decode, decode_many, thresholds_array, tune_thresholds
from models.encoder import ARCHITECTURES, EncoderConfig, EncoderMember, ProgressHook
from models.ensemble import MODES, combine_members, label_vote_weights
from models.scoring import score
from models.split import patient_split
from models.version import ModelVersionInfo, VersionWriter, new_version_name, remove_stale_tmp, write_json
from models.words import Words, bio_labels, spans_to_bio, tokenize
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

log = logging.getLogger(__name__)

# Defaults sized for two CPU cores and a few hundred notes (see benchmarks/detection_meddocan.py).
# Two layers of width 128: on two shared CPU cores a wider or deeper encoder cannot be trained
# for enough epochs within the 20-minute budget, nor run at 20 notes/s.
DEFAULT_ENCODERS: dict[str, dict] = {
    "bert": dict(arch="bert", hidden=128, layers=2, heads=4, intermediate=512, epochs=8, patience=3, lr=2e-3),
    "electra": dict(arch="electra", hidden=128, layers=2, heads=4, intermediate=512, embedding_size=64,
                    epochs=8, patience=3, lr=2e-3),
    "roberta": dict(arch="roberta", hidden=128, layers=2, heads=4, intermediate=512, epochs=8, patience=3,
                    lr=2e-3),
}


# CRF members differ in regularisation and features; averaged they are a little better than the
# best of them (MEDDOCAN dev, trained on train: 0.9641 alone, 0.9652 for these three).
DEFAULT_CRFS: dict[str, dict] = {
    "crf": {},
    "crf-l1": dict(c1=0.05, c2=0.01),
    "crf-rules": dict(rule_features=True),
}


#: what a training run fits when no members are named (see ``TrainConfig.members``)
DEFAULT_MEMBERS: tuple[str, ...] = ("crf",)

#: the hierarchical mode's category member (a CRF with the ``crf`` member's settings)
CATEGORY_MEMBER = "crf-category"
#: suffix of a CRF's second fit, on training plus dev (see ``TrainConfig.refit_crf``)
REFIT = "+dev"


class TrainingCancelled(Exception):
    """``should_stop`` asked the run to stop; nothing was written."""


@dataclass
class ProgressEvent:
    done: int
    total: int
    message: str
    member: str = ""
    loss: float | None = None
    dev_f1: float | None = None


@dataclass
class TrainConfig:
    # One CRF. On MEDDOCAN the encoder members reached 0.70 F1 and were tuned to weight 0, and the
    # three CRFs together (crf, crf-l1, crf-rules) matched this one at the default operating point
    # (span recall 0.9671 both, strict F1 0.9613 vs 0.9605, missed PHI tokens per 1,000 1.08 vs
    # 1.15) for three times the training (9.5 vs 3.1 minutes); every other member trains when asked
    members: list[str] = field(default_factory=lambda: list(DEFAULT_MEMBERS))
    locale: str = "es"
    seed: int = 13
    target_recall: float = 0.99
    dev_fraction: float = 0.15           # used when no dev documents are given
    epochs: int | None = None            # overrides every encoder's epochs
    encoders: dict[str, dict] = field(default_factory=dict)   # per-member EncoderConfig overrides
    crf: dict = field(default_factory=dict)                   # CRFConfig overrides for every CRF member
    crfs: dict[str, dict] = field(default_factory=dict)       # per-CRF-member overrides (crf, crf-l1, ...)
    weights: dict[str, float] = field(default_factory=dict)   # member weights in the average
    tune_weights: bool = True            # pick member weights on dev (when none are given)
    refit_crf: bool = True               # after tuning, retrain the CRF members on train + dev (cheap)
    mlm_epochs: int | None = None        # overrides every encoder's mlm_epochs
    threads: int | None = None           # torch.set_num_threads
    name: str | None = None              # version name (default: v<UTC time>-<random>)
    min_threshold_support: int = 5
    threshold_measure: str = "token"     # recall the thresholds aim at: "token" (PHI coverage) or "strict"
    learn_type_policy: bool = False      # per type, how rule/dictionary spans join the model's (on dev; noisy on small dev sets)
    crf_workers: int | None = None       # CRF members fitted at once, one process each (None: all, up to 2x the cores)
    mode: str = "flat"                   # "hierarchical": also a category member, joined with the type members
    category_members: dict[str, list[str]] = field(default_factory=dict)  # category -> members voting for its types
    augment_copies: int = 1              # surrogate copies of every training note the members learn from (0: none)
    augment_crf: bool = True             # the CRF members learn from the copies too (the encoders always do)

    @classmethod
    def from_dict(cls, d: dict) -> "TrainConfig":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def crf_config(self, name: str) -> CRFConfig:
        if name == CATEGORY_MEMBER:    # the category member learns with the crf member's settings
            name = "crf"
        over = {**DEFAULT_CRFS.get(name, {}), **self.crf, **self.crfs.get(name, {})}
        return CRFConfig(**{**asdict(CRFConfig()), "locale": self.locale, **over})

    def encoder_config(self, name: str) -> EncoderConfig:
        base = dict(DEFAULT_ENCODERS.get(name, {"arch": name}))
        base.update(self.encoders.get(name, {}))
        base.setdefault("seed", self.seed)
        if "seed" not in self.encoders.get(name, {}):
            base["seed"] = self.seed + sum(map(ord, name))  # members differ, runs repeat
        if self.epochs is not None:
            base["epochs"] = self.epochs
        if self.mlm_epochs is not None:
            base["mlm_epochs"] = self.mlm_epochs
        return EncoderConfig.from_dict(base)


def member_kind(name: str) -> str:
    """``crf`` and ``crf-<variant>`` are CRF members; the encoder architectures are encoders."""
    if name == "crf" or (name.startswith("crf-") and len(name) > 4 and name[4:].replace("-", "").isalnum()):
        return "crf"
    if name in ARCHITECTURES or name in DEFAULT_ENCODERS:
        return "encoder"
    raise ValueError(f"unknown member {name!r}: use crf, crf-<variant> ({', '.join(list(DEFAULT_CRFS)[1:])}), "
                     f"{', '.join(ARCHITECTURES)}")


def check_mode(cfg: "TrainConfig", schema: LabelSchema) -> None:
    """Refuse an unknown mode or a category-members choice that names an unknown category or a
    member not in the ensemble (one line, no document content)."""
    if cfg.mode not in MODES:
        raise ValueError(f"unknown ensemble mode {cfg.mode!r}; use one of {', '.join(MODES)}")
    if cfg.mode == "hierarchical" and CATEGORY_MEMBER in cfg.members:
        raise ValueError(f"{CATEGORY_MEMBER} is the hierarchical mode's own member; do not list it")
    if not isinstance(cfg.category_members, dict):
        raise ValueError("category members must map a category to a list of members")
    for cat, names in cfg.category_members.items():
        if cat not in schema.categories:
            raise ValueError(f"category members: the schema has no category {cat!r}")
        if isinstance(names, str) or not names or any(n not in cfg.members for n in names):
            raise ValueError(f"category members for {cat}: list one or more of the ensemble's members "
                             f"({', '.join(cfg.members)})")


def _gold_categories(doc: Document, schema: LabelSchema) -> list[tuple[int, int, str]]:
    """The gold spans as coarse categories (what the category member learns)."""
    return [(s, e, schema.category_of(t)) for s, e, t in _gold(doc, schema)]


def _gold(doc: Document, schema: LabelSchema) -> list[tuple[int, int, str]]:
    out = []
    for s in doc.spans:
        t = s.type or s.category
        if t in schema.types:
            out.append((s.start, s.end, t))
    return out


def train_ensemble(train_docs: list[Document], dev_docs: list[Document] | None, schema: LabelSchema,
                   config: TrainConfig | dict | None, out_dir: str | Path, *,
                   progress: Callable[[ProgressEvent], None] | None = None,
                   should_stop: Callable[[], bool] | None = None,
                   extra_texts: list[str] | None = None) -> ModelVersionInfo:
    """Train the members on ``train_docs``, tune on ``dev_docs`` and publish a new version in ``out_dir``.

    ``dev_docs`` None or empty: a patient-disjoint split of ``train_docs`` is used.
    ``extra_texts``: unlabelled texts for the tokenizer and masked-LM pre-training.
    Returns the published version's info (``info.path`` is its directory).
    """
    import torch

    cfg = config if isinstance(config, TrainConfig) else TrainConfig.from_dict(config or {})
    if not cfg.members:
        raise ValueError("no members to train")
    kinds = {m: member_kind(m) for m in cfg.members}
    if len(set(cfg.members)) != len(cfg.members):
        raise ValueError("a member is listed twice")
    check_mode(cfg, schema)
    hierarchical = cfg.mode == "hierarchical"
    if cfg.threads:
        torch.set_num_threads(int(cfg.threads))
    if not train_docs:
        raise ValueError("no training documents")
    t_start = time.time()
    if not dev_docs:
        train_docs, dev_docs = patient_split(train_docs, cfg.dev_fraction, cfg.seed)
    if not dev_docs:
        raise ValueError("need at least two patients (or dev documents) to tune and evaluate")
    if cfg.augment_copies < 0:
        raise ValueError("augment_copies cannot be negative")

    def check_stop() -> None:
        if should_stop is not None and should_stop():
            raise TrainingCancelled("training cancelled")

    # ---- progress: every member gets an equal slice of 1000 units, thresholds the last 100
    unit = 1000
    crf_members = [m for m in cfg.members if kinds[m] == "crf"]
    fitted = crf_members + ([CATEGORY_MEMBER] if hierarchical else [])   # CRFs fitted side by side
    n_fit = len(cfg.members) + (1 if hierarchical else 0)
    refit = fitted if cfg.refit_crf else []
    total = unit * (n_fit + len(refit)) + 100
    state = {"done": 0}

    def report(done: int, message: str, member: str = "", loss: float | None = None, dev_f1: float | None = None):
        state["done"] = max(state["done"], min(done, total))
        if progress is not None:
            progress(ProgressEvent(state["done"], total, message, member, loss, dev_f1))

    present = {t for d in train_docs for _, _, t in _gold(d, schema)}
    types = [t for t in schema.types if t in present]
    if not types:
        raise ValueError("the training documents have no spans of the schema's types")
    labels = bio_labels(types)
    index = LabelIndex.of(labels)
    train_items = [(d.text, tokenize(d.text)) for d in train_docs]
    dev_items = [(d.text, tokenize(d.text)) for d in dev_docs]
    train_tags = [spans_to_bio(w, [Span(d.doc_id, s, e, "X", t) for s, e, t in _gold(d, schema)], labels)
                  for d, (_, w) in zip(train_docs, train_items)]
    dev_gold = [_gold(d, schema) for d in dev_docs]
    dev_words = [w for _, w in dev_items]

    def bio_of(docs: list[Document], items) -> list[list[str]]:
        return [spans_to_bio(w, [Span(d.doc_id, s, e, "X", t) for s, e, t in _gold(d, schema)], labels)
                for d, (_, w) in zip(docs, items)]

    # Surrogate copies of the training notes, and of the dev notes for the CRFs' refit on train + dev:
    # the members see each context with other names, streets, ids and dates. Thresholds, weights and
    # dev figures only ever see the real dev notes.
    aug_train_items: list = []
    aug_train_tags: list[list[str]] = []
    aug_dev_items: list = []
    aug_dev_tags: list[list[str]] = []
    aug_train_docs: list[Document] = []
    aug_dev_docs: list[Document] = []
    augment_meta: dict = {}
    if cfg.augment_copies:
        from pipeline.deid.augment import surrogate_copies

        made = surrogate_copies(train_docs, cfg.augment_copies, locale=cfg.locale, seed=cfg.seed)
        aug_train_docs = made.documents
        aug_train_items = [(d.text, tokenize(d.text)) for d in aug_train_docs]
        aug_train_tags = bio_of(aug_train_docs, aug_train_items)
        augment_meta = {"copies": cfg.augment_copies, "documents": len(made.documents), "skipped": made.skipped,
                        "crf": cfg.augment_crf}
        if cfg.augment_crf and cfg.refit_crf:
            made_dev = surrogate_copies(dev_docs, cfg.augment_copies, locale=cfg.locale, seed=cfg.seed)
            aug_dev_docs = made_dev.documents
            aug_dev_items = [(d.text, tokenize(d.text)) for d in aug_dev_docs]
            aug_dev_tags = bio_of(aug_dev_docs, aug_dev_items)

    def dev_f1_of(probs: list[np.ndarray]) -> float:
        return score(decode_many(probs, dev_words, index), dev_gold).f1

    # the hierarchical mode's category member: its own labels, tags and dev gold
    cat_labels: list[str] = []
    targets: dict[str, tuple[list[list[str]], list[str]]] = {}

    def cat_bio_of(docs: list[Document], items) -> list[list[str]]:
        return [spans_to_bio(w, [Span(d.doc_id, s, e, c) for s, e, c in _gold_categories(d, schema)], cat_labels)
                for d, (_, w) in zip(docs, items)]

    crf_aug = cfg.augment_crf and bool(aug_train_items)
    if hierarchical:
        cats_present = {c for d in train_docs for _, _, c in _gold_categories(d, schema)}
        cat_labels = bio_labels([c for c in schema.categories if c in cats_present])
        # the category member's tags follow the CRFs' items: training notes, then their copies
        targets[CATEGORY_MEMBER] = (cat_bio_of(train_docs, train_items)
                                    + (cat_bio_of(aug_train_docs, aug_train_items) if crf_aug else []), cat_labels)
    cat_index = LabelIndex.of(cat_labels) if hierarchical else None
    dev_cat_gold = [_gold_categories(d, schema) for d in dev_docs] if hierarchical else []

    def member_dev_f1(name: str, probs: list[np.ndarray]) -> float:
        if name == CATEGORY_MEMBER:
            return score(decode_many(probs, dev_words, cat_index), dev_cat_gold).f1
        return dev_f1_of(probs)

    cluster_cache: dict[int, dict] = {}

    def clusters_of(crf_cfg: CRFConfig, texts: list[str]):
        """Word clusters from the labelled texts plus any unlabelled ones (no labels used), built
        once per set of texts and shared by the CRF members."""
        if not crf_cfg.clusters:
            return None
        key = len(texts)
        if key not in cluster_cache:
            from models.clusters import train_clusters
            cluster_cache[key] = train_clusters(list(texts) + list(extra_texts or []), seed=cfg.seed)
        return cluster_cache[key]

    def fit_crf_members(jobs: dict[str, tuple[str, int | None]], items, tags, save_root: Path, *, dev_items,
                        texts: list[str], results: dict, meta: dict, member_targets: dict | None = None) -> None:
        """Fit the CRF jobs side by side (:func:`models.crf_parallel.fit_crfs`), reporting each
        one's iterations as its share of the progress. ``jobs``: fit name -> (member, how many
        leading ``items`` it learns from, None for all: a refit on training plus dev); the fits
        on the training split send their dev probabilities into ``results``."""
        configs = {j: cfg.crf_config(m) for j, (m, _) in jobs.items()}
        shared_clusters = clusters_of(CRFConfig(clusters=True), texts) if any(c.clusters for c in configs.values()) \
            else None
        frac = {j: 0.0 for j in jobs}
        what = {j: "" if n is not None else "refit on train+dev, " for j, (_, n) in jobs.items()}
        tuned = {j for j, (_, n) in jobs.items() if n is not None}

        def on_iter(j: str, i: int, loss: float) -> None:
            check_stop()
            frac[j] = min(i, configs[j].max_iterations) / max(1, configs[j].max_iterations)
            report(int(unit * sum(frac.values())), f"{jobs[j][0]}: {what[j]}iteration {i}", jobs[j][0], loss)

        def on_done(r) -> None:
            frac[r.name] = 1.0
            m = jobs[r.name][0]
            if r.dev_probs is not None:
                results[m] = r.dev_probs
                f1 = member_dev_f1(m, r.dev_probs)
                meta[r.name] = {"seconds": r.seconds, "cpu_seconds": r.cpu_seconds, "dev_f1": f1}
                report(int(unit * sum(frac.values())), f"{m}: done (dev F1 {f1:.4f})", m, dev_f1=f1)
            else:
                meta[r.name] = {"seconds": r.seconds, "cpu_seconds": r.cpu_seconds}
                report(int(unit * sum(frac.values())), f"{m}: {what[r.name]}done", m)

        for j, (m, _) in jobs.items():
            report(0, f"{m}: {what[j]}training", m)
        fit_crfs(configs, items, tags, labels, gazetteer=Gazetteer.for_locale(cfg.locale), clusters=shared_clusters,
                 save_root=save_root, dev_items=dev_items, workers=cfg.crf_workers, on_iteration=on_iter,
                 check=check_stop, on_done=on_done, targets=member_targets,
                 fit_on={j: n for j, (_, n) in jobs.items() if n is not None}, dev_for=tuned,
                 member_names={j: m for j, (m, _) in jobs.items()})

    name = cfg.name or new_version_name()
    out_dir = Path(out_dir)
    remove_stale_tmp(out_dir)
    dev_probs: dict[str, list[np.ndarray]] = {}
    member_meta: dict[str, dict] = {}
    report(0, "starting")
    with VersionWriter(out_dir, name) as tmp:
        fit_meta: dict[str, dict] = {}
        if fitted:
            # The refit (every CRF again on training + dev, to publish) needs neither the tuned
            # thresholds nor the first fit, so both fits of every member run side by side: on two
            # cores no core waits for the slowest member of one round. Word clusters are learned
            # once from the texts of both (no labels are used).
            items = train_items + (aug_train_items if crf_aug else [])
            tags = train_tags + (aug_train_tags if crf_aug else [])
            jobs: dict[str, tuple[str, int | None]] = {m: (m, len(items)) for m in fitted}
            fit_targets = dict(targets)
            if refit:
                dev_tags = bio_of(dev_docs, dev_items)
                items, tags = items + dev_items, tags + dev_tags
                if crf_aug:
                    items, tags = items + aug_dev_items, tags + aug_dev_tags
                jobs.update({m + REFIT: (m, None) for m in refit})
                if hierarchical:
                    dev_cat_tags = cat_bio_of(dev_docs, dev_items) + (
                        cat_bio_of(aug_dev_docs, aug_dev_items) if crf_aug else [])
                    all_cat = (targets[CATEGORY_MEMBER][0] + dev_cat_tags, cat_labels)
                    fit_targets = {CATEGORY_MEMBER: all_cat, CATEGORY_MEMBER + REFIT: all_cat}
            fit_crf_members(jobs, items, tags, tmp / "members", dev_items=dev_items,
                            texts=[t for t, _ in items], results=dev_probs, meta=fit_meta,
                            member_targets=fit_targets)
            member_meta.update({m: fit_meta[m] for m in fitted})
        encoders = [m for m in cfg.members if kinds[m] != "crf"]
        for k, m in enumerate(encoders, start=len(fitted) + len(refit)):
            check_stop()
            base = k * unit
            t0 = time.time()
            c0 = time.process_time()
            enc_cfg = cfg.encoder_config(m)
            steps = {"total": 1, "done": 0}

            def begin(n: int, _s=steps) -> None:
                _s["total"] = max(1, n)

            def step(phase: str, loss: float, _s=steps, _base=base, _m=m) -> None:
                check_stop()
                _s["done"] += 1
                if _s["done"] % 5 == 0 or _s["done"] == _s["total"]:
                    report(_base + int(unit * _s["done"] / _s["total"]), f"{_m}: {phase}", _m,
                           None if loss != loss else loss)

            def epoch(e: int, loss: float, f1: float, _m=m, _s=steps, _base=base) -> None:
                report(_base + int(unit * _s["done"] / _s["total"]), f"{_m}: epoch {e}", _m, loss,
                       None if f1 != f1 else f1)

            member = EncoderMember.train(
                m, train_items + aug_train_items, train_tags + aug_train_tags, labels, enc_cfg, dev_items=dev_items,
                dev_eval=lambda _mem, probs: dev_f1_of(probs), extra_texts=extra_texts,
                hook=ProgressHook(begin=begin, step=step, epoch=epoch))
            check_stop()
            member.save(tmp / "members" / m)
            dev_probs[m] = member.predict_proba(dev_items)
            f1 = dev_f1_of(dev_probs[m])
            member_meta[m] = {"seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1),
                              "dev_f1": f1}
            report(base + unit, f"{m}: done (dev F1 {f1:.4f})", m, dev_f1=f1)
            del member

        check_stop()
        weights = {m: float(cfg.weights.get(m, 1.0)) for m in cfg.members}
        if cfg.tune_weights and crf_members and len(crf_members) < len(cfg.members) and not cfg.weights:
            weights = _tune_weights(cfg.members, crf_members, weights, dev_probs, dev_f1_of)
        if cfg.category_members:
            # as detection does it: the members with weight above zero vote, per category those listed
            voters = [m for m in cfg.members if weights[m] > 0] or list(cfg.members)
            vw = [weights[m] or 1.0 for m in voters]
            ens = combine_members(dev_probs, voters, vw, len(dev_items),
                                  label_vote_weights(voters, vw, labels, schema, cfg.category_members))
        else:
            ens = combine_members(dev_probs, cfg.members, [weights[m] for m in cfg.members], len(dev_items))
        thresholds = tune_thresholds(ens, dev_words, dev_gold, index, cfg.target_recall,
                                     min_support=cfg.min_threshold_support, measure=cfg.threshold_measure)
        metrics = {
            "ensemble": score(decode_many(ens, dev_words, index, thresholds_array(index, thresholds)), dev_gold).to_json(),
            "ensemble@0.5": score(decode_many(ens, dev_words, index), dev_gold).to_json(),
        }
        for m in cfg.members:
            metrics[m] = score(decode_many(dev_probs[m], dev_words, index), dev_gold).to_json()
            metrics[m]["seconds"] = member_meta[m]["seconds"]
            metrics[m]["cpu_seconds"] = member_meta[m]["cpu_seconds"]
        cat_thresholds: dict[str, float] = {}
        fallback: dict[str, str] = {}
        if hierarchical:
            cat_probs = dev_probs[CATEGORY_MEMBER]
            cat_thresholds = tune_thresholds(cat_probs, dev_words, dev_cat_gold, cat_index, cfg.target_recall,
                                             min_support=cfg.min_threshold_support, measure=cfg.threshold_measure)
            fallback = _commonest_types(train_docs, schema)
            metrics[CATEGORY_MEMBER] = score(decode_many(cat_probs, dev_words, cat_index), dev_cat_gold).to_json()
            metrics[CATEGORY_MEMBER].update(member_meta[CATEGORY_MEMBER], level="category")
            # with scores, as detection decodes them (a joined span keeps the weaker score)
            thr, cat_thr = thresholds_array(index, thresholds), thresholds_array(cat_index, cat_thresholds)
            typed = [decode(p, w, index, thr) for p, w in zip(ens, dev_words)]
            cats = [decode(p, w, cat_index, cat_thr) for p, w in zip(cat_probs, dev_words)]
            metrics["hierarchical"] = _hierarchical_dev(dev_docs, typed, cats, schema, fallback, dev_gold)
        type_policy: dict[str, str] = {}
        if cfg.learn_type_policy:
            from pipeline.detection.combine import learn_type_policy
            thr = thresholds_array(index, thresholds)
            model_spans = [[Span(d.doc_id, s, e, schema.category_of(t), t) for s, e, t in spans]
                           for d, spans in zip(dev_docs, decode_many(ens, dev_words, index, thr))]
            type_policy = learn_type_policy(dev_docs, model_spans, schema, cfg.locale)
        report(unit * (n_fit + len(refit)) + 50, "thresholds tuned", dev_f1=metrics["ensemble"]["strict"]["f1"])
        if refit:
            # The dev figures above are those of the CRFs trained on the train split; the published
            # CRFs have also seen the dev notes (more data, same settings and thresholds).
            for m in refit:
                shutil.rmtree(tmp / "members" / m)
                (tmp / "members" / (m + REFIT)).rename(tmp / "members" / m)
                metrics[m]["refit_seconds"] = fit_meta[m + REFIT]["seconds"]
                metrics[m]["refit_cpu_seconds"] = fit_meta[m + REFIT]["cpu_seconds"]
            metrics["refit"] = list(refit)
        if augment_meta:
            metrics["augment"] = augment_meta

        info = ModelVersionInfo(
            name=name, path=str(out_dir / name),
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            schema_name=schema.name, locale=cfg.locale, labels=labels, members=list(cfg.members),
            weights=weights, thresholds=thresholds, target_recall=cfg.target_recall, metrics=metrics,
            type_policy=type_policy,
            config=_config_json(cfg, kinds), n_train_docs=len(train_docs), n_dev_docs=len(dev_docs),
            train_seconds=round(time.time() - t_start, 1), mode=cfg.mode,
            category_member=CATEGORY_MEMBER if hierarchical else "", category_labels=cat_labels,
            category_thresholds=cat_thresholds, fallback_types=fallback,
            category_members={c: list(ms) for c, ms in cfg.category_members.items()})
        write_json(tmp / "schema.json", json.loads(schema.to_json()))
        write_json(tmp / "labels.json", labels)
        write_json(tmp / "thresholds.json", {"target_recall": cfg.target_recall, "measure": cfg.threshold_measure,
                                             "thresholds": thresholds})
        write_json(tmp / "config.json", info.config)
        write_json(tmp / "metrics.json", metrics)
        write_json(tmp / "version.json", info.to_json())
        check_stop()
    report(total, f"published {name}", dev_f1=metrics["ensemble"]["strict"]["f1"])
    return info


def _commonest_types(docs: list[Document], schema: LabelSchema) -> dict[str, str]:
    """Per category its commonest gold type: what a category-model span becomes when the type
    model found nothing there and the category has no "other" type."""
    from collections import Counter

    counts: dict[str, Counter] = {}
    for d in docs:
        for _, _, t in _gold(d, schema):
            counts.setdefault(schema.category_of(t), Counter())[t] += 1
    return {c: n.most_common(1)[0][0] for c, n in counts.items()}


def _hierarchical_dev(dev_docs: list[Document], typed, cats, schema: LabelSchema, fallback: dict[str, str],
                      dev_gold) -> dict:
    """Strict dev metrics of the hierarchical join, and how many spans ended each way."""
    from collections import Counter

    from pipeline.detection.hierarchy import combine_hierarchical

    outcomes: Counter = Counter()
    pred = []
    for d, ts, cs in zip(dev_docs, typed, cats):
        r = combine_hierarchical([Span(d.doc_id, s, e, c, "", "model", sc) for s, e, c, sc in cs],
                                 [Span(d.doc_id, s, e, schema.category_of(t), t, "model", sc) for s, e, t, sc in ts],
                                 schema, fallback_types=fallback)
        outcomes.update(r.counts)
        outcomes["flagged"] += len(r.flagged)
        pred.append([(s.start, s.end, s.type) for s in r.spans])
    out = score(pred, dev_gold).to_json()
    out["outcomes"] = dict(outcomes)
    return out


def _tune_weights(members: list[str], crf_members: list[str], weights: dict[str, float],
                  dev_probs: dict[str, list[np.ndarray]], f1_of: Callable[[list[np.ndarray]], float]) -> dict[str, float]:
    """Member weights that maximise dev F1: each CRF at 1, the encoders at one shared weight from
    {1, 1/2, 1/4, 1/8, 0}. On a few hundred notes the CRFs are the strongest members; an encoder
    trained from scratch may add nothing, and then the data says so (weight 0: not even run)."""
    best, best_f1 = dict(weights), -1.0
    n = len(dev_probs[members[0]])
    for we in (1.0, 0.5, 0.25, 0.125, 0.0):
        ws = {m: (1.0 if m in crf_members else we * weights[m]) for m in members}
        probs = [average([dev_probs[m][i] for m in members], [ws[m] for m in members]) for i in range(n)]
        f1 = f1_of(probs)
        if f1 > best_f1 + 1e-9:
            best, best_f1 = ws, f1
    return best


def _config_json(cfg: TrainConfig, kinds: dict[str, str]) -> dict:
    d = asdict(cfg)
    d["resolved"] = {}
    for m, k in kinds.items():
        if k == "crf":
            d["resolved"][m] = {"kind": "crf", **asdict(cfg.crf_config(m))}
        else:
            d["resolved"][m] = {"kind": "encoder", **asdict(cfg.encoder_config(m))}
    if cfg.mode == "hierarchical":
        d["resolved"][CATEGORY_MEMBER] = {"kind": "crf", "level": "category", **asdict(cfg.crf_config(CATEGORY_MEMBER))}
    return d
