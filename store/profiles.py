"""De-identification profiles saved for a project: what to do with each category (redact,
replace, shift, keep), the placeholder, date shifting. A run keeps its own copy of the profile
it used (:mod:`store.deid`), so later edits of a profile do not rewrite history.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from store.audit import audit
from store.db import dumps, loads, now_iso, retrying, transaction
from store.errors import InvalidValueError, NotFoundError


@dataclass(frozen=True)
class DeidProfile:
    id: int
    project_id: int
    name: str
    profile: dict
    updated_by: str | None
    updated_at: str


@retrying
def save_deid_profile(db: Database, project_id: int, name: str, profile: dict, *, user: str | None = None) -> int:
    """Create or replace the project's profile of that name (per-category actions etc.).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> store.save_deid_profile(db, pid, "default", {"actions": {"NAME": "replace", "DATE": "shift"}}, user="ana")
    1
    >>> store.save_deid_profile(db, pid, "default", {"actions": {"NAME": "redact"}})   # replaces it
    1
    >>> store.get_deid_profile(db, pid, "default").profile
    {'actions': {'NAME': 'redact'}}
    """
    if not name:
        raise InvalidValueError("a de-identification profile needs a name")
    if not isinstance(profile, dict):
        raise InvalidValueError(f"profile {name!r} must be a JSON object")
    with transaction(db):
        try:
            db.execute(
                """INSERT INTO deid_profiles (project_id, name, profile_json, updated_by, updated_at) VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (project_id, name) DO UPDATE SET profile_json = excluded.profile_json,
                   updated_by = excluded.updated_by, updated_at = excluded.updated_at""",
                [project_id, name, dumps(profile), user, now_iso()])
        except sqlite3.IntegrityError:
            raise NotFoundError(f"project {project_id} does not exist") from None
        pid = int(db.execute("SELECT id FROM deid_profiles WHERE project_id = ? AND name = ?",
                             [project_id, name]).fetchone()[0])
        audit(db, user, "deid.profile", f"deid_profile:{pid}", detail={"name": name})
    return pid


@retrying
def list_deid_profiles(db: Database, project_id: int) -> list[DeidProfile]:
    """The project's de-identification profiles, by name.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> _ = store.save_deid_profile(db, pid, "strict", {"actions": {"NAME": "redact"}})
    >>> _ = store.save_deid_profile(db, pid, "default", {"actions": {"NAME": "replace"}})
    >>> [p.name for p in store.list_deid_profiles(db, pid)]
    ['default', 'strict']
    """
    return [_profile(r) for r in db.query("SELECT * FROM deid_profiles WHERE project_id = ? ORDER BY name", [project_id])]


@retrying
def get_deid_profile(db: Database, project_id: int, name: str) -> DeidProfile:
    """The project's profile of that name; :class:`NotFoundError` if there is none.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> _ = store.save_deid_profile(db, pid, "default", {"actions": {"NAME": "replace"}}, user="ana")
    >>> profile = store.get_deid_profile(db, pid, "default")
    >>> profile.profile, profile.updated_by
    ({'actions': {'NAME': 'replace'}}, 'ana')
    """
    rows = list(db.query("SELECT * FROM deid_profiles WHERE project_id = ? AND name = ?", [project_id, name]))
    if not rows:
        raise NotFoundError(f"project {project_id} has no de-identification profile named {name!r}")
    return _profile(rows[0])


# --------------------------------------------------------------------------- runs


def _profile(r: dict) -> DeidProfile:
    return DeidProfile(id=r["id"], project_id=r["project_id"], name=r["name"], profile=loads(r["profile_json"], {}),
                       updated_by=r["updated_by"], updated_at=r["updated_at"])
