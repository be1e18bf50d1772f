"""The steps of a training run, each alone (issue 28): the data a run prepares
(models/train_data.py), the CRF fits it plans and runs (models/train_fit.py), the dev tuning
(models/train_tune.py) and the progress/cancel object they share (models/train_progress.py).

Tiny data: the 16-document MEDDOCAN fixture, CRFs of a few iterations, no encoder trained
(the tuning step gets made-up encoder probabilities). Mechanics, not accuracy; no document text
is printed.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.train_config import CATEGORY_MEMBER, REFIT, TrainConfig, member_kind
from models.train_data import gold, prepare_data
from models.train_fit import crf_jobs, fit_crf_stage, plan_members
from models.train_progress import UNIT, RunProgress, TrainingCancelled
from models.train_tune import dev_ensemble, member_weights, tune_on_dev
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "meddocan" / "brat"


def tiny_config(**over) -> TrainConfig:
    cfg = dict(members=["crf"], seed=7, threads=1, refit_crf=False, crf={"max_iterations": 5, "clusters": False},
               crf_workers=1, augment_copies=0)
    cfg.update(over)
    return TrainConfig.from_dict(cfg)


def kinds_of(cfg: TrainConfig) -> dict[str, str]:
    return {m: member_kind(m) for m in cfg.members}


@pytest.fixture(scope="module")
def docs():
    return read_collection(FIXTURE, "brat", MEDDOCAN)


# ------------------------------------------------------------------------------ prepare_data
def test_the_data_has_the_labels_of_the_types_present_and_tags_in_step_with_the_notes(docs):
    data = prepare_data(docs[:12], docs[12:], MEDDOCAN, tiny_config())
    present = {t for d in docs[:12] for _, _, t in gold(d, MEDDOCAN)}
    assert data.labels[0] == "O" and {lab[2:] for lab in data.labels[1:]} == present
    assert [len(t) for t in data.train_tags] == [len(w) for _, w in data.train_items]
    assert len(data.dev_words) == len(data.dev_gold) == len(docs[12:])
    assert data.aug.meta == {} and not data.aug.train_items and not data.crf_aug
    assert data.cat_labels == [] and data.cat_index is None and data.cat_train_tags == []


def test_copies_and_category_data_line_up_with_the_items_the_crfs_learn_from(docs):
    cfg = tiny_config(augment_copies=1, refit_crf=True, mode="hierarchical")
    data = prepare_data(docs[:12], docs[12:], MEDDOCAN, cfg)
    made = data.aug.meta["documents"]
    assert made == len(data.aug.train_items) == len(data.aug.train_tags) > 0 and data.crf_aug
    assert len(data.aug.dev_items) == len(data.aug.dev_tags) > 0        # for the refit on train + dev
    assert len(data.cat_train_tags) == 12 + made
    assert {lab[2:] for lab in data.cat_labels[1:]} <= set(MEDDOCAN.categories)
    assert len(data.dev_cat_gold) == len(docs[12:])


def test_notes_without_spans_of_the_schema_are_refused(docs):
    bare = [Document(d.doc_id, d.text, []) for d in docs[:4]]
    with pytest.raises(ValueError, match="no spans of the schema"):
        prepare_data(bare, docs[12:], MEDDOCAN, tiny_config())


# ------------------------------------------------------------------------- plan and jobs
def test_the_plan_counts_every_fit_and_the_jobs_append_dev_for_the_refits(docs):
    cfg = tiny_config(members=["crf", "crf-l1", "bert"], refit_crf=True, augment_copies=1, mode="hierarchical")
    plan = plan_members(cfg, kinds_of(cfg))
    assert plan.fitted == ["crf", "crf-l1", CATEGORY_MEMBER] and plan.refit == plan.fitted
    assert plan.encoders == ["bert"] and plan.n_fits == 7
    data = prepare_data(docs[:12], docs[12:], MEDDOCAN, cfg)
    jobs = crf_jobs(data, plan)
    n_first = 12 + len(data.aug.train_items)
    n_all = n_first + len(docs[12:]) + len(data.aug.dev_items)
    assert len(jobs.items) == len(jobs.tags) == n_all
    assert {j: n for j, (_, n) in jobs.jobs.items()} == {
        "crf": n_first, "crf-l1": n_first, CATEGORY_MEMBER: n_first,
        "crf" + REFIT: None, "crf-l1" + REFIT: None, CATEGORY_MEMBER + REFIT: None}
    assert set(jobs.targets) == {CATEGORY_MEMBER, CATEGORY_MEMBER + REFIT}
    assert all(len(tags) == n_all and labels == data.cat_labels for tags, labels in jobs.targets.values())


def test_without_refit_the_jobs_are_the_training_notes_alone(docs):
    cfg = tiny_config()
    data = prepare_data(docs[:12], docs[12:], MEDDOCAN, cfg)
    jobs = crf_jobs(data, plan_members(cfg, kinds_of(cfg)))
    assert jobs.jobs == {"crf": ("crf", 12)} and len(jobs.items) == 12 and jobs.targets == {}


# ------------------------------------------------------------------------------- progress
def test_progress_never_goes_back_nor_past_the_total_and_a_stop_cancels():
    events, stop = [], {"now": False}
    run = RunProgress.for_fits(2, events.append, lambda: stop["now"])
    assert run.total == 2 * UNIT + 100
    for done in (10, 5, 700, 99_999):
        run.report(done, "x")
    assert [e.done for e in events] == [10, 10, 700, run.total]
    run.check_stop()
    stop["now"] = True
    with pytest.raises(TrainingCancelled):
        run.check_stop()


# ------------------------------------------------------------------------------- CRF stage
def test_the_crf_stage_fits_and_saves_each_fit_and_returns_dev_probabilities_of_the_first(docs, tmp_path):
    cfg = tiny_config(refit_crf=True)
    data = prepare_data(docs[:12], docs[12:], MEDDOCAN, cfg)
    plan = plan_members(cfg, kinds_of(cfg))
    events = []
    run = RunProgress.for_fits(plan.n_fits, events.append)
    dev_probs, meta = fit_crf_stage(cfg, data, plan, run, tmp_path / "members")
    assert set(dev_probs) == {"crf"} and len(dev_probs["crf"]) == len(docs[12:])
    assert dev_probs["crf"][0].shape == (len(data.dev_words[0]), len(data.labels))
    assert set(meta) == {"crf", "crf" + REFIT} and "dev_f1" in meta["crf"] and "dev_f1" not in meta["crf" + REFIT]
    assert sorted(p.name for p in (tmp_path / "members").iterdir()) == ["crf", "crf" + REFIT]
    done = [e.done for e in events]
    assert done == sorted(done) and done[-1] == 2 * UNIT
    assert events[0].message == "crf: training" and events[1].message == "crf: refit on train+dev, training"


def test_a_stop_during_the_crf_stage_cancels_it(docs, tmp_path):
    cfg = tiny_config()
    data = prepare_data(docs[:12], docs[12:], MEDDOCAN, cfg)
    plan = plan_members(cfg, kinds_of(cfg))
    run = RunProgress.for_fits(plan.n_fits, should_stop=lambda: True)
    with pytest.raises(TrainingCancelled):
        fit_crf_stage(cfg, data, plan, run, tmp_path / "members")


# ------------------------------------------------------------------------------ tune stage
def _one_hot(data, tags: list[list[str]]) -> list[np.ndarray]:
    col = {lab: k for k, lab in enumerate(data.labels)}
    out = []
    for seq in tags:
        p = np.zeros((len(seq), len(data.labels)), dtype=np.float32)
        p[np.arange(len(seq)), [col[t] for t in seq]] = 1.0
        out.append(p)
    return out


def test_tuning_weighs_a_useless_encoder_down_and_scores_every_member(docs):
    cfg = tiny_config(members=["crf", "bert"])
    data = prepare_data(docs[:12], docs[12:], MEDDOCAN, cfg)
    perfect = _one_hot(data, data.bio_of(data.dev_docs, data.dev_items))      # the gold tags
    all_o = _one_hot(data, [["O"] * len(w) for w in data.dev_words])          # finds nothing
    dev_probs = {"crf": perfect, "bert": all_o}
    meta = {m: {"seconds": 1.0, "cpu_seconds": 2.0} for m in dev_probs}
    tuned = tune_on_dev(cfg, data, ["crf"], dev_probs, meta)
    assert tuned.weights["crf"] == 1.0 and tuned.weights["bert"] < 1.0
    best = data.dev_f1_of(dev_ensemble(cfg, data, tuned.weights, dev_probs))
    assert best == data.dev_f1_of(perfect) > 0.5
    assert list(tuned.metrics) == ["ensemble", "ensemble@0.5", "crf", "bert"]
    assert tuned.metrics["bert"]["strict"]["f1"] == 0.0 and tuned.metrics["crf"]["seconds"] == 1.0
    assert set(tuned.thresholds) <= {lab[2:] for lab in data.labels[1:]}
    assert tuned.cat_thresholds == {} and tuned.type_policy == {}
    # weights given in the settings are kept as they are
    fixed = tiny_config(members=["crf", "bert"], weights={"bert": 0.3})
    assert member_weights(fixed, ["crf"], dev_probs, data.dev_f1_of) == {"crf": 1.0, "bert": 0.3}


def test_dev_figures_carry_character_precision_recall_and_document_recall(docs):
    cfg = tiny_config()
    data = prepare_data(docs[:12], docs[12:], MEDDOCAN, cfg)
    gold_tags = data.bio_of(data.dev_docs, data.dev_items)
    meta = {"crf": {"seconds": 1.0, "cpu_seconds": 1.0}}
    ch = tune_on_dev(cfg, data, ["crf"], {"crf": _one_hot(data, gold_tags)}, meta).metrics["ensemble"]["characters"]
    phi_chars = sum(1 for d, g in zip(data.dev_docs, data.dev_gold)
                    for i in {i for s, e, _ in g for i in range(s, e)} if not d.text[i].isspace())
    assert ch["support"] == phi_chars
    assert ch["precision"] == 1.0 and ch["recall"] > 0.98 and ch["document_recall"] > 0.5   # the gold tags
    # the first note's PHI missed: its characters and the note itself count as missed
    first = [["O"] * len(gold_tags[0])] + gold_tags[1:]
    ch2 = tune_on_dev(cfg, data, ["crf"], {"crf": _one_hot(data, first)}, meta).metrics["ensemble"]["characters"]
    assert data.dev_gold[0]
    assert ch2["precision"] == 1.0 and ch2["recall"] < ch["recall"] and ch2["document_recall"] < ch["document_recall"]
