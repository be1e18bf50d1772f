"""De-identification profiles saved for a project: what to do with each category (redact,
replace, shift, keep), the placeholder, date shifting. A run keeps its own copy of the profile
it used (:mod:`store.deid`), so later edits of a profile do not rewrite history.

Each profile has a version (1 when created, raised by every save). A save may state the version
it started from (``expected_version``: 0 for "a new profile"); a stale one is refused with
:class:`StaleSaveError` (or :class:`DuplicateError` when a "new" profile's name is taken) and
nothing is written. Without ``expected_version`` a save creates or replaces unchecked (the old
behaviour, kept for callers that do not track versions yet).
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from sqlite_utils import Database

from store.audit import audit
from store.db import dumps, loads, now_iso, retrying, transaction
from store.errors import DuplicateError, InvalidValueError, NotFoundError, StaleSaveError


@dataclass(frozen=True)
class DeidProfile:
    id: int
    project_id: int
    name: str
    profile: dict
    updated_by: str | None
    updated_at: str
    version: int = 1


def check_expected_version(what: str, current: int | None, expected_version: int | None) -> None:
    """Refuse a save that started from another version than the stored one (``current``: ``None``
    when the row does not exist; ``expected_version`` 0: the caller is creating it)."""
    if expected_version is None:
        return
    expected = int(expected_version)
    if expected == 0 and current is not None:
        raise DuplicateError(f"{what} already exists (version {current}); nothing was saved: reload to see it, "
                             "then save again to replace it")
    if expected > 0 and current is None:
        raise StaleSaveError(f"{what} was deleted since you opened it; nothing was saved")
    if expected > 0 and current != expected:
        raise StaleSaveError(f"{what} was saved by someone else since you opened it (your version {expected}, "
                             f"now {current}); nothing was saved: reload to see their changes")


@retrying
def save_deid_profile(db: Database, project_id: int, name: str, profile: dict, *, user: str | None = None,
                      expected_version: int | None = None) -> int:
    """Create or replace the project's profile of that name (per-category actions etc.); returns
    its id. ``expected_version``: the version the caller started from (0: a new profile);
    ``None``: unchecked.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> store.save_deid_profile(db, pid, "default", {"actions": {"NAME": "replace", "DATE": "shift"}}, user="ana",
    ...                         expected_version=0)
    1
    >>> store.save_deid_profile(db, pid, "default", {"actions": {"NAME": "redact"}}, expected_version=1)
    1
    >>> p = store.get_deid_profile(db, pid, "default")
    >>> p.profile, p.version
    ({'actions': {'NAME': 'redact'}}, 2)
    >>> store.save_deid_profile(db, pid, "default", {"actions": {"NAME": "keep"}}, expected_version=1)
    Traceback (most recent call last):
    ...
    pipeline.errors.StaleSaveError: profile 'default' was saved by someone else since you opened it (your version 1, now 2); nothing was saved: reload to see their changes
    """
    if not name:
        raise InvalidValueError("a de-identification profile needs a name")
    if not isinstance(profile, dict):
        raise InvalidValueError(f"profile {name!r} must be a JSON object")
    with transaction(db):
        row = db.execute("SELECT id, version FROM deid_profiles WHERE project_id = ? AND name = ?",
                         [project_id, name]).fetchone()
        check_expected_version(f"profile {name!r}", int(row[1]) if row else None, expected_version)
        try:
            db.execute(
                """INSERT INTO deid_profiles (project_id, name, profile_json, updated_by, updated_at) VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (project_id, name) DO UPDATE SET profile_json = excluded.profile_json,
                   updated_by = excluded.updated_by, updated_at = excluded.updated_at,
                   version = deid_profiles.version + 1""",
                [project_id, name, dumps(profile), user, now_iso()])
        except sqlite3.IntegrityError:
            raise NotFoundError(f"project {project_id} does not exist") from None
        pid, version = db.execute("SELECT id, version FROM deid_profiles WHERE project_id = ? AND name = ?",
                                  [project_id, name]).fetchone()
        audit(db, user, "deid.profile", f"deid_profile:{pid}", detail={"name": name, "version": int(version)})
    return int(pid)


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
                       updated_by=r["updated_by"], updated_at=r["updated_at"], version=int(r.get("version") or 1))
