"""The demo project and the ``demo`` / ``init-project`` commands, on temporary databases.

PYTEST_DONT_REWRITE: failed asserts show their messages (ids, counts, labels), never text.
"""
from __future__ import annotations

from collections import Counter

import pytest

store = pytest.importorskip("store", reason="store/ is not importable yet")

from services.demo import (ANNOTATORS, DEMO_NAME, DEMO_SOURCE, REVIEWER, build_demo, create_demo_project,  # noqa: E402
                           ensure_demo, plan_stages)
from pipeline.schemas import I2B2_2014  # noqa: E402
from pipeline.synthetic import generate_corpus  # noqa: E402

N_DOCS, SEED = 40, 3


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    db = store.connect(tmp_path_factory.mktemp("demo") / "wb.db")
    summary = build_demo(db, n_docs=N_DOCS, seed=SEED)
    truth = {d.doc_id: d for d in generate_corpus(N_DOCS, SEED)}
    docs = store.list_documents(db, summary.project_id)
    stage_of = dict(zip([d.name for d in sorted(docs, key=lambda r: r.id)], plan_stages(N_DOCS, SEED)))
    return db, summary, truth, docs, stage_of


def _assignments(db, doc_id):
    return {a.user: a for a in store.list_assignments(db, doc_id=doc_id)}


def test_project_and_documents(demo):
    db, summary, truth, docs, _ = demo
    project = store.get_project(db, summary.project_id)
    assert project.name == DEMO_NAME and project.schema.categories == I2B2_2014.categories
    assert len(docs) == N_DOCS == summary.documents
    assert {d.name for d in docs} == set(truth)
    for rec in docs:
        full = store.get_document(db, rec.id)
        same = full.text == truth[rec.name].text
        assert same, f"document {rec.id}: text differs from the generator's"
        assert full.patient_id == truth[rec.name].patient_id
        assert set(full.meta) <= {"kind", "synthetic", "split"}, f"document {rec.id}: unexpected meta keys"
        assert full.split in ("train", "dev", "test")
    # one patient never straddles splits
    splits: dict[str, set] = {}
    for rec in docs:
        splits.setdefault(rec.patient_id, set()).add(rec.split)
    assert all(len(s) == 1 for s in splits.values())


def test_stages_have_the_expected_layers_and_assignments(demo):
    db, summary, truth, docs, stage_of = demo
    counts = Counter(stage_of.values())
    assert counts == Counter({k: v for k, v in summary.stages.items() if v})
    assert all(counts[s] >= 1 for s in ("new", "pre", "assigned", "in_progress", "double", "gold")), counts
    for rec in docs:
        stage = stage_of[rec.name]
        layers = store.layers_of(db, rec.id)
        asg = _assignments(db, rec.id)
        where = f"document {rec.id} ({stage})"
        if stage == "new":
            assert not layers and not asg, where
            continue
        assert "pre" in layers, where
        if stage == "pre":
            assert set(layers) == {"pre"} and not asg, where
            continue
        assert set(asg) == set(ANNOTATORS), where
        if stage == "assigned":
            assert set(layers) == {"pre"}, where
            assert all(a.status == "assigned" and a.seconds_spent == 0 for a in asg.values()), where
        elif stage == "in_progress":
            assert set(layers) == {"pre", "annotator:ana"}, where
            assert layers["annotator:ana"].status == "in_progress", where
            assert asg["ana"].status == "in_progress" and asg["ana"].seconds_spent > 0, where
            assert asg["ben"].status == "assigned", where
        else:
            expected = {"pre", "annotator:ana", "annotator:ben"} | ({"gold"} if stage == "gold" else set())
            assert set(layers) == expected, where
            for a in ANNOTATORS:
                assert layers[f"annotator:{a}"].status == "finished", where
                assert layers[f"annotator:{a}"].updated_by == a, where
                assert asg[a].status == "finished" and asg[a].seconds_spent > 10, where


def test_gold_only_where_adjudicated_and_equal_to_truth(demo):
    db, summary, truth, docs, stage_of = demo
    gold = store.read_project_layer(db, summary.project_id, "gold")
    by_id = {d.id: d for d in docs}
    assert {by_id[i].name for i in gold} == {n for n, s in stage_of.items() if s == "gold"}
    for doc_id, spans in gold.items():
        t = truth[by_id[doc_id].name]
        assert [(s.start, s.end, s.category, s.type) for s in spans] == \
               [(s.start, s.end, s.category, s.type) for s in t.spans], f"document {doc_id}"
        state = store.read_layer(db, doc_id, "gold")
        assert state.status == "finished" and state.updated_by == REVIEWER
        assert all(s.source == f"human:{REVIEWER}" for s in spans)


def test_pre_layer_is_imperfect_machine_output(demo):
    db, summary, truth, docs, _ = demo
    pre = store.read_project_layer(db, summary.project_id, "pre")
    by_id = {d.id: d for d in docs}
    exact = total_truth = extra = 0
    for doc_id, spans in pre.items():
        t = truth[by_id[doc_id].name]
        assert spans, f"document {doc_id}: empty pre layer"
        for s in spans:
            assert s.source == DEMO_SOURCE and 0.3 <= s.score <= 1.0, f"document {doc_id} {s.start}-{s.end}"
        keys = {(s.start, s.end, s.type) for s in spans}
        exact += sum((g.start, g.end, g.type) in keys for g in t.spans)
        total_truth += len(t.spans)
        extra += sum(not any(g.start < s.end and s.start < g.end for g in t.spans) for s in spans)
    assert 0.7 < exact / total_truth < 0.97, exact / total_truth  # close to the truth, but not the truth
    assert extra > 0


def test_annotators_disagree(demo):
    db, summary, truth, docs, stage_of = demo
    ana = store.read_project_layer(db, summary.project_id, "annotator:ana", status="finished")
    ben = store.read_project_layer(db, summary.project_id, "annotator:ben", status="finished")
    assert set(ana) == set(ben) and ana
    differ = sum({(s.start, s.end, s.type) for s in ana[i]} != {(s.start, s.end, s.type) for s in ben[i]} for i in ana)
    assert differ >= len(ana) // 2


def test_demo_users_exist_with_unknown_passwords(demo):
    db = demo[0]
    roles = {u.username: u.role for u in store.list_users(db)}
    assert roles.get("ana") == "annotator" and roles.get("ben") == "annotator" and roles.get("rita") == "reviewer"
    for name in ("ana", "ben", "rita"):
        for guess in (name, "demo", "password", "changeme"):
            assert store.authenticate(db, name, guess) is None


def test_ensure_demo_only_on_first_start(tmp_path):
    db = store.connect(tmp_path / "first.db")
    pid = ensure_demo(db, n_docs=12, seed=1)
    assert pid is not None and len(store.list_documents(db, pid)) == 12
    assert ensure_demo(db, n_docs=12, seed=1) is None
    assert len(store.list_projects(db)) == 1

    other = store.connect(tmp_path / "other.db")
    store.create_project(other, "Mine", I2B2_2014)
    assert ensure_demo(other, n_docs=12) is None
    assert [p.name for p in store.list_projects(other)] == ["Mine"]


def test_second_demo_reuses_users_and_failure_writes_nothing(tmp_path):
    db = store.connect(tmp_path / "wb.db")
    store.create_project(db, DEMO_NAME, I2B2_2014)
    with pytest.raises(store.DuplicateError):
        create_demo_project(db, n_docs=8, seed=2)
    # all or nothing: the users created before the failing step were rolled back too
    assert store.get_user(db, "ana") is None
    assert db.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 0
    a = create_demo_project(db, n_docs=8, seed=2, name="Demo A")
    b = create_demo_project(db, n_docs=8, seed=2, name="Demo B")
    assert a != b and len(store.list_users(db)) == 3


def test_init_project_command_prints_one_line_without_text(tmp_path, capsys):
    from cli import main
    path = str(tmp_path / "wb.db")
    assert main(["init-project", "--db", path, "--demo-docs", "10", "--seed", "4"]) == 0
    first = capsys.readouterr().out
    assert main(["init-project", "--db", path]) == 0
    second = capsys.readouterr().out
    # first start: the lead account's lines (password shown once) and the demo line; later: one line
    demo_lines = [line for line in first.splitlines() if not line.lstrip().startswith(("lead account", "(sign in"))]
    assert len(demo_lines) == 1 and second.count("\n") == 1
    assert "10 documents" in first and "1 project(s)" in second
    values = {d.text[s.start:s.end] for d in generate_corpus(10, 4) for s in d.spans}
    leaked = [v for v in values if len(v) >= 5 and (v in first or v in second)]
    assert not leaked, f"{len(leaked)} span values printed"


def test_init_project_without_demo(tmp_path, capsys):
    from cli import main
    path = tmp_path / "empty.db"
    assert main(["init-project", "--db", str(path), "--no-demo"]) == 0
    assert "0 project(s)" in capsys.readouterr().out
    assert store.list_projects(store.connect(path)) == []


def test_demo_command_db_and_out(tmp_path, capsys):
    from cli import main
    path = str(tmp_path / "wb.db")
    assert main(["demo", "--db", path, "--docs", "9", "--seed", "5", "--name", "CLI demo"]) == 0
    assert "CLI demo" in capsys.readouterr().out
    assert [p.name for p in store.list_projects(store.connect(path))] == ["CLI demo"]
    assert main(["demo", "--db", path, "--docs", "9", "--seed", "5", "--name", "CLI demo"]) == 1  # duplicate name
    capsys.readouterr()

    formats = pytest.importorskip("pipeline.formats")
    out = tmp_path / "corpus"
    assert main(["demo", "--out", str(out), "--format", "jsonl", "--docs", "7", "--seed", "5"]) == 0
    line = capsys.readouterr().out
    assert line.count("\n") == 1 and "7 synthetic notes" in line
    back = formats.read_collection(out, "jsonl", I2B2_2014)
    truth = generate_corpus(7, 5)
    assert [d.doc_id for d in back] == [d.doc_id for d in truth]
    assert [len(d.spans) for d in back] == [len(d.spans) for d in truth]
