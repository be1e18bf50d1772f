"""The first three migrations: the tables of the first released schema (annotation core; jobs,
model versions and dictionaries; de-identification and risk).

Released, so never edited: a later change to the schema is a new step in
:mod:`store.migrations_changes`. :mod:`store.migrations` lists every step in order and runs them.
"""
from __future__ import annotations

from sqlite_utils import Database


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
