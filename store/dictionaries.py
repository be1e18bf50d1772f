"""Detection dictionaries uploaded by leads: a named list of entries for one category/type.

Entries can be names of people or places, so they are never logged or put in messages; the
audit log records the count only.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from store.audit import audit
from store.db import dumps, loads, now_iso, retrying, transaction
from store.errors import InvalidValueError, NotFoundError
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


@retrying
def save_dictionary(db: Database, project_id: int, category: str, type: str, name: str, entries: list[str],
                    user: str | None = None) -> int:
    """Create or replace (same project and name) a dictionary; entries are de-duplicated, blank
    ones dropped, order kept. The category/type must be in the project's schema.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> dict_id = store.save_dictionary(db, pid, "LOCATION", "CITY", "cities",
    ...                                 ["Springfield", " Springfield ", "", "Shelbyville"], user="ana")
    >>> store.list_dictionaries(db, pid)[0].entries
    ['Springfield', 'Shelbyville']
    """
    if not name:
        raise InvalidValueError("a dictionary needs a name")
    schema = get_project(db, project_id).schema
    if not schema.has(category, type or ""):
        raise InvalidValueError(f"dictionary {name!r}: label {category}/{type or '-'} is not in schema {schema.name!r}")
    clean = list(dict.fromkeys(e.strip() for e in entries if isinstance(e, str) and e.strip()))
    with transaction(db):
        db.execute(
            """INSERT INTO dictionaries (project_id, name, category, type, entries_json, n_entries, uploaded_by, uploaded_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (project_id, name) DO UPDATE SET category = excluded.category, type = excluded.type,
               entries_json = excluded.entries_json, n_entries = excluded.n_entries,
               uploaded_by = excluded.uploaded_by, uploaded_at = excluded.uploaded_at""",
            [project_id, name, category, type or "", dumps(clean), len(clean), user, now_iso()])
        dict_id = int(db.execute("SELECT id FROM dictionaries WHERE project_id = ? AND name = ?",
                                 [project_id, name]).fetchone()[0])
        audit(db, user, "dictionary.save", f"dictionary:{dict_id}",
              detail={"name": name, "category": category, "type": type, "entries": len(clean)})
    return dict_id


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
                      entries=loads(r["entries_json"], []), uploaded_by=r["uploaded_by"], uploaded_at=r["uploaded_at"])
