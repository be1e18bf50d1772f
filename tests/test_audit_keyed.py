"""Issue 29, items 2 and 12: an audit chain that someone holding the database (but not the
installation key) cannot recompute, a head kept outside the database, verified backups, and no
hidden copies of the database left behind by a killed backup or restore.

Every attack here is what a person with the database file and a SQLite shell can do: lift the
triggers, change rows and recompute the published SHA-256 recipe of the chain. They never hold
the key file. The audit rows are synthetic (user names, ``export`` actions, counts).
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest

import store
from cli import main
from pipeline.errors import FormatError
from store.connection import sqlite_file

PASSWORD = "a long test password"
_CONTENT = "id, at, user, action, target, doc_id, detail_json"
GENESIS = "0" * 64
_TRIGGERS = ("audit_log_no_update", "audit_log_no_delete", "audit_log_append_only_insert")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "wb.db"


def _history(db_path: Path, n: int = 10) -> None:
    with store.connect(db_path) as db:
        for i in range(n):
            store.audit(db, "ana", "export", f"project:{i}", detail={"documents": i})


def _sha_recipe(prev: str, row: tuple) -> str:
    """The chain's public recipe before the key: SHA-256 over the previous hash and the row."""
    payload = json.dumps(list(row), ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(f"{prev}\n{payload}".encode("ascii")).hexdigest()


class Shell:
    """An attacker's SQLite shell on the file: triggers saved, lifted, and put back as they were."""

    def __init__(self, path: Path):
        self.conn = sqlite3.connect(path)
        self.triggers = dict(self.conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_log'").fetchall())
        for name in self.triggers:
            self.conn.execute(f"DROP TRIGGER {name}")

    def rechain(self, from_id: int = 1) -> None:
        """Recompute prev_hash / row_hash of every row from ``from_id`` on, as the recipe says."""
        prev = GENESIS
        if from_id > 1:
            prev = self.conn.execute("SELECT row_hash FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT 1",
                                     [from_id]).fetchone()[0]
        for row in self.conn.execute(f"SELECT {_CONTENT} FROM audit_log WHERE id >= ? ORDER BY id",
                                     [from_id]).fetchall():
            h = _sha_recipe(prev, row)
            self.conn.execute("UPDATE audit_log SET prev_hash = ?, row_hash = ? WHERE id = ?", [prev, h, row[0]])
            prev = h

    def close(self) -> None:
        for sql in self.triggers.values():
            self.conn.execute(sql)
        self.conn.commit()
        self.conn.close()


def _verify(db_path: Path) -> store.AuditCheck:
    with store.connect(db_path) as db:
        return store.verify_audit_chain(db)


def _assert_caught(check: store.AuditCheck, first_bad: int) -> None:
    assert not check.ok, check.line()
    assert check.first_bad_id == first_bad, check.line()
    line = check.line()
    assert "\n" not in line and "mallory" not in line and "project:" not in line


# =========================================================================== item 2: attacks on the database

def test_a_forged_appended_row_is_caught(db_path):
    _history(db_path, 6)
    sh = Shell(db_path)
    last_id, last_hash = sh.conn.execute("SELECT id, row_hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchone()
    row = (last_id + 1, "2026-01-01T00:00:00.000000+00:00", "mallory", "export", "project:9", None, "{}")
    sh.conn.execute(f"INSERT INTO audit_log ({_CONTENT}, prev_hash, row_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [*row, last_hash, _sha_recipe(last_hash, row)])
    sh.close()
    _assert_caught(_verify(db_path), last_id + 1)


def test_an_edited_row_with_the_chain_recomputed_is_caught(db_path):
    _history(db_path, 8)
    sh = Shell(db_path)
    sh.conn.execute("UPDATE audit_log SET user = 'mallory' WHERE id = 3")
    sh.rechain(3)
    sh.close()
    _assert_caught(_verify(db_path), 3)


def test_the_last_five_rows_deleted_are_caught(db_path):
    _history(db_path, 12)
    sh = Shell(db_path)
    total = sh.conn.execute("SELECT MAX(id) FROM audit_log").fetchone()[0]
    sh.conn.execute("DELETE FROM audit_log WHERE id > ?", [total - 5])
    sh.close()
    check = _verify(db_path)
    _assert_caught(check, total - 4)
    assert "removed" in check.problem


def test_a_deleted_and_renumbered_row_is_caught(db_path):
    _history(db_path, 9)
    sh = Shell(db_path)
    sh.conn.execute("DELETE FROM audit_log WHERE id = 4")
    sh.conn.execute("UPDATE audit_log SET id = id - 1 WHERE id > 4")
    sh.rechain(4)
    sh.close()
    _assert_caught(_verify(db_path), 4)


def test_a_database_swapped_for_an_older_copy_of_itself_is_caught(db_path, tmp_path):
    """Truncation by putting back an earlier copy of the whole file (its chain is a valid prefix)."""
    _history(db_path, 4)
    early = tmp_path / "early.db"
    early.write_bytes(db_path.read_bytes())
    _history(db_path, 3)
    db_path.write_bytes(early.read_bytes())
    check = _verify(db_path)
    assert not check.ok and check.first_bad_id is not None


def test_an_intact_log_verifies_and_the_head_lives_outside_the_database(db_path):
    _history(db_path, 5)
    check = _verify(db_path)
    assert check.ok, check.line()
    head_file = store.audit_head_path(db_path)
    assert head_file.parent == db_path.parent and head_file.is_file()
    assert (head_file.stat().st_mode & 0o777) == 0o600
    head = json.loads(head_file.read_text())
    with sqlite3.connect(db_path) as conn:
        last_id, last_mac = conn.execute("SELECT id, row_hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchone()
        count = conn.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0]
    assert head["heads"][0] == {"id": last_id, "mac": last_mac, "rows": count}
    assert db_path.read_bytes().find(store.audit_key(db_path)) == -1     # the key is not in the database


def test_a_deleted_head_file_is_reported_and_not_re_created_by_the_next_write(db_path):
    _history(db_path, 6)
    sh = Shell(db_path)                                      # cut the log, then remove the evidence
    sh.conn.execute("DELETE FROM audit_log WHERE id > 4")
    sh.close()
    store.audit_head_path(db_path).unlink()
    check = _verify(db_path)
    assert not check.ok and "head" in check.problem and "\n" not in check.line()
    _history(db_path, 3)                                     # the app goes on writing
    assert not store.audit_head_path(db_path).exists()
    assert not _verify(db_path).ok


def test_a_missing_key_is_reported_and_verify_creates_none(db_path):
    _history(db_path, 3)
    key_file = db_path.with_name("wb.secret.key")
    key_file.unlink()
    check = _verify(db_path)
    assert not check.ok and "key" in check.problem and not key_file.exists()


def test_a_new_database_starts_its_head_and_verifies(db_path):
    with store.connect(db_path):
        pass
    assert json.loads(store.audit_head_path(db_path).read_text())["heads"][0]["id"] == 0
    assert _verify(db_path).ok
    _history(db_path, 2)
    assert _verify(db_path).ok


def test_a_lagging_head_is_not_a_false_alarm(db_path):
    """A crash between a commit and the head write leaves the head behind: rows past it that carry
    valid MACs were written by a key holder, so the log still verifies."""
    _history(db_path, 3)
    saved = store.audit_head_path(db_path).read_bytes()
    _history(db_path, 2)
    store.audit_head_path(db_path).write_bytes(saved)
    assert _verify(db_path).ok


def test_a_restore_killed_while_swapping_is_not_a_false_alarm(db_path):
    """Before the swap the head file names both the restored log's head and the replaced one's;
    a kill there leaves the replaced database, which still verifies and moves its head on."""
    from store.audit_chain import Head, read_heads, write_heads

    _history(db_path, 4)
    key, head_file = store.audit_key(db_path), store.audit_head_path(db_path)
    current = read_heads(head_file, key)[0]
    write_heads(head_file, key, [Head(2, "ab" * 32, 2), current])      # the restore's new head first
    assert _verify(db_path).ok
    _history(db_path, 1)
    assert read_heads(head_file, key) == [Head(5, read_heads(head_file, key)[0].mac, 5)]
    assert _verify(db_path).ok


def test_the_verify_command_reports_truncation_in_one_line(db_path, capsys):
    _history(db_path, 8)
    sh = Shell(db_path)
    sh.conn.execute("DELETE FROM audit_log WHERE id > 5")
    sh.close()
    assert main(["audit", "--db", str(db_path), "--verify"]) == 1
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "NOT intact at row 6" in err


def test_two_processes_appending_keep_the_head_at_the_newest_row(db_path):
    import multiprocessing as mp

    _history(db_path, 1)
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_history, args=(db_path, 15)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    head = json.loads(store.audit_head_path(db_path).read_text())["heads"][0]
    assert head["id"] == head["rows"] == 46
    assert _verify(db_path).ok


# =========================================================================== item 2: migration

def test_the_keyed_chain_starts_at_its_own_migration():
    """Guards a merge that renumbers migrations: ``KEYED_SINCE`` must name the re-keying one."""
    from store.audit import KEYED_SINCE
    from store.migrations import MIGRATIONS

    assert MIGRATIONS[KEYED_SINCE - 1].__name__ == "_v10_audit_chain_keyed"


def test_upgrading_a_sha_chained_database_rekeys_it_once_and_says_so(db_path):
    with store.connect(db_path, migrate_to=9) as old:
        for i in range(4):
            store.audit(old, "ana", "export", f"project:{i}")
    with store.connect(db_path) as db:
        entries = store.list_audit(db)
        assert entries[0].action == "audit.rekey" and entries[0].detail["rows"] == 4
        assert entries[0].detail["previous_chain_held"] is True
        assert store.verify_audit_chain(db).ok
    with store.connect(db_path) as db:                           # once: a second open re-keys nothing
        assert [e.action for e in store.list_audit(db)].count("audit.rekey") == 1


# =========================================================================== item 2: backups

def _rewrite_backup(path: Path) -> None:
    sh = Shell(path)
    sh.conn.execute("UPDATE audit_log SET user = 'mallory' WHERE id = 2")
    sh.rechain(2)
    sh.close()


def test_a_backup_carries_a_sealed_manifest_with_the_head(db_path, tmp_path):
    _history(db_path, 3)
    copy = store.backup(db_path, tmp_path / "backup.db")
    manifest = store.backup_manifest_path(copy)
    assert manifest.is_file() and (manifest.stat().st_mode & 0o777) == 0o600
    data = json.loads(manifest.read_text())
    assert data["audit_head"]["id"] == data["audit_head"]["rows"] == 3 and "seal" in data


def test_a_backup_of_a_log_that_does_not_verify_records_no_head_and_says_so(db_path, tmp_path, capsys):
    _history(db_path, 6)
    sh = Shell(db_path)
    sh.conn.execute("DELETE FROM audit_log WHERE id > 4")                  # cut short in the database
    sh.close()
    assert main(["backup", "--db", str(db_path), "--out", str(tmp_path / "b.db")]) == 0
    assert "row 5" in capsys.readouterr().err
    assert json.loads(store.backup_manifest_path(tmp_path / "b.db").read_text())["audit_head"] is None
    with pytest.raises(FormatError, match="allow-unverified"):          # the cut is not laundered
        store.restore(tmp_path / "b.db", db_path, user="cli:root")


@pytest.mark.parametrize("rewrite", ["audit_rows_rechained", "a_user_made_lead", "tail_dropped"])
def test_a_rewritten_backup_is_not_restored(db_path, tmp_path, rewrite):
    _history(db_path, 5)
    with store.connect(db_path) as db:
        store.create_user(db, "ben", PASSWORD, "annotator", user="lea")
    copy = store.backup(db_path, tmp_path / "backup.db")
    if rewrite == "audit_rows_rechained":
        _rewrite_backup(copy)
    elif rewrite == "a_user_made_lead":
        with sqlite_file(copy) as conn:
            conn.execute("UPDATE users SET role = 'lead' WHERE username = 'ben'")
            conn.commit()
    else:
        sh = Shell(copy)
        sh.conn.execute("DELETE FROM audit_log WHERE id > 3")
        sh.close()
    before = db_path.read_bytes()
    for flag in (False, True):                      # evidence of tampering is refused, flag or not
        with pytest.raises(FormatError) as err:
            store.restore(copy, db_path, user="cli:root", allow_unverified=flag)
        message = str(err.value)
        assert "\n" not in message and "not restored" in message and "mallory" not in message
    assert db_path.read_bytes() == before
    assert not (tmp_path / "wb.db.before-restore").exists()


def test_a_backup_restores_and_the_head_follows_it(db_path, tmp_path):
    _history(db_path, 4)
    copy = store.backup(db_path, tmp_path / "backup.db")
    _history(db_path, 3)
    store.restore(copy, db_path, user="cli:root")
    with store.connect(db_path) as db:
        entry = store.list_audit(db, limit=1)[0]
        assert entry.action == "database.restore" and entry.detail["verified"] is True
        assert store.verify_audit_chain(db).ok
        store.audit(db, "ana", "export", "project:1")
        assert store.verify_audit_chain(db).ok


def _edited_pre_chain_backup(tmp_path: Path) -> Path:
    old_path = tmp_path / "old.db"
    with store.connect(old_path, migrate_to=5) as old:
        for i in range(4):
            store.audit(old, "ana", "export", f"project:{i}")
    with sqlite_file(old_path) as conn:
        conn.execute("DROP TRIGGER audit_log_no_update")
        conn.execute("UPDATE audit_log SET user = 'mallory' WHERE id = 2")
        conn.execute("CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log "
                     "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END")
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.commit()
    return old_path


def test_an_edited_pre_chain_backup_needs_the_flag_and_is_recorded_unverifiable(db_path, tmp_path):
    _history(db_path, 2)
    old = _edited_pre_chain_backup(tmp_path)
    before = db_path.read_bytes()
    with pytest.raises(FormatError) as err:
        store.restore(old, db_path, user="cli:root")
    assert "--allow-unverified" in str(err.value) and "\n" not in str(err.value)
    assert db_path.read_bytes() == before
    store.restore(old, db_path, user="cli:root", allow_unverified=True)
    with store.connect(db_path) as db:
        entry = store.list_audit(db, limit=1)[0]
        assert entry.action == "database.restore"
        assert entry.detail["verified"] is False and entry.detail["unverifiable_up_to"] >= 4
        check = store.verify_audit_chain(db)                # new rows are keyed from here on, and
        assert check.ok and check.unverified_by == entry.id  # verify says what was taken unverified
        assert f"rows 1 to {entry.detail['unverifiable_up_to']} were taken unverified" in check.line()


def test_the_restore_command_takes_the_flag(db_path, tmp_path, capsys):
    _history(db_path, 2)
    old = _edited_pre_chain_backup(tmp_path)
    assert main(["restore", "--db", str(db_path), "--from", str(old)]) == 1
    assert "--allow-unverified" in capsys.readouterr().err
    assert main(["restore", "--db", str(db_path), "--from", str(old), "--allow-unverified"]) == 0
    assert "unverified" in capsys.readouterr().out


# =========================================================================== item 12: leftovers of a kill -9

def _dead_pid() -> int:
    import multiprocessing as mp

    p = mp.get_context("fork").Process(target=os._exit, args=(0,))
    p.start()
    p.join()
    return p.pid


def test_copies_left_by_a_killed_backup_or_restore_are_removed_at_the_next_open(db_path, tmp_path):
    _history(db_path, 2)
    dead, alive = _dead_pid(), os.getpid()
    elsewhere = tmp_path / "backups"
    elsewhere.mkdir()
    full_copy = db_path.read_bytes()
    left = [
        tmp_path / f".wb.db.restore-{dead}",                    # restore: the copy being prepared
        tmp_path / f".wb.db.restore-{dead}-journal",
        tmp_path / f".wb.db.before-restore.tmp-{dead}",         # restore: the kept copy being written
        elsewhere / f".b1.db.tmp-{dead}",                        # backup: the copy being written
        elsewhere / f".b1.db.tmp-{dead}-journal",
    ]
    for p in left:
        p.write_bytes(full_copy)
    store.backup_marker_path(db_path, dead).write_text(str(elsewhere / "b1.db"))
    running = tmp_path / f".wb.db.restore-{alive}"              # a restore still running is left alone
    running.write_bytes(full_copy)
    unrelated = tmp_path / ".other.db.restore-1"
    unrelated.write_bytes(b"x")
    with store.connect(db_path):
        pass
    assert [p.name for p in left if p.exists()] == []
    assert not store.backup_marker_path(db_path, dead).exists()
    assert running.exists() and unrelated.exists()


def test_a_backup_leaves_no_marker_or_temporary_copy(db_path, tmp_path):
    _history(db_path, 2)
    store.backup(db_path, tmp_path / "out" / "b.db")
    hidden = sorted(p.name for p in tmp_path.rglob(".*"))
    assert hidden == []
