"""First-run set-up: the secret key file, the first lead account, the users and audit commands."""
from __future__ import annotations

import io
import os
import stat
import sys

import pytest

import store
from cli import main
from pipeline.errors import WorkbenchError
from pipeline.deid.secret import load_or_create_secret, secret_path_for


def test_secret_created_owner_only_and_stable(tmp_path):
    path = secret_path_for(tmp_path / "var" / "workbench.db")
    assert path.name == "workbench.secret.key"
    key = load_or_create_secret(path)
    assert len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_secret(path) == key


def test_secret_permissions_tightened(tmp_path):
    path = tmp_path / "k.key"
    load_or_create_secret(path)
    os.chmod(path, 0o644)
    load_or_create_secret(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_damaged_secret_is_a_clear_error(tmp_path):
    path = tmp_path / "k.key"
    path.write_text("not hex at all\n")
    with pytest.raises(WorkbenchError, match="damaged"):
        load_or_create_secret(path)


def test_init_project_creates_one_lead_with_generated_password(tmp_path, capsys, monkeypatch):
    db_path = tmp_path / "var" / "w.db"
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["init-project", "--db", str(db_path), "--demo-docs", "12"]) == 0
    out = capsys.readouterr().out
    assert "shown this once" in out
    password = out.split("shown this once: ")[1].split()[0]
    db = store.connect(db_path)
    leads = [u for u in store.list_users(db) if u.role == "lead"]
    assert [u.username for u in leads] == ["lead"]
    assert store.authenticate(db, "lead", password) is not None
    assert stat.S_IMODE(db_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(db_path.parent.stat().st_mode) == 0o700
    assert secret_path_for(db_path).exists()
    # second start: no new account, no password printed
    assert main(["init-project", "--db", str(db_path)]) == 0
    assert "shown this once" not in capsys.readouterr().out
    assert len([u for u in store.list_users(db) if u.role == "lead"]) == 1


def test_init_project_reads_lead_password_from_stdin(tmp_path, capsys, monkeypatch):
    db_path = tmp_path / "w.db"
    monkeypatch.setattr(sys, "stdin", io.StringIO("correct horse battery\n"))
    assert main(["init-project", "--db", str(db_path), "--no-demo", "--lead-password-stdin"]) == 0
    assert "shown this once" not in capsys.readouterr().out
    assert store.authenticate(store.connect(db_path), "lead", "correct horse battery") is not None


def test_short_password_refused_and_nothing_created(tmp_path, capsys, monkeypatch):
    db_path = tmp_path / "w.db"
    store.connect(db_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n"))
    assert main(["users", "--db", str(db_path), "add", "zoe", "--role", "annotator", "--password-stdin"]) == 1
    assert "too short" in capsys.readouterr().err
    assert store.get_user(store.connect(db_path), "zoe") is None


def test_users_command_and_audit(tmp_path, capsys, monkeypatch):
    db_path = tmp_path / "w.db"
    store.connect(db_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long enough password\n"))
    assert main(["users", "--db", str(db_path), "add", "zoe", "--role", "annotator", "--password-stdin"]) == 0
    assert main(["users", "--db", str(db_path), "set-role", "zoe", "reviewer"]) == 0
    assert main(["users", "--db", str(db_path), "disable", "zoe"]) == 0
    capsys.readouterr()
    assert main(["users", "--db", str(db_path), "list"]) == 0
    assert "zoe\treviewer\tdisabled" in capsys.readouterr().out
    assert main(["audit", "--db", str(db_path), "--json"]) == 0
    out = capsys.readouterr().out
    assert "a long enough password" not in out
    assert '"action": "user.create"' in out or "user.create" in out
