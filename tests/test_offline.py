"""The offline switch is set in one place per process, at its start.

``pipeline.offline.OFFLINE_ENV`` is the constant; ``services.runtime.go_offline`` writes it into
``os.environ``; the command line (and so every job worker, which is its ``run-job``) and the app
call it first; the worker's environment and Ray's runtime environment carry the constant too.
Every model load is ``local_files_only`` as well (``test_masked_lm``, ``test_risk_embedders``).
"""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from pipeline.offline import OFFLINE_ENV

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def online(monkeypatch):
    """A process environment without the switch (restored afterwards, whatever the test set)."""
    for name in OFFLINE_ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _offline() -> bool:
    return all(os.environ.get(k) == v for k, v in OFFLINE_ENV.items())


def test_the_constant_is_both_variables_and_read_only():
    assert dict(OFFLINE_ENV) == {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with pytest.raises(TypeError):
        OFFLINE_ENV["HF_HUB_OFFLINE"] = "0"           # type: ignore[index]


def test_go_offline_sets_both_and_overrides_a_shell_that_said_otherwise(online):
    from services.runtime import go_offline

    online.setenv("HF_HUB_OFFLINE", "0")
    assert not _offline()
    go_offline()
    assert _offline()


def test_the_command_line_goes_offline_before_anything_else(online, capsys):
    from cli import main

    assert not _offline()
    with pytest.raises(SystemExit):
        main(["--help"])                              # argparse exits; the switch was set before
    capsys.readouterr()
    assert _offline()


def test_a_job_worker_starts_with_the_switch_in_its_environment(online, tmp_path):
    import store
    from services import jobs

    started = []
    online.setattr(jobs.subprocess, "Popen", lambda argv, **kw: started.append((argv, kw)))
    db_path = tmp_path / "w.db"
    store.connect(db_path).conn.close()
    jobs.start_job(db_path, "selftest", {"steps": 1, "delay": 0})
    (argv, kw), = started
    assert argv[1:4] == ["-m", "pipeline", "run-job"]  # the command line again: it goes offline itself too
    assert kw["env"].items() >= OFFLINE_ENV.items()


def test_the_app_goes_offline_first_thing():
    """``streamlit_app.main`` (run on every rerun) starts with ``go_offline()``; checked on the
    source, since running the script needs a Streamlit server."""
    tree = ast.parse((ROOT / "streamlit_app.py").read_text(encoding="utf-8"))
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    first = main.body[0]
    assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
    assert isinstance(first.value.func, ast.Name) and first.value.func.id == "go_offline"
    assert any(isinstance(n, ast.ImportFrom) and n.module == "services.runtime"
               and any(a.name == "go_offline" for a in n.names) for n in tree.body)
