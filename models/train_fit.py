"""The fitting steps of a training run: the CRF members side by side, then the encoders.

:func:`models.trainer.train_ensemble` calls :func:`plan_members` once, then
:func:`fit_crf_stage` and :func:`train_encoders`; each takes the run's :class:`TrainConfig`,
its :class:`~models.train_data.TrainData` and its :class:`~models.train_progress.RunProgress`,
writes the members under ``save_root`` and returns their dev probabilities and costs.

Why the refit runs beside the first fit: the refit (every CRF again on training + dev, to
publish) needs neither the tuned thresholds nor the first fit, so both fits of every member run
side by side: on two cores no core waits for the slowest member of one round. Word clusters are
learned once from the texts of both (no labels are used).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.crf import CRFConfig
from models.crf_tags import Gazetteer
from models.crf_parallel import CRFFitResult, fit_crfs
from models.encoder import EncoderMember
from models.encoder_training import ProgressHook
from models.train_config import CATEGORY_MEMBER, REFIT, TrainConfig
from models.train_data import Items, TrainData
from models.train_progress import UNIT, RunProgress

@dataclass
class MemberPlan:
    """The fits a run makes, in the order of their progress slices."""

    crf_members: list[str]     # the CRF members among ``TrainConfig.members``
    fitted: list[str]          # CRFs fitted side by side (the category member too, hierarchical)
    refit: list[str]           # CRFs fitted again on train + dev (those of ``fitted``, or none)
    encoders: list[str]        # trained one after another, after the CRFs
    hierarchical: bool

    @property
    def n_fits(self) -> int:
        return len(self.fitted) + len(self.refit) + len(self.encoders)


def plan_members(cfg: TrainConfig, kinds: dict[str, str]) -> MemberPlan:
    hierarchical = cfg.mode == "hierarchical"
    crf_members = [m for m in cfg.members if kinds[m] == "crf"]
    fitted = crf_members + ([CATEGORY_MEMBER] if hierarchical else [])
    return MemberPlan(crf_members=crf_members, fitted=fitted, refit=fitted if cfg.refit_crf else [],
                      encoders=[m for m in cfg.members if kinds[m] != "crf"], hierarchical=hierarchical)


@dataclass
class CrfJobs:
    """What :func:`models.crf_parallel.fit_crfs` is given: per fit name, (member, how many leading
    ``items`` it learns from, None for all: a refit on training plus dev); the items and tags;
    the category member's own ``(tags, labels)`` per fit."""

    jobs: dict[str, tuple[str, int | None]]
    items: Items
    tags: list[list[str]]
    targets: dict[str, tuple[list[list[str]], list[str]]]


def crf_jobs(data: TrainData, plan: MemberPlan) -> CrfJobs:
    """The fits of :func:`fit_crf_stage`: the training notes (and their copies when the CRFs
    learn from them) for the first fit, then dev (and its copies) appended for the refits."""
    items = data.train_items + (data.aug.train_items if data.crf_aug else [])
    tags = data.train_tags + (data.aug.train_tags if data.crf_aug else [])
    jobs: dict[str, tuple[str, int | None]] = {m: (m, len(items)) for m in plan.fitted}
    targets = {CATEGORY_MEMBER: (data.cat_train_tags, data.cat_labels)} if plan.hierarchical else {}
    if plan.refit:
        items, tags = items + data.dev_items, tags + data.bio_of(data.dev_docs, data.dev_items)
        if data.crf_aug:
            items, tags = items + data.aug.dev_items, tags + data.aug.dev_tags
        jobs.update({m + REFIT: (m, None) for m in plan.refit})
        if plan.hierarchical:
            dev_cat_tags = data.cat_bio_of(data.dev_docs, data.dev_items) + (
                data.cat_bio_of(data.aug.dev_docs, data.aug.dev_items) if data.crf_aug else [])
            all_cat = (data.cat_train_tags + dev_cat_tags, data.cat_labels)
            targets = {CATEGORY_MEMBER: all_cat, CATEGORY_MEMBER + REFIT: all_cat}
    return CrfJobs(jobs, items, tags, targets)


class _CrfWatch:
    """fit_crfs' callbacks as run progress: each fit's iterations are its share of :data:`UNIT`;
    a fit on the training split leaves its dev probabilities and dev F1."""

    def __init__(self, jobs: dict[str, tuple[str, int | None]], configs: dict[str, CRFConfig], data: TrainData,
                 progress: RunProgress):
        self.jobs, self.configs, self.data, self.progress = jobs, configs, data, progress
        self.frac = {j: 0.0 for j in jobs}
        self.what = {j: "" if n is not None else "refit on train+dev, " for j, (_, n) in jobs.items()}
        self.dev_probs: dict[str, list[np.ndarray]] = {}
        self.meta: dict[str, dict] = {}
        self.last: dict[str, int] = {}

    def _done_units(self) -> int:
        return int(UNIT * sum(self.frac.values()))

    def start(self) -> None:
        for j, (m, _) in self.jobs.items():
            self.progress.report(0, f"{m}: {self.what[j]}training", m)

    def fit_name(self, j: str) -> str:
        """The member, and "refit" for its refit on train + dev: two fits of one member run side by
        side, and their losses are two curves, not one."""
        m, n = self.jobs[j]
        return m if n is not None else f"{m} refit"

    def on_iteration(self, j: str, i: int, loss: float) -> None:
        self.progress.check_stop()
        self.frac[j] = min(i, self.configs[j].max_iterations) / max(1, self.configs[j].max_iterations)
        self.last[j] = i
        m = self.jobs[j][0]
        self.progress.report(self._done_units(), f"{m}: {self.what[j]}iteration {i}", self.fit_name(j), loss, step=i)

    def on_done(self, r: CRFFitResult) -> None:
        self.frac[r.name] = 1.0
        m = self.jobs[r.name][0]
        if r.dev_probs is not None:
            self.dev_probs[m] = r.dev_probs
            f1 = self.data.category_dev_f1_of(r.dev_probs) if m == CATEGORY_MEMBER else self.data.dev_f1_of(r.dev_probs)
            self.meta[r.name] = {"seconds": r.seconds, "cpu_seconds": r.cpu_seconds, "dev_f1": f1}
            self.progress.report(self._done_units(), f"{m}: done (dev F1 {f1:.4f})", self.fit_name(r.name), dev_f1=f1,
                                 step=self.last.get(r.name))
        else:
            self.meta[r.name] = {"seconds": r.seconds, "cpu_seconds": r.cpu_seconds}
            self.progress.report(self._done_units(), f"{m}: {self.what[r.name]}done", m)


def _shared_clusters(configs: dict[str, CRFConfig], texts: list[str], extra_texts: list[str] | None,
                     seed: int) -> dict | None:
    """Word clusters from the labelled texts plus any unlabelled ones (no labels used), built
    once and shared by the CRF members; None when no member uses them."""
    if not any(c.clusters for c in configs.values()):
        return None
    from models.clusters import train_clusters

    return train_clusters(list(texts) + list(extra_texts or []), seed=seed)


def fit_crf_stage(cfg: TrainConfig, data: TrainData, plan: MemberPlan, progress: RunProgress, save_root: Path,
                  extra_texts: list[str] | None = None) -> tuple[dict[str, list[np.ndarray]], dict[str, dict]]:
    """Fit the CRF members (and their refits) side by side, saved under ``save_root/<fit>``.
    Returns the dev probabilities per member (first fits only) and the cost per fit."""
    if not plan.fitted:
        return {}, {}
    crf = crf_jobs(data, plan)
    configs = {j: cfg.crf_config(m) for j, (m, _) in crf.jobs.items()}
    clusters = _shared_clusters(configs, [t for t, _ in crf.items], extra_texts, cfg.seed)
    watch = _CrfWatch(crf.jobs, configs, data, progress)
    watch.start()
    fit_crfs(configs, crf.items, crf.tags, data.labels, gazetteer=Gazetteer.for_locale(cfg.locale), clusters=clusters,
             save_root=save_root, dev_items=data.dev_items, workers=cfg.crf_workers, on_iteration=watch.on_iteration,
             check=progress.check_stop, on_done=watch.on_done, targets=crf.targets,
             fit_on={j: n for j, (_, n) in crf.jobs.items() if n is not None},
             dev_for={j for j, (_, n) in crf.jobs.items() if n is not None},
             member_names={j: m for j, (m, _) in crf.jobs.items()})
    return watch.dev_probs, watch.meta


class _EncoderWatch:
    """One encoder's :class:`ProgressHook`: its optimisation steps as its share of :data:`UNIT`,
    from ``base``; every step may cancel the run."""

    def __init__(self, member: str, base: int, progress: RunProgress):
        self.member, self.base, self.progress = member, base, progress
        self.total, self.done = 1, 0

    def hook(self) -> ProgressHook:
        return ProgressHook(begin=self.begin, step=self.step, epoch=self.epoch)

    def begin(self, n: int) -> None:
        self.total = max(1, n)

    def step(self, phase: str, loss: float) -> None:
        self.progress.check_stop()
        self.done += 1
        if self.done % 5 == 0 or self.done == self.total:
            self.progress.report(self.base + int(UNIT * self.done / self.total), f"{self.member}: {phase}",
                                 self.member, None if loss != loss else loss, step=self.done)

    def epoch(self, e: int, loss: float, f1: float) -> None:
        self.progress.report(self.base + int(UNIT * self.done / self.total), f"{self.member}: epoch {e}",
                             self.member, loss, None if f1 != f1 else f1, step=self.done)


def train_encoders(cfg: TrainConfig, data: TrainData, plan: MemberPlan, progress: RunProgress, save_root: Path,
                   extra_texts: list[str] | None = None) -> tuple[dict[str, list[np.ndarray]], dict[str, dict]]:
    """Train the encoder members one after another (after the CRF fits' progress slices), saved
    under ``save_root/<member>``; returns their dev probabilities and costs."""
    dev_probs: dict[str, list[np.ndarray]] = {}
    meta: dict[str, dict] = {}
    for k, m in enumerate(plan.encoders, start=len(plan.fitted) + len(plan.refit)):
        progress.check_stop()
        dev_probs[m], meta[m] = train_encoder(cfg, data, m, k * UNIT, progress, save_root, extra_texts)
    return dev_probs, meta


def train_encoder(cfg: TrainConfig, data: TrainData, m: str, base: int, progress: RunProgress, save_root: Path,
                  extra_texts: list[str] | None = None) -> tuple[list[np.ndarray], dict]:
    """One encoder member on the training notes and all their copies, early-stopped on dev F1."""
    t0 = time.time()
    c0 = time.process_time()
    watch = _EncoderWatch(m, base, progress)
    member = EncoderMember.train(
        m, data.train_items + data.aug.train_items, data.train_tags + data.aug.train_tags, data.labels,
        cfg.encoder_config(m), dev_items=data.dev_items, dev_eval=lambda _mem, probs: data.dev_f1_of(probs),
        extra_texts=extra_texts, hook=watch.hook())
    progress.check_stop()
    member.save(save_root / m)
    probs = member.predict_proba(data.dev_items)
    f1 = data.dev_f1_of(probs)
    meta = {"seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1), "dev_f1": f1}
    progress.report(base + UNIT, f"{m}: done (dev F1 {f1:.4f})", m, dev_f1=f1)
    return probs, meta
