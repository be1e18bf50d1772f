"""What a worker process runs: the explicit table of job functions by kind.

``python -m pipeline run-job --db DB --job ID`` calls :func:`run_job`; the command line runs a
job in its own process with :func:`run_inline`. Both look the function up in :data:`JOBS`, the
one place that names every job module: adding a kind means adding its function here and its
name to :data:`services.jobs.JOB_KINDS` (a test checks the two agree).
"""
from __future__ import annotations

import os
import time
from typing import Callable

from services import deid_runs, demo, infill, preannotation, risk, training_job
from services.jobs import JOB_KINDS, JobCancelled, JobContext, JobFunction, run_here, run_queued


def _selftest(ctx: JobContext) -> dict:
    """A job that only counts: lets an operator (and the tests) check that workers start,
    report progress, survive page reloads and can be cancelled, without touching any data."""
    steps = int(ctx.params.get("steps", 5))
    delay = float(ctx.params.get("delay", 0.2))
    for i in range(steps):
        if ctx.should_stop():
            raise JobCancelled("cancelled on request")
        time.sleep(delay)
        ctx.progress(i + 1, steps, f"step {i + 1} of {steps}", force=True)
    if ctx.params.get("fail"):
        raise RuntimeError("selftest failure with text that must not be stored: ZQXSECRET")
    return {"steps": steps}


JOBS: dict[str, JobFunction] = {
    "demo_setup": demo.demo_model_job,
    "deidentify": deid_runs.deidentify_job,
    "preannotate": preannotation.preannotate_job,
    "risk": risk.risk_job,
    "selftest": _selftest,
    "train": training_job.train_job,
    "train_infill": infill.train_infill_job,
}
assert set(JOBS) == set(JOB_KINDS), "services.jobs.JOB_KINDS and services.worker.JOBS must name the same kinds"


def job_kinds() -> list[str]:
    return sorted(JOBS)


def run_job(db_path: str | os.PathLike, job_id: int) -> int:
    """Run a queued job in this process (the worker's body). Returns an exit status."""
    return run_queued(db_path, job_id, JOBS)


def run_inline(db_path: str | os.PathLike, kind: str, params: dict, *, user: str | None = None,
               on_progress: Callable[[int, int | None, str | None], None] | None = None) -> dict:
    """Run a job function in this process, recorded in the jobs table (the CLI's path)."""
    return run_here(db_path, kind, JOBS[kind], params, user=user, on_progress=on_progress)
