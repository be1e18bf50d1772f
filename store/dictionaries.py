"""Detection dictionaries uploaded by leads: a named list of entries for one category/type.

Entries can be names of people or places, so they are never logged or put in messages; the
audit log records the count only.

Each dictionary has a version (1 when created, raised by every save). A save may state the
version it started from (``expected_version``: 0 for "a new dictionary"); a stale one is
refused with :class:`StaleSaveError` (or :class:`DuplicateError` when a "new" dictionary's name
is taken) and nothing is written. Without ``expected_version`` it creates or replaces unchecked.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from store.audit import audit
from store.db import dumps, loads, now_iso, retrying, transaction
from store.errors import InvalidValueError, NotFoundError
from store.profiles import check_expected_version
from store.projects import get_project


@dataclass(frozen=True)
class Dictionary:
    id: int
    project_id: int
    name: str
    category: str
    type: str
    entries: list[str]
    uploaded_by: str | None
    uploaded_at: str
    version: int = 1


@retrying
def save_dictionary(db: Database, project_id: int, category: str, type: str, name: str, entries: list[str],
                    user: str | None = None, *, expected_version: int | None = None) -> int:
    """Create or replace (same project and name) a dictionary; returns its id. Entries are
    de-duplicated, blank ones dropped, order kept. The category/type must be in the project's
    schema. ``expected_version``: the version the caller started from (0: a new dictionary);
    ``None``: unchecked.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> dict_id = store.save_dictionary(db, pid, "LOCATION", "CITY", "cities",
    ...                                 ["Springfield", " Springfield ", "", "Shelbyville"], user="ana")
    >>> store.list_dictionaries(db, pid)[0].entries
    ['Springfield', 'Shelbyville']
    >>> _ = store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["Ogdenville"], expected_version=1)
    >>> store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["North Haverbrook"], expected_version=1)
    Traceback (most recent call last):
    ...
    pipeline.errors.StaleSaveError: dictionary 'cities' was saved by someone else since you opened it (your version 1, now 2); nothing was saved: reload to see their changes
    """
    if not name:
        raise InvalidValueError("a dictionary needs a name")
    schema = get_project(db, project_id).schema
    if not schema.has(category, type or ""):
        raise InvalidValueError(f"dictionary {name!r}: label {category}/{type or '-'} is not in schema {schema.name!r}")
    clean = list(dict.fromkeys(e.strip() for e in entries if isinstance(e, str) and e.strip()))
    with transaction(db):
        row = db.execute("SELECT version FROM dictionaries WHERE project_id = ? AND name = ?",
                         [project_id, name]).fetchone()
        check_expected_version(f"dictionary {name!r}", int(row[0]) if row else None, expected_version)
        db.execute(
            """INSERT INTO dictionaries (project_id, name, category, type, entries_json, n_entries, uploaded_by, uploaded_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (project_id, name) DO UPDATE SET category = excluded.category, type = excluded.type,
               entries_json = excluded.entries_json, n_entries = excluded.n_entries,
               uploaded_by = excluded.uploaded_by, uploaded_at = excluded.uploaded_at,
               version = dictionaries.version + 1""",
            [project_id, name, category, type or "", dumps(clean), len(clean), user, now_iso()])
        dict_id, version = db.execute("SELECT id, version FROM dictionaries WHERE project_id = ? AND name = ?",
                                      [project_id, name]).fetchone()
        audit(db, user, "dictionary.save", f"dictionary:{dict_id}",
              detail={"name": name, "category": category, "type": type, "entries": len(clean),
                      "version": int(version)})
    return int(dict_id)


@retrying
def list_dictionaries(db: Database, project_id: int, *, category: str | None = None) -> list[Dictionary]:
    """The project's dictionaries (of ``category`` when given), by category then name.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> _ = store.save_dictionary(db, pid, "NAME", "DOCTOR", "doctors", ["Wu", "Okafor"])
    >>> _ = store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["Springfield"])
    >>> [(d.category, d.name, len(d.entries)) for d in store.list_dictionaries(db, pid)]
    [('LOCATION', 'cities', 1), ('NAME', 'doctors', 2)]
    >>> [d.name for d in store.list_dictionaries(db, pid, category="NAME")]
    ['doctors']
    """
    sql = "SELECT * FROM dictionaries WHERE project_id = ?"
    params: list = [project_id]
    if category is not None:
        sql += " AND category = ?"
        params.append(category)
    return [_dict(r) for r in db.query(sql + " ORDER BY category, name", params)]


@retrying
def delete_dictionary(db: Database, dict_id: int, *, user: str | None = None) -> None:
    """Delete a dictionary; :class:`NotFoundError` if there is none with that id.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> dict_id = store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["Springfield"])
    >>> store.delete_dictionary(db, dict_id, user="ana")
    >>> store.list_dictionaries(db, pid)
    []
    """
    with transaction(db):
        if db.execute("DELETE FROM dictionaries WHERE id = ?", [int(dict_id)]).rowcount == 0:
            raise NotFoundError(f"dictionary {dict_id} does not exist")
        audit(db, user, "dictionary.delete", f"dictionary:{dict_id}")


def _dict(r: dict) -> Dictionary:
    return Dictionary(id=r["id"], project_id=r["project_id"], name=r["name"], category=r["category"], type=r["type"],
                      entries=loads(r["entries_json"], []), uploaded_by=r["uploaded_by"], uploaded_at=r["uploaded_at"],
                      version=int(r.get("version") or 1))
