"""The migrations after the first schema (version 4 on): each a change to a released schema,
never edited once released; a new change is a new function here, appended to
:data:`store.migrations.MIGRATIONS`.
"""
from __future__ import annotations

from sqlite_utils import Database

from store.audit import APPEND_ONLY_TRIGGERS, CHAIN_TRIGGERS, GENESIS_HASH, chain_hash


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
