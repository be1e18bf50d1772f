"""Projects: a name, the label schema every span must fit, and free-form settings.

The project row has a version (1 when created), raised by every change of its settings or
schema. A settings save may state the version it started from (``expected_version``); if
someone saved since, it is refused with :class:`StaleSaveError` and nothing is written, as for
layers. The check and the write happen under one write lock.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from sqlite_utils import Database

from pipeline.schemas import LabelSchema, SchemaError
from store.audit import audit
from store.db import dumps, loads, now_iso, retrying, transaction
from store.errors import DuplicateError, InvalidValueError, NotFoundError, StaleSaveError


@dataclass(frozen=True)
class Project:
    id: int
    name: str
    schema: LabelSchema
    settings: dict = field(default_factory=dict)
    created_at: str = ""
    version: int = 1


@retrying
def create_project(db: Database, name: str, schema: LabelSchema, settings: dict | None = None,
                   *, user: str | None = None) -> int:
    """Create a project; :class:`DuplicateError` if the name is taken.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014, user="ana")
    >>> store.get_project(db, pid).name
    'Ward 7'
    >>> store.create_project(db, "Ward 7", I2B2_2014)
    Traceback (most recent call last):
    ...
    store.errors.DuplicateError: a project named 'Ward 7' already exists
    """
    name = (name or "").strip()
    if not name:
        raise InvalidValueError("a project needs a name")
    with transaction(db):
        try:
            cur = db.execute(
                "INSERT INTO projects (name, schema_json, settings_json, created_at) VALUES (?, ?, ?, ?)",
                (name, schema.to_json(), dumps(settings or {}), now_iso()),
            )
        except sqlite3.IntegrityError:
            raise DuplicateError(f"a project named {name!r} already exists") from None
        pid = int(cur.lastrowid)
        audit(db, user, "project.create", f"project:{pid}", detail={"name": name, "schema": schema.name})
    return pid


@retrying
def get_project(db: Database, project_id: int) -> Project:
    """The project with that id; :class:`NotFoundError` if there is none.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> project = store.get_project(db, pid)
    >>> project.name, project.schema.name, project.settings
    ('Ward 7', 'i2b2-2014', {})
    """
    rows = list(db.query("SELECT * FROM projects WHERE id = ?", [project_id]))
    if not rows:
        raise NotFoundError(f"project {project_id} does not exist")
    return _project(rows[0])


@retrying
def get_project_by_name(db: Database, name: str) -> Project | None:
    """The project of that name, or ``None``.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> store.get_project_by_name(db, "Ward 7").id == pid
    True
    >>> print(store.get_project_by_name(db, "Ward 8"))
    None
    """
    rows = list(db.query("SELECT * FROM projects WHERE name = ?", [name]))
    return _project(rows[0]) if rows else None


@retrying
def list_projects(db: Database) -> list[Project]:
    """Every project, in the order they were created.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014, MEDDOCAN
    >>> _ = store.create_project(db, "Ward 7", I2B2_2014)
    >>> _ = store.create_project(db, "Sala 3", MEDDOCAN)
    >>> [(p.name, p.schema.name) for p in store.list_projects(db)]
    [('Ward 7', 'i2b2-2014'), ('Sala 3', 'meddocan')]
    """
    return [_project(r) for r in db.query("SELECT * FROM projects ORDER BY id")]


def _project_version(db: Database, project_id: int) -> int:
    row = db.execute("SELECT version FROM projects WHERE id = ?", [project_id]).fetchone()
    if row is None:
        raise NotFoundError(f"project {project_id} does not exist")
    return int(row[0])


@retrying
def update_project_settings(db: Database, project_id: int, settings: dict, *, user: str | None = None,
                            expected_version: int | None = None) -> int:
    """Replace the project's settings with ``settings``; returns the project's new version.

    ``expected_version`` is the version the caller read the settings at: if the project was
    saved since, :class:`StaleSaveError` and nothing changes. ``None`` skips the check (a
    script that sets settings wholesale).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> store.update_project_settings(db, pid, {"locale": "en"}, user="ana", expected_version=1)
    2
    >>> store.get_project(db, pid).settings
    {'locale': 'en'}
    >>> store.update_project_settings(db, pid, {"locale": "es"}, user="ben", expected_version=1)
    Traceback (most recent call last):
    ...
    pipeline.errors.StaleSaveError: project 1: the settings were saved by someone else since you opened them (your version 1, now 2); nothing was saved: reload to see their changes
    """
    with transaction(db):
        current = _project_version(db, project_id)
        if expected_version is not None and int(expected_version) != current:
            raise StaleSaveError(
                f"project {project_id}: the settings were saved by someone else since you opened them "
                f"(your version {int(expected_version)}, now {current}); nothing was saved: reload to see their changes")
        db.execute("UPDATE projects SET settings_json = ?, version = version + 1 WHERE id = ?",
                   (dumps(settings or {}), project_id))
        audit(db, user, "project.settings", f"project:{project_id}",
              detail={"keys": sorted(settings or {}), "version": current + 1})
    return current + 1


@retrying
def update_project_schema(db: Database, project_id: int, schema: LabelSchema, *, user: str | None = None) -> None:
    """Change the label schema; refused (:class:`SchemaError`) if stored spans would not fit it.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> from pipeline.schemas import MEDDOCAN
    >>> store.update_project_schema(db, pid, MEDDOCAN, user="ana")   # no spans yet: any schema fits
    >>> store.get_project(db, pid).schema.name
    'meddocan'
    """
    with transaction(db):
        get_project(db, project_id)
        bad = list(db.query(
            """SELECT s.category, s.type, COUNT(*) AS n FROM spans s JOIN documents d ON d.id = s.doc_id
               WHERE d.project_id = ? GROUP BY s.category, s.type""", [project_id]))
        misfits = [f"{r['category']}/{r['type'] or '-'} ({r['n']})" for r in bad
                   if not schema.has(r["category"], r["type"])]
        if misfits:
            raise SchemaError(
                f"project {project_id}: the new schema {schema.name!r} does not cover labels already "
                f"in use: {', '.join(misfits[:10])}{' ...' if len(misfits) > 10 else ''}"
            )
        db.execute("UPDATE projects SET schema_json = ?, version = version + 1 WHERE id = ?",
                   (schema.to_json(), project_id))
        audit(db, user, "project.schema", f"project:{project_id}", detail={"schema": schema.name})


def _project(r: dict) -> Project:
    return Project(id=r["id"], name=r["name"], schema=LabelSchema.from_json(r["schema_json"]),
                   settings=loads(r["settings_json"], {}), created_at=r["created_at"], version=int(r.get("version") or 1))
