"""The workbench's SQLite store (sqlite-utils): one function per operation, dataclasses out.

Open with ``with store.connect(path) as db:`` (one connection per thread, closed when the block
ends; :func:`thread_db` caches one per thread for the app).
Every write function runs in one ``BEGIN IMMEDIATE`` transaction, takes the acting ``user``
(``None`` for the system) and appends an ``audit_log`` row in that same transaction. Spans read
from the store have ``doc_id = str(documents.id)`` and ``layer`` set. Errors are
:mod:`pipeline.errors` types (``StaleSaveError``, ``StoreBusyError``, ``SpanError``...) or the
store's own :class:`NotFoundError`, :class:`DuplicateError`, :class:`InvalidValueError`, all
safe to show: they never contain document text.
"""
import sys as _sys

if "pandas" not in _sys.modules and "sqlite_utils" not in _sys.modules:
    # sqlite-utils imports pandas (when installed) only to map its Timestamp type, which the store
    # never writes: a command-line process (pre-annotation, deidentify-project) would pay 0.3-1 s of
    # start-up for it. A process that already uses pandas (the app) is left as it is.
    _sys.modules["pandas"] = None  # type: ignore[assignment]   # makes "import pandas" fail, here only
    try:
        import sqlite_utils.db  # noqa: F401
    finally:
        del _sys.modules["pandas"]

from store.assignments import (ASSIGNMENT_STATUSES, Assignment, assign, list_assignments, record_time,
                               set_assignment_status, unassign)
from store.audit import AuditEntry, audit, list_audit
from store.audit_chain import existing_key as audit_key, head_path_for as audit_head_path
from store.audit_verify import AuditCheck, verify_audit_chain
from store.backup import backup, check_audit_log_file, check_database_file
from store.backup_manifest import backup_manifest_path
from store.restore import restore
from store.leftovers import backup_marker_path
from store.connection import close_thread_dbs, connect, thread_db
from store.db import default_db_path, read_snapshot, schema_version, transaction, with_retry
from store.deid import (DeidOutput, DeidRun, create_deid_run, finish_deid_run, get_deid_output, get_deid_run,
                        list_deid_outputs, list_deid_runs, save_deid_output, save_deid_outputs)
from store.dictionaries import Dictionary, delete_dictionary, list_dictionaries, save_dictionary
from store.documents import (DocumentRecord, add_documents, count_documents, delete_documents, find_document,
                             get_document, list_documents, set_split)
from store.errors import DuplicateError, InvalidValueError, NotFoundError, StaleSaveError, StoreBusyError
from store.jobs import (JOB_STATUSES, Job, JobFinishedError, create_job, get_job, heartbeat, list_jobs,
                        mark_stale_jobs_failed, request_cancel, update_job)
from store.layers import (LayerInfo, LayerState, annotator_layers, human_seen_doc_ids, layer_updated_at, layers_of,
                          load_documents, read_layer, read_project_layer, save_layer, set_layer_status,
                          unseen_doc_ids)
from store.migrations import LATEST_VERSION, migrate
from store.misses import DismissedMiss, dismiss_miss, list_dismissed_misses
from store.models import (ModelVersion, activate_model, active_model, add_model_version, get_model_version,
                          list_model_versions, rollback_model, update_model_version)
from store.passwords import PASSWORD_RULES, check_password_policy, password_problem
from store.profiles import DeidProfile, get_deid_profile, list_deid_profiles, save_deid_profile
from store.projects import (Project, create_project, get_project, get_project_by_name, list_projects,
                            update_project_schema, update_project_settings)
from store.risk import COLOURS, DECISIONS, RiskScore, decide_risk, risk_queue, save_risk_scores
from store.send_backs import SendBack, close_send_back, list_send_backs, send_back
from store.signin import (LOCK_AFTER, SignInResult, SignInState, authenticate, sign_in_attempt, sign_in_states,
                          unlock_user)
from store.stats import document_statuses, stats
from store.users import (MAX_USERNAME_LENGTH, ROLES, User, create_session, create_user, end_session, get_user, list_users, set_disabled,
                         set_password, set_role, user_for_session)

__all__ = [
    # connection
    "connect", "thread_db", "close_thread_dbs", "default_db_path", "transaction", "read_snapshot", "with_retry", "schema_version",
    "migrate", "LATEST_VERSION",
    # errors
    "NotFoundError", "DuplicateError", "InvalidValueError", "StaleSaveError", "StoreBusyError",
    # projects, documents, layers
    "Project", "create_project", "get_project", "get_project_by_name", "list_projects", "update_project_settings",
    "update_project_schema",
    "DocumentRecord", "add_documents", "get_document", "find_document", "list_documents", "count_documents",
    "set_split", "delete_documents",
    "LayerState", "LayerInfo", "read_layer", "layers_of", "annotator_layers", "save_layer", "set_layer_status",
    "human_seen_doc_ids", "unseen_doc_ids", "layer_updated_at",
    "read_project_layer", "load_documents",
    # people and work
    "Assignment", "ASSIGNMENT_STATUSES", "assign", "unassign", "list_assignments", "set_assignment_status",
    "record_time",
    "User", "ROLES", "MAX_USERNAME_LENGTH", "create_user", "get_user", "list_users", "authenticate", "set_password", "set_role",
    "set_disabled", "create_session", "user_for_session", "end_session",
    "SignInResult", "SignInState", "LOCK_AFTER", "PASSWORD_RULES", "sign_in_attempt", "sign_in_states", "unlock_user",
    "password_problem", "check_password_policy",
    "Job", "JOB_STATUSES", "JobFinishedError", "create_job", "update_job", "heartbeat", "request_cancel", "get_job",
    "list_jobs", "mark_stale_jobs_failed",
    # models, dictionaries, de-identification, risk
    "ModelVersion", "add_model_version", "update_model_version", "activate_model", "rollback_model",
    "active_model", "get_model_version", "list_model_versions",
    "Dictionary", "save_dictionary", "list_dictionaries", "delete_dictionary",
    "DeidProfile", "DeidRun", "DeidOutput", "save_deid_profile", "list_deid_profiles", "get_deid_profile",
    "create_deid_run", "save_deid_output", "save_deid_outputs", "get_deid_output", "list_deid_outputs",
    "finish_deid_run", "get_deid_run", "list_deid_runs",
    "RiskScore", "COLOURS", "DECISIONS", "save_risk_scores", "risk_queue", "decide_risk",
    "SendBack", "send_back", "list_send_backs", "close_send_back",
    "DismissedMiss", "dismiss_miss", "list_dismissed_misses",
    # audit, figures, backups
    "AuditEntry", "AuditCheck", "audit", "list_audit", "verify_audit_chain", "audit_head_path", "audit_key",
    "backup_manifest_path", "backup_marker_path", "stats", "document_statuses", "backup",
    "restore", "check_database_file", "check_audit_log_file",
]
