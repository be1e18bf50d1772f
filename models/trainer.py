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

The run reads top to bottom as named steps, each in a small module and testable alone: the
settings (:mod:`models.train_config`, re-exported here) checked and dev split off (here), the
data prepared once (:mod:`models.train_data`: one :class:`~models.train_data.TrainData`
value), the CRFs and encoders fitted (:mod:`models.train_fit`), weights, thresholds and dev
metrics tuned (:mod:`models.train_tune`), and the version written (here). Progress and cancel
are one shared :class:`~models.train_progress.RunProgress` object.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path
from shutil import rmtree
from typing import Callable

from models.split import patient_split
from models.train_config import (CATEGORY_MEMBER, DEFAULT_CRFS, DEFAULT_ENCODERS, DEFAULT_MEMBERS, REFIT, TrainConfig,
                                 check_mode, member_kind)
from models.train_data import TrainData, detection_views, prepare_data
from models.train_fit import MemberPlan, fit_crf_stage, plan_members, train_encoders
from models.train_progress import UNIT, ProgressEvent, RunProgress, TrainingCancelled
from models.train_tune import DevTuning, tune_on_dev
from models.version import ModelVersionInfo, VersionWriter, new_version_name, remove_stale_tmp, write_json
from pipeline.detection.conventions import get_convention
from pipeline.schemas import LabelSchema
from pipeline.spans import Document

__all__ = ["CATEGORY_MEMBER", "DEFAULT_CRFS", "DEFAULT_ENCODERS", "DEFAULT_MEMBERS", "REFIT", "ProgressEvent",
           "TrainConfig", "TrainingCancelled", "check_mode", "member_kind", "train_ensemble"]


def train_ensemble(train_docs: list[Document], dev_docs: list[Document] | None, schema: LabelSchema,
                   config: TrainConfig | dict | None, out_dir: str | Path, *,
                   progress: Callable[[ProgressEvent], None] | None = None,
                   should_stop: Callable[[], bool] | None = None,
                   extra_texts: list[str] | None = None) -> ModelVersionInfo:
    """Train the members on ``train_docs``, tune on ``dev_docs`` and publish a new version in ``out_dir``.

    ``dev_docs`` None or empty: a patient-disjoint split of ``train_docs`` is used.
    ``extra_texts``: unlabelled texts for the tokenizer and masked-LM pre-training.
    Returns the published version's info (``info.path`` is its directory).

    The steps, in order: check the settings, split off dev, prepare the data
    (:func:`models.train_data.prepare_data`), fit the CRFs (:func:`models.train_fit.fit_crf_stage`)
    and the encoders (:func:`models.train_fit.train_encoders`), tune on dev
    (:func:`models.train_tune.tune_on_dev`), and write the version.
    """
    import torch

    cfg, kinds = _checked_config(config, schema)
    if cfg.threads:
        torch.set_num_threads(int(cfg.threads))
    if not train_docs:
        raise ValueError("no training documents")
    t_start = time.time()
    train_docs, dev_docs = _with_dev(train_docs, dev_docs, cfg)
    # the members learn and are tuned on the text detection will give them (same offsets)
    train_docs, dev_docs = detection_views(train_docs, cfg.locale), detection_views(dev_docs, cfg.locale)
    plan = plan_members(cfg, kinds)
    run = RunProgress.for_fits(plan.n_fits, progress, should_stop)
    data = prepare_data(train_docs, dev_docs, schema, cfg)
    name = cfg.name or new_version_name()
    out_dir = Path(out_dir)
    remove_stale_tmp(out_dir)
    run.report(0, "starting")
    with VersionWriter(out_dir, name) as tmp:
        dev_probs, fit_meta = fit_crf_stage(cfg, data, plan, run, tmp / "members", extra_texts)
        member_meta = {m: fit_meta[m] for m in plan.fitted}
        enc_probs, enc_meta = train_encoders(cfg, data, plan, run, tmp / "members", extra_texts)
        dev_probs.update(enc_probs)
        member_meta.update(enc_meta)
        run.check_stop()
        tuned = tune_on_dev(cfg, data, plan.crf_members, dev_probs, member_meta)
        run.report(UNIT * plan.n_fits + 50, "thresholds tuned", dev_f1=tuned.metrics["ensemble"]["strict"]["f1"])
        _publish_refits(tmp / "members", plan, tuned.metrics, fit_meta)
        if data.aug.meta:
            tuned.metrics["augment"] = data.aug.meta
        info = _version_info(name, out_dir, cfg, kinds, data, tuned, t_start)
        _write_version(tmp, info, schema, cfg)
        run.check_stop()
    run.report(run.total, f"published {name}", dev_f1=tuned.metrics["ensemble"]["strict"]["f1"])
    return info


def _checked_config(config: TrainConfig | dict | None, schema: LabelSchema) -> tuple[TrainConfig, dict[str, str]]:
    """The run's settings and each member's kind; refuses no members, an unknown or repeated
    member, a bad mode and an unknown convention (before anything is read or trained)."""
    cfg = config if isinstance(config, TrainConfig) else TrainConfig.from_dict(config or {})
    if not cfg.members:
        raise ValueError("no members to train")
    kinds = {m: member_kind(m) for m in cfg.members}
    if len(set(cfg.members)) != len(cfg.members):
        raise ValueError("a member is listed twice")
    check_mode(cfg, schema)
    get_convention(cfg.convention)
    return cfg, kinds


def _with_dev(train_docs: list[Document], dev_docs: list[Document] | None,
              cfg: TrainConfig) -> tuple[list[Document], list[Document]]:
    """The training and dev notes: a patient-disjoint split of ``train_docs`` when no dev notes
    are given. Also refuses a negative number of copies."""
    if not dev_docs:
        train_docs, dev_docs = patient_split(train_docs, cfg.dev_fraction, cfg.seed)
    if not dev_docs:
        raise ValueError("need at least two patients (or dev documents) to tune and evaluate")
    if cfg.augment_copies < 0:
        raise ValueError("augment_copies cannot be negative")
    return train_docs, dev_docs


def _publish_refits(members_dir: Path, plan: MemberPlan, metrics: dict, fit_meta: dict[str, dict]) -> None:
    """Put each CRF's refit in its member's place. The dev figures are those of the CRFs trained
    on the train split; the published CRFs have also seen the dev notes (more data, same
    settings and thresholds)."""
    if not plan.refit:
        return
    for m in plan.refit:
        rmtree(members_dir / m)
        (members_dir / (m + REFIT)).rename(members_dir / m)
        metrics[m]["refit_seconds"] = fit_meta[m + REFIT]["seconds"]
        metrics[m]["refit_cpu_seconds"] = fit_meta[m + REFIT]["cpu_seconds"]
    metrics["refit"] = list(plan.refit)


def _version_info(name: str, out_dir: Path, cfg: TrainConfig, kinds: dict[str, str], data: TrainData,
                  tuned: DevTuning, t_start: float) -> ModelVersionInfo:
    hierarchical = cfg.mode == "hierarchical"
    return ModelVersionInfo(
        name=name, path=str(out_dir / name),
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        schema_name=data.schema.name, locale=cfg.locale, labels=data.labels, members=list(cfg.members),
        weights=tuned.weights, thresholds=tuned.thresholds, target_recall=cfg.target_recall, metrics=tuned.metrics,
        type_policy=tuned.type_policy, spared_steps=list(tuned.spared_steps),
        muted_sources=list(tuned.muted_sources), convention=cfg.convention, case_view=cfg.case_view,
        config=_config_json(cfg, kinds), n_train_docs=len(data.train_docs), n_dev_docs=len(data.dev_docs),
        train_seconds=round(time.time() - t_start, 1), mode=cfg.mode,
        category_member=CATEGORY_MEMBER if hierarchical else "", category_labels=data.cat_labels,
        category_thresholds=tuned.cat_thresholds, fallback_types=tuned.fallback,
        category_members={c: list(ms) for c, ms in cfg.category_members.items()})


def _write_version(tmp: Path, info: ModelVersionInfo, schema: LabelSchema, cfg: TrainConfig) -> None:
    """The version's json files, beside its members."""
    write_json(tmp / "schema.json", json.loads(schema.to_json()))
    write_json(tmp / "labels.json", info.labels)
    write_json(tmp / "thresholds.json", {"target_recall": cfg.target_recall, "measure": cfg.threshold_measure,
                                         "thresholds": info.thresholds})
    write_json(tmp / "config.json", info.config)
    write_json(tmp / "metrics.json", info.metrics)
    write_json(tmp / "version.json", info.to_json())


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
