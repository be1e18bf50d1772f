"""Paraphrase in a project: the ``train_infill`` job (command line and page), ``deidentify-project
--profile paraphrase`` with and without the project's language model, cancel and resume rules,
and the De-identify page (profile editor, run summary with the quality table, training button)."""
from __future__ import annotations

import json
import time

import pytest

import store
from apptest_helpers import demo_app, errors, make_demo_db, new_app, open_page, sign_in  # noqa: F401
from cli import main
from pipeline.errors import PermissionDenied
from services import deid_batch, deid_runs
from services import infill, jobs, worker
from services.demo import DEMO_NAME
from services.jobs import JobCancelled, JobContext
from services.settings import project_secret

TINY = {"hidden": 32, "layers": 1, "heads": 2, "intermediate": 64, "epochs": 1, "vocab_size": 2000, "max_len": 64,
        "min_docs": 2, "batch_size": 16}


def _train(app, config=TINY) -> dict:
    return worker.run_inline(str(app.db_path), "train_infill", {"project_id": app.project_id, "config": config,
                                                                "user": "lea"}, user="lea")


def _project(app):
    db = app.db()
    try:
        return store.get_project(db, app.project_id)
    finally:
        db.close()


@pytest.fixture
def small_app(tmp_path):
    return make_demo_db(tmp_path / "wb.db", n_docs=12)


def test_train_infill_command_then_deidentify_project_paraphrase(small_app, tmp_path, capsys):
    cfg = tmp_path / "tiny.json"
    cfg.write_text(json.dumps(TINY), encoding="utf-8")
    db_path = str(small_app.db_path)
    assert main(["train-infill", "--project", DEMO_NAME, "--db", db_path, "--config", str(cfg), "--no-progress"]) == 0
    out = capsys.readouterr().out
    # only the notes with a gold layer (2 of the 12), their PHI replaced by surrogates first (issue 29)
    assert out.startswith("language model mlm-") and "documents 2 " in out and "without gold 10" in out
    with small_app.db() as db:
        [job] = store.list_jobs(db, "train_infill")
        assert job.status == "done" and job.result["documents"] == 2 and job.result["with_spans"] > 0
        assert job.result["without_gold"] == 10 and job.result["project_values"] > 0
        assert jobs.describe_result(job).startswith("language model mlm-")
        assert any(a.action == "infill.train" for a in store.list_audit(db, limit=5))
    with small_app.db() as db:
        status = infill.model_status(db, "cli:test", small_app.project_id, db_path)
    assert status["name"] == job.result["name"] and status["documents"] == 2

    rc = main(["deidentify-project", "--project", DEMO_NAME, "--db", db_path, "--profile", "paraphrase", "--no-risk"])
    line = capsys.readouterr().out
    assert rc == 0 and "leaks=0" in line and "same_rate=0.000" in line
    assert int(line.split("paraphrased=")[1].split()[0]) > 0
    with small_app.db() as db:
        run = store.list_deid_runs(db, small_app.project_id)[0]
    assert run.status == "done" and run.counts["paraphrased"] > 0 and not run.counts["paraphrase_fallbacks"].get("no_model")
    rows = run.quality["comparison"]
    assert [r["system"] for r in rows] == ["paraphrase", "list surrogates"]
    assert all(r["same_rate"] == 0.0 and r["bertscore_f1"] is not None for r in rows)
    assert run.quality["embedding"] == status["name"]

    # the run's outputs were infilled by that model: resuming after a retraining is refused
    retrained = _train(small_app)
    assert retrained["name"] != status["name"]
    with small_app.db() as db:
        profile = deid_batch.resolve_profile(db, small_app.project_id, "paraphrase")
    new_model = infill.project_infiller(_project(small_app), db_path)
    with pytest.raises(deid_batch.DeidentificationError, match="language model"):
        deid_runs.check_resume_fingerprint(run, profile, project_secret(db_path), "en", infiller=new_model)


def test_paraphrase_without_a_model_falls_back_and_says_so(small_app, capsys):
    db_path = str(small_app.db_path)
    assert infill.project_infiller(_project(small_app), db_path) is None
    rc = main(["deidentify-project", "--project", DEMO_NAME, "--db", db_path, "--profile", "paraphrase", "--no-risk"])
    line = capsys.readouterr().out
    assert rc == 0 and "leaks=0" in line
    with small_app.db() as db:
        run = store.list_deid_runs(db, small_app.project_id)[0]
    n = run.counts["paraphrase_fallbacks"]["no_model"]
    assert n > 0 and run.counts["paraphrased"] == 0
    assert f"({n} spans fell back to list surrogates: no project language model" in line
    assert run.quality["comparison"][0]["bertscore_f1"] is None       # no model, no embeddings


def test_a_cancelled_training_keeps_the_previous_model(small_app):
    first = _train(small_app)
    root = infill.infill_root(_project(small_app), small_app.db_path)
    before = sorted(p.name for p in root.iterdir())
    ctx = JobContext(db_path=str(small_app.db_path), job_id=None,
                     params={"project_id": small_app.project_id, "config": TINY, "user": "lea"})
    calls = []
    ctx.should_stop = lambda: calls.append(1) or len(calls) > 1      # type: ignore[method-assign]
    with pytest.raises(JobCancelled):
        infill.train_infill_job(ctx)
    assert sorted(p.name for p in root.iterdir()) == before
    assert infill.current_model(_project(small_app), small_app.db_path).name == first["name"]


def test_training_needs_the_train_right_and_the_kind_is_registered(small_app):
    assert "train_infill" in jobs.JOB_KINDS and worker.JOBS["train_infill"] is infill.train_infill_job
    with small_app.db() as db:
        store.create_user(db, "ann", "a long test password", "annotator")
        with pytest.raises(PermissionDenied):
            infill.start_infill_training(small_app.db_path, db, store.get_user(db, "ann"), small_app.project_id)
    with pytest.raises(infill.InfillError, match="settings"):
        _train(small_app, {"colour": "blue"})


# --------------------------------------------------------------------------- the page

def _wait_job(app, job_id: int, timeout: float = 180.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with app.db() as db:
            job = store.get_job(db, job_id)
        if job.finished:
            return job
        time.sleep(0.25)
    raise AssertionError(f"job {job_id} did not finish")


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_page_paraphrase_run_shows_the_quality_table(demo_app):
    model = _train(demo_app)
    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    assert "paraphrase" in at.selectbox(key="deid.profile").options[2]
    at.selectbox(key="deid.profile").set_value("paraphrase").run()
    assert not errors(at)
    assert "paraphrase" in at.selectbox(key="deid.action.paraphrase.NAME").options
    # one list of actions per category (Profile.allowed_actions): a date may take paraphrase, which means shift
    assert at.selectbox(key="deid.action.paraphrase.DATE").options == ["redact", "replace", "paraphrase", "shift", "keep"]
    assert at.selectbox(key="deid.action.paraphrase.DATE").value == "shift"
    assert at.selectbox(key="deid.action.paraphrase.NAME").value == "paraphrase"
    assert any(model["name"] in c.value for c in at.caption)
    at.radio(key="deid.which").set_value("By status").run()
    at.button(key="deid.run").click().run()
    assert not errors(at)
    job = _wait_job(demo_app, at.session_state["deid.job_id"])
    assert job.status == "done", job.error
    at.run()
    assert not errors(at)
    assert _metric(at, "Leaks") == "0" and int(_metric(at, "Paraphrased")) > 0
    assert not any("no project language model" in w.value for w in at.warning)
    assert [m for m in at.markdown if m.value == "**Paraphrase vs list surrogates**"]
    table = next(df.value for df in at.dataframe if "BERTScore F1" in df.value.columns)
    assert list(table["Surrogates"]) == ["paraphrase", "list surrogates"] and list(table["Same rate"]) == [0.0, 0.0]


def test_page_without_a_model_warns_and_starts_a_training_job(demo_app, monkeypatch):
    started = {}

    def fake_start_job(db_path, kind, params, *, user=None):     # the worker itself is tested above
        db = store.connect(db_path)
        try:
            job_id = store.create_job(db, kind, params, project_id=params.get("project_id"), user=user)
        finally:
            db.conn.close()
        started.update(kind=kind, params=params, job_id=job_id)
        return job_id

    monkeypatch.setattr(infill, "start_job", fake_start_job)
    res = worker.run_inline(str(demo_app.db_path), "deidentify", {"project_id": demo_app.project_id,
                                                                  "profile": "paraphrase", "risk": False})
    assert res["leaks"] == 0 and "no project language model" in res["fallback_note"]
    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    assert not errors(at)
    assert any("fell back to list surrogates: no project language model" in w.value for w in at.warning)
    assert any("No project language model yet" in i.value for i in at.info)
    at.button(key="deid.infill_train").click().run()
    assert not errors(at)
    assert started["kind"] == "train_infill" and started["params"]["project_id"] == demo_app.project_id
    assert at.session_state["deid.infill_job_id"] == started["job_id"]
    with demo_app.db() as db:
        jobs.cancel_job(db, store.get_user(db, "lea"), started["job_id"])
