"""Training and pre-annotation jobs on the demo project with tiny models: a trained version is
recorded with its held-out evaluation but not activated; activation and rollback; a cancelled,
failed or killed run leaves the store, the active model and the models folder as they were;
pre-annotation writes the pre layer of unannotated documents only."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

import store
from services import jobs
from services import training as tj
from services.training_job import train_from_store
from services import preannotation as pa
from services.demo import create_demo_project
from pipeline.errors import PermissionDenied
from services.jobs import JobCancelled
from pipeline.spans import Document, Span

LEAD = "lea"
TINY = {"crf": {"max_iterations": 8},
        "encoders": {"bert": {"hidden": 16, "layers": 1, "heads": 1, "intermediate": 32, "vocab_size": 300,
                              "max_len": 64, "overlap": 16, "batch_size": 8}}}


def _make_demo(db_path: Path, models_dir: Path) -> int:
    db = store.connect(db_path)
    pid = create_demo_project(db, n_docs=30, seed=7)
    settings = dict(store.get_project(db, pid).settings)
    settings["models_dir"] = str(models_dir)
    store.update_project_settings(db, pid, settings)
    if store.get_user(db, LEAD) is None:
        store.create_user(db, LEAD, "a long test password", "lead")
    db.close()
    return pid


def _published(models_dir: Path, pid: int) -> list[str]:
    d = models_dir / f"project-{pid}"
    return sorted(p.name for p in d.iterdir() if p.is_dir() and not p.name.startswith(".")) if d.is_dir() else []


def _tmp_dirs(models_dir: Path, pid: int) -> list[str]:
    d = models_dir / f"project-{pid}"
    return sorted(p.name for p in d.iterdir() if p.name.startswith(".tmp-")) if d.is_dir() else []


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The 30-document demo with one tiny version trained through the job (crf + bert, 1 epoch)."""
    base = tmp_path_factory.mktemp("trained")
    db_path, models = base / "base.db", base / "models"
    pid = _make_demo(db_path, models)
    seen: list[tuple] = []
    result = train_from_store(db_path, pid, members=["crf", "bert"], epochs=1, seed=3, config=TINY, threads=1,
                              user=LEAD, progress=lambda d, t, m: seen.append((d, t, m)))
    return {"base": base, "db_path": db_path, "models": models, "pid": pid, "result": result, "seen": seen}


@pytest.fixture
def fresh(trained, tmp_path):
    """A private copy of the trained database (the model files are shared, read-only)."""
    path = store.backup(trained["db_path"], tmp_path / "copy.db")
    return {**trained, "db_path": path}


def test_training_records_an_evaluated_inactive_version(trained):
    db = store.connect(trained["db_path"])
    pid, result = trained["pid"], trained["result"]
    versions = store.list_model_versions(db, pid)
    assert [v.id for v in versions] == [result["model_version_id"]]
    mv = versions[0]
    assert not mv.active and store.active_model(db, pid) is None
    # held-out evaluation in EvaluationReport form, per category, plus the trainer's own figures
    per_cat = mv.metrics["strict"]["per_category"]
    assert per_cat and set(per_cat) <= set(store.get_project(db, pid).schema.categories)
    assert 0.0 <= mv.metrics["strict"]["micro"]["f1"] <= 1.0
    assert mv.metrics["evaluated_on"]["documents"] == result["n_dev_docs"] >= 1
    assert "ensemble" in mv.metrics["training"] and mv.thresholds
    # the version folder is published under <models_dir>/project-<id>, staging removed
    assert Path(mv.path).parent == trained["models"] / f"project-{pid}"
    assert (Path(mv.path) / "version.json").is_file()
    assert _published(trained["models"], pid) == [mv.name] and _tmp_dirs(trained["models"], pid) == []
    # train and dev are patient-disjoint and together are the finished gold set
    train_ids, dev_ids = mv.config["train_doc_ids"], mv.config["dev_doc_ids"]
    gold = store.read_project_layer(db, pid, "gold", status="finished")
    assert sorted(train_ids + dev_ids) == sorted(gold)
    recs = {r.id: r.patient_id for r in store.list_documents(db, pid)}
    assert not {recs[i] for i in train_ids} & {recs[i] for i in dev_ids}
    # progress went through the job: the row is done, with the live loss history in its result
    job = store.list_jobs(db, "train", project_id=pid)[0]
    assert job.status == "done" and job.result["model_version_id"] == mv.id
    said = jobs.describe_result(job)          # the Train page's line: characters and notes beside F1
    ch = mv.metrics["characters"]["micro"]
    assert f"characters P {ch['precision']:.3f} R {ch['recall']:.3f}" in said and "all PHI found in" in said
    assert any(p["loss"] is not None for p in job.result["history"])
    assert trained["seen"] and trained["seen"][-1][0] >= trained["seen"][0][0]
    assert job.created_by == LEAD


def test_activation_and_rollback(fresh):
    db = store.connect(fresh["db_path"])
    pid = fresh["pid"]
    lead, ana = store.get_user(db, LEAD), store.get_user(db, "ana")
    v1 = fresh["result"]["model_version_id"]
    with pytest.raises(PermissionDenied):
        tj.activate_version(db, ana, v1)
    tj.activate_version(db, lead, v1)
    assert store.active_model(db, pid).id == v1
    models_dir = fresh["models"] / f"project-{pid}"
    assert (models_dir / "ACTIVE").read_text().strip() == store.get_model_version(db, v1).name
    # a second version (CRF only: fast; learning from a surrogate copy of every training note, as the
    # Train page offers), activated, then rolled back to the first
    r2 = train_from_store(fresh["db_path"], pid, members=["crf"], seed=5, user=LEAD,
                          config={**TINY, "augment_copies": 1, "augment_crf": True})
    v2 = r2["model_version_id"]
    aug = store.get_model_version(db, v2).metrics["training"]["augment"]
    assert aug["copies"] == 1 and aug["crf"] and aug["documents"] > 0
    assert store.active_model(db, pid).id == v1          # training never activates
    tj.activate_version(db, lead, v2)
    assert store.active_model(db, pid).id == v2
    back = tj.rollback_version(db, lead, pid)
    assert back.id == v1 and store.active_model(db, pid).id == v1
    assert store.get_model_version(db, v2).status == "rolled_back"
    assert (models_dir / "ACTIVE").read_text().strip() == back.name
    with pytest.raises(store.NotFoundError):
        tj.rollback_version(db, lead, pid)               # v1 replaced nothing


def test_cancelled_training_leaves_store_and_models_unchanged(fresh):
    db = store.connect(fresh["db_path"])
    pid = fresh["pid"]
    v1 = fresh["result"]["model_version_id"]
    store.activate_model(db, v1, user=LEAD)
    before = _published(fresh["models"], pid)
    asked: list[int] = []

    def cancel_at_first_progress(done, total, message):
        if not asked:
            job = store.list_jobs(db, "train", project_id=pid, status="running")[0]
            store.request_cancel(db, job.id, user=LEAD)
            asked.append(job.id)

    with pytest.raises(JobCancelled):
        train_from_store(fresh["db_path"], pid, members=["crf", "bert"], epochs=1, config=TINY, user=LEAD,
                         progress=cancel_at_first_progress)
    job = store.get_job(db, asked[0])
    assert job.status == "failed" and "cancelled" in job.error
    assert [v.id for v in store.list_model_versions(db, pid)] == [v1]
    assert store.active_model(db, pid).id == v1
    assert _published(fresh["models"], pid) == before
    assert _tmp_dirs(fresh["models"], pid) == []


def test_killed_training_worker_leaves_no_version(fresh):
    db = store.connect(fresh["db_path"])
    pid = fresh["pid"]
    v1 = fresh["result"]["model_version_id"]
    store.activate_model(db, v1, user=LEAD)
    before = _published(fresh["models"], pid)
    config = {**TINY, "crf": {"max_iterations": 400}}
    job_id = jobs.start_job(fresh["db_path"], "train", {"project_id": pid, "members": ["crf", "bert"], "epochs": 3,
                                                        "config": config, "threads": 1, "user": LEAD}, user=LEAD)
    deadline = time.monotonic() + 90
    while True:
        job = store.get_job(db, job_id)
        if job.status == "running" and job.pid and job.progress > 0:
            break
        assert not job.finished, job.error
        assert time.monotonic() < deadline, "the training worker did not start"
        time.sleep(0.1)
    os.kill(job.pid, signal.SIGKILL)
    try:
        os.waitpid(job.pid, 0)       # we started it: reap it, else it lingers as a zombie "alive" to kill(0)
    except ChildProcessError:
        pass
    assert job_id in store.mark_stale_jobs_failed(db, older_than_s=0)
    job = store.get_job(db, job_id)
    assert job.status == "failed" and "heartbeat" in job.error
    assert [v.id for v in store.list_model_versions(db, pid)] == [v1]
    assert store.active_model(db, pid).id == v1
    assert _published(fresh["models"], pid) == before    # at most a .tmp-* folder, which readers ignore
    from models.version import remove_stale_tmp
    remove_stale_tmp(fresh["models"] / f"project-{pid}")
    assert _tmp_dirs(fresh["models"], pid) == []


def test_preannotate_writes_pre_layer_of_unannotated_documents_only(fresh):
    db = store.connect(fresh["db_path"])
    pid = fresh["pid"]
    mv = store.get_model_version(db, fresh["result"]["model_version_id"])
    with pytest.raises(tj.TrainingError):
        pa.preannotate_from_store(fresh["db_path"], pid, user=LEAD)       # no active model yet
    store.activate_model(db, mv.id, user=LEAD)
    targets = pa.unannotated_documents(db, pid)
    assert targets
    touched_before = {d: store.layers_of(db, d) for d in (r.id for r in store.list_documents(db, pid))}
    for d, layers in touched_before.items():
        has_work = "gold" in layers or any(n.startswith("annotator:") for n in layers)
        assert (d in targets) == (not has_work)
    result = pa.preannotate_from_store(fresh["db_path"], pid, user=LEAD)
    assert result["documents"] == len(targets) and result["model"] == mv.name
    n_model = 0
    for d, layers in touched_before.items():
        after = store.layers_of(db, d)
        if d in targets:
            state = store.read_layer(db, d, "pre")
            assert state.version == (layers["pre"].version + 1 if "pre" in layers else 1)
            assert all(s.layer == "pre" and s.doc_id == str(d) for s in state.spans)
            n_model += sum(s.source == f"model:{mv.name}" for s in state.spans)
        else:   # documents somebody works on keep their pre layer as it was
            assert after.get("pre") == layers.get("pre")
    assert n_model > 0
    assert sum(len(store.read_layer(db, d, "pre").spans) for d in targets) == result["spans"]


def test_preannotate_rules_only_without_a_model(tmp_path):
    db_path = tmp_path / "w.db"
    pid = _make_demo(db_path, tmp_path / "models")
    db = store.connect(db_path)
    targets = pa.unannotated_documents(db, pid)[:3]
    result = pa.preannotate_from_store(db_path, pid, doc_ids=targets, rules_only=True, user=LEAD)
    assert result["documents"] == 3 and result["model"] is None and "rules" in result["parts"]
    for d in targets:
        spans = store.read_layer(db, d, "pre").spans
        assert spans and not any(s.source.startswith("model:") for s in spans)


def test_unannotated_notes_words_get_word_clusters_when_the_project_trains(tmp_path):
    """The CRF's word clusters learn from every imported note, not only the gold ones (issue 30):
    a ward word found only in notes no one annotated is in the trained member's clusters."""
    import json

    db_path = tmp_path / "w.db"
    pid = _make_demo(db_path, tmp_path / "models")
    db = store.connect(db_path)
    gold_words = " ".join(d.text for d in store.load_documents(db, pid, layer="gold")).lower()
    assert "quillfeather" not in gold_words and "nursing" not in gold_words.split()
    notes = [Document(f"ward-{i}", f"Pt seen by Dr Quillfeather on {unit} ward. Quillfeather nursing note: "
                                   f"afebrile, {unit} unit, family at bedside.", patient_id=f"W{i}")
             for i, unit in enumerate(["Quillfeather", "north", "Quillfeather", "east"])]
    store.add_documents(db, pid, notes)                      # imported, not annotated
    cfg = {**TINY, "augment_copies": 0, "case_copies": 0, "refit_crf": False}
    result = train_from_store(db_path, pid, members=["crf"], seed=3, config=cfg, threads=1, user=LEAD)
    clusters = json.loads((Path(result["path"]) / "members" / "crf" / "clusters.json").read_text(encoding="utf-8"))
    assert "quillfeather" in clusters and len(clusters["quillfeather"]) == 2      # a cluster at both sizes
    assert "nursing" in clusters
    assert result["n_unlabelled_texts"] >= len(notes) + result["n_dev_docs"]


def test_training_refuses_too_little_gold_and_non_leads(tmp_path):
    db_path = tmp_path / "w.db"
    db = store.connect(db_path)
    from pipeline.schemas import I2B2_2014

    pid = store.create_project(db, "one patient", I2B2_2014, settings={"models_dir": str(tmp_path / "models")})
    text = "Seen by Dr Alvarez on 2019-03-04 at Mercy Hospital."
    docs = [Document(doc_id=f"n{i}", text=text, patient_id="P1",
                     spans=[Span("", 11, 18, "NAME", "DOCTOR"), Span("", 22, 32, "DATE", "DATE")]) for i in range(3)]
    store.add_documents(db, pid, docs, layer="gold")
    store.create_user(db, "ana", "a long test password", "annotator")
    with pytest.raises(tj.TrainingError) as err:
        train_from_store(db_path, pid, members=["crf"], config=TINY)
    assert "at least 2 patients" in str(err.value)
    job = store.list_jobs(db, "train", project_id=pid)[0]
    assert job.status == "failed" and "at least 2 patients" in job.error and "Alvarez" not in job.error
    with pytest.raises(PermissionDenied):
        train_from_store(db_path, pid, members=["crf"], config=TINY, user="ana")
    with pytest.raises(tj.TrainingError):
        tj.TrainParams.from_params({"project_id": pid, "members": ["crf", "gpt"]})
    with pytest.raises(tj.TrainingError):
        tj.TrainParams.from_params({"project_id": pid, "target_recall": 1.5})
    assert store.list_model_versions(db, pid) == []
    assert not (tmp_path / "models" / f"project-{pid}").exists() or _published(tmp_path / "models", pid) == []


def test_cli_train_project_and_preannotate(trained, tmp_path, capsys):
    """The command-line path: train-project runs the same job inline and prints figures only."""
    import json

    from cli import main

    path = store.backup(trained["db_path"], tmp_path / "cli.db")
    cfg = tmp_path / "tiny.json"
    cfg.write_text(json.dumps(TINY))
    db = store.connect(path)
    name = store.get_project(db, trained["pid"]).name
    rc = main(["train-project", "--db", str(path), "--project", name, "--members", "crf", "--config", str(cfg),
               "--activate", "--no-progress", "--user", LEAD, "--augment-copies", "2", "--no-augment-crf"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "activated" in out and "dev strict" in out
    assert "dev characters (PHI or not, any label) P" in out          # beside F1 (issue 30)
    active = store.active_model(db, trained["pid"])
    assert active is not None and active.name in out
    assert (active.config["augment_copies"], active.config["augment_crf"]) == (2, False)
    assert active.metrics["training"]["augment"]["crf"] is False
    assert main(["train-project", "--db", str(path), "--project", name, "--augment-copies", "-1",
                 "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "--augment-copies must be between 0 and 8" in err and err.count("\n") == 1
    assert main(["train-project", "--db", str(path), "--project", name, "--augment-copies", "9",
                 "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "--augment-copies must be between 0 and 8" in err and err.count("\n") == 1
    rc = main(["preannotate", "--db", str(path), "--project", name, "--no-progress", "--doc",
               str(pa.unannotated_documents(db, trained["pid"])[0]), "--user", LEAD])
    assert rc == 0 and "1 document(s) pre-annotated" in capsys.readouterr().out
    assert main(["train-project", "--db", str(path), "--project", "nope"]) == 1
    # the hierarchical mode from the project command: a category member beside the type member
    rc = main(["train-project", "--db", str(path), "--project", name, "--members", "crf", "--config", str(cfg),
               "--mode", "hierarchical", "--no-progress", "--user", LEAD])
    assert rc == 0
    newest = max(store.list_model_versions(db, trained["pid"]), key=lambda v: v.id)
    assert newest.config.get("mode") == "hierarchical" and (Path(newest.path) / "members" / "crf-category").is_dir()
    assert newest.metrics["training"]["augment"] == {**newest.metrics["training"]["augment"], "copies": 1, "crf": True}
    capsys.readouterr()
    assert main(["train-project", "--db", str(path), "--project", name, "--mode", "tree", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "unknown ensemble mode" in err and err.count("\n") == 1
