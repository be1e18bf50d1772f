"""What the Metrics page charts, gathered from the store of the demo project: the pre layer
against gold, annotator agreement and each annotator against gold on the documents they
finished, throughput from assignments, model versions over time; category and date filters."""
from __future__ import annotations

from collections import Counter

import pytest

import store
from services import project_metrics as pm
from pipeline.metrics.agreement import agreement
from services.demo import create_demo_project
from pipeline.metrics import evaluate


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("pm") / "w.db"
    db = store.connect(path)
    pid = create_demo_project(db, n_docs=30, seed=7)
    return db, pid, path


def _gold_pre(db, pid):
    gold = store.read_project_layer(db, pid, "gold", status="finished")
    pre = store.read_project_layer(db, pid, "pre")
    return gold, pre


def test_pre_vs_gold_is_the_evaluation_of_the_two_layers(demo):
    db, pid, _ = demo
    gold, pre = _gold_pre(db, pid)
    ids = sorted(d for d in gold if d in pre)
    assert ids
    ev = pm.pre_vs_gold(db, pid, pm.MetricsFilter())
    assert ev.n_documents == len(ids) and ev.sources == {"model:demo": len(ids)}
    assert ev.report.n_reference_spans == sum(len(gold[d]) for d in ids)
    assert ev.report.n_system_spans == sum(len(pre[d]) for d in ids)
    texts = {str(r.id): r.text for r in store.list_documents(db, pid, ids=ids, with_text=True)}
    direct = evaluate({str(d): pre[d] for d in ids}, {str(d): gold[d] for d in ids}, texts)
    assert ev.report.strict.micro == direct.strict.micro
    assert ev.report.operating is not None          # the demo's pre spans carry varied scores
    rows, cols, matrix = ev.report.confusion.matrix()
    assert sum(map(sum, matrix)) >= ev.report.n_reference_spans


def test_category_filter_restricts_both_sides(demo):
    db, pid, _ = demo
    gold, _ = _gold_pre(db, pid)
    ev = pm.pre_vs_gold(db, pid, pm.MetricsFilter(category="NAME"))
    assert list(ev.report.strict.per_category) == ["NAME"]
    assert len(ev.report.per_document) == ev.n_documents
    assert ev.report.n_reference_spans == sum(s.category == "NAME" for d in gold for s in gold[d]
                                              if d in {int(x.doc_id) for x in ev.report.per_document})
    th = pm.annotator_throughput(db, pid, pm.MetricsFilter(category="NAME"))
    th_all = pm.annotator_throughput(db, pid, pm.MetricsFilter())
    assert all(a.n_spans < b.n_spans for a, b in zip(th, th_all))


def test_date_filter(demo):
    db, pid, _ = demo
    far = pm.MetricsFilter(since="2999-01-01")
    assert pm.pre_vs_gold(db, pid, far) is None
    assert pm.annotator_agreement(db, pid, far) is None
    assert pm.annotator_throughput(db, pid, far) == []
    past = pm.MetricsFilter(until="2000-01-01")
    assert pm.annotators_against_gold(db, pid, past) == []
    everything = pm.MetricsFilter(since="2000-01-01", until="2999-12-31")
    assert pm.pre_vs_gold(db, pid, everything).n_documents == pm.pre_vs_gold(db, pid, pm.MetricsFilter()).n_documents
    f = pm.MetricsFilter(since="2024-05-01", until="2024-05-31")
    assert f.in_range("2024-05-01T00:00:00+00:00") and f.in_range("2024-05-31T23:59:59+00:00")
    assert not f.in_range("2024-06-01T00:00:00+00:00") and not f.in_range(None)
    assert pm.MetricsFilter().in_range(None)


def test_agreement_uses_documents_finished_by_both(demo):
    db, pid, _ = demo
    finished = store.list_assignments(db, project_id=pid, status="finished")
    per_doc = Counter(a.doc_id for a in finished)
    shared = sorted(d for d, n in per_doc.items() if n >= 2)
    rep = pm.annotator_agreement(db, pid, pm.MetricsFilter())
    assert rep.annotators == ["ana", "ben"]
    assert sorted(int(d.doc_id) for d in rep.per_document) == shared
    layers = {u: store.read_project_layer(db, pid, f"annotator:{u}") for u in ("ana", "ben")}
    texts = {str(r.id): r.text for r in store.list_documents(db, pid, ids=shared, with_text=True)}
    direct = agreement({u: {str(d): layers[u][d] for d in shared} for u in layers}, texts)
    assert rep.pair("ana", "ben").strict.micro == direct.pair("ana", "ben").strict.micro
    assert rep.alpha == pytest.approx(direct.alpha)
    names, z = rep.matrix("strict")
    assert z[0][0] == 1.0 and z[0][1] == z[1][0] < 1.0


def test_annotators_against_gold_and_throughput(demo):
    db, pid, _ = demo
    gold, _ = _gold_pre(db, pid)
    comps = {c.annotator: c for c in pm.annotators_against_gold(db, pid, pm.MetricsFilter())}
    finished = store.list_assignments(db, project_id=pid, status="finished")
    for user, c in comps.items():
        docs = {a.doc_id for a in finished if a.user == user}
        assert c.n_documents == len(docs & set(gold))
        assert c.model_strict is not None and c.model_strict.micro.n_reference == c.strict.micro.n_reference
    rows = pm.gold_comparison_rows(list(comps.values()))
    assert {r["annotator"] for r in rows} == set(comps)
    th = {t.user: t for t in pm.annotator_throughput(db, pid, pm.MetricsFilter())}
    for user in ("ana", "ben"):
        mine = [a for a in finished if a.user == user]
        layer = store.read_project_layer(db, pid, f"annotator:{user}")
        assert th[user].n_documents == len(mine)
        assert th[user].n_spans == sum(len(layer[a.doc_id]) for a in mine)
        assert th[user].total_seconds == pytest.approx(sum(a.seconds_spent for a in mine))


def test_versions_learning_curve_and_comparison(demo, tmp_path):
    _, pid, path = demo
    db = store.connect(store.backup(path, tmp_path / "copy.db"))   # model versions stay in this copy
    gold, pre = _gold_pre(db, pid)
    ids = sorted(d for d in gold if d in pre)
    texts = {str(r.id): r.text for r in store.list_documents(db, pid, ids=ids, with_text=True)}
    good = evaluate({str(d): pre[d] for d in ids}, {str(d): gold[d] for d in ids}, texts).to_json()
    half = evaluate({str(d): pre[d][::2] for d in ids}, {str(d): gold[d] for d in ids}, texts).to_json()
    v1 = store.add_model_version(db, pid, "v-half", str(tmp_path / "a"), config={"members": ["crf"]}, metrics=half)
    v2 = store.add_model_version(db, pid, "v-good", str(tmp_path / "b"), metrics=good)
    # a version recorded by the plain `train` command: the trainer's own figures only
    v3 = store.add_model_version(db, pid, "v-cli", str(tmp_path / "c"), metrics={
        "ensemble": {"strict": {"precision": 0.5, "recall": 0.25, "f1": 1 / 3},
                     "per_type": {"DOCTOR": {"precision": 0.5, "recall": 0.25, "f1": 1 / 3}}}})
    store.activate_model(db, v1)
    rows = pm.version_rows(store.list_model_versions(db, pid))
    assert [r["name"] for r in rows] == ["v-half", "v-good", "v-cli"]       # oldest first
    assert rows[1]["f1"] == pytest.approx(good["strict"]["micro"]["f1"])
    assert rows[2]["recall"] == 0.25 and rows[0]["active"] and rows[0]["members"] == "crf"
    assert rows[0]["recall"] < rows[1]["recall"]
    # document recall and missed PHI per 1,000 tokens beside span recall (the Train page's table)
    assert rows[1]["span_recall"] == pytest.approx(good["span_strict"]["micro"]["recall"])
    assert rows[0]["fn_per_1000"] == pytest.approx(half["fn_per_1000"]) and rows[0]["fn_per_1000"] > rows[1]["fn_per_1000"]
    assert rows[0]["document_recall"] == pytest.approx(half["document_recall"])
    assert rows[2]["span_recall"] is None and rows[2]["fn_per_1000"] is None
    name_rows = pm.version_rows(store.list_model_versions(db, pid), pm.MetricsFilter(category="NAME"))
    assert name_rows[1]["f1"] == pytest.approx(good["strict"]["per_category"]["NAME"]["f1"])
    assert pm.version_rows(store.list_model_versions(db, pid), pm.MetricsFilter(until="2000-01-01")) == []
    cmp = pm.compare_versions(db, pid, v2)
    assert cmp.active["name"] == "v-half" and cmp.candidate["name"] == "v-good"
    name = next(r for r in cmp.rows if r["category"] == "NAME")
    assert name["Δ F1"] == pytest.approx(good["strict"]["per_category"]["NAME"]["f1"]
                                         - half["strict"]["per_category"]["NAME"]["f1"])
    assert pm.per_category(store.get_model_version(db, v3).metrics) == {
        "DOCTOR": {"precision": 0.5, "recall": 0.25, "f1": 1 / 3}}
    bundle = pm.project_metrics(db, pid, pm.MetricsFilter())
    assert bundle.active["name"] == "v-half" and set(bundle.active_per_category) == set(half["strict"]["per_category"])
    assert len(bundle.versions) == 3 and bundle.agreement is not None and bundle.throughput
    assert "kappa" in bundle.caveat.lower()
    # held-out only: documents the active model was trained on drop out
    v4 = store.add_model_version(db, pid, "v-trained-on-all", str(tmp_path / "d"), metrics=good,
                                 config={"train_doc_ids": ids})
    store.activate_model(db, v4)
    assert pm.pre_vs_gold(db, pid, pm.MetricsFilter(), held_out_only=True) is None
    assert pm.pre_vs_gold(db, pid, pm.MetricsFilter()).held_out_documents == 0
