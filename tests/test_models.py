"""Detection models: word grid, windows, members, thresholds, split, versions, registry.

Tiny models (hidden 32, one epoch) on the 16-document MEDDOCAN fixture: these tests check
mechanics (offsets, persistence, atomicity, tuning), not accuracy. No document text is printed.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from models.crf import CRFConfig, CRFMember
from models.crf_tags import Gazetteer, pattern_tags
from models.decode import GRID, LabelIndex, decode, decode_many, thresholds_array, tune_thresholds
from models.encoder import EncoderMember
from models.encoder_config import EncoderConfig
from models.encoder_windows import windows
from models.ensemble import Ensemble
from models.registry import active_version, list_versions, resolve, set_active
from models.split import patient_of, patient_split
from models.trainer import TrainConfig, TrainingCancelled, train_ensemble
from models.version import TMP_PREFIX, remove_stale_tmp
from models.words import bio_labels, spans_to_bio, tokenize
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span

REPO = Path(__file__).resolve().parents[1]

TINY_ENCODER = dict(hidden=32, layers=1, heads=2, intermediate=64, embedding_size=16, vocab_size=600,
                    max_len=48, overlap=12, epochs=1, batch_size=8, lr=3e-3)


def tiny_config(**over) -> dict:
    cfg = dict(members=["crf", "bert", "electra"], seed=7, threads=1, refit_crf=False,
               encoders={"bert": dict(TINY_ENCODER), "electra": dict(TINY_ENCODER)},
               crf={"max_iterations": 15})
    cfg.update(over)
    return cfg


@pytest.fixture(scope="module")
def sample_docs() -> list[Document]:
    torch.set_num_threads(1)
    return read_collection(REPO / "tests" / "fixtures" / "meddocan" / "brat", "brat", MEDDOCAN)


def _gold(doc: Document) -> list[tuple[int, int, str]]:
    return [(s.start, s.end, s.type) for s in doc.spans]


@pytest.fixture(scope="module")
def trained(tmp_path_factory, sample_docs):
    """One tiny ensemble for the module: trained on 12 documents, dev on 4."""
    out = tmp_path_factory.mktemp("models")
    events = []
    info = train_ensemble(sample_docs[:12], sample_docs[12:], MEDDOCAN, tiny_config(name="tiny-1"), out,
                          progress=events.append)
    return out, info, events


# --------------------------------------------------------------------------------- word grid
def test_word_tokens_are_exact_character_spans(sample_docs):
    for d in sample_docs:
        w = tokenize(d.text)
        assert all(d.text[s:e] == t for t, s, e in zip(w.tokens, w.starts, w.ends))
        assert all(a <= b for a, b in zip(w.ends, w.starts[1:]))
        assert not any(c.isspace() for t in w.tokens for c in t)


def test_glued_words_are_cut_where_case_changes():
    text = "Médico: Gastón MartínezNºCol: 28. Por DRAlberto."
    toks = tokenize(text).tokens
    assert "Martínez" in toks and "Alberto" in toks and "DR" in toks


def test_bio_round_trip_reproduces_gold_offsets(sample_docs):
    """Gold spans -> BIO -> one-hot probabilities -> decode gives back the very same spans."""
    labels = bio_labels(MEDDOCAN.types)
    index = LabelIndex.of(labels)
    col = {l: i for i, l in enumerate(labels)}
    n_checked = 0
    for d in sample_docs:
        w = tokenize(d.text)
        tags = spans_to_bio(w, d.spans, labels)
        p = np.zeros((len(w), len(labels)), dtype=np.float32)
        p[np.arange(len(w)), [col[t] for t in tags]] = 1.0
        got = {(s, e, t) for s, e, t, _ in decode(p, w, index)}
        aligned = {g for g in _gold(d) if g[0] in w.starts and g[1] in w.ends}
        assert aligned <= got
        n_checked += len(aligned)
    assert n_checked > 200


# ------------------------------------------------------------------------------------ windows
@pytest.mark.parametrize("n,size,overlap", [(0, 10, 2), (5, 10, 2), (10, 10, 2), (11, 10, 2), (95, 16, 4), (300, 64, 16)])
def test_windows_cover_every_position_with_overlap(n, size, overlap):
    ws = windows(n, size, overlap)
    covered = np.zeros(n, dtype=int)
    for a, b in ws:
        assert 0 <= a < b <= n or n == 0
        assert b - a <= size
        covered[a:b] += 1
    assert (covered >= 1).all()
    for (a1, b1), (a2, b2) in zip(ws, ws[1:]):
        assert b1 - a2 >= overlap and b2 > b1


class _EchoModel(torch.nn.Module):
    """Logits that depend on each piece's id only: label = id mod L (a model with no context)."""

    def __init__(self, n_labels: int):
        super().__init__()
        self.n = n_labels

    def forward(self, input_ids, attention_mask=None):
        logits = torch.nn.functional.one_hot(input_ids % self.n, self.n).float() * 20.0

        class Out:
            pass

        o = Out()
        o.logits = logits
        return o


def test_windowing_maps_every_word_back_exactly(sample_docs):
    """A document many windows long: each word gets the prediction made on its own first piece,
    and decoded spans sit exactly on the words' character offsets."""
    from models.subwords import train_wordpiece

    labels = ["O", "B-FECHAS", "I-FECHAS", "B-CALLE", "I-CALLE"]
    tok = train_wordpiece([d.text for d in sample_docs], vocab_size=400)
    cfg = EncoderConfig(max_len=16, overlap=4)
    member = EncoderMember("echo", labels, cfg, tok, _EchoModel(len(labels)))
    doc = max(sample_docs, key=lambda d: len(d.text))
    words = tokenize(doc.text)
    (ids, wids), = tok.encode_words([words.tokens])
    assert len(ids) > 10 * cfg.max_len  # many windows
    probs = member.predict_proba([(doc.text, words)])[0]
    first_ids = {}
    for i, w in zip(ids, wids):
        first_ids.setdefault(w, i)
    expected = np.array([first_ids[k] % len(labels) if k in first_ids else 0 for k in range(len(words))])
    assert (probs.argmax(axis=1) == expected).all()
    # the echo labels are arbitrary (I- after O, B- glued to I-, near-ties at 1e-9), so the
    # BIO-consistent path may move a few of them; nearly every span rests on words of its type
    on_type = 0
    decoded = decode(probs, words, LabelIndex.of(labels))
    for s, e, t, _ in decoded:
        assert s in words.starts and e in words.ends
        k0, k1 = words.starts.index(s), words.ends.index(e)
        on_type += all(expected[k] in (labels.index(f"B-{t}"), labels.index(f"I-{t}")) for k in range(k0, k1 + 1))
    assert len(decoded) > 20 and on_type >= 0.9 * len(decoded)


# -------------------------------------------------------------------------------------- members
def test_crf_marginals_match_crfsuite(sample_docs, tmp_path):
    import pycrfsuite

    from models.crf import _features

    labels = bio_labels(MEDDOCAN.types)
    items = [(d.text, tokenize(d.text)) for d in sample_docs[:8]]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(sample_docs[:8], items)]
    cfg = CRFConfig(max_iterations=20)
    trainer = pycrfsuite.Trainer(verbose=False)
    gaz = Gazetteer.for_locale("es")
    for (t, w), y in zip(items, tags):
        trainer.append(_features(t, w, cfg, gaz), y)
    trainer.set_params({"c1": cfg.c1, "c2": cfg.c2, "max_iterations": 20, "feature.possible_transitions": True})
    path = str(tmp_path / "m.crfsuite")
    trainer.train(path)
    member = CRFMember._from_crfsuite("crf", path, labels, cfg, gaz)
    tagger = pycrfsuite.Tagger()
    tagger.open(path)
    text, words = items[-1]
    probs = member.predict_proba([(text, words)])[0]
    tagger.set(_features(text, words, cfg, gaz))
    for k, label in enumerate(labels):
        if label in tagger.labels():
            ref = np.array([tagger.marginal(label, i) for i in range(len(words))])
            assert np.abs(ref - probs[:, k]).max() < 1e-4
    assert [labels[k] for k in probs.argmax(axis=1)] == tagger.tag()


def test_the_manufacturers_list_is_a_dictionary_not_a_crf_feature():
    """Measured: as a CRF feature it cost span recall; detection still matches it as a dictionary."""
    from pipeline.locales import available_lists

    assert "manufacturers" in available_lists("es")
    names = {n for ns in Gazetteer.for_locale("es").table.values() for n in ns}
    assert "organizations" in names and "manufacturers" not in names
    assert "first_names_female" not in names


def test_encoder_save_and_reload_offline_gives_identical_predictions(sample_docs, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    labels = bio_labels(MEDDOCAN.types)
    items = [(d.text, tokenize(d.text)) for d in sample_docs[:3]]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(sample_docs, items)]
    for arch in ("bert", "electra", "roberta"):
        cfg = EncoderConfig.from_dict({**TINY_ENCODER, "arch": arch, "seed": 3})
        member = EncoderMember.train(arch, items, tags, labels, cfg)
        before = member.predict_proba(items[:3])
        member.save(tmp_path / arch)
        again = EncoderMember.load(tmp_path / arch).predict_proba(items[:3])
        for a, b in zip(before, again):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, atol=1e-6)


def test_encoder_training_is_seeded(sample_docs):
    labels = bio_labels(MEDDOCAN.types)
    items = [(d.text, tokenize(d.text)) for d in sample_docs[:4]]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(sample_docs, items)]
    cfg = dict(TINY_ENCODER, seed=11, mlm_epochs=1)
    p1 = EncoderMember.train("b", items, tags, labels, EncoderConfig.from_dict(cfg)).predict_proba(items[:1])[0]
    p2 = EncoderMember.train("b", items, tags, labels, EncoderConfig.from_dict(cfg)).predict_proba(items[:1])[0]
    np.testing.assert_allclose(p1, p2, atol=1e-6)


def test_encoder_initialised_from_local_checkpoint(sample_docs, tmp_path, monkeypatch):
    """init_from loads a local directory (weights + fast tokenizer) with no network access."""
    from transformers import BertConfig, BertForMaskedLM, PreTrainedTokenizerFast

    from models.subwords import train_wordpiece

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    tok = train_wordpiece([d.text for d in sample_docs], vocab_size=500)
    ckpt = tmp_path / "ckpt"
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok.tok, unk_token="[UNK]", pad_token="[PAD]",
                                     cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    hf_tok.save_pretrained(str(ckpt))
    BertForMaskedLM(BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                               intermediate_size=64, max_position_embeddings=64)).save_pretrained(str(ckpt))
    labels = bio_labels(MEDDOCAN.types)
    items = [(d.text, tokenize(d.text)) for d in sample_docs[:3]]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(sample_docs, items)]
    cfg = EncoderConfig.from_dict({**TINY_ENCODER, "init_from": str(ckpt), "max_len": 128})
    member = EncoderMember.train("ck", items, tags, labels, cfg)
    assert member.config.max_len == 64  # capped by the checkpoint's positions
    assert member.model.config.num_labels == len(labels)
    member.save(tmp_path / "member")
    np.testing.assert_allclose(member.predict_proba(items[:1])[0],
                               EncoderMember.load(tmp_path / "member").predict_proba(items[:1])[0], atol=1e-6)


# ---------------------------------------------------------------------------------- thresholds
def _toy_probs(p_values: list[float], labels: list[str]):
    """One document 'x x x ...': word k is a FECHAS entity with PHI probability p_values[k]."""
    text = " ".join(["x"] * len(p_values))
    words = tokenize(text)
    probs = np.zeros((len(words), len(labels)), dtype=np.float32)
    for k, p in enumerate(p_values):
        probs[k, 0] = 1 - p
        probs[k, labels.index("B-FECHAS")] = p
    gold = [(words.starts[k], words.ends[k], "FECHAS") for k in range(len(p_values))]
    return probs, words, gold


@pytest.mark.parametrize("measure", ["token", "strict"])
def test_thresholds_reach_the_target_recall(measure):
    labels = bio_labels(["FECHAS", "CALLE"])
    index = LabelIndex.of(labels)
    ps = [0.95] * 80 + [0.6] * 10 + [0.3] * 8 + [0.12] * 2
    probs, words, gold = _toy_probs(ps, labels)
    for target, expect in ((0.8, 0.5), (0.9, 0.5), (0.98, 0.3), (1.0, 0.1)):
        thr = tune_thresholds([probs], [words], [gold], index, target_recall=target, measure=measure)
        assert thr["FECHAS"] == pytest.approx(expect)
        found = decode_many([probs], [words], index, thresholds_array(index, thr))[0]
        assert len(set(found) & set(gold)) / len(gold) >= target
    # a type too rare to tune gets the pooled threshold
    thr = tune_thresholds([probs], [words], [gold], index, target_recall=0.9)
    assert thr["CALLE"] == thr["FECHAS"]


def test_unreachable_target_keeps_the_best_recall():
    labels = bio_labels(["FECHAS"])
    index = LabelIndex.of(labels)
    probs, words, gold = _toy_probs([0.9] * 10 + [0.32] * 5 + [0.01] * 2, labels)
    thr = tune_thresholds([probs], [words], [gold], index, target_recall=0.99)
    assert thr["FECHAS"] == pytest.approx(0.3)  # best reachable recall (15/17), highest such threshold
    assert min(GRID) > 0.01 and max(GRID) == 0.5  # tuning never raises a threshold above the plain decision


# -------------------------------------------------------------------------------------- split
def test_patient_split_is_disjoint_and_complete():
    docs = [Document(f"d{i}", "x", patient_id=f"p{i % 7}") for i in range(40)] + \
           [Document(f"solo{i}", "x") for i in range(10)]
    train, dev = patient_split(docs, dev_fraction=0.2, seed=1)
    assert sorted(d.doc_id for d in train + dev) == sorted(d.doc_id for d in docs)
    assert not {patient_of(d) for d in train} & {patient_of(d) for d in dev}
    assert 5 <= len(dev) <= 18
    again = patient_split(list(reversed(docs)), dev_fraction=0.2, seed=1)
    assert {d.doc_id for d in again[1]} == {d.doc_id for d in dev}
    assert {d.doc_id for d in patient_split(docs, 0.2, seed=2)[1]} != {d.doc_id for d in dev}


def test_patient_split_without_patient_ids_uses_documents():
    docs = [Document(f"d{i}", "x") for i in range(20)]
    train, dev = patient_split(docs, dev_fraction=0.25, seed=3)
    assert len(dev) == 5 and len(train) == 15
    one = [Document(f"d{i}", "x", patient_id="same") for i in range(6)]
    assert patient_split(one, 0.3) == (one, [])


# ------------------------------------------------------------------------- training and versions
def test_train_ensemble_writes_a_complete_version(trained):
    out, info, events = trained
    p = Path(info.path)
    assert p.parent == out and p.name == "tiny-1"
    for f in ("version.json", "schema.json", "labels.json", "thresholds.json", "config.json", "metrics.json"):
        assert (p / f).is_file(), f
    for m in ("crf", "bert", "electra"):
        assert (p / "members" / m / "member.json").is_file()
    assert (p / "members" / "bert" / "tokenizer" / "tokenizer.json").is_file()
    assert not [x for x in out.iterdir() if x.name.startswith(TMP_PREFIX)]
    metrics = json.loads((p / "metrics.json").read_text())
    assert {"ensemble", "ensemble@0.5", "crf", "bert", "electra"} <= set(metrics)
    assert "per_type" in metrics["ensemble"] and metrics["ensemble"]["strict"]["tp"] > 0
    thr = json.loads((p / "thresholds.json").read_text())
    assert thr["target_recall"] == 0.99 and set(thr["thresholds"]) == {l[2:] for l in info.labels[1::2]}
    assert info.locale == "es" and info.schema_name == "meddocan"
    # progress: monotone, ends at total, carries losses and dev F1
    done = [e.done for e in events]
    assert done == sorted(done) and events[-1].done == events[-1].total
    assert any(e.loss is not None for e in events) and any(e.dev_f1 is not None for e in events)


def test_reloaded_version_reproduces_dev_metrics_offline(trained, sample_docs):
    """Load from disk (HF_HUB_OFFLINE=1, in a fresh process) and get the same predictions."""
    out, info, _ = trained
    dev = sample_docs[12:]
    ens = Ensemble.load(info.path)
    spans = ens.predict([d.text for d in dev], [d.doc_id for d in dev])
    from models.scoring import score
    sc = score([[(s.start, s.end, s.type) for s in ss] for ss in spans], [_gold(d) for d in dev])
    assert sc.f1 == pytest.approx(info.metrics["ensemble"]["strict"]["f1"], abs=1e-9)
    code = (
        "import json,sys,torch; torch.set_num_threads(1)\n"
        "from models.ensemble import Ensemble\n"
        "from pipeline.formats import read_collection\n"
        "from pipeline.schemas import MEDDOCAN\n"
        f"docs = read_collection({str(REPO / 'tests/fixtures/meddocan/brat')!r}, 'brat', MEDDOCAN)[12:]\n"
        f"ens = Ensemble.load({info.path!r})\n"
        "out = ens.predict([d.text for d in docs], [d.doc_id for d in docs])\n"
        "print(json.dumps([[s.to_dict() for s in ss] for ss in out]))\n"
    )
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(REPO))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    fresh = [[Span.from_dict(x) for x in ss] for ss in json.loads(res.stdout)]
    assert fresh == spans


def test_cancelled_training_publishes_nothing(trained, sample_docs):
    out, info, _ = trained
    before = {p.name: p.stat().st_mtime_ns for p in Path(info.path).rglob("*")}
    set_active(out, info.name)
    calls = {"n": 0}

    def stop() -> bool:
        calls["n"] += 1
        return calls["n"] > 30  # well into the second member

    with pytest.raises(TrainingCancelled):
        train_ensemble(sample_docs[:12], sample_docs[12:], MEDDOCAN, tiny_config(name="tiny-2"), out,
                       should_stop=stop)
    assert [v.name for v in list_versions(out)] == [info.name]
    assert not [x for x in out.iterdir() if x.name.startswith(TMP_PREFIX)]
    assert {p.name: p.stat().st_mtime_ns for p in Path(info.path).rglob("*")} == before
    assert active_version(out) == info.name

    def boom() -> bool:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_ensemble(sample_docs[:12], sample_docs[12:], MEDDOCAN, tiny_config(name="tiny-3"), out,
                       should_stop=boom)
    assert [v.name for v in list_versions(out)] == [info.name]


def test_killed_training_process_leaves_previous_version_intact(trained, tmp_path):
    out, info, _ = trained
    set_active(out, info.name)
    before = {p.relative_to(out).as_posix(): p.read_bytes() for p in Path(info.path).rglob("*") if p.is_file()}
    cfg = tmp_path / "cfg.json"
    slow = tiny_config()
    slow["encoders"]["bert"]["epochs"] = 50
    cfg.write_text(json.dumps(slow))
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "train", "--train", str(REPO / "tests/fixtures/meddocan/brat"),
         "--format", "brat", "--schema", "meddocan", "--out", str(out), "--config", str(cfg),
         "--threads", "1", "--no-progress", "--name", "killed-1"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 90
        while time.time() < deadline and proc.poll() is None:
            tmp = [x for x in out.iterdir() if x.name.startswith(TMP_PREFIX)]
            if tmp and (tmp[0] / "members" / "crf" / "member.json").exists():
                break
            time.sleep(0.2)
        assert proc.poll() is None, "training finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert [v.name for v in list_versions(out)] == [info.name]
    assert not (out / "killed-1").exists()
    assert resolve(out) == Path(info.path)
    assert active_version(out) == info.name
    after = {p.relative_to(out).as_posix(): p.read_bytes() for p in Path(info.path).rglob("*") if p.is_file()}
    assert after == before
    assert remove_stale_tmp(out)  # the dead run's directory is cleaned up
    assert not [x for x in out.iterdir() if x.name.startswith(TMP_PREFIX)]


def test_versions_are_immutable(trained, sample_docs):
    out, info, _ = trained
    with pytest.raises(FileExistsError):
        train_ensemble(sample_docs[:12], sample_docs[12:], MEDDOCAN, tiny_config(name=info.name, members=["crf"]), out)
    assert [v.name for v in list_versions(out)] == [info.name]


def test_member_names():
    from models.trainer import TrainConfig, member_kind

    assert member_kind("crf") == member_kind("crf-l1") == member_kind("crf-rules") == "crf"
    assert member_kind("bert") == member_kind("electra") == member_kind("roberta") == "encoder"
    for bad in ("lstm", "crf-", "crf-../x", "crf x"):
        with pytest.raises(ValueError):
            member_kind(bad)
    cfg = TrainConfig(crf={"max_iterations": 7}, crfs={"crf-l1": {"c2": 0.3}})
    assert cfg.crf_config("crf-l1").c1 == 0.05 and cfg.crf_config("crf-l1").c2 == 0.3
    assert cfg.crf_config("crf").c1 == 0.0 and cfg.crf_config("crf-rules").rule_features
    assert cfg.crf_config("crf").max_iterations == 7


def test_train_command_reports_bad_settings_as_one_line(tmp_path):
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-m", "pipeline", "train", "--train", str(REPO / "tests/fixtures/meddocan/brat"),
                        "--out", str(tmp_path / "m"), "--members", "crf,lstm", "--no-progress"],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and r.stderr.startswith("error:") and "lstm" in r.stderr
    assert not (tmp_path / "m").exists() or not list_versions(tmp_path / "m")


def test_registry_resolves_active_then_newest(tmp_path, trained):
    out, info, _ = trained
    assert resolve(info.path) == Path(info.path)
    assert resolve(out) == Path(info.path)
    with pytest.raises(FileNotFoundError):
        resolve(tmp_path / "none")
    with pytest.raises(FileNotFoundError):
        set_active(out, "no-such-version")


def test_pattern_features_mark_dates_and_emails():
    text = "Fecha: 03/03/1946 correo abc.def@hotmail.com tel 633 349 565"
    w = tokenize(text)
    tags = pattern_tags(text, w)
    marked = {w.tokens[i] for i, t in enumerate(tags) if "re:date" in t}
    assert {"03", "1946", "/"} <= marked
    assert any("re:email" in t for t in tags) and any("re:phone" in t for t in tags)


def _probs(rows: list[dict[str, float]], labels: list[str]) -> np.ndarray:
    p = np.zeros((len(rows), len(labels)), dtype=np.float32)
    for k, r in enumerate(rows):
        for lab, v in r.items():
            p[k, labels.index(lab)] = v
        p[k, 0] = 1.0 - sum(r.values())
    return p


def test_decode_keeps_an_entity_whole_across_an_uncertain_middle_token():
    """Per-token argmax would give "Natalia" and "Palacios" (the middle token leans O); the
    BIO-consistent path keeps the three-word name as one span."""
    text = "Natalia Ontiveros Palacios vino"
    words = tokenize(text)
    labels = ["O", "B-NOMBRE", "I-NOMBRE"]
    p = _probs([{"B-NOMBRE": 0.95}, {"I-NOMBRE": 0.45}, {"I-NOMBRE": 0.9}, {}], labels)
    got = [(s, e, t) for s, e, t, _ in decode(p, words, LabelIndex.of(labels))]
    assert got == [(0, 26, "NOMBRE")]
    # and a lone I- with no B before it still opens a span (the path turns it into B)
    p2 = _probs([{}, {"I-NOMBRE": 0.97}, {}, {}], labels)
    assert [(s, e) for s, e, _, _ in decode(p2, words, LabelIndex.of(labels))] == [(8, 17)]


def test_decode_threshold_buys_recall_per_type():
    text = "vive en Lugo desde marzo"
    words = tokenize(text)
    labels = ["O", "B-CIUDAD", "I-CIUDAD", "B-FECHA", "I-FECHA"]
    idx = LabelIndex.of(labels)
    p = _probs([{}, {}, {"B-CIUDAD": 0.3}, {}, {"B-FECHA": 0.3}], labels)
    assert decode(p, words, idx) == []
    got = decode(p, words, idx, thresholds_array(idx, {"CIUDAD": 0.25}))
    assert [(s, e, t) for s, e, t, _ in got] == [(8, 12, "CIUDAD")]
    assert abs(got[0][3] - 0.3) < 1e-6  # score: the mean PHI probability of its tokens


def test_decode_never_starts_a_same_type_span_on_a_glued_token():
    text = "10/10/1963"
    words = tokenize(text)
    labels = ["O", "B-FECHAS", "I-FECHAS"]
    # every token leans B: argmax would give five touching dates; the glued rule gives one
    p = _probs([{"B-FECHAS": 0.6, "I-FECHAS": 0.3}] * len(words), labels)
    assert [(s, e) for s, e, _, _ in decode(p, words, LabelIndex.of(labels))] == [(0, 10)]


def test_decode_pruning_certain_o_tokens_gives_the_exact_path():
    """Decoding stretch by stretch between near-certain O tokens equals the full Viterbi path."""
    rng = np.random.default_rng(7)
    labels = bio_labels(["NOMBRE", "FECHAS", "CALLE"])
    idx = LabelIndex.of(labels)
    text = " ".join(f"w{k}" if k % 5 else f"{k}/{k}" for k in range(300))
    words = tokenize(text)
    n = len(words)
    for trial in range(30):
        logits = rng.normal(size=(n, len(labels))) * (1 + trial % 4)
        logits[:, 0] += rng.choice([0.0, 4.0, 12.0], size=n)  # stretches of sure O, as in real notes
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        thr = thresholds_array(idx, {"NOMBRE": 0.5, "FECHAS": 0.1, "CALLE": 0.3})
        assert decode(p, words, idx, thr) == decode(p, words, idx, thr, prune=False)


def test_rule_feature_member_reuses_the_base_features_exactly(sample_docs):
    """A CRF with rule-hit features = the plain member's features + the rule-hit features alone,
    so the ensemble extracts the shared part once; the emissions are the same either way."""
    from models.crf import _features, rule_tags
    from models.crf_feature_spec import tag_features

    labels = bio_labels(MEDDOCAN.types)
    items = [(d.text, tokenize(d.text)) for d in sample_docs[:8]]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(sample_docs[:8], items)]
    gaz = Gazetteer.for_locale("es")
    cfg = CRFConfig(max_iterations=10, rule_features=True)
    base_cfg = CRFConfig(max_iterations=10)
    n_rule_feats = 0
    for text, words in items:
        full = _features(text, words, cfg, gaz)
        base = _features(text, words, base_cfg, gaz)
        extra = tag_features(rule_tags(text, words, "es"))
        n_rule_feats += sum(len(e) for e in extra)
        assert [sorted(f) for f in full] == [sorted(b + e) for b, e in zip(base, extra)]
    assert n_rule_feats > 100  # the rules do fire on these notes
    member = CRFMember.train("crf-rules", items, tags, labels, cfg, gazetteer=gaz)
    assert member.base_feature_key != member.feature_key
    shared = [[fb + fr for fb, fr in zip(member.base_features(t, w), member.rule_features(t, w))]
              for t, w in items]
    for a, b in zip(member.predict_proba(items), member.predict_proba(items, features=shared)):
        assert np.allclose(a, b, atol=1e-6)
