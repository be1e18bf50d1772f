"""Long work (training, batch de-identification, risk scoring, pre-annotation) as jobs.

A job is a row in the store's ``jobs`` table plus a worker *process* started with
``python -m pipeline run-job``. A separate process, not a thread of the Streamlit server,
because a page reload must not stop it, a crash in it must not take the app down, and a killed
worker is visible: its heartbeat stops and :func:`store.mark_stale_jobs_failed` marks it failed.
The command line runs the same job functions in-process with a tqdm bar.

This module is the mechanism: :class:`JobContext` (what a job function gets), starting a
worker, heartbeats, recording the outcome, and the reads and the cancel the pages need. Which
function runs for which kind is the explicit table in :mod:`services.worker`, which imports the
job modules; they import this one, never the other way round.

Job functions take a :class:`JobContext`, report progress through it and return a
JSON-serialisable result. Error text stored on a failed job is the message of a user-facing
error (which never quotes documents) or just the exception's type.

A job that ended stays as it ended. A worker that was declared dead (no heartbeat, see
:func:`fail_stale_jobs`) may only have been stalled and finish later: the store then refuses
its outcome (:class:`store.JobFinishedError`, audited as ``job.late_result_discarded``) and
:func:`finish` reports that instead of crashing; the worker learns it sooner from
:meth:`JobContext.should_stop` and from its refused progress writes, and stops.
"""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from sqlite_utils import Database

import store
from pipeline.errors import WorkbenchError, is_user_error
from pipeline.offline import OFFLINE_ENV
from services import access
from services.settings import STALE_JOB_SECONDS

log = logging.getLogger(__name__)

HEARTBEAT_S = 5.0
#: Every kind of job a worker can run (the functions are in :data:`services.worker.JOBS`).
JOB_KINDS = ("demo_setup", "deidentify", "preannotate", "risk", "selftest", "train", "train_infill")
#: Job kinds the Train page shows progress for (``selftest`` lets an operator check workers).
TRAIN_PAGE_KINDS = ("train", "preannotate", "demo_setup", "selftest")
#: What each kind is called on screen.
KIND_WORDS = {"train": "training", "preannotate": "pre-annotation", "deidentify": "de-identification",
              "risk": "risk scoring", "selftest": "self-test", "demo_setup": "demo set-up",
              "train_infill": "language-model training"}
JobFunction = Callable[["JobContext"], dict]


class JobCancelled(WorkbenchError):
    """The job was asked to stop (by a lead, or the CLI's Ctrl-C)."""


def safe_error(e: BaseException) -> str:
    """The text stored in a failed job's error field: never a message that could quote text."""
    if is_user_error(e):
        return str(e)[:500]
    return f"{type(e).__name__} (details withheld: they may contain document text; rerun from the command line with -v)"


@dataclass
class JobContext:
    """What a job function gets: its parameters, the store path, and progress reporting.

    A job opens the store for each step with ``with store.connect(ctx.db_path) as db:`` and
    holds no connection while it computes (a forked detection worker must inherit none)."""

    db_path: str
    job_id: int | None
    params: dict
    on_progress: Callable[[int, int | None, str | None], None] | None = None
    _last_write: float = field(default=0.0, repr=False)
    _cancel_checked: float = field(default=0.0, repr=False)

    def progress(self, done: int, total: int | None = None, message: str | None = None, *, force: bool = False) -> None:
        """Record progress; throttled to one store write per 0.5 s unless ``force``."""
        if self.on_progress is not None:
            self.on_progress(done, total, message)
        if self.job_id is None:
            return
        now = time.monotonic()
        if not force and now - self._last_write < 0.5 and (total is None or done < total):
            return
        self._last_write = now
        with store.connect(self.db_path) as db:
            store.update_job(db, self.job_id, progress=done, total=total, message=message)

    def should_stop(self) -> bool:
        """True when a cancel was requested for this job, or the job already ended without this
        worker (marked failed for a stopped heartbeat): its result would be discarded anyway.
        Checked at most once a second."""
        if self.job_id is None:
            return False
        now = time.monotonic()
        if now - self._cancel_checked < 1.0:
            return False
        self._cancel_checked = now
        with store.connect(self.db_path) as db:
            job = store.get_job(db, self.job_id)
        return bool(job.cancel_requested) or job.finished

    def check_stop(self) -> None:
        """Raise :class:`JobCancelled` when a cancel was requested."""
        if self.should_stop():
            raise JobCancelled("cancelled on request")

    def stage(self, name: str) -> Callable[[int, int], None]:
        """A ``progress(done, total)`` callback reporting under the stage ``name``."""
        def fn(done: int, total: int) -> None:
            self.progress(done, total, name)
        return fn


# --------------------------------------------------------------------------- starting and running

def start_job(db_path: str | os.PathLike, kind: str, params: dict, *, user: str | None = None) -> int:
    """Queue a job and start its worker process; returns the job id at once."""
    if kind not in JOB_KINDS:
        raise WorkbenchError(f"unknown job kind {kind!r}")
    with store.connect(db_path) as db:
        job_id = store.create_job(db, kind, params, project_id=params.get("project_id"), user=user)
    root = Path(__file__).resolve().parents[1]
    subprocess.Popen(
        [sys.executable, "-m", "pipeline", "run-job", "--db", str(db_path), "--job", str(job_id)],
        cwd=str(root), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, env={**os.environ, **OFFLINE_ENV},
    )
    return job_id


class Heartbeat:
    """Touches the job's heartbeat every few seconds from a thread of its own, so a long step
    that reports no progress (embedding, an epoch) is not mistaken for a dead worker."""

    def __init__(self, db_path: str | os.PathLike, job_id: int):
        self.db_path, self.job_id = db_path, job_id
        self.stop = threading.Event()

    def __enter__(self) -> "Heartbeat":
        threading.Thread(target=self._beat, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()

    def _beat(self) -> None:
        while not self.stop.wait(HEARTBEAT_S):
            try:
                with store.connect(self.db_path) as hdb:
                    alive = store.heartbeat(hdb, self.job_id)
                if not alive:  # the job ended without us (declared dead): nothing left to keep alive
                    return
            except Exception:  # noqa: BLE001 - a missed heartbeat is not fatal
                log.warning("job %s: heartbeat failed", self.job_id)


def finish(db_path: str | os.PathLike, job_id: int, status: str, error: str | None, result) -> bool:
    """Record a job's outcome (the result made JSON-safe). Returns ``False`` when the job had
    already ended without this worker (failed for a stopped heartbeat): the store refused the
    late outcome and audited it; nothing of it was saved."""
    with store.connect(db_path) as db:
        try:
            store.update_job(db, job_id, status=status, error=error,
                             result=json.loads(json.dumps(result, default=str)) if result is not None else None)
        except store.JobFinishedError:
            log.warning("job %s had already ended; its late outcome (%s) was discarded", job_id, status)
            return False
    return True


def _late_error(job_id: int) -> store.JobFinishedError:
    return store.JobFinishedError(
        f"job {job_id} was marked failed while it ran (its heartbeat stopped, e.g. the machine was suspended); "
        "its late result was discarded: run it again")


def run_queued(db_path: str | os.PathLike, job_id: int, functions: dict[str, JobFunction]) -> int:
    """Run a queued job in this process (the worker's body) with the function for its kind.
    Returns an exit status."""
    with store.connect(db_path) as db:
        job = store.get_job(db, job_id)  # NotFoundError (a user error) for an unknown id
        if job.finished:  # cancelled while queued, or failed before this worker started
            log.warning("job %s already ended (%s); not running it", job_id, job.status)
            return 1
        fn = functions.get(job.kind)
        if fn is None:
            finish(db_path, job_id, "failed", f"unknown job kind {job.kind!r}", None)
            return 1
        try:
            store.update_job(db, job_id, status="running", pid=os.getpid())
        except store.JobFinishedError:
            return 1
    ctx = JobContext(db_path=str(db_path), job_id=job_id, params=dict(job.params or {}))
    status, error, result = "done", None, None
    with Heartbeat(db_path, job_id):
        try:
            result = fn(ctx)
        except JobCancelled:
            status, error = "failed", "cancelled on request"
        except BaseException as e:  # noqa: BLE001 - every failure must reach the jobs table
            status, error = "failed", safe_error(e)
            log.warning("job %s failed: %s", job_id, type(e).__name__)
    recorded = finish(db_path, job_id, status, error, result)
    return 0 if status == "done" and recorded else 1


def run_here(db_path: str | os.PathLike, kind: str, fn: JobFunction, params: dict, *, user: str | None = None,
             on_progress: Callable[[int, int | None, str | None], None] | None = None) -> dict:
    """Run ``fn`` in this process, recorded in the jobs table as a job of ``kind`` (the CLI's path).

    If the job was marked failed while ``fn`` ran (its heartbeat stopped: the process was
    suspended), the result is discarded and :class:`store.JobFinishedError` says so in one line,
    also when ``fn`` itself failed because its late writes were refused."""
    with store.connect(db_path) as db:
        job_id = store.create_job(db, kind, params, project_id=params.get("project_id"), user=user)
        store.update_job(db, job_id, status="running", pid=os.getpid())
    ctx = JobContext(db_path=str(db_path), job_id=job_id, params=params, on_progress=on_progress)
    with Heartbeat(db_path, job_id):
        try:
            result = fn(ctx)
        except BaseException as e:
            recorded = finish(db_path, job_id, "failed", "cancelled on request"
                              if isinstance(e, (JobCancelled, KeyboardInterrupt)) else safe_error(e), None)
            if not recorded and not isinstance(e, KeyboardInterrupt):
                raise _late_error(job_id) from None
            raise
    if not finish(db_path, job_id, "done", None, result):
        raise _late_error(job_id)
    return result


# --------------------------------------------------------------------------- what the pages read

def get_job(db: Database, job_id: int) -> store.Job:
    return store.get_job(db, int(job_id))


def job_finished(db: Database, job_id: int | None) -> bool:
    """Whether the job is over (or there is none): a page enables its start button again."""
    return job_id is None or store.get_job(db, int(job_id)).finished


def fail_stale_jobs(db: Database) -> list[int]:
    """Fail running jobs whose worker stopped sending heartbeats (killed, crashed): a page calls
    this before listing jobs, so nobody watches a dead job's progress bar."""
    return store.mark_stale_jobs_failed(db, older_than_s=STALE_JOB_SECONDS)


def running_jobs(db: Database, project_id: int, kinds: Sequence[str] = TRAIN_PAGE_KINDS) -> list[store.Job]:
    """Queued or running jobs of ``kinds`` for the project, newest first (what a page polls)."""
    out: list[store.Job] = []
    for status in ("running", "queued"):
        out += [j for j in store.list_jobs(db, project_id=project_id, status=status, limit=50) if j.kind in kinds]
    return sorted(out, key=lambda j: j.id, reverse=True)


def recent_jobs(db: Database, project_id: int, kinds: Sequence[str] = TRAIN_PAGE_KINDS,
                limit: int = 20) -> list[store.Job]:
    """Newest jobs of ``kinds`` for the project."""
    return [j for j in store.list_jobs(db, project_id=project_id, limit=limit * 3) if j.kind in kinds][:limit]


def failed_jobs(db: Database, project_id: int, kinds: Sequence[str] | None = None,
                limit: int = 20) -> list[store.Job]:
    """Newest failed jobs of the project (of ``kinds``, or of every kind)."""
    if kinds is None:
        return store.list_jobs(db, project_id=project_id, status="failed", limit=limit)
    return [j for j in recent_jobs(db, project_id, kinds, limit) if j.status == "failed"]


def cancel_job(db: Database, user: store.User, job_id: int) -> store.Job:
    """Ask a job's worker to stop. Leads cancel any job; reviewers their own risk scoring."""
    job = store.get_job(db, int(job_id))
    if not (access.can(user, "train") or (job.kind == "risk" and job.created_by == getattr(user, "username", None)
                                          and access.can(user, "decide_risk"))):
        access.require(user, "train")
    return store.request_cancel(db, int(job_id), user=user.username)


def history_of(job: store.Job) -> list[dict]:
    """The loss/F1 points of a train job (running or finished), for the page's chart."""
    res = job.result if isinstance(job.result, dict) else {}
    return [p for p in res.get("history") or [] if isinstance(p, dict)]


def result_summary(result: dict) -> str:
    """One line about a finished job's result (figures only)."""
    return json.dumps({k: v for k, v in result.items() if k not in ("history", "phase")}, default=str)


def describe_result(job: store.Job) -> str:
    """What a finished job did, in words (for the pages; figures and ids only, no text)."""
    r = job.result if isinstance(job.result, dict) else {}
    if job.status == "failed":
        return job.error or "failed (no reason recorded)"
    if job.kind == "train" and r.get("name"):
        f1 = (r.get("dev_strict") or {}).get("f1")
        fig = f"strict F1 {f1:.3f} on {r.get('n_dev_docs', '?')} held-out documents" if f1 is not None else "evaluated"
        ch, dr = r.get("dev_characters") or {}, r.get("dev_document_recall")
        if f1 is not None and ch.get("precision") is not None and ch.get("recall") is not None:
            fig += f"; characters P {ch['precision']:.3f} R {ch['recall']:.3f}"
        if f1 is not None and dr is not None:
            fig += f"; all PHI found in {dr:.1%} of them"
        return f"version {r['name']} ({fig}) in {float(r.get('seconds') or 0):,.0f} s"
    if job.kind == "preannotate":
        return (f"{r.get('documents', 0):,} document(s) pre-annotated with {r.get('spans', 0):,} suggestion(s)"
                + (f" from {r['source']}" if r.get("source") else "")
                + (f"; {r['skipped_stale']} skipped (saved meanwhile)" if r.get("skipped_stale") else ""))
    if job.kind == "deidentify" and r.get("run_id") is not None:
        return f"run {r['run_id']}: {r.get('documents', 0):,} document(s), {r.get('leaks', 0)} leak(s)"
    if job.kind == "risk" and r.get("run_id") is not None:
        c = r.get("colours") or {}
        return (f"run {r['run_id']} scored: {c.get('red', 0)} red, {c.get('amber', 0)} amber, "
                f"{c.get('green', 0)} green")
    if job.kind == "selftest":
        return f"{r.get('steps', 0)} step(s)"
    if job.kind == "train_infill" and r.get("name"):
        return (f"language model {r['name']} trained on {r.get('documents', 0):,} document(s) "
                f"in {float(r.get('seconds') or 0):,.0f} s")
    if job.kind == "demo_setup" and r.get("name"):
        return (f"version {r['name']} trained and activated; run {r.get('run_id')} de-identified "
                f"{r.get('documents', 0):,} document(s) and scored their risk")
    return "done"


def job_of_version(db: Database, mv: store.ModelVersion) -> store.Job | None:
    """The training job that made a model version (its loss and F1 history), if recorded."""
    job_id = (mv.config or {}).get("job_id")
    if job_id is None:
        return None
    try:
        return store.get_job(db, int(job_id))
    except store.NotFoundError:
        return None
