"""Surrogate copies of gold notes for training (pipeline/deid/augment.py, TrainConfig.augment_copies):
the copies carry every gold span to its new value, the training split alone is copied, and the
members that are meant to see the copies do."""
from __future__ import annotations

from pathlib import Path

import pytest

import models.train_fit as train_fit   # the fitting steps train_ensemble runs
from models.trainer import train_ensemble
from pipeline.deid.augment import augment_profile, case_copies, surrogate_copies
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span

REPO = Path(__file__).resolve().parents[1]
TINY_ENCODER = dict(hidden=32, layers=1, heads=2, intermediate=64, vocab_size=600, max_len=48, overlap=12,
                    epochs=1, batch_size=8, lr=3e-3)


@pytest.fixture(scope="module")
def docs() -> list[Document]:
    return read_collection(REPO / "tests" / "fixtures" / "meddocan" / "brat", "brat", MEDDOCAN)


def test_every_copy_keeps_each_gold_span_with_its_type_over_a_new_value(docs):
    out = surrogate_copies(docs, 2, locale="es", seed=5)
    assert out.by_copy and sum(out.by_copy) == len(out.documents)
    assert len(out.documents) + out.skipped == 2 * sum(1 for d in docs if d.spans)
    by_id = {d.doc_id: d for d in docs}
    replaced = changed = 0
    for copy in out.documents:
        orig = by_id[copy.doc_id.rsplit("~copy", 1)[0]]
        assert [(s.category, s.type) for s in copy.spans] == [(s.category, s.type) for s in orig.spans]
        for s, o in zip(copy.spans, orig.spans):
            new, old = copy.text[s.start:s.end], orig.text[o.start:o.end]
            assert new.strip() and not new.startswith("[")          # a surrogate, never a placeholder
            if o.category == "OTHER":
                assert new == old                                      # sex and relatives keep their words
            elif o.category in ("NAME", "LOCATION", "ID", "CONTACT"):
                replaced += 1
                changed += new != old
        # the text between spans is the note's own
        assert copy.text[:copy.spans[0].start] == orig.text[:orig.spans[0].start]
    assert replaced and changed / replaced > 0.95


def test_copies_repeat_for_a_seed_and_differ_between_copies_and_seeds(docs):
    a = surrogate_copies(docs[:4], 2, locale="es", seed=5).documents
    b = surrogate_copies(docs[:4], 2, locale="es", seed=5).documents
    c = surrogate_copies(docs[:4], 1, locale="es", seed=6).documents
    assert [d.text for d in a] == [d.text for d in b]
    first = [d for d in a if d.doc_id.endswith("~copy1")]
    second = [d for d in a if d.doc_id.endswith("~copy2")]
    assert [d.text for d in first] != [d.text for d in second]
    assert [d.text for d in first] != [d.text for d in c]


def test_a_note_whose_surrogate_falls_back_is_left_out_not_copied_with_a_placeholder():
    # an age the shift cannot read falls back to a placeholder: that copy would teach "[AGE]"
    d = Document("n1", "Edad: desconocida. Paciente Ana Pérez.",
                 [Span("n1", 6, 17, "AGE", "EDAD_SUJETO_ASISTENCIA"), Span("n1", 28, 37, "NAME", "NOMBRE_SUJETO_ASISTENCIA")])
    out = surrogate_copies([d], 1, locale="es")
    assert out.documents == [] and out.skipped == 1
    with pytest.raises(ValueError):
        surrogate_copies([d], -1, locale="es")


def test_the_profile_replaces_every_category_but_other_and_propagates_nothing():
    p = augment_profile()
    assert p.action_for("OTHER") == "keep" and p.action_for("NAME") == "replace" and not p.propagate


def test_the_encoders_learn_from_the_copies_and_the_crfs_unless_told_not_to(docs, tmp_path, monkeypatch):
    seen: dict[str, int] = {}
    real_train = train_fit.EncoderMember.train
    real_fit = train_fit.fit_crfs

    def spy_train(name, items, tags, *a, **k):
        seen[name] = len(items)
        return real_train(name, items, tags, *a, **k)

    def spy_fit(configs, items, *a, fit_on=None, **k):
        seen["crf items"] = len(items)
        seen["crf fit_on"] = max(fit_on.values())
        return real_fit(configs, items, *a, fit_on=fit_on, **k)

    monkeypatch.setattr(train_fit.EncoderMember, "train", staticmethod(spy_train))
    monkeypatch.setattr(train_fit, "fit_crfs", spy_fit)
    train, dev = docs[:12], docs[12:]
    cfg = dict(members=["crf", "bert"], seed=3, threads=1, crf={"max_iterations": 5, "clusters": False},
               encoders={"bert": dict(TINY_ENCODER)}, augment_copies=2, augment_crf=False, crf_workers=1)
    info = train_ensemble(train, dev, MEDDOCAN, cfg, tmp_path / "a")
    made = info.metrics["augment"]["documents"]
    assert made > 12 and info.metrics["augment"]["copies"] == 2 and info.n_train_docs == 12
    assert seen["bert"] == 12 + made                      # the encoder saw the notes and their copies
    assert seen["crf fit_on"] == 12 and seen["crf items"] == 12 + len(dev)   # the CRF did not
    # the default: one copy, which the CRFs learn from too
    default = {k: v for k, v in cfg.items() if not k.startswith("augment")}
    info = train_ensemble(train, dev, MEDDOCAN, {**default, "members": ["crf"], "name": "b"}, tmp_path / "a")
    assert info.metrics["augment"]["copies"] == 1 and info.metrics["augment"]["crf"]
    made = info.metrics["augment"]["documents"]
    made_dev = seen["crf items"] - 12 - made - len(dev)
    assert seen["crf fit_on"] == 12 + made and made_dev > len(dev) // 2   # refit: train, copies, dev, dev copies
    # thresholds were tuned on the real dev notes only
    assert info.n_dev_docs == len(dev)


def test_bad_augment_settings_are_refused_before_anything_is_trained(docs, tmp_path):
    with pytest.raises(ValueError, match="negative"):
        train_ensemble(docs[:12], docs[12:], MEDDOCAN, dict(augment_copies=-1), tmp_path)
    assert not any(tmp_path.iterdir())


def test_in_hierarchical_mode_the_category_member_learns_from_the_copies_in_step_with_the_crfs(docs, tmp_path,
                                                                                            monkeypatch):
    seen: dict = {}
    real_fit = train_fit.fit_crfs

    def spy_fit(configs, items, tags, *a, targets=None, fit_on=None, **k):
        seen.update(items=len(items), tags=len(tags), fit_on=dict(fit_on),
                    targets={j: len(t[0]) for j, t in (targets or {}).items()})
        return real_fit(configs, items, tags, *a, targets=targets, fit_on=fit_on, **k)

    monkeypatch.setattr(train_fit, "fit_crfs", spy_fit)
    cfg = dict(members=["crf"], seed=3, threads=1, crf={"max_iterations": 5, "clusters": False}, crf_workers=1,
               augment_copies=1, augment_crf=True, mode="hierarchical")
    info = train_ensemble(docs[:12], docs[12:], MEDDOCAN, cfg, tmp_path)
    made = info.metrics["augment"]["documents"]
    assert made > 6 and seen["fit_on"]["crf"] == 12 + made
    # the category member's tags line up with every item, copies of train and dev included
    assert seen["items"] == seen["tags"] > 12 + made + len(docs[12:])
    assert set(seen["targets"].values()) == {seen["items"]} and len(seen["targets"]) == 2
    assert info.mode == "hierarchical"


# ------------------------------------------------------------------------------ case copies (issue 30)
WARD = Document("w1", "Pt seen by Dr. Holmes at Boston General. Wife Anne at bedside, 78 yo.",
                [Span("w1", 15, 21, "NAME", "DOCTOR"), Span("w1", 25, 39, "LOCATION", "HOSPITAL"),
                 Span("w1", 46, 50, "NAME", "PATIENT")], patient_id="p1")


def test_case_copies_keep_every_span_over_the_same_words_in_capitals_or_lower_case():
    out = case_copies([WARD, WARD], 1)
    assert [c.doc_id for c in out] == ["w1~upper", "w1~lower"]          # upper and lower in turn
    up, low = out
    assert up.text == WARD.text.upper() and low.text == WARD.text.lower()
    assert [up.text[s.start:s.end] for s in up.spans] == ["HOLMES", "BOSTON GENERAL", "ANNE"]
    assert [(s.category, s.type) for s in low.spans] == [(s.category, s.type) for s in WARD.spans]
    assert [c.doc_id for c in case_copies([WARD], 2)] == ["w1~upper", "w1~lower"]
    assert case_copies([WARD], 0) == []
    with pytest.raises(ValueError):
        case_copies([WARD], 3)


def test_a_letter_whose_other_case_is_longer_keeps_the_offsets():
    d = Document("g", "Herr Weiß, Straße 5", [Span("g", 5, 9, "NAME", "PATIENT"), Span("g", 11, 19, "LOCATION", "STREET")])
    up = case_copies([d], 2)[0]
    assert len(up.text) == len(d.text) and up.text[5:9] == "WEIß" and up.text[11:19] == "STRAßE 5"


def test_english_training_learns_from_case_copies_by_default_spanish_does_not(docs):
    from models.train_config import TrainConfig
    from models.train_data import gold, prepare_data
    from pipeline.schemas import I2B2_2014
    from pipeline.synthetic import generate_corpus

    notes = generate_corpus(12, 3, variety="wide", part="train")
    en = prepare_data(notes[:8], notes[8:], I2B2_2014, TrainConfig(locale="en", augment_copies=0, refit_crf=False))
    assert en.aug.meta["case_copies"] == 1
    cased = [d for d in en.aug.train_docs if d.doc_id.endswith(("~upper", "~lower"))]
    assert len(cased) == sum(1 for d in notes[:8] if d.spans) == len(en.aug.train_items) == len(en.aug.train_tags)
    assert any(d.text.isupper() for d in cased) and any(d.text.islower() for d in cased)
    by_id = {d.doc_id: (d, t) for d, t in zip(notes[:8], en.train_tags)}
    for d, tags in zip(en.aug.train_docs, en.aug.train_tags):
        orig, orig_tags = by_id[d.doc_id.rsplit("~", 1)[0]]
        assert gold(d, I2B2_2014) == gold(orig, I2B2_2014)               # the same spans over the same words
        assert sum(t.startswith("B-") for t in tags) == sum(t.startswith("B-") for t in orig_tags)
    es = prepare_data(docs[:12], docs[12:], MEDDOCAN, TrainConfig(locale="es", augment_copies=0))
    assert es.aug.meta == {} and not es.aug.train_items
    off = prepare_data(notes[:8], notes[8:], I2B2_2014, TrainConfig(locale="en", augment_copies=0, case_copies=0))
    assert off.aug.meta == {}
