"""Forward-only schema migrations, recorded in ``schema_version``.

``MIGRATIONS[i]`` brings a file from version ``i`` to ``i + 1``. A migration is never edited once
released: a change to the schema is a new function appended to the list, so every existing
file (and every backup) can be brought forward by opening it. All pending migrations run in
one ``BEGIN IMMEDIATE`` transaction that re-reads the version first, so two processes opening a
new file at once do not both apply them.
"""
from __future__ import annotations

from typing import Callable

from sqlite_utils import Database

from store.audit import APPEND_ONLY_TRIGGERS, CHAIN_TRIGGERS, GENESIS_HASH, chain_hash
from store.db import now_iso, schema_version, transaction
from store.errors import InvalidValueError


def _v1_annotation_core(db: Database) -> None:
    """Projects, documents, versioned layers of spans, users, sessions, assignments, audit log."""
    db.executescript(
        """
        CREATE TABLE projects (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            schema_json TEXT NOT NULL,
            settings_json TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        );
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            text TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            patient_id TEXT,
            split TEXT,
            source_file TEXT,
            meta_json TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            UNIQUE (project_id, name)
        );
        CREATE INDEX idx_documents_project_split ON documents(project_id, split);
        CREATE INDEX idx_documents_project_patient ON documents(project_id, patient_id);
        CREATE INDEX idx_documents_sha256 ON documents(sha256);

        CREATE TABLE layers (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            layer TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'in_progress',
            updated_by TEXT,
            updated_at TEXT NOT NULL,
            UNIQUE (doc_id, layer)
        );
        CREATE INDEX idx_layers_layer_status ON layers(layer, status);

        CREATE TABLE spans (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL,
            layer TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            category TEXT NOT NULL,
            type TEXT NOT NULL DEFAULT '',
            source TEXT NOT NULL DEFAULT '',
            score REAL NOT NULL DEFAULT 1.0,
            CHECK (start >= 0 AND "end" > start),
            FOREIGN KEY (doc_id, layer) REFERENCES layers(doc_id, layer) ON DELETE CASCADE
        );
        CREATE INDEX idx_spans_doc_layer ON spans(doc_id, layer, start);
        CREATE INDEX idx_spans_layer_category ON spans(layer, category);

        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            username TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL CHECK (role IN ('annotator', 'reviewer', 'lead')),
            password_hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE sessions (
            token_hash TEXT PRIMARY KEY,
            username TEXT NOT NULL REFERENCES users(username) ON DELETE CASCADE ON UPDATE CASCADE,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL
        );
        CREATE INDEX idx_sessions_username ON sessions(username);

        CREATE TABLE assignments (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            user TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'assigned'
                CHECK (status IN ('assigned', 'in_progress', 'finished')),
            seconds_spent REAL NOT NULL DEFAULT 0,
            position INTEGER NOT NULL DEFAULT 0,
            assigned_by TEXT,
            assigned_at TEXT NOT NULL,
            started_at TEXT,
            finished_at TEXT,
            UNIQUE (doc_id, user)
        );
        CREATE INDEX idx_assignments_user ON assignments(user, status, position);
        CREATE INDEX idx_assignments_status ON assignments(status);

        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            user TEXT,
            action TEXT NOT NULL,
            target TEXT,
            doc_id INTEGER,
            detail_json TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX idx_audit_doc ON audit_log(doc_id);
        CREATE INDEX idx_audit_user ON audit_log(user, at);
        CREATE INDEX idx_audit_action ON audit_log(action, at);
        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
        """
    )


def _v2_jobs_models_dictionaries(db: Database) -> None:
    """Long-running jobs, model versions (one active per project), detection dictionaries."""
    db.executescript(
        """
        CREATE TABLE jobs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            project_id INTEGER REFERENCES projects(id) ON DELETE SET NULL,
            params_json TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'queued'
                CHECK (status IN ('queued', 'running', 'done', 'failed')),
            progress REAL NOT NULL DEFAULT 0,
            total REAL,
            message TEXT,
            error TEXT,
            result_json TEXT,
            created_by TEXT,
            created_at TEXT NOT NULL,
            started_at TEXT,
            finished_at TEXT,
            heartbeat_at TEXT,
            pid INTEGER
        );
        CREATE INDEX idx_jobs_status ON jobs(status, heartbeat_at);
        CREATE INDEX idx_jobs_kind ON jobs(kind, created_at);
        CREATE INDEX idx_jobs_project ON jobs(project_id);

        CREATE TABLE model_versions (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            path TEXT NOT NULL,
            config_json TEXT NOT NULL DEFAULT '{}',
            metrics_json TEXT NOT NULL DEFAULT '{}',
            thresholds_json TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'trained',
            active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
            activated_at TEXT,
            previous_active_id INTEGER REFERENCES model_versions(id) ON DELETE SET NULL,
            created_by TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (project_id, name)
        );
        CREATE UNIQUE INDEX idx_model_versions_one_active ON model_versions(project_id) WHERE active = 1;

        CREATE TABLE dictionaries (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            category TEXT NOT NULL,
            type TEXT NOT NULL DEFAULT '',
            entries_json TEXT NOT NULL DEFAULT '[]',
            n_entries INTEGER NOT NULL DEFAULT 0,
            uploaded_by TEXT,
            uploaded_at TEXT NOT NULL,
            UNIQUE (project_id, name)
        );
        CREATE INDEX idx_dictionaries_category ON dictionaries(project_id, category);
        """
    )


def _v3_deid_risk(db: Database) -> None:
    """De-identification profiles, runs and outputs; risk scores and decisions; dismissed misses."""
    db.executescript(
        """
        CREATE TABLE deid_profiles (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            profile_json TEXT NOT NULL,
            updated_by TEXT,
            updated_at TEXT NOT NULL,
            UNIQUE (project_id, name)
        );
        CREATE TABLE deid_runs (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            profile_name TEXT NOT NULL,
            profile_json TEXT NOT NULL,
            model_version TEXT,
            job_id INTEGER REFERENCES jobs(id) ON DELETE SET NULL,
            status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
            counts_json TEXT NOT NULL DEFAULT '{}',
            leaks INTEGER,
            quality_json TEXT NOT NULL DEFAULT '{}',
            created_by TEXT,
            created_at TEXT NOT NULL,
            finished_at TEXT
        );
        CREATE INDEX idx_deid_runs_project ON deid_runs(project_id, created_at);
        CREATE TABLE deid_outputs (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES deid_runs(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            spans_json TEXT NOT NULL DEFAULT '[]',
            n_leaks INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            UNIQUE (run_id, doc_id)
        );
        CREATE INDEX idx_deid_outputs_doc ON deid_outputs(doc_id);
        CREATE TABLE risk_scores (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES deid_runs(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            method TEXT NOT NULL DEFAULT '',
            score REAL NOT NULL,
            colour TEXT NOT NULL CHECK (colour IN ('red', 'amber', 'green')),
            reasons_json TEXT NOT NULL DEFAULT '[]',
            decision TEXT CHECK (decision IS NULL OR decision IN ('accepted', 'sent_back', 'withheld')),
            decided_by TEXT,
            decided_at TEXT,
            scored_at TEXT NOT NULL,
            UNIQUE (run_id, doc_id)
        );
        CREATE INDEX idx_risk_scores_queue ON risk_scores(run_id, colour, score);
        CREATE INDEX idx_risk_scores_doc ON risk_scores(doc_id);
        CREATE TABLE dismissed_misses (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            category TEXT NOT NULL,
            type TEXT NOT NULL DEFAULT '',
            reason TEXT,
            dismissed_by TEXT,
            at TEXT NOT NULL,
            UNIQUE (doc_id, start, "end", category, type)
        );
        CREATE INDEX idx_dismissed_misses_doc ON dismissed_misses(doc_id);
        """
    )


def _v4_job_cancellation(db: Database) -> None:
    """A lead can ask a running job to stop: a flag the worker polls (a cancelled job ends as
    ``failed`` with the reason "cancelled on request"; the status CHECK stays as it was)."""
    db.execute("ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0")


def _v5_run_fingerprints_and_output_names(db: Database) -> None:
    """A de-identification run remembers a fingerprint of its profile and secret key, so a resume
    with another profile or key is refused instead of mixing two; each output keeps the keyed
    pseudonym its document is written under (the mapping to the real name stays in the store)."""
    db.execute("ALTER TABLE deid_runs ADD COLUMN fingerprint TEXT")
    db.execute("ALTER TABLE deid_outputs ADD COLUMN output_name TEXT")


def _v6_audit_hash_chain(db: Database) -> None:
    """Tamper evidence for the audit log: every row carries the hash of the row before it
    (:func:`store.audit.chain_hash`), and a BEFORE INSERT trigger refuses ``INSERT OR REPLACE`` /
    upserts (SQLite's REPLACE deletes the old row without firing the delete trigger) and rows
    that do not extend the chain. Existing rows are chained in id order, the first from
    :data:`store.audit.GENESIS_HASH`; the update trigger is lifted for that and put back."""
    db.execute("ALTER TABLE audit_log ADD COLUMN prev_hash TEXT")
    db.execute("ALTER TABLE audit_log ADD COLUMN row_hash TEXT")
    db.execute("DROP TRIGGER IF EXISTS audit_log_no_update")
    prev, last_id = GENESIS_HASH, 0
    while True:
        rows = db.execute(
            "SELECT id, at, user, action, target, doc_id, detail_json FROM audit_log WHERE id > ? ORDER BY id LIMIT 5000",
            [last_id]).fetchall()
        if not rows:
            break
        for row in rows:
            row_hash = chain_hash(prev, *row)
            db.execute("UPDATE audit_log SET prev_hash = ?, row_hash = ? WHERE id = ?", [prev, row_hash, row[0]])
            prev, last_id = row_hash, row[0]
    db.execute("DROP TRIGGER IF EXISTS audit_log_no_delete")
    for sql in (*APPEND_ONLY_TRIGGERS.values(), *CHAIN_TRIGGERS.values()):
        db.execute(sql)


def _v7_signin_failures(db: Database) -> None:
    """Failed sign-ins counted per name in the database (not in one browser session), for the
    back-off and lockout of :mod:`store.signin`. Keyed by the name typed, whether or not such an
    account exists, so the answers never tell which accounts exist."""
    db.execute(
        """CREATE TABLE signin_failures (
            username TEXT PRIMARY KEY,
            failures INTEGER NOT NULL DEFAULT 0,
            last_failed_at TEXT,
            locked_at TEXT
        )""")
    db.execute("CREATE INDEX idx_signin_failures_last ON signin_failures(last_failed_at)")


def _v8_versioned_settings_profiles_dictionaries(db: Database) -> None:
    """Project settings, de-identification profiles and dictionaries get a version, as layers
    have, so a save that started from an older version is refused instead of silently
    overwriting someone else's. Existing rows start at version 1."""
    for table in ("projects", "deid_profiles", "dictionaries"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN version INTEGER NOT NULL DEFAULT 1")


def _v10_audit_chain_keyed(db: Database) -> None:
    """The audit chain is keyed: each row's MAC is an HMAC with a key derived from the
    installation key beside the database (:mod:`store.audit_chain`), which someone holding only
    the file cannot recompute. The existing rows are re-keyed once, as they are (whether their
    SHA-256 chain held is written down), and that is recorded as the ``audit.rekey`` row; the
    head file beside the key is written when the migration commits. An empty log has nothing
    to re-key and records nothing, but its head file starts, as a new database's does: from then
    on a missing head file is a sign of tampering, never re-created by a write."""
    from store.audit import _keying, audit
    from store.audit_rekey import legacy_chain_break, rekey_chain

    db._wb_head_reset = True  # type: ignore[attr-defined]     # the head file starts (again) here,
    db._wb_head_dirty = True  # type: ignore[attr-defined]     # written once the migration commits
    if db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0] == 0:
        return
    broken_at = legacy_chain_break(db)
    n = rekey_chain(db, _keying(db).key)
    db._wb_audit_keyed = True  # type: ignore[attr-defined]   # the rekey row below is keyed
    audit(db, None, "audit.rekey", "audit_log", detail={
        "rows": n, "previous_chain_held": broken_at is None,
        "previous_chain_broke_at": broken_at})


def _v9_finished_jobs_stay_finished(db: Database) -> None:
    """A job that ended (``done`` or ``failed``) keeps its status and result: a worker that was
    declared dead (no heartbeat) and then finishes late cannot turn it ``done``, and a training
    job's late model version is refused (its ``config.job_id`` names a failed job). The store's
    :func:`store.update_job` refuses (and audits) first; these triggers hold for any writer."""
    db.execute(
        "CREATE TRIGGER jobs_finished_stay_finished BEFORE UPDATE ON jobs "
        "WHEN OLD.status IN ('done', 'failed') AND (NEW.status IS NOT OLD.status OR NEW.result_json IS NOT OLD.result_json) "
        "BEGIN SELECT RAISE(ABORT, 'a finished job cannot change its status or result'); END")
    db.execute(
        "CREATE TRIGGER model_versions_not_from_failed_jobs BEFORE INSERT ON model_versions "
        "WHEN json_valid(NEW.config_json) AND EXISTS (SELECT 1 FROM jobs WHERE status = 'failed' "
        "AND id = json_extract(NEW.config_json, '$.job_id')) "
        "BEGIN SELECT RAISE(ABORT, 'the job that trained this model version has failed; its late result is discarded'); END")


def _v11_risk_send_backs(db: Database) -> None:
    """A risk reviewer's "send back (fix annotation)" is work: one row per (run, document) naming
    the annotator it went to and the reasons shown in their queue, closed when the run
    re-de-identifies the document from its fixed gold."""
    db.execute(
        """CREATE TABLE risk_send_backs (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES deid_runs(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            annotator TEXT NOT NULL,
            reasons_json TEXT NOT NULL DEFAULT '[]',
            note TEXT NOT NULL DEFAULT '',
            sent_by TEXT,
            sent_at TEXT NOT NULL,
            redone_at TEXT,
            UNIQUE (run_id, doc_id)
        )""")
    db.execute("CREATE INDEX idx_risk_send_backs_annotator ON risk_send_backs(annotator, redone_at)")


def _v12_span_provenance(db: Database) -> None:
    """Each span records how a person's span came to be (``created``, ``changed``, ``accepted``
    one by one, accepted in ``bulk``; see :class:`pipeline.spans.Span`), so agreement and Review
    can keep spans nobody looked at apart. Existing spans: ``''`` (unknown)."""
    db.execute("ALTER TABLE spans ADD COLUMN provenance TEXT NOT NULL DEFAULT ''")


def _v13_deid_input_spans(db: Database) -> None:
    """A run's output keeps the spans it was made from when they were detected for the run
    (offsets into the original text), so a reviewer sees what was replaced; layers people made
    are read from the store instead. Existing outputs: NULL (not stored)."""
    db.execute("ALTER TABLE deid_outputs ADD COLUMN input_spans_json TEXT")


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
