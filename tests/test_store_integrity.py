"""Integrity of what the store keeps, from a security review:

* defect 5: the audit log is append-only (no replace, no upsert), hash-chained and checked by
  ``audit --verify``; ``restore`` records itself with the audit rows it drops and refuses a
  backup whose audit triggers were dropped or whose chain is broken;
* defect 12: a job marked failed (no heartbeat) never becomes done; a stale worker's late
  result is discarded and audited, and a late training job adds no model version;
* defect 16: project settings, de-identification profiles and dictionaries are versioned; a
  save that started from an older version is refused without writing.

Tests compare ids, versions, counts and actions; the texts involved are synthetic.
"""
from __future__ import annotations

import hashlib
import importlib
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import store
from cli import main
from pipeline.deid.profile import Profile
from pipeline.errors import FormatError, StaleSaveError
from pipeline.schemas import I2B2_2014, MEDDOCAN
from services import jobs
from services import projects as project_service
from services.settings import ProjectSettings
from apptest_helpers import demo_app  # noqa: F401  (fixture)

# ``store.audit`` is also the name of a function in ``store``: reach the module itself. Names are
# looked up when a test runs, so on a store without them each test fails on its own.
AUDIT = importlib.import_module("store.audit")

PASSWORD = "a long test password"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "wb.db"


@pytest.fixture
def db(db_path: Path):
    conn = store.connect(db_path)
    yield conn
    conn.close()


def _audit_rows(conn) -> list[tuple]:
    return conn.execute("SELECT * FROM audit_log ORDER BY id").fetchall()


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _some_history(db, n: int = 4) -> None:
    for i in range(n):
        store.audit(db, "ana", "export", f"project:{i}", detail={"documents": i})


# =========================================================================== defect 5: audit log

@pytest.mark.parametrize("sql", [
    "INSERT OR REPLACE INTO audit_log (id, at, user, action, detail_json) VALUES (2, 'x', 'mallory', 'export', '{}')",
    "REPLACE INTO audit_log (id, at, user, action, detail_json) VALUES (2, 'x', 'mallory', 'export', '{}')",
    "INSERT INTO audit_log (id, at, user, action, detail_json) VALUES (2, 'x', 'mallory', 'export', '{}') "
    "ON CONFLICT (id) DO UPDATE SET user = excluded.user",
    "INSERT INTO audit_log (id, at, user, action, detail_json) VALUES (2, 'x', 'mallory', 'export', '{}') "
    "ON CONFLICT DO NOTHING",
    "INSERT OR IGNORE INTO audit_log (id, at, user, action, detail_json) VALUES (2, 'x', 'mallory', 'export', '{}')",
])
def test_5_replacing_or_upserting_an_audit_row_is_refused(db, sql):
    _some_history(db)
    before = _audit_rows(db)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute(sql)
    assert _audit_rows(db) == before
    assert store.verify_audit_chain(db).ok


def test_5_a_row_that_does_not_extend_the_chain_is_refused(db):
    _some_history(db, 2)
    before = _audit_rows(db)
    for sql, params in [
        ("INSERT INTO audit_log (at, user, action, detail_json) VALUES ('x', 'mallory', 'export', '{}')", []),
        ("INSERT INTO audit_log (id, at, user, action, detail_json, prev_hash, row_hash) "
         "VALUES (3, 'x', 'mallory', 'export', '{}', ?, 'f00')", [AUDIT.GENESIS_HASH]),          # wrong link
        ("INSERT INTO audit_log (id, at, user, action, detail_json, prev_hash, row_hash) "
         "VALUES (9, 'x', 'mallory', 'export', '{}', ?, 'f00')", [before[-1][-1]]),       # a gap in the ids
    ]:
        with pytest.raises(sqlite3.IntegrityError, match="hash chain"):
            db.execute(sql, params)
    assert _audit_rows(db) == before


def test_5_every_row_carries_the_hash_of_the_one_before(db_path, db):
    from store.audit_chain import chain_mac

    _some_history(db, 3)
    rows = db.execute("SELECT id, at, user, action, target, doc_id, detail_json, prev_hash, row_hash "
                      "FROM audit_log ORDER BY id").fetchall()
    prev = AUDIT.GENESIS_HASH
    key = store.audit_key(db_path)          # keyed (issue 29): the unkeyed recipe no longer matches
    for r in rows:
        assert r[7] == prev
        assert r[8] == chain_mac(key, prev, *r[:7]) != AUDIT.chain_hash(prev, *r[:7])
        prev = r[8]
    check = store.verify_audit_chain(db)
    assert check.ok and check.rows == 3 and check.head_hash == prev and check.first_bad_id is None


def test_5_verify_names_the_first_row_where_the_chain_breaks(db):
    _some_history(db, 6)
    # someone with a SQLite shell lifts the triggers, edits row 3, deletes row 5, puts the triggers back
    db.execute("DROP TRIGGER audit_log_no_update")
    db.execute("DROP TRIGGER audit_log_no_delete")
    db.execute("UPDATE audit_log SET user = 'mallory' WHERE id = 3")
    db.execute("DELETE FROM audit_log WHERE id = 5")
    for sql in AUDIT.APPEND_ONLY_TRIGGERS.values():
        db.execute(sql)
    check = store.verify_audit_chain(db)
    assert not check.ok and check.first_bad_id == 3
    assert "altered" in check.problem and "mallory" not in check.line()
    # with row 3 put back as it was, the deletion is what breaks the chain, at the row after it
    db.execute("DROP TRIGGER audit_log_no_update")
    db.execute("UPDATE audit_log SET user = 'ana' WHERE id = 3")
    db.execute(AUDIT.APPEND_ONLY_TRIGGERS["audit_log_no_update"])
    check = store.verify_audit_chain(db)
    assert not check.ok and check.first_bad_id == 6 and "removed" in check.problem


def test_5_audit_verify_command_says_in_one_line_whether_the_chain_holds(db_path, db, capsys):
    _some_history(db, 5)
    assert main(["audit", "--db", str(db_path), "--verify"]) == 0
    out = capsys.readouterr().out.strip()
    assert len(out.splitlines()) == 1 and out.startswith("audit log intact: 5 row(s)")
    db.execute("DROP TRIGGER audit_log_no_update")
    db.execute("UPDATE audit_log SET detail_json = '{\"documents\": 99}' WHERE id = 4")
    db.execute(AUDIT.APPEND_ONLY_TRIGGERS["audit_log_no_update"])
    assert main(["audit", "--db", str(db_path), "--verify"]) == 1
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "NOT intact at row 4" in err and captured.out == ""
    # a dropped trigger is reported too, even while the chain itself holds
    db.execute("DROP TRIGGER audit_log_no_update")
    db.execute("UPDATE audit_log SET detail_json = '{\"documents\": 3}' WHERE id = 4")
    assert main(["audit", "--db", str(db_path), "--verify"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "audit_log_no_update" in err


def test_5_migration_chains_the_rows_of_an_existing_database(db_path):
    old = store.connect(db_path, migrate_to=5)
    pid = store.create_project(old, "p", MEDDOCAN, user="lea")
    store.create_user(old, "ana", PASSWORD, "annotator", user="lea")
    store.audit(old, "lea", "export", f"project:{pid}")
    n_old = old.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0]
    old.close()

    db = store.connect(db_path)
    rows = db.execute("SELECT id, prev_hash, row_hash FROM audit_log ORDER BY id").fetchall()
    # chained, then re-keyed once on the way to the keyed chain (issue 29), which adds its own row
    assert len(rows) == n_old + 1 and rows[0][1] == AUDIT.GENESIS_HASH and all(r[2] for r in rows)
    assert store.list_audit(db, limit=1)[0].action == "audit.rekey"
    store.audit(db, "lea", "export", f"project:{pid}")           # new rows extend the migrated chain
    check = store.verify_audit_chain(db)
    assert check.ok and check.rows == n_old + 2
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE audit_log SET user = 'mallory' WHERE id = 1")
    db.close()


def test_5_restore_records_itself_and_the_audit_rows_it_drops(tmp_path, db_path, db):
    _some_history(db, 3)
    copy = store.backup(db_path, tmp_path / "backup.db")
    backup_last = db.execute("SELECT MAX(id) FROM audit_log").fetchone()[0]
    store.create_user(db, "ben", PASSWORD, "annotator", user="lea")     # written after the backup...
    _some_history(db, 2)
    replaced_last, replaced_head = db.execute(
        "SELECT id, row_hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchone()
    db.close()

    kept = store.restore(copy, db_path, user="cli:root")                # ...and dropped by the restore
    restored = store.connect(db_path)
    entry = store.list_audit(restored, limit=1)[0]
    assert (entry.action, entry.user, entry.target) == ("database.restore", "cli:root", "database")
    assert entry.id == backup_last + 1
    d = entry.detail
    assert d["dropped_audit_ids"] == [backup_last + 1, replaced_last]
    assert d["dropped_audit_rows"] == replaced_last - backup_last
    assert d["replaced_audit_head"] == replaced_head and d["backup_last_audit_id"] == backup_last
    assert d["kept_as"] == kept.name == "wb.db.before-restore"
    assert store.verify_audit_chain(restored).ok
    assert store.get_user(restored, "ben") is None
    restored.close()
    # the dropped rows are still in the kept file, chain intact
    keptdb = store.connect(kept, keyed_as=db_path)               # the installation's key checks it
    assert keptdb.execute("SELECT MAX(id) FROM audit_log").fetchone()[0] == replaced_last
    assert store.verify_audit_chain(keptdb).ok
    keptdb.close()


def test_5_restore_command_names_who_restored(tmp_path, db_path, db, capsys, monkeypatch):
    _some_history(db, 2)
    copy = store.backup(db_path, tmp_path / "backup.db")
    db.close()
    monkeypatch.setenv("WORKBENCH_USER", "operator")
    assert main(["restore", "--db", str(db_path), "--from", str(copy)]) == 0
    restored = store.connect(db_path)
    entry = store.list_audit(restored, limit=1)[0]
    assert entry.action == "database.restore" and entry.user == "cli:operator"
    assert entry.detail["dropped_audit_rows"] == 0 and entry.detail["dropped_audit_ids"] is None
    restored.close()


@pytest.mark.parametrize("tamper", ["drop_delete_trigger", "drop_insert_trigger", "neutered_trigger", "edited_row"])
def test_5_restore_refuses_a_backup_whose_audit_log_was_tampered_with(tmp_path, db_path, db, tamper):
    _some_history(db, 4)
    copy = store.backup(db_path, tmp_path / "backup.db")
    store.create_user(db, "ben", PASSWORD, "annotator")
    db.close()
    conn = sqlite3.connect(copy)
    if tamper == "drop_delete_trigger":
        conn.execute("DROP TRIGGER audit_log_no_delete")
    elif tamper == "drop_insert_trigger":
        conn.execute("DROP TRIGGER audit_log_append_only_insert")
    elif tamper == "neutered_trigger":  # same name, does nothing
        conn.execute("DROP TRIGGER audit_log_no_update")
        conn.execute("CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT 1; END")
    else:
        conn.execute("DROP TRIGGER audit_log_no_update")
        conn.execute("UPDATE audit_log SET user = 'mallory' WHERE id = 2")
        conn.execute(AUDIT.APPEND_ONLY_TRIGGERS["audit_log_no_update"])
    conn.commit()
    conn.close()
    before = _file_digest(db_path)
    with pytest.raises(FormatError) as err:
        store.restore(copy, db_path, user="cli:root")
    message = str(err.value)
    assert "\n" not in message and "not restored" in message
    assert ("row 2" in message) if tamper == "edited_row" else ("trigger" in message)
    assert _file_digest(db_path) == before                      # untouched
    assert not (tmp_path / "wb.db.before-restore").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_5_restore_of_an_old_backup_chains_it_and_records_the_restore(tmp_path, db_path):
    old_path = tmp_path / "old.db"
    old = store.connect(old_path, migrate_to=5)
    store.audit(old, "lea", "export", "project:1")
    old.close()
    conn = sqlite3.connect(old_path)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    # from before the keyed chain: only with the flag (issue 29), and recorded as unverifiable
    store.restore(old_path, db_path, user="cli:root", allow_unverified=True)
    db = store.connect(db_path)
    assert store.schema_version(db) == store.LATEST_VERSION
    assert [e.action for e in store.list_audit(db)] == ["database.restore", "audit.rekey", "export"]
    assert store.list_audit(db, limit=1)[0].detail["verified"] is False
    assert store.verify_audit_chain(db).ok
    db.close()


# =========================================================================== defect 12: late jobs

def _stale(db, job_id: int) -> None:
    """What the app does when a worker's heartbeat stopped."""
    later = datetime.now(timezone.utc) + timedelta(hours=1)
    assert job_id in store.mark_stale_jobs_failed(db, 600, now=later)


def test_12_a_failed_job_never_becomes_done(db):
    job_id = store.create_job(db, "train", total=3)
    store.update_job(db, job_id, status="running")
    _stale(db, job_id)
    before = db.execute("SELECT * FROM jobs WHERE id = ?", [job_id]).fetchone()
    with pytest.raises(store.JobFinishedError, match="already ended"):
        store.update_job(db, job_id, status="done", result={"model_version_id": 7})
    with pytest.raises(store.JobFinishedError):
        store.update_job(db, job_id, result={"history": []})
    with pytest.raises(store.JobFinishedError):
        store.update_job(db, job_id, progress=3)
    assert store.heartbeat(db, job_id) is False                 # a late heartbeat is ignored
    assert db.execute("SELECT * FROM jobs WHERE id = ?", [job_id]).fetchone() == before
    job = store.get_job(db, job_id)
    assert job.status == "failed" and job.result is None and "heartbeat" in job.error
    late = store.list_audit(db, action="job.late_result_discarded")
    assert len(late) == 2 and all(e.target == f"job:{job_id}" for e in late)
    assert late[-1].detail["status"] == "failed" and late[-1].detail["refused_status"] == "done"
    # and at the schema level, for any writer
    with pytest.raises(sqlite3.IntegrityError, match="finished job"):
        db.execute("UPDATE jobs SET status = 'done' WHERE id = ?", [job_id])


def test_12_stale_worker_finishing_late_has_its_result_discarded(db_path, db):
    """A worker that stalls past the stale limit (suspended machine), is marked failed, then
    wakes up and finishes: the job stays failed, the result is not saved, the discard is audited."""
    job_id = store.create_job(db, "selftest", {"steps": 1})

    def stalls_then_finishes(ctx: jobs.JobContext) -> dict:
        other = store.connect(db_path)                          # meanwhile, the app sees no heartbeat
        _stale(other, ctx.job_id)
        other.close()
        return {"steps": 1, "late": True}

    assert jobs.run_queued(db_path, job_id, {"selftest": stalls_then_finishes}) == 1
    job = store.get_job(db, job_id)
    assert job.status == "failed" and job.result is None
    assert [e.target for e in store.list_audit(db, action="job.late_result_discarded")] == [f"job:{job_id}"]
    # a worker started for a job that already ended does not run it at all
    ran = []
    assert jobs.run_queued(db_path, job_id, {"selftest": lambda ctx: ran.append(1) or {}}) == 1
    assert ran == []


def test_12_stale_worker_sees_it_should_stop(db_path, db):
    job_id = store.create_job(db, "selftest")
    store.update_job(db, job_id, status="running")
    ctx = jobs.JobContext(db_path=str(db_path), job_id=job_id, params={})
    assert not ctx.should_stop()
    _stale(db, job_id)
    ctx._cancel_checked = 0.0
    assert ctx.should_stop()
    with pytest.raises(store.JobFinishedError):
        ctx.progress(1, 2, force=True)


def test_12_late_training_job_adds_no_model_version(db_path, db):
    pid = store.create_project(db, "p", I2B2_2014)

    def late_training(ctx: jobs.JobContext) -> dict:
        other = store.connect(db_path)
        _stale(other, ctx.job_id)
        # the late worker tries to record the version it trained, as services.training does
        mv = store.add_model_version(other, pid, "late-v1", "/nonexistent", config={"job_id": ctx.job_id})
        other.close()
        return {"model_version_id": mv}

    with pytest.raises(store.JobFinishedError, match="late result was discarded"):
        jobs.run_here(db_path, "train", late_training, {"project_id": pid})
    assert store.list_model_versions(db, pid) == []
    job = store.list_jobs(db, "train")[0]
    assert job.status == "failed" and job.result is None
    assert store.list_audit(db, action="job.late_result_discarded")


def test_12_run_here_reports_a_late_result_in_one_line(db_path, db):
    def stalls_then_finishes(ctx: jobs.JobContext) -> dict:
        other = store.connect(db_path)
        _stale(other, ctx.job_id)
        other.close()
        return {"steps": 1}

    with pytest.raises(store.JobFinishedError) as err:
        jobs.run_here(db_path, "selftest", stalls_then_finishes, {})
    assert "\n" not in str(err.value) and "marked failed" in str(err.value)
    job = store.list_jobs(db, "selftest")[0]
    assert job.status == "failed" and job.result is None


def test_12_model_versions_of_running_or_unrelated_jobs_are_still_added(db):
    pid = store.create_project(db, "p", I2B2_2014)
    job_id = store.create_job(db, "train")
    store.update_job(db, job_id, status="running")
    assert store.add_model_version(db, pid, "v1", "/x", config={"job_id": job_id})
    assert store.add_model_version(db, pid, "v2", "/y", config={})
    assert store.update_job(db, job_id, status="done", result={"ok": 1}).status == "done"


# =========================================================================== defect 16: versioned saves

def test_16_project_settings_stale_save_is_refused_without_writing(db):
    pid = store.create_project(db, "p", I2B2_2014)
    assert store.get_project(db, pid).version == 1
    assert store.update_project_settings(db, pid, {"queue_order": "random"}, user="lea", expected_version=1) == 2
    n_audit = len(store.list_audit(db, limit=1000))
    with pytest.raises(StaleSaveError, match="your version 1, now 2"):
        store.update_project_settings(db, pid, {"queue_order": "uncertain"}, user="ben", expected_version=1)
    project = store.get_project(db, pid)
    assert project.settings == {"queue_order": "random"} and project.version == 2
    assert len(store.list_audit(db, limit=1000)) == n_audit
    store.update_project_schema(db, pid, MEDDOCAN, user="lea")   # any change of the project row counts
    assert store.get_project(db, pid).version == 3
    with pytest.raises(StaleSaveError):
        store.update_project_settings(db, pid, {"queue_order": "uncertain"}, expected_version=2)
    assert store.update_project_settings(db, pid, {"x": 1}) == 4  # no version stated: unchecked


def test_16_profile_stale_save_is_refused_without_writing(db):
    pid = store.create_project(db, "p", I2B2_2014)
    store.save_deid_profile(db, pid, "release", {"actions": {"NAME": "replace"}}, user="lea", expected_version=0)
    with pytest.raises(store.DuplicateError, match="already exists"):
        store.save_deid_profile(db, pid, "release", {"actions": {"NAME": "keep"}}, expected_version=0)
    store.save_deid_profile(db, pid, "release", {"actions": {"NAME": "redact"}}, user="lea", expected_version=1)
    with pytest.raises(StaleSaveError, match="your version 1, now 2"):
        store.save_deid_profile(db, pid, "release", {"actions": {"NAME": "keep"}}, user="ben", expected_version=1)
    with pytest.raises(StaleSaveError, match="deleted"):
        store.save_deid_profile(db, pid, "other", {"actions": {}}, expected_version=3)
    p = store.get_deid_profile(db, pid, "release")
    assert (p.profile, p.version, p.updated_by) == ({"actions": {"NAME": "redact"}}, 2, "lea")
    assert [e.detail["version"] for e in store.list_audit(db, action="deid.profile")] == [2, 1]
    assert [q.name for q in store.list_deid_profiles(db, pid)] == ["release"]


def test_16_dictionary_stale_save_is_refused_without_writing(db):
    pid = store.create_project(db, "p", I2B2_2014)
    d = store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["Springfield"], user="lea", expected_version=0)
    store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["Shelbyville"], user="lea", expected_version=1)
    with pytest.raises(StaleSaveError, match="your version 1, now 2"):
        store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["Ogdenville"], user="ben", expected_version=1)
    with pytest.raises(store.DuplicateError):
        store.save_dictionary(db, pid, "LOCATION", "CITY", "cities", ["Ogdenville"], expected_version=0)
    (saved,) = store.list_dictionaries(db, pid)
    assert (saved.id, saved.entries, saved.version, saved.uploaded_by) == (d, ["Shelbyville"], 2, "lea")


def test_16_migration_gives_existing_rows_version_1(db_path):
    old = store.connect(db_path, migrate_to=5)
    pid = store.create_project(old, "p", I2B2_2014)
    old.execute("INSERT INTO deid_profiles (project_id, name, profile_json, updated_at) VALUES (?, 'x', '{}', 'now')",
                [pid])
    old.execute("INSERT INTO dictionaries (project_id, name, category, type, uploaded_at) "
                "VALUES (?, 'd', 'LOCATION', 'CITY', 'now')", [pid])
    old.commit()
    old.close()
    db = store.connect(db_path)
    assert store.get_project(db, pid).version == 1
    assert store.get_deid_profile(db, pid, "x").version == 1
    assert store.list_dictionaries(db, pid)[0].version == 1
    assert store.update_project_settings(db, pid, {"a": 1}, expected_version=1) == 2
    db.close()


def test_16_services_state_the_version_they_started_from(db):
    store.create_user(db, "lea", PASSWORD, "lead")
    lead = store.get_user(db, "lea")
    pid = store.create_project(db, "p", I2B2_2014)
    project = store.get_project(db, pid)
    settings = ProjectSettings.of(project)
    assert project_service.update_settings(db, lead, pid, settings.with_(queue_order="random"),
                                           expected_version=project.version) == project.version + 1
    with pytest.raises(StaleSaveError):
        project_service.update_settings(db, lead, pid, settings.with_(queue_order="uncertain"),
                                        expected_version=project.version)
    assert ProjectSettings.of(store.get_project(db, pid)).queue_order == "random"

    prof = Profile(name="release", actions={"NAME": "replace"})
    project_service.save_profile(db, lead, pid, prof)                    # None: a new profile
    with pytest.raises(store.DuplicateError):
        project_service.save_profile(db, lead, pid, prof)                # ... refused if the name is taken
    project_service.save_profile(db, lead, pid, Profile(name="release", actions={"NAME": "redact"}),
                                 expected_version=1)
    with pytest.raises(StaleSaveError):
        project_service.save_profile(db, lead, pid, Profile(name="release", actions={"NAME": "keep"}),
                                     expected_version=1)
    assert store.get_deid_profile(db, pid, "release").profile["actions"] == {"NAME": "redact"}

    project = store.get_project(db, pid)
    assert project_service.save_dictionary(db, lead, project, "LOCATION", "CITY", "cities", ["Springfield"]) == 1
    with pytest.raises(store.DuplicateError):
        project_service.save_dictionary(db, lead, project, "LOCATION", "CITY", "cities", ["Shelbyville"])
    project_service.save_dictionary(db, lead, project, "LOCATION", "CITY", "cities", ["Shelbyville"],
                                    expected_version=1)
    with pytest.raises(StaleSaveError):
        project_service.save_dictionary(db, lead, project, "LOCATION", "CITY", "cities", ["Ogdenville"],
                                        expected_version=1)
    assert store.list_dictionaries(db, pid)[0].entries == ["Shelbyville"]


# --------------------------------------------------------------------------- defect 16 on the Admin page

def _admin_page(app):
    from apptest_helpers import LEAD, errors, new_app, open_page, sign_in

    at = new_app(app)
    sign_in(at, app, LEAD, "lead")
    open_page(at, "admin")
    assert not errors(at)
    return at


def test_16_admin_page_refuses_a_stale_settings_save_in_words(demo_app):
    from apptest_helpers import errors

    at = _admin_page(demo_app)                                   # the lead opens the settings...
    with demo_app.db() as db:
        shown = store.get_project(db, demo_app.project_id)
        other = ProjectSettings.of(shown).with_(queue_order="random")
        store.update_project_settings(db, demo_app.project_id, other.to_settings(), user="ben",
                                      expected_version=shown.version)  # ...another lead saves first
        at.selectbox(key="admin.queue_order").set_value("uncertain")
        at.button(key="admin.settings_submit").click().run()
        assert any("saved by someone else since you opened them" in e and "nothing was saved" in e for e in errors(at))
        assert ProjectSettings.of(store.get_project(db, demo_app.project_id)).queue_order == "random"
        # reloading shows their values; a save from there goes through
        at.button(key="admin.settings_reload").click().run()
        assert at.selectbox(key="admin.queue_order").value == "random"
        at.selectbox(key="admin.queue_order").set_value("uncertain")
        at.button(key="admin.settings_submit").click().run()
        assert not errors(at)
        assert ProjectSettings.of(store.get_project(db, demo_app.project_id)).queue_order == "uncertain"


def test_16_admin_page_edits_a_profile_at_its_version_and_refuses_a_stale_save(demo_app):
    from apptest_helpers import errors

    with demo_app.db() as db:
        store.save_deid_profile(db, demo_app.project_id, "release", Profile(name="release", actions={"NAME": "replace"})
                                .to_dict(), user="lea", expected_version=0)
        at = _admin_page(demo_app)
        at.selectbox(key="admin.profile_pick").set_value("release").run()
        assert at.selectbox(key="admin.profile_action.NAME").value == "replace"     # loaded from the store
        store.save_deid_profile(db, demo_app.project_id, "release", Profile(name="release", actions={"NAME": "keep"})
                                .to_dict(), user="ben", expected_version=1)          # another lead saves first
        at.selectbox(key="admin.profile_action.NAME").set_value("redact")
        at.button(key="admin.profile_submit").click().run()
        assert any("profile 'release' was saved by someone else since you opened it" in e for e in errors(at))
        saved = store.get_deid_profile(db, demo_app.project_id, "release")
        assert saved.version == 2 and saved.profile["actions"]["NAME"] == "keep"
        # a new profile under a taken name is refused too, not merged into the existing one
        at.selectbox(key="admin.profile_pick").set_value("(new profile)").run()
        at.text_input(key="admin.profile_name").input("release")
        at.button(key="admin.profile_submit").click().run()
        assert any("already exists" in e for e in errors(at))
        assert store.get_deid_profile(db, demo_app.project_id, "release").version == 2


def test_16_admin_page_refuses_replacing_a_dictionary_changed_since_it_was_shown(demo_app):
    from apptest_helpers import errors

    at = _admin_page(demo_app)
    with demo_app.db() as db:
        store.save_dictionary(db, demo_app.project_id, "LOCATION", "HOSPITAL", "hospitals", ["Mercy West"],
                              user="ben", expected_version=0)                    # made after the page was shown
        at.selectbox(key="admin.dict_label").set_value(("LOCATION", "HOSPITAL"))
        at.text_input(key="admin.dict_name").input("hospitals")
        at.file_uploader(key="admin.dict_file").upload("h.txt", b"Saint Elsewhere Hospital\n", "text/plain")
        at.button(key="admin.dict_submit").click().run()
        assert any("dictionary 'hospitals' already exists" in e for e in errors(at))
        assert store.list_dictionaries(db, demo_app.project_id)[0].entries == ["Mercy West"]
