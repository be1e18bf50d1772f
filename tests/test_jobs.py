"""Jobs run in a worker process, report progress to the store, fail with a safe reason, and a
killed worker is detected through its stopped heartbeat."""
from __future__ import annotations

import os
import signal
import time

import pytest

import store
from services import jobs
from services import worker


def wait_for(db_path, job_id, predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        db = store.connect(db_path)
        job = store.get_job(db, job_id)
        db.conn.close()
        if predicate(job):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not reach the expected state in {timeout} s")


def test_worker_process_runs_job_to_completion(tmp_path):
    db_path = tmp_path / "w.db"
    store.connect(db_path)
    job_id = jobs.start_job(db_path, "selftest", {"steps": 3, "delay": 0.05}, user="lea")
    job = wait_for(db_path, job_id, lambda j: j.finished)
    assert job.status == "done"
    assert job.progress == 3 and job.total == 3
    assert job.result == {"steps": 3}


def test_failed_job_stores_type_not_message(tmp_path):
    db_path = tmp_path / "w.db"
    store.connect(db_path)
    result = None
    with pytest.raises(RuntimeError):
        result = worker.run_inline(db_path, "selftest", {"steps": 1, "delay": 0, "fail": True})
    assert result is None
    job = store.list_jobs(store.connect(db_path), "selftest")[0]
    assert job.status == "failed"
    assert "RuntimeError" in job.error and "ZQXSECRET" not in job.error


def test_cancel_request_stops_the_worker(tmp_path):
    db_path = tmp_path / "w.db"
    store.connect(db_path)
    job_id = jobs.start_job(db_path, "selftest", {"steps": 200, "delay": 0.05})
    wait_for(db_path, job_id, lambda j: j.status == "running" and (j.progress or 0) >= 1)
    store.request_cancel(store.connect(db_path), job_id, user="lea")
    job = wait_for(db_path, job_id, lambda j: j.finished)
    assert job.status == "failed" and job.error == "cancelled on request"
    assert job.progress < 200


def test_killed_worker_is_marked_failed(tmp_path):
    db_path = tmp_path / "w.db"
    store.connect(db_path)
    job_id = jobs.start_job(db_path, "selftest", {"steps": 500, "delay": 0.05})
    job = wait_for(db_path, job_id, lambda j: j.status == "running" and j.pid)
    os.kill(job.pid, signal.SIGKILL)
    time.sleep(0.5)
    db = store.connect(db_path)
    failed = store.mark_stale_jobs_failed(db, older_than_s=0)
    assert job_id in failed
    job = store.get_job(db, job_id)
    assert job.status == "failed" and "heartbeat" in job.error
