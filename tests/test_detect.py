"""Full-pipeline detection (ensemble + rules + dictionaries) and the train/detect commands.

A tiny model trained once on the MEDDOCAN fixture; checks mechanics: switchable parts, the
combination policies, valid non-overlapping spans, batch == single, CLI round trip on plain
folders. No document text is printed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from models.trainer import train_ensemble
from pipeline.detection.detector import Detector
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span, validate_spans

REPO = Path(__file__).resolve().parents[1]
BRAT = REPO / "tests" / "fixtures" / "meddocan" / "brat"
TINY = dict(hidden=32, layers=1, heads=2, intermediate=64, embedding_size=16, vocab_size=600,
            max_len=48, overlap=12, epochs=1, batch_size=8, lr=3e-3)


def _config(**over) -> dict:
    cfg = dict(members=["crf", "crf-l1", "bert"], seed=5, threads=1, encoders={"bert": dict(TINY)},
               crf={"max_iterations": 25}, weights={"crf": 1.0, "crf-l1": 1.0, "bert": 1.0})
    cfg.update(over)
    return cfg


@pytest.fixture(scope="module")
def docs():
    torch.set_num_threads(1)
    return read_collection(BRAT, "brat", MEDDOCAN)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, docs):
    out = tmp_path_factory.mktemp("det-models")
    info = train_ensemble(docs[:12], docs[12:], MEDDOCAN, _config(name="det-1"), out)
    return Path(info.path)


def _check(doc, spans) -> None:
    validate_spans(doc.doc_id, doc.text, spans)  # inside the text, non-empty, no overlap
    for s in spans:
        assert s.doc_id == doc.doc_id and s.layer == "pre"
        assert MEDDOCAN.has(s.category, s.type)
        assert 0.0 <= s.score <= 1.0


def test_rules_and_dictionaries_without_a_model(docs):
    det = Detector.without_model("meddocan")
    assert det.locale == "es" and det.parts == ["rules", "dictionaries"]
    out = det.detect_many(docs)
    assert sum(len(s) for s in out) > 50
    for d, spans in zip(docs, out):
        _check(d, spans)
        assert all(s.source.split(":")[0] in ("rule", "dict") for s in spans)
    rules_only = Detector.without_model(MEDDOCAN, dictionaries=False).detect_many(docs)
    assert all(s.source.startswith("rule:") for ss in rules_only for s in ss)
    dicts_only = Detector.without_model(MEDDOCAN, rules=False).detect_many(docs)
    assert all(s.source.startswith("dict:") for ss in dicts_only for s in ss)


def test_detector_loads_the_model_and_keeps_model_spans(model_dir, docs):
    full = Detector.load(model_dir)
    model_only = Detector.load(model_dir, rules=False, dictionaries=False)
    assert full.locale == "es" and full.schema.name == "meddocan"
    assert model_only.parts == ["model:crf+crf-l1+bert"]
    info = model_only.ensemble.info
    assert info.metrics["refit"] == ["crf", "crf-l1"] and info.config["resolved"]["crf-l1"]["c1"] == 0.05
    batch = full.detect_many(docs)
    for d, spans in zip(docs, batch):
        _check(d, spans)
    assert [full.detect(d) for d in docs[:3]] == batch[:3]
    # model-first: every model span comes through untouched or inside a rule span of its own type
    # that extends it; rules otherwise only add where the model is silent
    alone = model_only.detect_many(docs)
    n_extended = 0
    for a, b in zip(alone, batch):
        extra = [s for s in b if s not in set(a)]
        assert all(not s.source.startswith("model:") for s in extra)
        for m in set(a) - set(b):
            (cover,) = [e for e in extra if e.overlaps(m)]
            assert cover.label == m.label and cover.start <= m.start and m.end <= cover.end
            n_extended += 1
        for e in extra:
            assert all(m.label == e.label and e.start <= m.start and m.end <= e.end for m in a if e.overlaps(m))
    assert sum(len(b) for b in batch) >= sum(len(a) for a in alone) - n_extended


def test_empty_and_blank_documents(model_dir):
    from pipeline.spans import Document

    det = Detector.load(model_dir)
    assert det.detect_many([Document("e", ""), Document("b", "  \n\t \n")]) == [[], []]
    assert det.detect_many([]) == []


def test_union_policy_and_member_subsets(model_dir, docs):
    union = Detector.load(model_dir, policy="union")
    for d, spans in zip(docs, union.detect_many(docs)):
        _check(d, spans)
    crf_only = Detector.load(model_dir, members=["crf"], rules=False, dictionaries=False)
    assert crf_only.parts == ["model:crf"]
    with pytest.raises(ValueError):
        Detector.load(model_dir, members=["nope"])
    with pytest.raises(ValueError):
        Detector.load(model_dir, policy="whatever")


def test_thresholds_lower_than_default_only_add_recall(model_dir, docs):
    tuned = Detector.load(model_dir, rules=False, dictionaries=False)
    plain = Detector.load(model_dir, rules=False, dictionaries=False, use_thresholds=False)
    thr = tuned.ensemble.info.thresholds
    if all(v <= 0.5 for v in thr.values()):
        n_tuned = sum(len(s) for s in tuned.detect_many(docs))
        n_plain = sum(len(s) for s in plain.detect_many(docs))
        covered_t = sum(s.end - s.start for ss in tuned.detect_many(docs) for s in ss)
        covered_p = sum(s.end - s.start for ss in plain.detect_many(docs) for s in ss)
        assert covered_t >= covered_p and n_tuned + n_plain > 0


def test_train_and_detect_commands_on_plain_folders(tmp_path):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps(_config()))
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    models = tmp_path / "models"
    r = subprocess.run([sys.executable, "-m", "pipeline", "train", "--train", str(BRAT), "--format", "brat",
                        "--out", str(models), "--members", "crf,bert", "--epochs", "1", "--seed", "3",
                        "--config", str(cfg), "--threads", "1", "--no-progress"],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "model version" in r.stdout and "(active)" in r.stdout
    out = tmp_path / "pred"
    r = subprocess.run([sys.executable, "-m", "pipeline", "detect", "--model", str(models), "--input", str(BRAT),
                        "--format", "brat", "--output", str(out), "--threads", "1"],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    pred = read_collection(out, "brat", MEDDOCAN)
    gold = read_collection(BRAT, "brat", MEDDOCAN)
    assert [d.doc_id for d in pred] == [d.doc_id for d in gold]
    assert all(p.text == g.text for p, g in zip(pred, gold))
    assert sum(len(d.spans) for d in pred) > 0
    # no document text on stdout or stderr: no gold span's text longer than 4 characters appears
    said = r.stdout + r.stderr
    assert not any(len(g.text[s.start:s.end]) > 4 and g.text[s.start:s.end] in said for g in gold for s in g.spans)
    # xml in, xml out (CRF member only: no transformers import, a quicker process)
    out_xml = tmp_path / "pred_xml"
    r = subprocess.run([sys.executable, "-m", "pipeline", "detect", "--model", str(models), "--input",
                        str(REPO / "tests/fixtures/meddocan/xml"), "--format", "xml", "--output", str(out_xml),
                        "--no-dictionaries", "--members", "crf", "--threads", "1"],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert len(read_collection(out_xml, "xml", MEDDOCAN)) == len(gold)


def test_detect_command_reports_a_missing_model_as_one_line(tmp_path):
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-m", "pipeline", "detect", "--model", str(tmp_path / "none"), "--input",
                        str(BRAT), "--output", str(tmp_path / "o")], cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1
    assert r.stderr.strip().startswith("error:") and len(r.stderr.strip().splitlines()) == 1


def test_merge_model_first_policies():
    from pipeline.detection.merge_policy import merge_model_first
    from pipeline.spans import Span

    model = [Span("d", 0, 5, "AGE", "EDAD_SUJETO_ASISTENCIA", "model:v"),
             Span("d", 10, 20, "LOCATION", "CALLE", "model:v")]
    rules = [Span("d", 0, 7, "AGE", "EDAD_SUJETO_ASISTENCIA", "rule:ages"),
             Span("d", 30, 35, "DATE", "FECHAS", "rule:dates"),
             Span("d", 12, 18, "LOCATION", "CALLE", "rule:streets")]
    default = merge_model_first(model, rules, {})
    # the rule's AGE contains the model's: it extends it; the rule's CALLE inside the model's does not
    assert [(s.start, s.end, s.source) for s in default] == [(0, 7, "rule:ages"), (10, 20, "model:v"),
                                                             (30, 35, "rule:dates")]
    other_type = merge_model_first(model, [Span("d", 0, 7, "DATE", "FECHAS", "rule:dates")], {})
    assert [(s.start, s.end, s.label) for s in other_type][:1] == [(0, 5, "EDAD_SUJETO_ASISTENCIA")]
    first = merge_model_first(model, rules, {"EDAD_SUJETO_ASISTENCIA": "rules-first"})
    assert [(s.start, s.end, s.source) for s in first][:1] == [(0, 7, "rule:ages")]
    assert (10, 20) in [(s.start, s.end) for s in first]
    silent = merge_model_first(model, rules, {"FECHAS": "model"})
    assert (30, 35) not in [(s.start, s.end) for s in silent]


def test_rule_type_wins_at_the_model_spans_offsets():
    """'País: España': the model said TERRITORIO, the header-field rule reads the label PAIS."""
    from pipeline.detection.merge_policy import merge_model_first
    from pipeline.detection.detector import Detector
    from pipeline.schemas import MEDDOCAN
    from pipeline.spans import Document, Span

    model = [Span("d", 6, 12, "LOCATION", "TERRITORIO", "model:v", 0.99),
             Span("d", 20, 28, "LOCATION", "TERRITORIO", "model:v", 0.9)]
    others = [Span("d", 6, 12, "LOCATION", "PAIS", "rule:header_fields", 0.9),
              Span("d", 20, 28, "NAME", "NOMBRE_SUJETO_ASISTENCIA", "dict:first_names", 0.6)]
    out = merge_model_first(model, others, {})
    # the rule's type replaces the model's at the same offsets; a list of names' never does
    assert [(s.start, s.end, s.label, s.source) for s in out] == [
        (6, 12, "PAIS", "rule:header_fields"), (20, 28, "TERRITORIO", "model:v")]
    # an organisation list's type wins too ("Merck" is a maker, not the model's place)
    maker = merge_model_first([Span("d", 30, 35, "LOCATION", "TERRITORIO", "model:v")],
                              [Span("d", 30, 35, "LOCATION", "INSTITUCION", "dict:manufacturers")], {})
    assert [(s.label, s.source) for s in maker] == [("INSTITUCION", "dict:manufacturers")]
    # a rule span with other offsets still never changes a model span of another type
    wider = merge_model_first(model[:1], [Span("d", 0, 12, "LOCATION", "PAIS", "rule:x")], {})
    assert [(s.start, s.end, s.label) for s in wider] == [(6, 12, "TERRITORIO")]
    # and the type policy still silences the rule's type
    assert [s.label for s in merge_model_first(model[:1], others[:1], {"PAIS": "model"})] == ["TERRITORIO"]

    # a field or format rule that contains the model's spans replaces them whatever their type
    # ("NSS: 92-91-90-8443-1", the model saw a date in it); a rule that reads words does not
    cut = [Span("d", 5, 18, "DATE", "FECHAS", "model:v")]
    nss = merge_model_first(cut, [Span("d", 5, 20, "ID", "ID_ASEGURAMIENTO", "rule:header_fields")], {})
    assert [(s.start, s.end, s.label) for s in nss] == [(5, 20, "ID_ASEGURAMIENTO")]
    hosp = [Span("d", 0, 20, "LOCATION", "HOSPITAL", "model:v"), Span("d", 21, 35, "LOCATION", "CALLE", "model:v")]
    kept = merge_model_first(hosp, [Span("d", 0, 35, "LOCATION", "HOSPITAL", "rule:hospitals")], {})
    assert [(s.start, s.end, s.label) for s in kept] == [(0, 20, "HOSPITAL"), (21, 35, "CALLE")]

    # end to end: a model span that ran a contact line together becomes the rule's numbers
    line = Document("d", "Pamplona Tfno. 848428434 Fax 848422528\n")
    s0 = line.text.index("848428434")
    spans = Detector.without_model(MEDDOCAN, "es")._combine(
        line, [Span("d", s0, s0 + 23, "CONTACT", "NUMERO_TELEFONO", "model:v", 0.9)])
    assert [(line.text[s.start:s.end], s.label) for s in spans if s.category == "CONTACT"] == [
        ("848428434", "NUMERO_TELEFONO"), ("848422528", "NUMERO_FAX")]

    # end to end through the detector's combination step, on a real header line
    doc = Document("d", "Nacimiento: 10/03/1985.\nPaís: España.\nEdad: 33 años")
    start = doc.text.index("España")
    det = Detector.without_model(MEDDOCAN, "es")
    spans = det._combine(doc, [Span("d", start, start + 6, "LOCATION", "TERRITORIO", "model:v", 1.0)])
    assert [(s.label, s.source.split(":")[0]) for s in spans if s.start == start] == [("PAIS", "rule")]


def test_boundary_steps_end_to_end_through_the_detectors_combination():
    """Each step where a rule or a list moves a model boundary, run through ``Detector._combine``."""
    det = Detector.without_model(MEDDOCAN, "es")
    # an affiliation run into its town gives the town back, from the shipped list of towns,
    # although the hospital rule's span (which holds the town too) would hide the town's list hit
    aff = Document("d", "Hospital Virgen Del Puerto Plasencia. Av. Paraje Valcorchero, S/N\n")
    end = aff.text.index(".")
    spans = det._combine(aff, [Span("d", 0, end, "LOCATION", "HOSPITAL", "model:v", 0.9)])
    assert [(aff.text[s.start:s.end], s.label) for s in spans if s.start < end] == [
        ("Hospital Virgen Del Puerto", "HOSPITAL"), ("Plasencia", "TERRITORIO")]

    # a relative run into the name after it is two spans, the name from the first-name list
    rel = Document("d", "Acude acompañada de su madre Carmen y su hermano.\n")
    r0 = rel.text.index("madre")
    spans = det._combine(
        rel, [Span("d", r0, r0 + 12, "OTHER", "FAMILIARES_SUJETO_ASISTENCIA", "model:v", 0.9)])
    assert [(rel.text[s.start:s.end], s.label) for s in spans if s.start < r0 + 12] == [
        ("madre", "FAMILIARES_SUJETO_ASISTENCIA"), ("Carmen", "FAMILIARES_SUJETO_ASISTENCIA")]

    # the acronym after an organisation a rule found (no model span at all)
    acr = Document("d", "Remitido al Instituto Colombiano del Dolor (INCODOL) con 11 meses de dolor.\n")
    spans = det._combine(acr, [])
    assert [(acr.text[s.start:s.end], s.label) for s in spans if s.label == "INSTITUCION"] == [
        ("Instituto Colombiano del Dolor", "INSTITUCION"), ("INCODOL", "INSTITUCION")]

    # a label glued to a doctor's name found by the rule is left out
    glued = Document("d", "Responsable clínico: Dr. Ignacio Sarra DominguezCorreo electrónico: is@int.net\n")
    spans = det._combine(glued, [])
    assert [glued.text[s.start:s.end] for s in spans if s.label == "NOMBRE_PERSONAL_SANITARIO"] == [
        "Ignacio Sarra Dominguez"]

    # an organisation that took the street's first word gives it back to the street the model found
    st = Document("d", "Hospital Sant Joan de Déu Passeig Sant Joan de Déu, 2 08950 Esplugues.\n")
    h_end, c0 = st.text.index(" Sant Joan de Déu,"), st.text.index("Sant Joan de Déu,")
    spans = det._combine(st, [Span("d", 0, h_end, "LOCATION", "HOSPITAL", "model:v", 0.9),
                              Span("d", c0, c0 + 19, "LOCATION", "CALLE", "model:v", 0.9)])
    assert [(st.text[s.start:s.end], s.label) for s in spans if s.start < c0 + 19] == [
        ("Hospital Sant Joan de Déu", "HOSPITAL"), ("Passeig Sant Joan de Déu, 2", "CALLE")]


def test_ensemble_shares_crf_features_without_changing_probabilities(docs, tmp_path):
    """crf and crf-rules: the ensemble extracts the common features once; its averaged
    probabilities equal the members' own, each computed from scratch."""
    from models.decode import average
    from models.ensemble import Ensemble
    from models.words import tokenize

    cfg = dict(members=["crf", "crf-rules"], seed=5, threads=1, crf={"max_iterations": 10},
               weights={"crf": 1.0, "crf-rules": 1.0}, refit_crf=False)
    info = train_ensemble(docs[:10], docs[10:], MEDDOCAN, cfg, tmp_path)
    ens = Ensemble.load(info.path)
    assert ens.members["crf-rules"].base_feature_key == ens.members["crf"].feature_key  # shared
    items = [(d.text, tokenize(d.text)) for d in docs[10:]]
    own = {n: m.predict_proba(items) for n, m in ens.members.items()}
    for k, p in enumerate(ens.combined_probs(items)):
        assert np.allclose(p, average([own["crf"][k], own["crf-rules"][k]]), atol=1e-6)


def test_model_first_leaves_a_leading_title_out_of_a_model_name(model_dir, monkeypatch):
    text = "Remitido por: Doctora Marta García Torrelles. Servicio de Urología.\n"
    doc = Document("t1", text, ())
    det = Detector.load(model_dir, rules=False, dictionaries=False)
    s = text.index("Doctora")
    drawn = [Span("t1", s, s + len("Doctora Marta García Torrelles"), "NAME", "NOMBRE_PERSONAL_SANITARIO",
                  source="model:crf", score=0.9),
             Span("t1", text.index("Urología"), text.index("Urología") + 8, "LOCATION", "HOSPITAL",
                  source="model:crf", score=0.9)]
    monkeypatch.setattr(det.ensemble, "predict", lambda texts, ids, **kw: [list(drawn)])
    got = det.detect(doc)
    assert [(text[x.start:x.end], x.type) for x in got] == [("Marta García Torrelles", "NOMBRE_PERSONAL_SANITARIO"),
                                                           ("Urología", "HOSPITAL")]
