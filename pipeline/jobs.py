"""Long work (training, batch de-identification, risk scoring, pre-annotation) as jobs.

A job is a row in the store's ``jobs`` table plus a worker *process* started with
``python -m pipeline run-job``. A separate process, not a thread of the Streamlit server,
because a page reload must not stop it, a crash in it must not take the app down, and a killed
worker is visible: its heartbeat stops and :func:`store.mark_stale_jobs_failed` marks it failed.
The command line runs the same job functions in-process with a tqdm bar.

Job functions are registered by kind and take a :class:`JobContext`; they report progress
through it and return a JSON-serialisable result. Error text stored on a failed job is the
message of a user-facing error (which never quotes documents) or just the exception's type.
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
from typing import Callable

from pipeline.errors import WorkbenchError, is_user_error

log = logging.getLogger(__name__)

HEARTBEAT_S = 5.0
JobFunction = Callable[["JobContext"], dict]
_REGISTRY: dict[str, JobFunction] = {}


class JobCancelled(WorkbenchError):
    """The job was asked to stop (by a lead, or the CLI's Ctrl-C)."""


def register(kind: str) -> Callable[[JobFunction], JobFunction]:
    def deco(fn: JobFunction) -> JobFunction:
        _REGISTRY[kind] = fn
        return fn
    return deco


def job_kinds() -> list[str]:
    _load_builtin_jobs()
    return sorted(_REGISTRY)


def _load_builtin_jobs() -> None:
    # Job functions live beside the code they drive; importing registers them.
    import importlib
    for mod in ("pipeline.training_jobs", "pipeline.release_jobs"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:  # pragma: no cover - only while a module is absent
            if e.name != mod:
                raise


def safe_error(e: BaseException) -> str:
    """The text stored in a failed job's error field: never a message that could quote text."""
    if is_user_error(e):
        return str(e)[:500]
    return f"{type(e).__name__} (details withheld: they may contain document text; rerun from the command line with -v)"


@dataclass
class JobContext:
    """What a job function gets: its parameters, the store path, and progress reporting."""

    db_path: str
    job_id: int | None
    params: dict
    on_progress: Callable[[int, int | None, str | None], None] | None = None
    _last_write: float = field(default=0.0, repr=False)
    _cancel_checked: float = field(default=0.0, repr=False)

    def connect(self):
        import store
        return store.connect(self.db_path)

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
        import store
        db = store.connect(self.db_path)
        try:
            store.update_job(db, self.job_id, progress=done, total=total, message=message)
        finally:
            db.conn.close()

    def should_stop(self) -> bool:
        """True when a cancel was requested for this job (checked at most once a second)."""
        if self.job_id is None:
            return False
        now = time.monotonic()
        if now - self._cancel_checked < 1.0:
            return False
        self._cancel_checked = now
        import store
        db = store.connect(self.db_path)
        try:
            job = store.get_job(db, self.job_id)
        finally:
            db.conn.close()
        return bool(job.cancel_requested)


def start_job(db_path: str | os.PathLike, kind: str, params: dict, *, user: str | None = None) -> int:
    """Queue a job and start its worker process; returns the job id at once."""
    _load_builtin_jobs()
    if kind not in _REGISTRY:
        raise WorkbenchError(f"unknown job kind {kind!r}")
    import store
    db = store.connect(db_path)
    try:
        job_id = store.create_job(db, kind, params, project_id=params.get("project_id"), user=user)
    finally:
        db.conn.close()
    root = Path(__file__).resolve().parents[1]
    subprocess.Popen(
        [sys.executable, "-m", "pipeline", "run-job", "--db", str(db_path), "--job", str(job_id)],
        cwd=str(root), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )
    return job_id


class _Heartbeat:
    """Touches the job's heartbeat every few seconds from a thread of its own, so a long step
    that reports no progress (embedding, an epoch) is not mistaken for a dead worker."""

    def __init__(self, db_path: str | os.PathLike, job_id: int):
        self.db_path, self.job_id = db_path, job_id
        self.stop = threading.Event()

    def __enter__(self) -> "_Heartbeat":
        threading.Thread(target=self._beat, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()

    def _beat(self) -> None:
        import store
        while not self.stop.wait(HEARTBEAT_S):
            try:
                hdb = store.connect(self.db_path)
                store.heartbeat(hdb, self.job_id)
                hdb.conn.close()
            except Exception:  # noqa: BLE001 - a missed heartbeat is not fatal
                log.warning("job %s: heartbeat failed", self.job_id)


def _finish(db_path: str | os.PathLike, job_id: int, status: str, error: str | None, result) -> None:
    import store
    db = store.connect(db_path)
    try:
        store.update_job(db, job_id, status=status, error=error,
                         result=json.loads(json.dumps(result, default=str)) if result is not None else None)
    finally:
        db.conn.close()


def run_job(db_path: str | os.PathLike, job_id: int) -> int:
    """Run a queued job in this process (the worker's body). Returns an exit status."""
    _load_builtin_jobs()
    import store
    db = store.connect(db_path)
    job = store.get_job(db, job_id)  # NotFoundError (a user error) for an unknown id
    fn = _REGISTRY.get(job.kind)
    if fn is None:
        store.update_job(db, job_id, status="failed", error=f"unknown job kind {job.kind!r}")
        return 1
    store.update_job(db, job_id, status="running", pid=os.getpid())
    db.conn.close()
    ctx = JobContext(db_path=str(db_path), job_id=job_id, params=dict(job.params or {}))
    status, error, result = "done", None, None
    with _Heartbeat(db_path, job_id):
        try:
            result = fn(ctx)
        except JobCancelled:
            status, error = "failed", "cancelled on request"
        except BaseException as e:  # noqa: BLE001 - every failure must reach the jobs table
            status, error = "failed", safe_error(e)
            log.warning("job %s failed: %s", job_id, type(e).__name__)
    _finish(db_path, job_id, status, error, result)
    return 0 if status == "done" else 1


def run_inline(db_path: str | os.PathLike, kind: str, params: dict, *, user: str | None = None,
               on_progress: Callable[[int, int | None, str | None], None] | None = None) -> dict:
    """Run a job function in this process, recorded in the jobs table (the CLI's path)."""
    _load_builtin_jobs()
    import store
    db = store.connect(db_path)
    job_id = store.create_job(db, kind, params, project_id=params.get("project_id"), user=user)
    store.update_job(db, job_id, status="running", pid=os.getpid())
    db.conn.close()
    ctx = JobContext(db_path=str(db_path), job_id=job_id, params=params, on_progress=on_progress)
    with _Heartbeat(db_path, job_id):
        try:
            result = _REGISTRY[kind](ctx)
        except BaseException as e:
            _finish(db_path, job_id, "failed", "cancelled on request" if isinstance(e, (JobCancelled, KeyboardInterrupt))
                    else safe_error(e), None)
            raise
    _finish(db_path, job_id, "done", None, result)
    return result


@register("selftest")
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
