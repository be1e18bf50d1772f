"""The project's masked language model (models/masked_lm.py, its training in masked_lm_train.py,
its folders in masked_lm_folders.py), tiny: what it proposes, its word lists, saving and loading
(offline, owner-only, atomic), embeddings, and paraphrase with it."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from models.masked_lm import MaskedLM, MaskedLMConfig, MaskedLMError
from models.masked_lm_folders import CURRENT_FILE, KEEP_OLD, current_model_dir, load_masked_lm, model_info, write_masked_lm
from models.masked_lm_train import TrainingStopped, train_masked_lm
from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch
from pipeline.deid.paraphrase import InfillRequest, piece_fits, plan_slots
from pipeline.deid.quality import compare_with_list_surrogates, greedy_match
from pipeline.deid.surrogates import generator_name
from pipeline.formats import read_collection
from pipeline.offline import OFFLINE_ENV
from pipeline.schemas import MEDDOCAN

SAMPLE = Path(__file__).parent / "fixtures" / "meddocan"
TINY = dict(hidden=32, layers=1, heads=2, intermediate=64, epochs=1, vocab_size=2000, max_len=64, min_docs=2,
            batch_size=16)
SECRET = b"masked-lm-test-secret-0123456789"


@pytest.fixture(scope="module")
def docs():
    return read_collection(SAMPLE / "brat", "brat", MEDDOCAN)


@pytest.fixture(scope="module")
def lm(docs):
    model, report = train_masked_lm([d.text for d in docs], spans=[d.spans for d in docs],
                                    config=MaskedLMConfig(**TINY), name="mlm-test-1")
    assert report.documents == 16 and report.steps > 0 and len(report.losses) == 1
    return model


def _requests(doc, kinds_wanted=("NAME", "ID", "CONTACT", "LOCATION")):
    out = []
    for s in doc.spans:
        if s.category not in kinds_wanted:
            continue
        core = doc.text[s.start:s.end]
        plan = plan_slots(core, s.category, s.type, generator_name(s.category, s.type))
        if plan is not None:
            out.append((InfillRequest(s.start, s.end, plan.parts, s.category, s.type), plan))
    return out


def test_proposals_fit_their_slots_best_first(lm, docs):
    pairs = [p for d in docs[:4] for p in _requests(d)]
    assert pairs
    n = 0
    for d in docs[:4]:
        reqs = _requests(d)
        found = lm.infill(d.text, [r for r, _ in reqs], top_k=5)
        assert len(found) == len(reqs)
        for (req, plan), per_slot in zip(reqs, found):
            assert len(per_slot) == len(plan.slots)
            for kind, cands in zip(req.kinds, per_slot):
                assert 0 < len(cands) <= 5
                assert all(piece_fits(p, kind) for p, _ in cands), kind
                scores = [lp for _, lp in cands]
                assert scores == sorted(scores, reverse=True) and all(lp <= 0 for lp in scores)
                n += 1
    assert n > 20


def test_word_lists_hold_only_words_of_several_documents(lm, docs):
    tok = lm.tokenizer
    in_docs: dict[int, int] = {}
    for d in docs:
        for i in set(tok.tok.encode(d.text, add_special_tokens=False).ids):
            in_docs[i] = in_docs.get(i, 0) + 1
    allowed = set(lm.fillers["frequent"])
    for ids in lm.fillers["labels"].values():
        assert set(ids) <= allowed or all(in_docs.get(i, 0) >= TINY["min_docs"] for i in ids)
    assert allowed and all(in_docs.get(i, 0) >= TINY["min_docs"] for i in allowed)
    name_slots = lm.allowed("name", "NAME", "NOMBRE_SUJETO_ASISTENCIA")
    assert 0 < int(name_slots.sum()) < tok.vocab_size


def test_save_load_owner_only_offline_and_same_proposals(lm, docs, tmp_path, monkeypatch):
    from transformers import AutoModelForMaskedLM

    root = tmp_path / "infill"
    path = write_masked_lm(lm, root)
    assert current_model_dir(root) == path and (root / CURRENT_FILE).read_text().strip() == lm.name
    for p in [path, *path.rglob("*")]:
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode == (0o700 if p.is_dir() else 0o600), p.name
    seen = {}
    real = AutoModelForMaskedLM.from_pretrained

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(AutoModelForMaskedLM, "from_pretrained", spy)
    for name in OFFLINE_ENV:     # offline by the load itself; the switch is set at process start, never here
        monkeypatch.delenv(name, raising=False)
    again = load_masked_lm(root)
    assert seen.get("local_files_only") is True and not any(name in os.environ for name in OFFLINE_ENV)
    d = docs[0]
    reqs = [r for r, _ in _requests(d)]
    assert again.infill(d.text, reqs) == lm.infill(d.text, reqs)
    info = model_info(root)
    assert info["name"] == lm.name and info["documents"] == 16 and info["hidden"] == TINY["hidden"]


def test_a_failed_write_leaves_the_previous_model_current(lm, tmp_path, monkeypatch):
    root = tmp_path / "infill"
    first = write_masked_lm(lm, root)
    broken = MaskedLM("mlm-test-broken", lm.tokenizer, lm.model, lm.config, lm.fillers)

    def fail(directory):
        Path(directory, "partial").write_text("x")
        raise OSError("disk full")

    monkeypatch.setattr(broken, "save", fail)
    with pytest.raises(OSError):
        write_masked_lm(broken, root)
    assert current_model_dir(root) == first
    assert sorted(p.name for p in root.iterdir()) == [CURRENT_FILE, first.name]      # no half-written folder


def test_older_models_are_pruned(lm, tmp_path):
    root = tmp_path / "infill"
    names = [f"mlm-test-{k}" for k in range(KEEP_OLD + 3)]
    for name in names:
        write_masked_lm(MaskedLM(name, lm.tokenizer, lm.model, lm.config, lm.fillers), root)
    kept = sorted(p.name for p in root.iterdir() if p.name != CURRENT_FILE)
    assert kept == names[-(KEEP_OLD + 1):] and current_model_dir(root).name == names[-1]


def test_not_a_model_folder_is_one_line(tmp_path):
    with pytest.raises(MaskedLMError) as e:
        load_masked_lm(tmp_path)
    assert "\n" not in str(e.value) and "train-infill" in str(e.value)


def test_embeddings_are_unit_vectors_per_piece(lm, docs):
    texts = [docs[0].text, docs[0].text, docs[1].text]
    vecs = lm.embed(texts)
    n = len(lm.tokenizer.tok.encode(docs[0].text, add_special_tokens=False).ids)
    assert vecs[0].shape == (n, TINY["hidden"]) and n > TINY["max_len"]          # several windows
    assert np.allclose(np.linalg.norm(vecs[0], axis=1), 1.0, atol=1e-4)
    assert greedy_match(vecs[0], vecs[1]) == pytest.approx((1.0, 1.0, 1.0), abs=1e-5)
    assert greedy_match(vecs[0], vecs[2])[2] < 1.0


def test_training_is_seeded_and_can_be_stopped(docs, lm):
    again, _ = train_masked_lm([d.text for d in docs], spans=[d.spans for d in docs],
                               config=MaskedLMConfig(**TINY), name="mlm-test-2")
    d = docs[2]
    reqs = [r for r, _ in _requests(d)]
    assert again.infill(d.text, reqs) == lm.infill(d.text, reqs)
    calls = []
    with pytest.raises(TrainingStopped):
        train_masked_lm([d.text for d in docs], config=MaskedLMConfig(**TINY),
                        should_stop=lambda: calls.append(1) or len(calls) > 2)
    with pytest.raises(ValueError):
        MaskedLMConfig.from_dict({"hidden": 8, "colour": "blue"})


def test_paraphrase_with_the_model_has_no_leak_and_beats_nothing_by_accident(lm, docs):
    profile = builtin_profiles()["paraphrase"]
    ctx = DeidContext(secret=SECRET, locale="es", infiller=lm)
    b = deidentify_batch(docs, profile, ctx)
    s = b.summary
    assert s.leaks == 0 and s.same_rate == 0.0 and s.uncovered_chars == 0
    assert s.paraphrased > 100 and s.paraphrase_fallbacks.get("no_model", 0) == 0
    rows = compare_with_list_surrogates(docs, b.results, profile, ctx, embed=lm.embed)
    assert [r.system for r in rows] == ["paraphrase", "list surrogates"]
    for r in rows:
        assert r.notes == 16 and r.replacements > 100 and r.same_rate == 0.0
        assert 0.0 < r.bertscore_f1 <= 1.0 and 0.0 <= r.char_trigram_overlap < 0.5
