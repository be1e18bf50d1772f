"""The first five minutes (issue 15, item 8): a first start trains and activates a model for the
demo project and makes a de-identification run with risk scores, in the background, so Metrics,
Risk and the rest show real work for a new user."""
from __future__ import annotations

import time

import store
from services import worker
from services.demo import create_demo_project


def test_demo_setup_job_trains_activates_and_deidentifies_with_risk(tmp_path):
    db_path = tmp_path / "w.db"
    db = store.connect(db_path)
    pid = create_demo_project(db, n_docs=30, seed=7)
    assert store.active_model(db, pid) is None and not store.list_deid_runs(db, pid)
    seen: list[str] = []
    result = worker.run_inline(str(db_path), "demo_setup", {"project_id": pid, "user": "installer"},
                               on_progress=lambda d, t, m: seen.append(m or ""))
    mv = store.active_model(db, pid)
    assert mv is not None and mv.name == result["name"] and (mv.config or {}).get("members") == ["crf"]
    [run] = store.list_deid_runs(db, pid)
    assert run.status == "done" and run.id == result["run_id"]
    assert len(store.risk_queue(db, run.id)) == result["documents"] == 30
    assert any("training" in m for m in seen) and any("de-identifying" in m for m in seen)
    [job] = store.list_jobs(db, "demo_setup")
    assert job.status == "done"
    db.close()


def test_init_project_with_train_demo_queues_the_set_up_in_the_background(tmp_path, monkeypatch, capsys):
    import io
    import sys

    from cli import main

    db_path = tmp_path / "v" / "w.db"
    monkeypatch.setattr(sys, "stdin", io.StringIO("quiet river lantern 1984\n"))
    assert main(["init-project", "--db", str(db_path), "--demo-docs", "20", "--train-demo",
                 "--lead-password-stdin"]) == 0
    assert "in the background (job" in capsys.readouterr().out
    db = store.connect(db_path)
    jobs = store.list_jobs(db, "demo_setup")
    assert len(jobs) == 1
    deadline = time.monotonic() + 300
    while not store.get_job(db, jobs[0].id).finished:
        assert time.monotonic() < deadline, "the demo set-up job did not finish in 5 minutes"
        time.sleep(1)
    job = store.get_job(db, jobs[0].id)
    pid = store.list_projects(db)[0].id
    assert job.status == "done", job.error
    assert store.active_model(db, pid) is not None and store.list_deid_runs(db, pid)
    db.close()
