"""The SQLite store on real files: schema and migrations, all-or-nothing imports, versioned
layers, users and sessions, jobs, model versions, de-identification runs, risk triage, the
append-only audit log, statistics, backup and restore. Tests compare offsets, labels, counts
and versions; they never print document text."""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import store
from pipeline.errors import FormatError, StaleSaveError, StoreBusyError
from pipeline.schemas import I2B2_2014, MEDDOCAN, LabelSchema, SchemaError
from pipeline.spans import Document, Span, SpanError
from store.migrations import LATEST_VERSION

TABLES = ("projects", "documents", "layers", "spans", "assignments", "users", "sessions", "audit_log", "jobs",
          "model_versions", "dictionaries", "deid_profiles", "deid_runs", "deid_outputs", "risk_scores",
          "dismissed_misses")


# --------------------------------------------------------------------------- helpers

class Docs(list):
    """A list of documents whose repr shows no text (pytest prints fixture values on failure)."""

    def __repr__(self) -> str:
        return f"<{len(self)} documents>"


def read_brat_sample(folder: Path) -> "Docs":
    """Minimal brat reader for the fixture (the real one lives in pipeline.formats)."""
    docs = Docs()
    for txt in sorted(folder.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        spans = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if not line.startswith("T"):
                continue
            _, mid, _covered = line.split("\t")
            label, start, end = mid.split(" ")
            spans.append(Span(txt.stem, int(start), int(end), MEDDOCAN.category_of(label), label, "import:brat"))
        docs.append(Document(txt.stem, text, spans, meta={"split": "dev"}, source_file=txt.name))
    return docs


def assert_quotes_no_text(message: str, *pieces: str) -> None:
    """Fail without echoing the pieces (they are document text)."""
    assert not any(p and p in message for p in pieces), "the message quotes document text"


def table_counts(db) -> dict[str, int]:
    return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "nested" / "workbench.db"


@pytest.fixture
def db(db_path: Path):
    conn = store.connect(db_path)
    yield conn
    conn.close()


@pytest.fixture
def pid(db) -> int:
    return store.create_project(db, "meddocan-dev", MEDDOCAN, {"target_recall": 0.95}, user="lead")


@pytest.fixture
def sample_docs(meddocan_sample: Path) -> list[Document]:
    return read_brat_sample(meddocan_sample / "brat")


@pytest.fixture
def doc_ids(db, pid, sample_docs) -> list[int]:
    return store.add_documents(db, pid, sample_docs[:4], user="lead")


def name_span(doc_id: int | str, start: int, end: int, layer: str = "") -> Span:
    return Span(str(doc_id), start, end, "NAME", "NOMBRE_SUJETO_ASISTENCIA", "human:ana", 1.0, layer)


# --------------------------------------------------------------------------- connection and schema

def test_connect_creates_folder_wal_foreign_keys_and_latest_schema(db_path: Path):
    db = store.connect(db_path)
    assert db_path.is_file()
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] > 0
    assert store.schema_version(db) == LATEST_VERSION
    db.close()
    db = store.connect(db_path)  # reopening applies nothing twice
    assert db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == LATEST_VERSION
    for table in TABLES:
        assert db[table].exists(), table
    db.close()


def test_v1_file_migrates_forward_keeping_its_data(db_path: Path, sample_docs):
    old = store.connect(db_path, migrate_to=1)
    assert store.schema_version(old) == 1
    assert not old["jobs"].exists() and not old["risk_scores"].exists()
    pid = store.create_project(old, "p", MEDDOCAN)
    ids = store.add_documents(old, pid, sample_docs[:2])
    store.create_user(old, "ana", "s3cret-passphrase", "annotator")
    old.close()

    db = store.connect(db_path)
    assert store.schema_version(db) == LATEST_VERSION
    assert [r[0] for r in db.execute("SELECT version FROM schema_version ORDER BY version")] == \
        list(range(1, LATEST_VERSION + 1))
    assert store.read_layer(db, ids[0], "gold").spans[0].start == min(s.start for s in sample_docs[0].spans)
    assert store.authenticate(db, "ana", "s3cret-passphrase") is not None
    job = store.create_job(db, "train", {"epochs": 1}, project_id=pid)  # v2 table now usable
    assert store.get_job(db, job).status == "queued"
    db.close()


def test_file_from_a_newer_program_is_refused(db_path: Path):
    db = store.connect(db_path)
    db.execute("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 'x')")
    db.close()
    with pytest.raises(store.InvalidValueError, match="newer than this program"):
        store.connect(db_path)


def test_connect_refuses_a_file_that_is_not_a_database(tmp_path: Path):
    bad = tmp_path / "notes.db"
    bad.write_bytes(b"this is not sqlite" * 64)
    with pytest.raises(FormatError, match="notes.db.*not a usable SQLite database"):
        store.connect(bad)


def test_default_db_path_honours_env(monkeypatch, tmp_path: Path):
    monkeypatch.delenv("WORKBENCH_DB", raising=False)
    assert store.default_db_path() == Path(store.db.__file__).resolve().parents[1] / "var" / "workbench.db"
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "x.db"))
    assert store.default_db_path() == tmp_path / "x.db"


# --------------------------------------------------------------------------- projects and documents

def test_projects_roundtrip_schema_and_settings(db, pid):
    p = store.get_project(db, pid)
    assert p.name == "meddocan-dev" and p.schema == MEDDOCAN and p.settings == {"target_recall": 0.95}
    assert store.get_project_by_name(db, "meddocan-dev").id == pid
    store.update_project_settings(db, pid, {"target_recall": 0.99}, user="lead")
    assert store.get_project(db, pid).settings["target_recall"] == 0.99
    with pytest.raises(store.DuplicateError):
        store.create_project(db, "meddocan-dev", MEDDOCAN)
    with pytest.raises(store.NotFoundError):
        store.get_project(db, 999)


def test_import_meddocan_sample_roundtrips_offsets_labels_and_text(db, pid, sample_docs):
    ids = store.add_documents(db, pid, sample_docs, user="lead")
    assert len(ids) == 16 == len(set(ids))
    total = 0
    for doc, doc_id in zip(sample_docs, ids):
        rec = store.get_document(db, doc_id)
        assert rec.name == doc.doc_id and rec.split == "dev" and rec.source_file == doc.doc_id + ".txt"
        assert rec.sha256 == store.documents.sha256_text(doc.text)  # BOM included: offsets stay the file's
        state = store.read_layer(db, doc_id, "gold")
        assert state.version == 1 and state.status == "finished"
        expected = sorted((s.start, s.end, s.category, s.type) for s in doc.spans)
        assert [(s.start, s.end, s.category, s.type) for s in state.spans] == expected
        assert all(s.doc_id == str(doc_id) and s.layer == "gold" and s.source == "import:brat" for s in state.spans)
        total += len(state.spans)
    assert total == sum(len(d.spans) for d in sample_docs) == 363
    listed = store.list_documents(db, pid)
    assert [r.id for r in listed] == ids and all(r.text is None for r in listed)
    project_gold = store.read_project_layer(db, pid, "gold")
    assert sorted(project_gold) == ids and sum(len(v) for v in project_gold.values()) == total
    assert store.count_documents(db, pid) == 16 and store.count_documents(db, pid, split="dev") == 16


def test_import_with_a_bad_span_writes_nothing_and_names_no_text(db, pid, sample_docs):
    before = table_counts(db)
    bad = sample_docs[3]
    covered = bad.text[bad.spans[0].start:bad.spans[0].end]
    broken = Document(bad.doc_id, bad.text, bad.spans + [name_span(bad.doc_id, len(bad.text) - 2, len(bad.text) + 5)])
    with pytest.raises(SpanError) as e:
        store.add_documents(db, pid, sample_docs[:3] + [broken])
    assert bad.doc_id in str(e.value) and "outside the text" in str(e.value)
    assert_quotes_no_text(str(e.value), covered)
    assert table_counts(db) == before


def test_import_refuses_labels_outside_the_schema_and_overlaps(db, pid, sample_docs):
    doc = sample_docs[0]
    i2b2 = Document(doc.doc_id, doc.text, [Span(doc.doc_id, 0, 5, "NAME", "DOCTOR")])
    with pytest.raises(SpanError, match="NAME/DOCTOR.*not in the project's schema"):
        store.add_documents(db, pid, [i2b2])
    s = doc.spans[0]
    overlapping = Document(doc.doc_id, doc.text, [s, s.with_(end=s.end + 1, type="NOMBRE_PERSONAL_SANITARIO",
                                                              category="NAME")])
    with pytest.raises(SpanError, match="overlap"):
        store.add_documents(db, pid, [overlapping])
    assert store.count_documents(db, pid) == 0
    [doc_id] = store.add_documents(db, pid, [overlapping], allow_overlap=True)
    assert len(store.read_layer(db, doc_id, "gold").spans) == 2


def test_duplicate_document_names_are_refused_whole(db, pid, sample_docs):
    store.add_documents(db, pid, sample_docs[:2])
    before = table_counts(db)
    with pytest.raises(store.DuplicateError, match=sample_docs[1].doc_id):
        store.add_documents(db, pid, sample_docs[2:5] + [sample_docs[1]])
    with pytest.raises(store.DuplicateError, match="twice"):
        store.add_documents(db, pid, [sample_docs[6], sample_docs[6]])
    assert table_counts(db) == before
    other = store.create_project(db, "other", MEDDOCAN)  # names are unique per project only
    assert len(store.add_documents(db, other, sample_docs[:2])) == 2


def test_a_failure_in_the_middle_of_an_import_rolls_everything_back(db, pid, sample_docs):
    store.add_documents(db, pid, sample_docs[:1])
    before = table_counts(db)
    audit_before = [e.id for e in store.list_audit(db, limit=1000)]
    # A failure that only shows up while writing: spans of the 3rd document are refused by SQLite.
    target = sample_docs[3].spans[0]
    db.execute(f"""CREATE TEMP TRIGGER boom BEFORE INSERT ON spans WHEN NEW.start = {target.start}
                   AND NEW."end" = {target.end} BEGIN SELECT RAISE(ABORT, 'injected failure'); END""")
    with pytest.raises(sqlite3.IntegrityError, match="injected failure"):
        store.add_documents(db, pid, sample_docs[1:6])
    assert table_counts(db) == before
    assert [e.id for e in store.list_audit(db, limit=1000)] == audit_before
    db.execute("DROP TRIGGER boom")
    assert len(store.add_documents(db, pid, sample_docs[1:6])) == 5


def test_documents_without_spans_get_no_layer_unless_asked(db, pid):
    ids = store.add_documents(db, pid, [Document("empty-1", "no phi here"), Document("empty-2", "nor here")])
    assert store.layers_of(db, ids[0]) == {}
    [gold_empty] = store.add_documents(db, pid, [Document("empty-3", "none")], empty_layers=True)
    assert store.read_layer(db, gold_empty, "gold").version == 1
    assert store.read_project_layer(db, pid, "gold") == {gold_empty: []}
    with pytest.raises(store.NotFoundError):
        store.read_layer(db, 999, "gold")


def test_set_split_delete_and_load_documents(db, pid, doc_ids):
    assert store.set_split(db, doc_ids[:2], "train", user="lead") == 2
    assert [r.id for r in store.list_documents(db, pid, split="train")] == doc_ids[:2]
    docs = store.load_documents(db, pid, layer="gold", split="train")
    assert [d.doc_id for d in docs] == [str(i) for i in doc_ids[:2]]
    assert all(d.text and d.spans and d.meta["split"] == "train" for d in docs)
    assert all(s.doc_id == d.doc_id for d in docs for s in d.spans)
    assert store.delete_documents(db, [doc_ids[0]], user="lead") == 1
    assert db.execute("SELECT COUNT(*) FROM spans WHERE doc_id = ?", [doc_ids[0]]).fetchone()[0] == 0
    assert store.list_audit(db, doc_id=doc_ids[0])[0].action == "document.delete"


def test_update_project_schema_refuses_labels_in_use(db, pid, doc_ids):
    with pytest.raises(SchemaError, match="labels already in use"):
        store.update_project_schema(db, pid, I2B2_2014, user="lead")
    bigger = LabelSchema("meddocan+", {**MEDDOCAN.categories, "OTHER": MEDDOCAN.categories["OTHER"] + ("EXTRA",)})
    store.update_project_schema(db, pid, bigger, user="lead")
    assert store.get_project(db, pid).schema.has("OTHER", "EXTRA")


# --------------------------------------------------------------------------- layers

def test_save_layer_versions_and_stale_save_refused(db, pid, doc_ids):
    doc_id = doc_ids[0]
    text = store.get_document(db, doc_id).text
    layer = "annotator:ana"
    assert store.read_layer(db, doc_id, layer) == store.LayerState(spans=[], version=0)
    v1 = store.save_layer(db, doc_id, layer, [name_span(doc_id, 10, 20)], expected_version=0, user="ana")
    v2 = store.save_layer(db, doc_id, layer, [name_span(doc_id, 30, 40)], expected_version=v1, user="bob",
                          status="finished")
    assert (v1, v2) == (1, 2)
    with pytest.raises(StaleSaveError) as e:
        store.save_layer(db, doc_id, layer, [name_span(doc_id, 50, 60)], expected_version=1, user="ana")
    msg = str(e.value)
    assert f"document {doc_id}, layer {layer}" in msg and "version 1" in msg and "version 2" in msg
    assert "bob" in msg and "not saved" in msg and "reload" in msg
    assert_quotes_no_text(msg, text[30:40], text[50:60])
    assert e.value.stored_version == 2 and e.value.expected_version == 1
    state = store.read_layer(db, doc_id, layer)
    assert state.version == 2 and state.status == "finished" and state.updated_by == "bob"
    assert [(s.start, s.end) for s in state.spans] == [(30, 40)]
    assert all(s.layer == layer and s.doc_id == str(doc_id) for s in state.spans)


def test_save_layer_validates_before_writing(db, pid, doc_ids):
    doc_id = doc_ids[0]
    n = len(store.get_document(db, doc_id).text)
    gold = store.read_layer(db, doc_id, "gold")
    for bad, pattern in [
        ([name_span(doc_id, n - 1, n + 3)], "outside the text"),
        ([Span(str(doc_id), 1, 4, "NAME", "PATIENT")], "not in the project's schema"),
        ([name_span(doc_id, 1, 10), name_span(doc_id, 5, 12)], "overlap"),
        ([name_span(doc_ids[1], 1, 4)], "belongs to document"),
    ]:
        with pytest.raises(SpanError, match=pattern):
            store.save_layer(db, doc_id, "gold", bad, expected_version=gold.version, user="rev")
    assert store.read_layer(db, doc_id, "gold") == gold
    with pytest.raises(store.InvalidValueError):
        store.save_layer(db, doc_id, "gold", [], expected_version=gold.version, user="rev", status="done")


def test_layers_of_and_annotator_layers(db, pid, doc_ids):
    doc_id = doc_ids[1]
    store.save_layer(db, doc_id, "annotator:ana", [name_span(doc_id, 0, 3)], expected_version=0, user="ana")
    store.save_layer(db, doc_id, "annotator:bob", [], expected_version=0, user="bob")
    store.save_layer(db, doc_id, "pre", [name_span(doc_id, 0, 3).with_(source="model:v1", score=0.7)],
                     expected_version=0, user=None)
    info = store.layers_of(db, doc_id)
    assert sorted(info) == ["annotator:ana", "annotator:bob", "gold", "pre"]
    assert info["annotator:ana"].n_spans == 1 and info["annotator:bob"].n_spans == 0
    assert info["gold"].status == "finished" and info["annotator:bob"].status == "in_progress"
    ann = store.annotator_layers(db, doc_id)
    assert sorted(ann) == ["annotator:ana", "annotator:bob"] and ann["annotator:ana"].version == 1
    assert store.read_layer(db, doc_id, "pre").spans[0].score == pytest.approx(0.7)
    store.set_layer_status(db, doc_id, "annotator:bob", "finished", user="bob")
    assert store.read_layer(db, doc_id, "annotator:bob").version == 1  # status change is not a save
    assert store.read_project_layer(db, pid, "annotator:bob") == {doc_id: []}


# --------------------------------------------------------------------------- audit

def test_audit_log_records_writes_and_is_append_only(db, pid, doc_ids):
    store.save_layer(db, doc_ids[0], "annotator:ana", [], expected_version=0, user="ana")
    store.audit(db, "lead", "export", "project:1", detail={"format": "brat", "documents": 4})
    actions = [e.action for e in store.list_audit(db, limit=100)]
    assert actions[0] == "export" and "layer.save" in actions and "project.create" in actions
    assert actions.count("document.add") == 4
    assert [e.user for e in store.list_audit(db, action="layer.*")] == ["ana"]
    n = db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0]
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE audit_log SET user = 'mallory'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM audit_log")
    assert db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0] == n
    assert "mallory" not in {e.user for e in store.list_audit(db, limit=1000)}


# --------------------------------------------------------------------------- users and sessions

def test_users_scrypt_hashes_roles_and_authentication(db):
    store.create_user(db, "ana", "correct horse", "annotator", user="lead")
    store.create_user(db, "bob", "correct horse", "reviewer", user="lead")
    hashes = dict(db.execute("SELECT username, password_hash FROM users"))
    assert hashes["ana"].startswith(f"scrypt${store.passwords.scrypt_cost()}$8$1$") and hashes["ana"] != hashes["bob"]  # random salt
    assert "correct horse" not in hashes["ana"]
    assert store.authenticate(db, "ana", "correct horse").role == "annotator"
    assert store.authenticate(db, "ana", "wrong") is None
    assert store.authenticate(db, "nobody", "correct horse") is None
    store.set_password(db, "ana", "new secret phrase", user="lead")
    assert store.authenticate(db, "ana", "correct horse") is None
    assert store.authenticate(db, "ana", "new secret phrase") is not None
    store.set_role(db, "ana", "lead", user="lead")
    assert store.get_user(db, "ana").role == "lead"
    store.set_disabled(db, "bob", user="lead")
    assert store.authenticate(db, "bob", "correct horse") is None
    assert [u.username for u in store.list_users(db, include_disabled=False)] == ["ana"]
    with pytest.raises(store.InvalidValueError):
        store.create_user(db, "eve", "eve correct horse", "admin")
    with pytest.raises(store.DuplicateError):
        store.create_user(db, "ana", "ana correct horse", "annotator")
    failed = [e.detail["reason"] for e in store.list_audit(db, action="user.login_failed")]
    assert sorted(failed) == ["disabled", "unknown user", "wrong password", "wrong password"]


def test_sessions_store_only_a_hash_and_expire(db):
    store.create_user(db, "ana", "pw-123456-abcdef", "annotator")
    t0 = datetime(2030, 1, 1, tzinfo=timezone.utc)
    token = store.create_session(db, "ana", ttl_seconds=3600, now=t0)
    stored = [r[0] for r in db.execute("SELECT token_hash FROM sessions")]
    assert len(stored) == 1 and token not in stored[0] and len(stored[0]) == 64
    assert store.user_for_session(db, token, now=t0 + timedelta(minutes=59)).username == "ana"
    assert store.user_for_session(db, token, now=t0 + timedelta(minutes=61)) is None
    assert store.user_for_session(db, "forged", now=t0) is None
    store.end_session(db, token)
    assert store.user_for_session(db, token, now=t0) is None
    token2 = store.create_session(db, "ana", 3600, now=t0)
    store.set_password(db, "ana", "changed-pw-abcdef")  # a new password signs out everywhere
    assert store.user_for_session(db, token2, now=t0) is None


# --------------------------------------------------------------------------- jobs

def test_job_lifecycle(db, pid):
    job_id = store.create_job(db, "deid", {"profile": "safe-harbor"}, project_id=pid, total=10, user="lead")
    job = store.get_job(db, job_id)
    assert (job.status, job.progress, job.fraction, job.started_at) == ("queued", 0, 0.0, None)
    job = store.update_job(db, job_id, status="running", message="starting")
    assert job.started_at and job.pid and job.heartbeat_at
    job = store.update_job(db, job_id, progress=4)
    assert job.fraction == pytest.approx(0.4) and job.status == "running"
    job = store.update_job(db, job_id, progress=10, status="done", result={"documents": 10})
    assert job.finished and job.result == {"documents": 10} and job.finished_at
    store.create_job(db, "train", {})
    assert [j.kind for j in store.list_jobs(db)] == ["train", "deid"]
    assert [j.id for j in store.list_jobs(db, "deid", project_id=pid)] == [job_id]
    with pytest.raises(store.InvalidValueError):
        store.update_job(db, job_id, status="exploded")
    with pytest.raises(store.NotFoundError):
        store.get_job(db, 999)
    assert [e.action for e in store.list_audit(db, action="job.*")] == ["job.create", "job.done", "job.running",
                                                                       "job.create"]


def test_jobs_without_heartbeat_are_marked_failed(db):
    dead = store.create_job(db, "train", {})
    alive = store.create_job(db, "train", {})
    queued = store.create_job(db, "train", {})
    done = store.create_job(db, "risk", {})
    for j in (dead, alive, done):
        store.update_job(db, j, status="running")
    store.update_job(db, done, status="done")
    db.execute("UPDATE jobs SET heartbeat_at = ? WHERE id = ?",
               [store.db.now_iso(datetime.now(timezone.utc) - timedelta(minutes=10)), dead])
    assert store.mark_stale_jobs_failed(db, older_than_s=120) == [dead]
    job = store.get_job(db, dead)
    assert job.status == "failed" and job.error.startswith("worker stopped (no heartbeat since ")
    assert [store.get_job(db, j).status for j in (alive, queued, done)] == ["running", "queued", "done"]
    assert store.mark_stale_jobs_failed(db, older_than_s=120) == []


# --------------------------------------------------------------------------- model versions

def test_model_versions_one_active_activation_and_rollback(db, pid):
    metrics = {"strict": {"f1": 0.9}}
    a = store.add_model_version(db, pid, "v1", "models/v1", {"arch": "bert"}, metrics, user="lead")
    b = store.add_model_version(db, pid, "v2", "models/v2", {}, metrics, thresholds={"NAME": 0.3})
    c = store.add_model_version(db, pid, "v3", "models/v3", {}, metrics)
    unevaluated = store.add_model_version(db, pid, "v4", "models/v4", {}, None)
    with pytest.raises(store.InvalidValueError, match="no evaluation"):
        store.activate_model(db, unevaluated)
    assert store.active_model(db, pid) is None
    for mv in (a, b, c):
        store.activate_model(db, mv, user="lead")
        assert db.execute("SELECT COUNT(*) FROM model_versions WHERE active = 1").fetchone()[0] == 1
    assert store.active_model(db, pid).id == c
    assert store.rollback_model(db, pid, user="lead").id == b
    assert store.get_model_version(db, c).status == "rolled_back"
    assert store.rollback_model(db, pid).id == a
    with pytest.raises(store.NotFoundError, match="nothing to roll back"):
        store.rollback_model(db, pid)
    assert store.active_model(db, pid).thresholds == {} and store.get_model_version(db, b).thresholds == {"NAME": 0.3}
    with pytest.raises(sqlite3.IntegrityError):  # the schema itself forbids two active versions
        db.execute("UPDATE model_versions SET active = 1 WHERE id = ?", [b])
    assert [m.name for m in store.list_model_versions(db, pid)] == ["v4", "v3", "v2", "v1"]
    with pytest.raises(store.DuplicateError):
        store.add_model_version(db, pid, "v1", "x", {}, metrics)


# --------------------------------------------------------------------------- assignments

def test_assignments_queue_status_and_time(db, pid, doc_ids):
    for d in doc_ids[:3]:
        store.assign(db, d, "ana", by="lead")
    store.assign(db, doc_ids[3], "ana", position=-1, by="lead")  # to the front
    assert store.assign(db, doc_ids[0], "ana") == store.list_assignments(db, "ana")[1].id  # idempotent
    queue = store.list_assignments(db, user="ana", project_id=pid)
    assert [a.doc_id for a in queue] == [doc_ids[3], *doc_ids[:3]]
    assert [a.position for a in queue] == [-1, 0, 1, 2] and queue[0].doc_name
    store.set_assignment_status(db, doc_ids[0], "ana", "in_progress")
    store.set_assignment_status(db, doc_ids[0], "ana", "finished")
    a = store.list_assignments(db, "ana", status="finished")[0]
    assert a.doc_id == doc_ids[0] and a.started_at and a.finished_at
    assert store.record_time(db, doc_ids[0], "ana", 30) == 30
    assert store.record_time(db, doc_ids[0], "ana", 12.5) == pytest.approx(42.5)
    assert store.list_assignments(db, doc_id=doc_ids[0])[0].seconds_spent == pytest.approx(42.5)
    with pytest.raises(store.NotFoundError):
        store.record_time(db, doc_ids[0], "bob", 5)
    with pytest.raises(store.NotFoundError):
        store.assign(db, 999, "ana")
    with pytest.raises(store.InvalidValueError):
        store.set_assignment_status(db, doc_ids[0], "ana", "abandoned")
    assert store.unassign(db, doc_ids[1], "ana", by="lead") is True
    assert len(store.list_assignments(db, "ana")) == 3


# --------------------------------------------------------------------------- dictionaries, de-identification, risk

def test_dictionaries_replace_dedupe_and_check_labels(db, pid):
    d1 = store.save_dictionary(db, pid, "LOCATION", "HOSPITAL", "hospitals", ["H. Clínico", "H. Clínico", " ", "H. Sur"],
                               user="lead")
    d2 = store.save_dictionary(db, pid, "LOCATION", "HOSPITAL", "hospitals", ["H. Norte"], user="lead")
    assert d1 == d2
    [d] = store.list_dictionaries(db, pid)
    assert d.entries == ["H. Norte"] and d.type == "HOSPITAL"
    store.save_dictionary(db, pid, "LOCATION", "HOSPITAL", "more", ["A", "A", "B"])
    assert [x.entries for x in store.list_dictionaries(db, pid, category="LOCATION")] == [["H. Norte"], ["A", "B"]]
    with pytest.raises(store.InvalidValueError, match="not in schema"):
        store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["x"])
    detail = store.list_audit(db, action="dictionary.save")[0].detail
    assert detail["entries"] == 2 and "A" not in detail.values()


def test_deid_profiles_runs_and_outputs_upsert(db, pid, doc_ids):
    store.save_deid_profile(db, pid, "safe", {"NAME": "replace", "DATE": "shift"}, user="lead")
    store.save_deid_profile(db, pid, "safe", {"NAME": "redact"}, user="lead")
    assert [p.profile for p in store.list_deid_profiles(db, pid)] == [{"NAME": "redact"}]
    run = store.create_deid_run(db, pid, "safe", model_version="v1", user="lead")
    store.save_deid_profile(db, pid, "safe", {"NAME": "keep"})  # later edits do not rewrite the run
    assert store.get_deid_run(db, run).profile == {"NAME": "redact"}
    out_text = "Paciente [NAME] visto el [DATE]."
    spans = [Span("x", 9, 15, "NAME", "NOMBRE_SUJETO_ASISTENCIA"), Span("x", 25, 31, "DATE", "FECHAS")]
    store.save_deid_output(db, run, doc_ids[0], out_text, spans)
    store.save_deid_outputs(db, run, [(doc_ids[0], out_text + " ", spans, 1), (doc_ids[1], "ok", [])])
    outs = store.list_deid_outputs(db, run)
    assert [(o.doc_id, o.n_leaks, o.text) for o in outs] == [(doc_ids[0], 1, None), (doc_ids[1], 0, None)]
    got = store.get_deid_output(db, run, doc_ids[0])
    assert got.text == out_text + " " and [(s.start, s.end, s.doc_id) for s in got.spans] == \
        [(9, 15, str(doc_ids[0])), (25, 31, str(doc_ids[0]))]
    with pytest.raises(SpanError):
        store.save_deid_output(db, run, doc_ids[2], "short", spans)
    store.finish_deid_run(db, run, counts={"NAME": {"redact": 1}}, leaks=1, quality={"f1": 0.8}, user="lead")
    r = store.list_deid_runs(db, pid)[0]
    assert (r.status, r.leaks, r.counts, r.quality) == ("done", 1, {"NAME": {"redact": 1}}, {"f1": 0.8})
    with pytest.raises(store.NotFoundError):
        store.create_deid_run(db, pid, "missing-profile")


@dataclass
class FakeRiskReport:  # the shape of pipeline.risk's RiskReport
    doc_id: str
    score: float
    colour: str
    reasons: list


def test_risk_queue_order_rescoring_and_decisions(db, pid, doc_ids):
    run = store.create_deid_run(db, pid, "adhoc", {"NAME": "redact"})
    store.save_risk_scores(db, run, [
        FakeRiskReport(str(doc_ids[0]), 0.2, "green", []),
        FakeRiskReport(str(doc_ids[1]), 0.6, "amber", ["rare age"]),
        {"doc_id": doc_ids[2], "score": 0.9, "colour": "RED", "reasons": ["name-like token"]},
        {"doc_id": doc_ids[3], "score": 0.7, "colour": "amber", "reasons": []},
    ], method="heuristic", user="lead")
    queue = store.risk_queue(db, run)
    assert [(q.doc_id, q.colour) for q in queue] == [(doc_ids[2], "red"), (doc_ids[3], "amber"),
                                                     (doc_ids[1], "amber"), (doc_ids[0], "green")]
    assert queue[0].reasons == ["name-like token"] and queue[0].method == "heuristic"
    store.decide_risk(db, run, doc_ids[2], "withheld", "rev")
    store.save_risk_scores(db, run, [FakeRiskReport(str(doc_ids[2]), 0.95, "red", ["x"])])  # rescore keeps decision
    top = store.risk_queue(db, run)[0]
    assert (top.score, top.decision, top.decided_by) == (0.95, "withheld", "rev")
    assert len(store.risk_queue(db, run, undecided_only=True)) == 3
    assert db.execute("SELECT COUNT(*) FROM risk_scores").fetchone()[0] == 4
    with pytest.raises(store.InvalidValueError):
        store.decide_risk(db, run, doc_ids[0], "shrug", "rev")
    with pytest.raises(store.InvalidValueError):
        store.save_risk_scores(db, run, [FakeRiskReport(str(doc_ids[0]), 0.1, "blue", [])])
    with pytest.raises(store.InvalidValueError, match="document id"):
        store.save_risk_scores(db, run, [FakeRiskReport("S0004-06142006000500012-1", 0.1, "red", [])])


def test_dismissed_misses_are_idempotent_and_checked(db, pid, doc_ids):
    m1 = store.dismiss_miss(db, doc_ids[0], 5, 9, "NAME", "NOMBRE_SUJETO_ASISTENCIA", user="rev")
    assert store.dismiss_miss(db, doc_ids[0], 5, 9, "NAME", "NOMBRE_SUJETO_ASISTENCIA", user="rev") == m1
    assert [(m.start, m.end) for m in store.list_dismissed_misses(db, project_id=pid)] == [(5, 9)]
    with pytest.raises(store.InvalidValueError, match="outside the text"):
        store.dismiss_miss(db, doc_ids[0], 5, 10 ** 7, "NAME", user="rev")


# --------------------------------------------------------------------------- statistics

def test_stats_counts_statuses_layers_and_time(db, pid, sample_docs):
    gold_ids = store.add_documents(db, pid, sample_docs[:3], user="lead")
    raw_ids = store.add_documents(db, pid, [Document(d.doc_id, d.text) for d in sample_docs[3:7]], layer=None)
    store.assign(db, raw_ids[0], "ana")
    store.assign(db, raw_ids[1], "ana")
    store.assign(db, raw_ids[1], "bob")
    store.set_assignment_status(db, raw_ids[1], "ana", "finished")
    store.set_assignment_status(db, raw_ids[1], "bob", "in_progress")
    store.record_time(db, raw_ids[1], "ana", 60)
    store.save_layer(db, raw_ids[1], "annotator:ana", [name_span(raw_ids[1], 0, 4)], expected_version=0, user="ana")
    s = store.stats(db, pid)
    assert s["documents"] == 7
    assert s["documents_by_status"] == {"new": 2, "assigned": 1, "in_progress": 0, "annotated": 1, "gold": 3}
    assert s["gold_documents"] == s["gold_finished"] == 3
    assert s["gold_spans"] == sum(len(d.spans) for d in sample_docs[:3])
    assert s["spans_by_layer"]["annotator:ana"] == 1
    assert s["spans_by_layer_category"]["annotator:ana"] == {"NAME": 1}
    assert sum(s["spans_by_layer_category"]["gold"].values()) == s["gold_spans"]
    assert s["assignments_by_user"]["ana"] == {"assigned": 1, "in_progress": 0, "finished": 1, "seconds": 60.0}
    assert s["assignments_by_user"]["bob"]["in_progress"] == 1
    assert s["documents_by_split"] == {"dev": 3, "none": 4} and s["active_model"] is None
    assert gold_ids


# --------------------------------------------------------------------------- backup and restore

def test_backup_and_restore_roundtrip_keeps_the_replaced_file(db_path, sample_docs):
    db = store.connect(db_path)
    pid = store.create_project(db, "p", MEDDOCAN)
    store.add_documents(db, pid, sample_docs[:3])
    out = store.backup(db_path, db_path.parent / "backups" / "b1.db")  # while the connection is open
    assert not Path(str(out) + "-wal").exists()
    assert store.check_database_file(out) == LATEST_VERSION
    store.add_documents(db, pid, sample_docs[3:5])
    db.close()

    kept = store.restore(out, db_path)
    assert kept == db_path.with_name("workbench.db.before-restore")
    db = store.connect(db_path)
    assert store.count_documents(db, pid) == 3
    db.close()
    old = store.connect(kept)
    assert store.count_documents(old, pid) == 5
    old.close()


def test_restore_refuses_a_damaged_or_foreign_backup_and_leaves_the_database(db_path, tmp_path, sample_docs):
    db = store.connect(db_path)
    pid = store.create_project(db, "p", MEDDOCAN)
    store.add_documents(db, pid, sample_docs[:2])
    db.close()
    before = db_path.read_bytes()
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database" * 100)
    with pytest.raises(FormatError, match="garbage.db"):
        store.restore(garbage, db_path)
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(FormatError, match="not a workbench database"):
        store.restore(foreign, db_path)
    truncated = tmp_path / "truncated.db"
    good = store.backup(db_path, tmp_path / "good.db")
    truncated.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    with pytest.raises(FormatError):
        store.restore(truncated, db_path)
    assert db_path.read_bytes() == before and not db_path.with_name("workbench.db.before-restore").exists()


def test_restore_refuses_while_the_database_is_open(db_path, tmp_path):
    db = store.connect(db_path)
    store.create_project(db, "p", MEDDOCAN)
    b = store.backup(db_path, tmp_path / "b.db")
    with pytest.raises(StoreBusyError, match="open in another process"):
        store.restore(b, db_path)
    assert store.get_project_by_name(db, "p") is not None
    db.close()


def test_cli_backup_and_restore(db_path, tmp_path, capsys, sample_docs):
    from cli import main

    db = store.connect(db_path)
    pid = store.create_project(db, "p", MEDDOCAN)
    store.add_documents(db, pid, sample_docs[:2])
    db.close()
    out = tmp_path / "cli-backup.db"
    assert main(["backup", "--db", str(db_path), "--out", str(out)]) == 0
    assert "backed up" in capsys.readouterr().out and out.is_file()
    assert main(["restore", "--db", str(db_path), "--from", str(out)]) == 0
    assert "before-restore" in capsys.readouterr().out
    assert main(["restore", "--db", str(db_path), "--from", str(tmp_path / "missing.db")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error:") and "missing.db" in err
    assert_quotes_no_text(err, *(d.text[:40] for d in sample_docs[:2]))
