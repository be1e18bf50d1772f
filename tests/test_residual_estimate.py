"""The leak banner says what the check saw and what may remain (issue 32, item 2): a passed leak
check only means no detected PHI remains; the estimate comes from the model's recall on gold."""
from __future__ import annotations

import store
from pipeline.layers import DETECTED
from pipeline.schemas import I2B2_2014
from services.residual import residual_estimate


def _project_with_model(metrics: dict | None):
    db = store.connect(":memory:")
    pid = store.create_project(db, "Ward 7", I2B2_2014)
    if metrics is not None:
        mv = store.add_model_version(db, pid, "v1", "/nowhere", metrics=metrics)
        store.activate_model(db, mv)
    return db, pid


def test_a_detected_run_states_recall_on_gold_and_how_many_documents_may_hold_phi():
    db, pid = _project_with_model({"characters": {"micro": {"recall": 0.934, "precision": 0.9}},
                                   "document_recall": 0.85, "documents_with_phi": 40})
    est = residual_estimate(db, pid, {"inputs": {DETECTED: 80, "gold": 20}})
    check = est.check_words()
    assert "no detected or annotated PHI remains" in check
    assert "detection recall on this project's gold is 93.4% of PHI characters" in check
    assert "no original PHI" not in check
    words = est.estimate_words()
    assert est.may_hold_phi == 12                          # 80 detected x (1 - 0.85)
    assert "about 12 of the 80 detected document(s) may still hold PHI" in words
    assert "85% of 40 gold dev notes" in words and "20 document(s) used people's spans" in words


def test_without_a_measured_model_the_estimate_says_it_is_not_measured():
    db, pid = _project_with_model(None)
    est = residual_estimate(db, pid, {"inputs": {DETECTED: 5}})
    assert est.may_hold_phi is None
    assert "not measured" in est.check_words() and "not estimated" in est.estimate_words()


def test_gold_only_runs_claim_nothing_about_detection():
    db, pid = _project_with_model({"characters": {"micro": {"recall": 0.9}}, "document_recall": 0.8})
    est = residual_estimate(db, pid, {"inputs": {"gold": 19}})
    assert "detection recall" not in est.check_words()
    assert est.estimate_words().startswith("19 document(s) used people's spans")


def test_a_run_detected_by_rules_alone_does_not_borrow_the_models_figures():
    db, pid = _project_with_model({"characters": {"micro": {"recall": 0.96}}, "document_recall": 0.78})
    est = residual_estimate(db, pid, {"inputs": {DETECTED: 10}, "detector": "rules+dictionaries"})
    assert est.char_recall is None and est.may_hold_phi is None
    assert "rules and dictionaries, not a trained model" in est.check_words()
    with_model = residual_estimate(db, pid, {"inputs": {DETECTED: 10}, "detector": "model:v1+rules+dictionaries"})
    assert with_model.may_hold_phi == 3
