"""Jobs: long work (training, batch de-identification, risk scoring, pre-annotation) that runs
outside a page's script run and reports progress here, so a reloaded page can pick it up.

A worker calls :func:`update_job` as it goes; every call refreshes ``heartbeat_at``. If the
worker's process dies, the heartbeat stops, and :func:`mark_stale_jobs_failed` (called by the
app at start-up and by pages that list jobs) turns such jobs into failures with a reason,
instead of leaving a progress bar spinning forever. Progress updates are not audited (there
can be thousands); creation and every status change are.

A job that ended stays as it ended. A worker declared dead may only have been stalled (a
suspended machine, a paused process); when it wakes up and reports ``done`` with a result,
:func:`update_job` refuses with :class:`JobFinishedError` and audits the discarded late result
(``job.late_result_discarded``), and a trigger refuses a model version whose ``config.job_id``
names a failed job, so a failed training job never adds one.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlite_utils import Database

from pipeline.errors import WorkbenchError
from store.audit import audit
from store.db import check_choice, dumps, loads, now_iso, retrying, transaction
from store.errors import NotFoundError

JOB_STATUSES = ("queued", "running", "done", "failed")
FINAL_STATUSES = ("done", "failed")


class JobFinishedError(WorkbenchError):
    """A write to a job that already ended (``done`` or ``failed``): a late worker's status,
    result or progress is refused and nothing about the job changes."""


@dataclass(frozen=True)
class Job:
    id: int
    kind: str
    params: dict
    status: str
    progress: float
    total: float | None
    message: str | None
    error: str | None
    result: Any
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    heartbeat_at: str | None = None
    pid: int | None = None
    project_id: int | None = None
    created_by: str | None = None
    cancel_requested: bool = False

    @property
    def fraction(self) -> float | None:
        """Progress in [0, 1] when a total is known (for a progress bar)."""
        if not self.total:
            return None
        return max(0.0, min(1.0, self.progress / self.total))

    @property
    def finished(self) -> bool:
        return self.status in FINAL_STATUSES


@retrying
def create_job(db: Database, kind: str, params: dict | None = None, *, project_id: int | None = None,
               total: float | None = None, user: str | None = None) -> int:
    """Queue a job of ``kind`` (``train``, ``deid``, ``risk``, ``preannotate``...); returns its id.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> job_id = store.create_job(db, "train", {"epochs": 3}, total=3, user="ana")
    >>> job = store.get_job(db, job_id)
    >>> job.kind, job.status, job.params, job.fraction
    ('train', 'queued', {'epochs': 3}, 0.0)
    """
    with transaction(db):
        cur = db.execute(
            """INSERT INTO jobs (kind, project_id, params_json, status, progress, total, created_by, created_at)
               VALUES (?, ?, ?, 'queued', 0, ?, ?, ?)""",
            [kind, project_id, dumps(params or {}), total, user, now_iso()])
        job_id = int(cur.lastrowid)
        audit(db, user, "job.create", f"job:{job_id}", detail={"kind": kind, "project_id": project_id})
    return job_id


_UNSET: Any = object()


@retrying
def update_job(db: Database, job_id: int, *, progress: float | None = None, total: float | None = None,
               status: str | None = None, message: str | None = None, error: str | None = None,
               result: Any = _UNSET, pid: int | None = None, user: str | None = None) -> Job:
    """Record progress and/or a status change; always refreshes the heartbeat. Moving to
    ``running`` stamps ``started_at`` (and the worker's pid, this process's by default);
    ``done``/``failed`` stamp ``finished_at``. ``error`` must be a safe message (no text).

    A job that already ended does not change any more: a status or result for it is discarded,
    audited as ``job.late_result_discarded``, and refused with :class:`JobFinishedError` (so is
    progress, without an audit row); a bare heartbeat is ignored.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> job_id = store.create_job(db, "deid", total=10)
    >>> job = store.update_job(db, job_id, status="running", progress=4, message="4 of 10 notes")
    >>> job.status, job.fraction, job.message
    ('running', 0.4, '4 of 10 notes')
    >>> job = store.update_job(db, job_id, status="done", progress=10, result={"documents": 10})
    >>> job.finished, job.result
    (True, {'documents': 10})
    >>> store.update_job(db, job_id, status="failed", error="too late")
    Traceback (most recent call last):
    ...
    store.jobs.JobFinishedError: job 1 already ended (done); this late status was discarded
    """
    if status is not None:
        check_choice(status, JOB_STATUSES, "job status")
    at = now_iso()
    sets, params = ["heartbeat_at = ?"], [at]  # type: ignore[list-item]
    for col, val in (("progress", progress), ("total", total), ("message", message), ("error", error)):
        if val is not None:
            sets.append(f"{col} = ?")
            params.append(val)
    if result is not _UNSET:
        sets.append("result_json = ?")
        params.append(dumps(result))
    if status is not None:
        sets.append("status = ?")
        params.append(status)
        if status == "running":
            sets.append("started_at = COALESCE(started_at, ?)")
            params.append(at)
            sets.append("pid = ?")
            params.append(pid if pid is not None else os.getpid())
        if status in FINAL_STATUSES:
            sets.append("finished_at = ?")
            params.append(at)
    elif pid is not None:
        sets.append("pid = ?")
        params.append(pid)
    late: str | None = None
    with transaction(db):
        old = db.execute("SELECT status FROM jobs WHERE id = ?", [int(job_id)]).fetchone()
        if old is None:
            raise NotFoundError(f"job {job_id} does not exist")
        if old[0] in FINAL_STATUSES:
            if status is not None or result is not _UNSET:
                late = "status" if status is not None else "result"
                audit(db, user, "job.late_result_discarded", f"job:{job_id}",
                      detail={"status": old[0], "refused_status": status, "refused_result": result is not _UNSET})
            elif len(sets) > 1:
                late = "progress"
            else:
                return get_job(db, job_id)  # a heartbeat from a late worker: nothing to record
        else:
            db.execute(f"UPDATE jobs SET {', '.join(sets)} WHERE id = ?", [*params, int(job_id)])
            if status is not None and status != old[0]:
                audit(db, user, f"job.{status}", f"job:{job_id}", detail={"error": error} if error else None)
            return get_job(db, job_id)
    raise JobFinishedError(f"job {job_id} already ended ({old[0]}); this late {late} was discarded")


def request_cancel(db: Database, job_id: int, *, user: str | None = None) -> Job:
    """Ask a queued or running job to stop; its worker notices at its next progress check.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> job_id = store.create_job(db, "risk")
    >>> job = store.request_cancel(db, job_id, user="ana")    # still queued: it fails at once
    >>> job.status, job.error, job.cancel_requested
    ('failed', 'cancelled on request', True)
    """
    job = get_job(db, job_id)
    if job.finished:
        return job
    with transaction(db):
        db.execute("UPDATE jobs SET cancel_requested = 1 WHERE id = ?", [int(job_id)])
        audit(db, user, "job.cancel_requested", f"job:{job_id}")
    if job.status == "queued":
        try:
            return update_job(db, job_id, status="failed", error="cancelled on request", user=user)
        except JobFinishedError:  # it ended meanwhile: as it ended
            pass
    return get_job(db, job_id)


def heartbeat(db: Database, job_id: int) -> bool:
    """Say "still alive" without changing anything else (for long steps without progress).
    Returns ``False`` when the job already ended (nothing is recorded then): stop beating.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> job_id = store.create_job(db, "train")
    >>> print(store.get_job(db, job_id).heartbeat_at)
    None
    >>> store.heartbeat(db, job_id)
    True
    >>> store.get_job(db, job_id).heartbeat_at is not None
    True
    """
    return not update_job(db, job_id).finished


@retrying
def get_job(db: Database, job_id: int) -> Job:
    """The job with that id; :class:`NotFoundError` if there is none.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> job_id = store.create_job(db, "preannotate")
    >>> store.get_job(db, job_id).kind
    'preannotate'
    >>> store.get_job(db, 99)
    Traceback (most recent call last):
    ...
    store.errors.NotFoundError: job 99 does not exist
    """
    rows = list(db.query("SELECT * FROM jobs WHERE id = ?", [int(job_id)]))
    if not rows:
        raise NotFoundError(f"job {job_id} does not exist")
    return _job(rows[0])


@retrying
def list_jobs(db: Database, kind: str | None = None, *, project_id: int | None = None,
              status: str | None = None, limit: int = 100) -> list[Job]:
    """Newest first.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_job(db, "train")
    >>> _ = store.create_job(db, "deid")
    >>> [(j.id, j.kind) for j in store.list_jobs(db)]
    [(2, 'deid'), (1, 'train')]
    >>> [j.id for j in store.list_jobs(db, "train")]
    [1]
    """
    where, params = [], []  # type: ignore[var-annotated]
    for col, val in (("kind", kind), ("project_id", project_id), ("status", status)):
        if val is not None:
            where.append(f"{col} = ?")
            params.append(val)
    sql = "SELECT * FROM jobs" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC LIMIT ?"
    return [_job(r) for r in db.query(sql, [*params, int(limit)])]


@retrying
def mark_stale_jobs_failed(db: Database, older_than_s: float, *, now: datetime | None = None) -> list[int]:
    """Fail running jobs whose heartbeat is older than ``older_than_s`` seconds (their worker
    stopped: killed, crashed, machine restarted). Returns their ids. Queued jobs are left alone:
    waiting for a worker is not a sign of death.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from datetime import datetime, timedelta, timezone
    >>> job_id = store.create_job(db, "train")
    >>> _ = store.update_job(db, job_id, status="running")
    >>> an_hour_later = datetime.now(timezone.utc) + timedelta(hours=1)   # no heartbeat since
    >>> store.mark_stale_jobs_failed(db, 600, now=an_hour_later)
    [1]
    >>> store.get_job(db, job_id).status
    'failed'
    """
    now = now or datetime.now(timezone.utc)
    cutoff = now_iso(now - timedelta(seconds=older_than_s))
    failed: list[int] = []
    with transaction(db):
        rows = db.execute(
            """SELECT id, COALESCE(heartbeat_at, started_at, created_at) FROM jobs
               WHERE status = 'running' AND COALESCE(heartbeat_at, started_at, created_at) < ?""",
            [cutoff]).fetchall()
        for job_id, last in rows:
            reason = f"worker stopped (no heartbeat since {last})"
            db.execute("UPDATE jobs SET status = 'failed', error = ?, finished_at = ? WHERE id = ?",
                       [reason, now_iso(now), job_id])
            audit(db, None, "job.failed", f"job:{job_id}", detail={"error": reason})
            failed.append(int(job_id))
    return failed


def _job(r: dict) -> Job:
    return Job(id=r["id"], kind=r["kind"], params=loads(r["params_json"], {}), status=r["status"],
               progress=float(r["progress"] or 0), total=r["total"], message=r["message"], error=r["error"],
               result=loads(r["result_json"], None), created_at=r["created_at"], started_at=r["started_at"],
               finished_at=r["finished_at"], heartbeat_at=r["heartbeat_at"], pid=r["pid"],
               project_id=r["project_id"], created_by=r["created_by"],
               cancel_requested=bool(r.get("cancel_requested") or 0))
