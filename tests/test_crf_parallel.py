"""CRF members fitted side by side (models/crf_parallel.py): the same members as one after another,
progress from every member, and a cancel or a dead child that stops everything and publishes nothing."""
from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path

import numpy as np
import pytest

from models.crf import CRFConfig, CRFMember
from models.crf_tags import Gazetteer
from models.crf_parallel import CRFFitFailed, fit_crfs, shared_features
from models.registry import list_versions
from models.trainer import TrainingCancelled, train_ensemble
from models.words import bio_labels, spans_to_bio, tokenize
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")


@pytest.fixture(scope="module")
def data():
    docs = read_collection(REPO / "tests" / "fixtures" / "meddocan" / "brat", "brat", MEDDOCAN)
    labels = bio_labels(MEDDOCAN.types)
    items = [(d.text, tokenize(d.text)) for d in docs]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(docs, items)]
    return docs, items, tags, labels


CONFIGS = {"crf": CRFConfig(max_iterations=6, clusters=False),
           "crf-l1": CRFConfig(max_iterations=6, c1=0.05, c2=0.01, clusters=False),
           "crf-rules": CRFConfig(max_iterations=6, rule_features=True, clusters=False)}


def test_shared_features_are_each_members_own(data):
    _, items, _, _ = data
    gaz = Gazetteer.for_locale("es")
    feats = shared_features(CONFIGS, items[:3], gaz, None)
    assert feats["crf"] is feats["crf-l1"]          # extracted once for both
    from models.crf import _features

    for name, cfg in CONFIGS.items():
        for (text, words), f in zip(items[:3], feats[name]):
            assert [sorted(x) for x in f] == [sorted(x) for x in _features(text, words, cfg, gaz, None)]


def test_side_by_side_gives_the_members_of_one_after_another(data, tmp_path):
    _, items, tags, labels = data
    gaz = Gazetteer.for_locale("es")
    seen: dict[str, list[int]] = {}
    got = {}
    for workers in (1, 2):
        root = tmp_path / f"w{workers}"
        iters: list[tuple[str, int]] = []
        got[workers] = fit_crfs(CONFIGS, items[:12], tags[:12], labels, gazetteer=gaz, clusters=None, save_root=root,
                                dev_items=items[12:], workers=workers,
                                on_iteration=lambda n, i, loss, _it=iters: _it.append((n, i)))
        seen[workers] = sorted({n for n, _ in iters})
        for name in CONFIGS:
            assert (root / name / "attributes.txt").is_file()
    assert seen[1] == seen[2] == sorted(CONFIGS)
    for name in CONFIGS:
        a = (tmp_path / "w1" / name / "attributes.txt").read_text(encoding="utf-8")
        b = (tmp_path / "w2" / name / "attributes.txt").read_text(encoding="utf-8")
        assert a == b
        for p, q in zip(got[1][name].dev_probs, got[2][name].dev_probs):
            assert np.array_equal(p, q)


def test_an_error_in_a_child_is_one_line_naming_the_member(data, tmp_path, monkeypatch):
    _, items, tags, labels = data
    real_save = CRFMember.save

    def save(self, directory):
        if self.name == "crf-l1":
            raise OSError("disk full")
        real_save(self, directory)

    monkeypatch.setattr(CRFMember, "save", save)      # inherited by the forked children
    two = {"crf": CONFIGS["crf"], "crf-l1": CONFIGS["crf-l1"]}
    with pytest.raises(CRFFitFailed) as e:
        fit_crfs(two, items[:6], tags[:6], labels, gazetteer=None, clusters=None, save_root=tmp_path, workers=2)
    assert str(e.value) == "fitting crf-l1 failed (OSError)"
    assert not mp.active_children()


def test_cancel_while_members_fit_side_by_side_publishes_nothing(data, tmp_path):
    docs = data[0]
    calls = {"n": 0}

    def should_stop() -> bool:
        calls["n"] += 1
        return calls["n"] > 8

    cfg = dict(members=["crf", "crf-l1"], seed=3, threads=1, refit_crf=False, crf={"max_iterations": 50, "clusters": False},
               crf_workers=2)
    with pytest.raises(TrainingCancelled):
        train_ensemble(docs[:12], docs[12:], MEDDOCAN, cfg, tmp_path, should_stop=should_stop)
    assert list_versions(tmp_path) == []
    assert not mp.active_children()
    assert [p for p in os.listdir(tmp_path) if not p.startswith(".")] == []


@pytest.mark.parametrize("workers", [1, 2])
def test_one_member_fitted_twice_at_once_on_a_prefix_and_on_everything(data, tmp_path, workers):
    """The trainer's first fit (training split, scored on dev) and refit (training + dev) of one
    member in one call: the prefix fit equals a fit on the prefix alone, and only it scores dev."""
    _, items, tags, labels = data
    cfg = CRFConfig(max_iterations=6, clusters=False)
    got = fit_crfs({"crf": cfg, "crf+dev": cfg}, items[:14], tags[:14], labels, gazetteer=None, clusters=None,
                   save_root=tmp_path / "both", dev_items=items[10:14], workers=workers, fit_on={"crf": 10},
                   dev_for={"crf"}, member_names={"crf+dev": "crf"})
    alone = fit_crfs({"crf": cfg}, items[:10], tags[:10], labels, gazetteer=None, clusters=None,
                     save_root=tmp_path / "alone", dev_items=items[10:14], workers=1)
    assert got["crf+dev"].dev_probs is None and len(got["crf"].dev_probs) == 4
    for p, q in zip(got["crf"].dev_probs, alone["crf"].dev_probs):
        np.testing.assert_allclose(p, q, atol=1e-6)
    refit = CRFMember.load(tmp_path / "both" / "crf+dev")
    assert refit.name == "crf"                                           # saved under the member's name
    assert set(refit.attrs) != set(CRFMember.load(tmp_path / "both" / "crf").attrs)   # learned from more notes


def test_training_with_parallel_crfs_and_refit_publishes_every_member(data, tmp_path):
    docs = data[0]
    events = []
    cfg = dict(members=["crf", "crf-l1", "crf-rules"], seed=3, threads=1, crf={"max_iterations": 8, "clusters": False},
               crf_workers=2)
    info = train_ensemble(docs[:12], docs[12:], MEDDOCAN, cfg, tmp_path, progress=events.append)
    for m in ("crf", "crf-l1", "crf-rules"):
        assert (Path(info.path) / "members" / m / "attributes.txt").is_file()
        assert "refit_seconds" in info.metrics[m] and 0 <= info.metrics[m]["strict"]["f1"] <= 1
    assert info.metrics["refit"] == ["crf", "crf-l1", "crf-rules"]       # every member was refit
    assert not (Path(info.path) / "refit").exists()
    assert sorted(p.name for p in (Path(info.path) / "members").iterdir()) == ["crf", "crf-l1", "crf-rules"]
    members = {e.member for e in events if e.member}      # a refit reports as "<member> refit": its own line
    assert members == {"crf", "crf-l1", "crf-rules", "crf refit", "crf-l1 refit", "crf-rules refit"}, members
    assert any("refit on train+dev" in e.message for e in events)
    done = [e.done for e in events]
    assert done == sorted(done) and events[-1].done == events[-1].total


def test_the_app_and_the_trainer_agree_on_the_default_members():
    from models.trainer import DEFAULT_MEMBERS, TrainConfig
    from services.training import DEFAULT_MEMBERS as APP_DEFAULT

    assert tuple(TrainConfig().members) == DEFAULT_MEMBERS == APP_DEFAULT == ("crf",)


def test_the_app_and_the_trainer_agree_on_the_default_surrogate_copies():
    from models.trainer import TrainConfig
    from services import training as tj

    cfg = TrainConfig()
    assert (cfg.augment_copies, cfg.augment_crf) == (tj.DEFAULT_AUGMENT_COPIES, tj.DEFAULT_AUGMENT_CRF) == (1, True)


def test_one_member_with_refit_fits_both_at_once_and_publishes_the_refit(data, tmp_path):
    docs = data[0]
    events = []
    cfg = dict(seed=3, threads=1, crf={"max_iterations": 8, "clusters": False}, crf_workers=2)
    info = train_ensemble(docs[:12], docs[12:], MEDDOCAN, cfg, tmp_path, progress=events.append)
    assert info.members == ["crf"] and info.metrics["refit"] == ["crf"]
    assert sorted(p.name for p in (Path(info.path) / "members").iterdir()) == ["crf"]
    # both fits reported iterations, the refit's marked as such, and progress never went back
    assert any(e.message.startswith("crf: iteration") for e in events)
    assert any(e.message.startswith("crf: refit on train+dev, iteration") for e in events)
    done = [e.done for e in events]
    assert done == sorted(done) and events[-1].done == events[-1].total


def test_a_member_saved_with_settings_this_version_lacks_is_refused_in_one_line(data, tmp_path):
    import json

    from models.crf import IncompatibleModel
    from pipeline.errors import is_user_error

    _, items, tags, labels = data
    fit_crfs({"crf": CRFConfig(max_iterations=3, clusters=False)}, items[:4], tags[:4], labels, gazetteer=None,
             clusters=None, save_root=tmp_path, workers=1)
    meta_path = tmp_path / "crf" / "member.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["config"]["word_freq"] = True                   # a feature a newer version might add
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(IncompatibleModel) as e:
        CRFMember.load(tmp_path / "crf")
    assert is_user_error(e.value) and "\n" not in str(e.value)
    assert "word_freq" in str(e.value) and "retrain" in str(e.value)
