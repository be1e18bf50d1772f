"""Model versions: immutable trained models with their evaluation, one active per project.

Activation is one transaction (clear the old flag, set the new one), and a partial unique
index makes a second active version impossible even for a buggy caller. Each activation
remembers which version it replaced, so :func:`rollback_model` can step back one at a time.
A version without metrics has not been evaluated and cannot be activated.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from store.audit import audit
from store.db import dumps, loads, now_iso, retrying, transaction
from store.errors import DuplicateError, InvalidValueError, NotFoundError
from store.jobs import JobFinishedError


@dataclass(frozen=True)
class ModelVersion:
    id: int
    project_id: int
    name: str
    path: str
    config: dict
    metrics: dict
    thresholds: dict
    status: str
    active: bool
    created_at: str
    activated_at: str | None = None
    previous_active_id: int | None = None
    created_by: str | None = None


@retrying
def add_model_version(db: Database, project_id: int, name: str, path: str, config: dict | None = None,
                      metrics: dict | None = None, *, thresholds: dict | None = None, status: str = "trained",
                      user: str | None = None) -> int:
    """Record a trained model (its files live at ``path``); not active until :func:`activate_model`.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> mv_id = store.add_model_version(db, pid, "v1", "models/ward7-v1", {"epochs": 3}, user="ana")
    >>> mv = store.get_model_version(db, mv_id)
    >>> mv.name, mv.status, mv.active
    ('v1', 'trained', False)
    """
    with transaction(db):
        try:
            cur = db.execute(
                """INSERT INTO model_versions (project_id, name, path, config_json, metrics_json, thresholds_json,
                   status, active, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)""",
                [project_id, name, str(path), dumps(config or {}), dumps(metrics or {}), dumps(thresholds or {}),
                 status, user, now_iso()])
        except sqlite3.IntegrityError as e:
            if "UNIQUE" in str(e):
                raise DuplicateError(f"project {project_id} already has a model version named {name!r}") from None
            if "has failed" in str(e):     # the trigger of migration v9: a late result of a failed job
                raise JobFinishedError(f"model version {name!r} was not added: the job that trained it was "
                                       "marked failed (its worker stopped answering); its late result is "
                                       "discarded") from None
            raise NotFoundError(f"project {project_id} does not exist") from None
        mv_id = int(cur.lastrowid)
        audit(db, user, "model.add", f"model:{mv_id}", detail={"name": name, "project_id": project_id})
    return mv_id


@retrying
def update_model_version(db: Database, mv_id: int, *, metrics: dict | None = None, thresholds: dict | None = None,
                         status: str | None = None, user: str | None = None) -> None:
    """Attach an evaluation (metrics, tuned thresholds) or a status to a version. The model's files
    and config are immutable: a retrained model is a new version.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> mv_id = store.add_model_version(db, pid, "v1", "models/ward7-v1")
    >>> store.update_model_version(db, mv_id, metrics={"f1": 0.91}, thresholds={"NAME": 0.5}, user="ana")
    >>> mv = store.get_model_version(db, mv_id)
    >>> mv.metrics, mv.thresholds
    ({'f1': 0.91}, {'NAME': 0.5})
    """
    sets, params = [], []  # type: ignore[var-annotated]
    for col, val in (("metrics_json", metrics), ("thresholds_json", thresholds)):
        if val is not None:
            sets.append(f"{col} = ?")
            params.append(dumps(val))
    if status is not None:
        sets.append("status = ?")
        params.append(status)
    if not sets:
        return
    with transaction(db):
        if db.execute(f"UPDATE model_versions SET {', '.join(sets)} WHERE id = ?", [*params, int(mv_id)]).rowcount == 0:
            raise NotFoundError(f"model version {mv_id} does not exist")
        audit(db, user, "model.update", f"model:{mv_id}",
              detail={"metrics": metrics is not None, "thresholds": thresholds is not None, "status": status})


@retrying
def activate_model(db: Database, mv_id: int, *, user: str | None = None) -> None:
    """Make ``mv_id`` the project's one active model (the previous one stays for rollback).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> mv_id = store.add_model_version(db, pid, "v1", "models/ward7-v1", metrics={"f1": 0.91})
    >>> store.activate_model(db, mv_id, user="ana")
    >>> store.active_model(db, pid).name
    'v1'
    """
    with transaction(db):
        mv = get_model_version(db, mv_id)
        if not mv.metrics:
            raise InvalidValueError(f"model version {mv_id} ({mv.name}) has no evaluation; evaluate it on "
                                    "held-out gold before activating it")
        if mv.status == "failed":
            raise InvalidValueError(f"model version {mv_id} ({mv.name}) failed and cannot be activated")
        current = active_model(db, mv.project_id)
        if current is not None and current.id == mv.id:
            return
        db.execute("UPDATE model_versions SET active = 0 WHERE project_id = ? AND active = 1", [mv.project_id])
        db.execute("UPDATE model_versions SET active = 1, activated_at = ?, previous_active_id = ? WHERE id = ?",
                   [now_iso(), current.id if current else None, mv.id])
        audit(db, user, "model.activate", f"model:{mv.id}",
              detail={"project_id": mv.project_id, "previous": current.id if current else None})


@retrying
def rollback_model(db: Database, project_id: int, *, user: str | None = None) -> ModelVersion:
    """Deactivate the active model (marked ``rolled_back``) and re-activate the one it replaced;
    returns the now active version. Repeated rollbacks keep stepping back.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> v1 = store.add_model_version(db, pid, "v1", "models/ward7-v1", metrics={"f1": 0.91})
    >>> v2 = store.add_model_version(db, pid, "v2", "models/ward7-v2", metrics={"f1": 0.88})
    >>> store.activate_model(db, v1)
    >>> store.activate_model(db, v2)
    >>> store.rollback_model(db, pid, user="ana").name
    'v1'
    >>> store.get_model_version(db, v2).status
    'rolled_back'
    """
    with transaction(db):
        current = active_model(db, project_id)
        if current is None:
            raise NotFoundError(f"project {project_id} has no active model to roll back")
        if current.previous_active_id is None:
            raise NotFoundError(f"model version {current.id} ({current.name}) replaced no earlier version; "
                                "there is nothing to roll back to")
        prev = current.previous_active_id
        db.execute("UPDATE model_versions SET active = 0, status = 'rolled_back' WHERE id = ?", [current.id])
        db.execute("UPDATE model_versions SET active = 1, activated_at = ? WHERE id = ?", [now_iso(), prev])
        audit(db, user, "model.rollback", f"model:{prev}", detail={"project_id": project_id, "from": current.id})
        return get_model_version(db, prev)


@retrying
def get_model_version(db: Database, mv_id: int) -> ModelVersion:
    """The model version with that id; :class:`NotFoundError` if there is none.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> mv_id = store.add_model_version(db, pid, "v1", "models/ward7-v1", {"epochs": 3})
    >>> mv = store.get_model_version(db, mv_id)
    >>> mv.name, mv.path, mv.config
    ('v1', 'models/ward7-v1', {'epochs': 3})
    """
    rows = list(db.query("SELECT * FROM model_versions WHERE id = ?", [int(mv_id)]))
    if not rows:
        raise NotFoundError(f"model version {mv_id} does not exist")
    return _mv(rows[0])


@retrying
def active_model(db: Database, project_id: int) -> ModelVersion | None:
    """The project's active model version, or ``None``.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> print(store.active_model(db, pid))
    None
    >>> mv_id = store.add_model_version(db, pid, "v1", "models/ward7-v1", metrics={"f1": 0.91})
    >>> store.activate_model(db, mv_id)
    >>> store.active_model(db, pid).id == mv_id
    True
    """
    rows = list(db.query("SELECT * FROM model_versions WHERE project_id = ? AND active = 1", [project_id]))
    return _mv(rows[0]) if rows else None


@retrying
def list_model_versions(db: Database, project_id: int) -> list[ModelVersion]:
    """Newest first.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> _ = store.add_model_version(db, pid, "v1", "models/ward7-v1")
    >>> _ = store.add_model_version(db, pid, "v2", "models/ward7-v2")
    >>> [mv.name for mv in store.list_model_versions(db, pid)]
    ['v2', 'v1']
    """
    return [_mv(r) for r in db.query("SELECT * FROM model_versions WHERE project_id = ? ORDER BY id DESC",
                                     [project_id])]


def _mv(r: dict[str, Any]) -> ModelVersion:
    return ModelVersion(id=r["id"], project_id=r["project_id"], name=r["name"], path=r["path"],
                        config=loads(r["config_json"], {}), metrics=loads(r["metrics_json"], {}),
                        thresholds=loads(r["thresholds_json"], {}), status=r["status"], active=bool(r["active"]),
                        created_at=r["created_at"], activated_at=r["activated_at"],
                        previous_active_id=r["previous_active_id"], created_by=r["created_by"])
