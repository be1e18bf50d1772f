"""The hierarchical ensemble mode end to end (issue 17.1): a category CRF trained beside the type
members, stored in the version, joined with them at detection; forcing flat for the ablation;
old flat versions; the MASK-style member choice per category; the command line.

Tiny CRFs (15 iterations) on the 16-document MEDDOCAN fixture: mechanics, not accuracy. No
document text is printed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from models.decode import LabelIndex
from models.ensemble import Ensemble, combine_members, label_vote_weights, vote
from models.registry import list_versions
from models.trainer import CATEGORY_MEMBER, train_ensemble
from models.words import spans_to_bio, tokenize
from pipeline.detection.detector import Detector
from pipeline.detection.hierarchy import UNCERTAIN_SCORE
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Span

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "meddocan" / "brat"


def tiny(**over) -> dict:
    cfg = dict(members=["crf", "crf-l1"], seed=7, threads=1, refit_crf=False, crf={"max_iterations": 15},
               crf_workers=1)
    cfg.update(over)
    return cfg


@pytest.fixture(scope="module")
def docs():
    return read_collection(FIXTURE, "brat", MEDDOCAN)


@pytest.fixture(scope="module")
def hier(tmp_path_factory, docs):
    out = tmp_path_factory.mktemp("hier")
    events = []
    # two workers: the category member is fitted in a forked child beside the type members
    info = train_ensemble(docs[:12], docs[12:], MEDDOCAN,
                          tiny(mode="hierarchical", name="h-1", refit_crf=True, crf_workers=2), out,
                          progress=events.append)
    return info, events


@pytest.fixture(scope="module")
def flat(tmp_path_factory, docs):
    out = tmp_path_factory.mktemp("flat")
    return train_ensemble(docs[:12], docs[12:], MEDDOCAN, tiny(name="f-1"), out)


def _labels_ok(spans) -> bool:
    return all(MEDDOCAN.has(s.category, s.type) for s in spans)


# ----------------------------------------------------------------------------------- training
def test_hierarchical_version_stores_its_category_member_and_mode(hier):
    info, events = hier
    p = Path(info.path)
    stored = json.loads((p / "version.json").read_text())
    assert stored["mode"] == "hierarchical" and stored["category_member"] == CATEGORY_MEMBER
    assert (p / "members" / CATEGORY_MEMBER / "member.json").is_file()
    assert info.members == ["crf", "crf-l1"]                     # the category member is not a type member
    cats = [lab[2:] for lab in info.category_labels[1::2]]
    assert cats and set(cats) <= set(MEDDOCAN.categories)
    member = json.loads((p / "members" / CATEGORY_MEMBER / "member.json").read_text())
    assert member["labels"] == info.category_labels             # trained on category tags, not types
    assert set(info.category_thresholds) <= set(cats)
    for c, t in info.fallback_types.items():
        assert MEDDOCAN.has(c, t)
    h = info.metrics["hierarchical"]
    assert 0.0 < h["strict"]["f1"] <= 1.0
    assert sum(h["outcomes"][k] for k in ("type", "category_other", "disagree", "type_only")) > 0
    assert info.metrics[CATEGORY_MEMBER]["level"] == "category"
    assert info.metrics["refit"] == ["crf", "crf-l1", CATEGORY_MEMBER]
    dones = [e.done for e in events]
    assert dones == sorted(dones) and dones[-1] == events[-1].total
    assert any(e.member == CATEGORY_MEMBER for e in events)


def test_hierarchical_version_reloads_and_detects_schema_labels_only(hier, docs):
    info, _ = hier
    det = Detector.load(info.path)
    assert det.ensemble.hierarchical and "hierarchical" in det.parts[0]
    out = det.detect_many(docs[12:])
    assert any(out) and all(_labels_ok(spans) for spans in out)
    det.ensemble.outcomes.clear()
    model_spans = det.ensemble.predict([d.text for d in docs[12:]], [d.doc_id for d in docs[12:]])
    assert sum(det.ensemble.outcomes[k] for k in ("type", "category_other", "disagree", "type_only")) == \
        sum(map(len, model_spans)) > 0


def test_forcing_flat_gives_the_type_ensemble_and_never_loads_the_category_member(hier, docs):
    info, _ = hier
    forced = Detector.load(info.path, rules=False, dictionaries=False, mode="flat")
    got = forced.detect_many(docs[12:])
    assert forced.ensemble._category is None and "hierarchical" not in forced.parts[0]
    ens = Ensemble.load(info.path)
    items = [(d.text, tokenize(d.text)) for d in docs[12:]]
    per = ens._probs_of(ens.active_members, items, None)
    typed = ens._decode_types(items, ens._combined(per, len(items)), [d.doc_id for d in docs[12:]], True)
    assert [[(s.start, s.end, s.type) for s in x] for x in got] == [[(s.start, s.end, s.type) for s in x]
                                                                    for x in typed]


class StubCategories:
    """A category member that says what the test wants: one-hot category BIO tags per document."""

    def __init__(self, labels: list[str], spans_of):
        self.labels = labels
        self.spans_of = spans_of

    def predict_proba(self, items):
        index = LabelIndex.of(self.labels)
        out = []
        for text, words in items:
            tags = spans_to_bio(words, self.spans_of(text), self.labels)
            p = np.full((len(words), len(self.labels)), 1e-4, dtype=np.float32)
            for k, t in enumerate(tags):
                p[k, index.labels.index(t)] = 1.0
            out.append(p / p.sum(axis=1, keepdims=True))
        return out


def test_a_disagreement_becomes_an_other_span_flagged_for_review(hier, docs):
    info, _ = hier
    flat_ens = Ensemble.load(info.path, mode="flat")
    doc = next(d for d in docs[12:] if flat_ens.predict([d.text], [d.doc_id])[0])
    flat_spans = flat_ens.predict([doc.text], [doc.doc_id])[0]
    target = flat_spans[0]
    other_cat = "DATE" if target.category != "DATE" else "NAME"
    labels = info.category_labels
    assert f"B-{other_cat}" in labels

    def with_stub(spans_of) -> Ensemble:      # a fresh ensemble: its CRF stacks are built on first use
        e = Ensemble.load(info.path)
        e._category = StubCategories(labels, spans_of)
        return e

    ens = with_stub(lambda text: [Span("x", target.start, target.end, other_cat)])
    got = ens.predict([doc.text], [doc.doc_id])[0]
    joined = [s for s in got if s.start == target.start and s.end == target.end]
    assert len(joined) == 1
    assert (joined[0].category, joined[0].type) == ("OTHER", "OTROS_SUJETO_ASISTENCIA")
    assert joined[0].score == UNCERTAIN_SCORE
    assert ens.outcomes["disagree"] == 1 and ens.outcomes["flagged"] == 1
    assert _labels_ok(got)
    # the category model alone finds PHI where the types found none: the category's other type
    free = next(i for i in range(len(doc.text) - 4) if doc.text[i:i + 4].isalpha()
                and not any(s.start < i + 4 and i < s.end for s in flat_spans)
                and (i == 0 or not doc.text[i - 1].isalnum()) and not doc.text[i + 4].isalnum())
    ens = with_stub(lambda text: [Span("x", free, free + 4, "ID")])
    got = ens.predict([doc.text], [doc.doc_id])[0]
    extra = [s for s in got if s.start == free]
    assert [(s.category, s.type) for s in extra] == [("ID", "OTRO_NUMERO_IDENTIF")]


# ------------------------------------------------------------------------------ old versions
def test_a_flat_version_records_flat_and_an_old_one_without_the_keys_loads_flat(flat, docs, tmp_path):
    stored = json.loads((Path(flat.path) / "version.json").read_text())
    assert stored["mode"] == "flat" and stored["category_member"] == "" and stored["category_members"] == {}
    old = tmp_path / "old"
    import shutil

    shutil.copytree(flat.path, old)
    for k in ("mode", "category_member", "category_labels", "category_thresholds", "fallback_types",
              "category_members"):
        stored.pop(k)
    (old / "version.json").write_text(json.dumps(stored))
    ens = Ensemble.load(old)
    assert ens.mode == "flat" and not ens.hierarchical and ens.label_weights is None
    new = Ensemble.load(flat.path)
    texts, ids = [d.text for d in docs[12:]], [d.doc_id for d in docs[12:]]
    assert [[(s.start, s.end, s.type, s.score) for s in x] for x in ens.predict(texts, ids)] == \
        [[(s.start, s.end, s.type, s.score) for s in x] for x in new.predict(texts, ids)]
    with pytest.raises(ValueError, match="trained flat"):
        ens.set_mode("hierarchical")
    with pytest.raises(ValueError, match="unknown ensemble mode"):
        ens.set_mode("tree")


# ------------------------------------------------------------------ member choice per category
def test_vote_weights_give_a_category_only_its_listed_members():
    labels = ["O", "B-FECHAS", "I-FECHAS", "B-HOSPITAL", "I-HOSPITAL"]
    w = label_vote_weights(["crf", "crf-l1"], [1.0, 2.0], labels, MEDDOCAN, {"DATE": ["crf-l1"]})
    assert w.tolist() == [[1.0, 0.0, 0.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0]]
    # a category whose listed members are all absent (an ablation subset) keeps every member
    w2 = label_vote_weights(["crf"], [1.0], labels, MEDDOCAN, {"DATE": ["crf-l1"]})
    assert w2.tolist() == [[1.0] * 5]
    assert label_vote_weights(["crf"], [1.0], labels, MEDDOCAN, {}) is None
    a = np.array([[0.9, 0.0, 0.0, 0.1, 0.0], [0.2, 0.0, 0.0, 0.0, 0.8]], dtype=np.float32)
    b = np.array([[0.3, 0.7, 0.0, 0.0, 0.0], [0.2, 0.0, 0.0, 0.0, 0.8]], dtype=np.float32)
    v = vote([a, b], w)
    assert np.allclose(v.sum(axis=1), 1.0)
    avg = combine_members({"crf": [a], "crf-l1": [b]}, ["crf", "crf-l1"], [1.0, 2.0], 1)[0]
    assert v[0, 1] > avg[0, 1]            # crf's "no date" does not dilute crf-l1's date vote
    assert np.allclose(v[1], avg[1])      # where the members agree, the vote is the average


def test_category_members_are_stored_and_used_at_detection(docs, tmp_path):
    info = train_ensemble(docs[:12], docs[12:], MEDDOCAN, tiny(category_members={"DATE": ["crf-l1"]}, name="m-1"),
                          tmp_path)
    assert json.loads((Path(info.path) / "version.json").read_text())["category_members"] == {"DATE": ["crf-l1"]}
    ens = Ensemble.load(info.path)
    assert ens.label_weights is not None
    out = ens.predict([d.text for d in docs[12:]], [d.doc_id for d in docs[12:]])
    assert all(_labels_ok(x) for x in out)
    for bad in ({"PLACE": ["crf"]}, {"DATE": ["bert"]}, {"DATE": []}):
        with pytest.raises(ValueError, match="category members"):
            train_ensemble(docs[:12], docs[12:], MEDDOCAN, tiny(category_members=bad), tmp_path / "bad")
    with pytest.raises(ValueError, match="unknown ensemble mode"):
        train_ensemble(docs[:12], docs[12:], MEDDOCAN, tiny(mode="tree"), tmp_path / "bad")
    assert not list_versions(tmp_path / "bad")


# ------------------------------------------------------------------------------ command line
def _cli(*args: str, timeout: int = 180):
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "pipeline", "train", "--train", str(FIXTURE), "--no-progress",
                           *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


def test_train_command_with_mode_hierarchical(tmp_path):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"crf": {"max_iterations": 8}, "refit_crf": False, "crf_workers": 1}))
    r = _cli("--out", str(tmp_path / "m"), "--members", "crf", "--mode", "hierarchical", "--config", str(cfg),
             "--category-members", "NAME=crf")
    assert r.returncode == 0, r.stderr[-500:]
    [v] = list_versions(tmp_path / "m")
    assert v.mode == "hierarchical" and v.category_member == CATEGORY_MEMBER and v.category_members == {"NAME": ["crf"]}
    assert "hierarchical" in r.stdout and "flagged for review" in r.stdout
    assert "dev characters (model alone, any label): P " in r.stdout and "document recall" in r.stdout


def test_train_command_bad_mode_is_one_line(tmp_path):
    r = _cli("--out", str(tmp_path / "m"), "--members", "crf", "--mode", "tree", timeout=120)
    assert r.returncode == 1 and r.stderr.startswith("error:") and "unknown --mode 'tree'" in r.stderr
    assert r.stderr.strip().count("\n") == 0
    assert not (tmp_path / "m").exists()


def test_category_members_option_is_parsed_or_refused_in_one_line():
    from cli.commands.train import parse_category_members

    assert parse_category_members("NAME=crf,crf-rules; DATE=crf;") == {"NAME": ["crf", "crf-rules"], "DATE": ["crf"]}
    for bad in ("NAME", "NAME=", "=crf", "NAME=crf;NAME=crf-l1"):
        with pytest.raises(ValueError, match="--category-members") as e:
            parse_category_members(bad)
        assert "\n" not in str(e.value)
