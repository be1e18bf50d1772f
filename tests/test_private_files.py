"""Defect 3: files the workbench writes hold PHI (notes, password hashes, models, exports,
backups), so none may be readable by other users, whatever the umask of whoever started it.

A whole session runs through the command line as a user would (``python -m pipeline`` in a
shell whose umask is the usual 022), then every file and folder it created is checked; the
in-process writers that do not go through the command line set owner-only modes themselves.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import store
from models.version import VersionWriter
from pipeline.schemas import I2B2_2014

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "fixtures" / "meddocan" / "brat"


def _readable_by_others(root: Path) -> list[str]:
    bad = []
    for dirpath, dirnames, files in os.walk(root):
        for name in [*dirnames, *files]:
            p = Path(dirpath) / name
            if p.is_symlink():
                continue
            if stat.S_IMODE(p.stat().st_mode) & 0o077:
                bad.append(f"{p.relative_to(root)} {oct(stat.S_IMODE(p.stat().st_mode))}")
    return bad


def _cli(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.umask(0o022), timeout=600)


def test_defect_3_a_whole_command_line_session_leaves_only_owner_only_files(tmp_path):
    work = tmp_path / "work"
    work.mkdir(mode=0o700)
    db = work / "var" / "wb.db"
    env = {**os.environ, "WORKBENCH_DB": str(db), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    tiny = tmp_path / "tiny.json"
    tiny.write_text(json.dumps({"crf": {"max_iterations": 8}}), encoding="utf-8")
    steps = [
        ["init-project", "--no-demo"],
        ["import", str(SAMPLE), "--format", "brat", "--schema", "meddocan", "--project", "ward"],
        ["train-project", "--project", "ward", "--members", "crf", "--config", str(tiny), "--threads", "1",
         "--activate", "--no-progress"],
        ["train", "--train", str(SAMPLE), "--format", "brat", "--out", str(work / "models"), "--members", "crf",
         "--config", str(tiny), "--threads", "1", "--no-progress"],
        ["detect", "--model", str(work / "models"), "--input", str(SAMPLE), "--output", str(work / "detected")],
        ["deidentify", "--input", str(SAMPLE), "--output", str(work / "deid")],
        ["deidentify-project", "--project", "ward", "--no-risk"],
        ["export", "--project", "ward", "--format", "jsonl", "--out", str(work / "export")],
        ["backup", "--out", str(work / "backup.db")],
        ["restore", "--from", str(work / "backup.db")],
    ]
    for args in steps:
        r = _cli(args, env)
        assert r.returncode in (0, 3), f"{args[0]} exited {r.returncode}: {r.stderr[-300:]}"
    created = sorted(p.name for p in work.iterdir())
    assert {"var", "models", "detected", "deid", "export", "backup.db"} <= set(created), created
    assert any(p.suffix == ".key" for p in (work / "var").iterdir())
    bad = _readable_by_others(work)
    assert not bad, "readable by other users:\n" + "\n".join(bad)


def test_defect_3_in_process_writers_set_owner_only_modes_under_a_lax_umask(tmp_path):
    old = os.umask(0o022)
    try:
        db = store.connect(tmp_path / "fresh" / "w.db")
        store.create_project(db, "p", I2B2_2014)
        db.close()
        with VersionWriter(tmp_path / "models", "v1") as tmp:
            (tmp / "members").mkdir()
            (tmp / "members" / "weights.bin").write_bytes(b"\x00" * 8)
            (tmp / "version.json").write_text("{}", encoding="utf-8")
    finally:
        os.umask(old)
    bad = _readable_by_others(tmp_path / "fresh") + _readable_by_others(tmp_path / "models")
    assert not bad, "readable by other users:\n" + "\n".join(bad)
    assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o700
