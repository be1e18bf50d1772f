"""Forward-only schema migrations, recorded in ``schema_version``.

``MIGRATIONS[i]`` brings a file from version ``i`` to ``i + 1``. A migration is never edited once
released: a change to the schema is a new function (in :mod:`store.migrations_changes`; the
first schema's tables are :mod:`store.migrations_tables`) appended to the list, so every existing
file (and every backup) can be brought forward by opening it. All pending migrations run in
one ``BEGIN IMMEDIATE`` transaction that re-reads the version first, so two processes opening a
new file at once do not both apply them.
"""
from __future__ import annotations

from typing import Callable

from sqlite_utils import Database

from store.db import now_iso, schema_version, transaction
from store.errors import InvalidValueError
from store.migrations_changes import (_v4_job_cancellation, _v5_run_fingerprints_and_output_names, _v6_audit_hash_chain,
                                      _v7_signin_failures, _v8_versioned_settings_profiles_dictionaries,
                                      _v9_finished_jobs_stay_finished, _v10_audit_chain_keyed, _v11_risk_send_backs,
                                      _v12_span_provenance, _v13_deid_input_spans)
from store.migrations_tables import _v1_annotation_core, _v2_jobs_models_dictionaries, _v3_deid_risk


MIGRATIONS: list[Callable[[Database], None]] = [
    _v1_annotation_core,
    _v2_jobs_models_dictionaries,
    _v3_deid_risk,
    _v4_job_cancellation,
    _v5_run_fingerprints_and_output_names,
    _v6_audit_hash_chain,
    _v7_signin_failures,
    _v8_versioned_settings_profiles_dictionaries,
    _v9_finished_jobs_stay_finished,
    _v10_audit_chain_keyed,
    _v11_risk_send_backs,
    _v12_span_provenance,
    _v13_deid_input_spans,
]
LATEST_VERSION = len(MIGRATIONS)


def migrate(db: Database, upto: int | None = None) -> int:
    """Apply every migration after the file's version (up to ``upto``); return the new version.

    Refuses a file written by a newer program (its version is above :data:`LATEST_VERSION`).

    >>> import store
    >>> db = store.connect(":memory:", migrate_to=1)          # as a file written by an old version
    >>> store.schema_version(db)
    1
    >>> store.migrate(db) == store.LATEST_VERSION
    True
    """
    target = LATEST_VERSION if upto is None else upto
    if not 0 <= target <= LATEST_VERSION:
        raise InvalidValueError(f"schema version must be between 0 and {LATEST_VERSION}, not {target}")
    current = schema_version(db)
    if current > LATEST_VERSION:
        raise InvalidValueError(
            f"this database has schema version {current}, newer than this program knows "
            f"({LATEST_VERSION}); update the workbench before opening it"
        )
    if current >= target:
        return current
    with transaction(db):
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        current = schema_version(db)  # re-read under the write lock
        for version in range(current + 1, target + 1):
            fn = MIGRATIONS[version - 1]
            fn(db)
            db.execute(
                "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                (version, fn.__name__.lstrip("_"), now_iso()),
            )
    return schema_version(db)
