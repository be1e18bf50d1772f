"""``pipeline/`` is pure: it never prints and never writes the process environment.

Whoever calls the pipeline owns the process: the command line prints, the app renders, and the
offline switch is set once at process start (``services.runtime.go_offline``). A library that
prints would put text on the console of whoever embeds it (and a stray ``print`` is the easiest
way for document text to leak into a log); one that writes ``os.environ`` changes the behaviour
of everything else in the process behind its back. The scan reads the source (AST), so it sees
calls inside functions too, and docstrings' ``>>> print(...)`` examples are not code.
"""
from __future__ import annotations

import ast
import logging
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE = ROOT / "pipeline"

ENVIRON = {"environ", "environb"}
ENV_WRITES = {"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__", "__ior__"}
OS_ENV_CALLS = {"putenv", "unsetenv"}
STREAMS = {"stdout", "stderr", "__stdout__", "__stderr__"}


def _is_environ(node: ast.AST) -> bool:
    """``os.environ`` (or ``environ`` imported from os), ``os.environb`` likewise."""
    if isinstance(node, ast.Attribute):
        return node.attr in ENVIRON and isinstance(node.value, ast.Name) and node.value.id == "os"
    return isinstance(node, ast.Name) and node.id in ENVIRON


def _is_stream(node: ast.AST) -> bool:
    """``sys.stdout`` / ``sys.stderr`` (or the bare names imported from sys)."""
    if isinstance(node, ast.Attribute):
        return node.attr in STREAMS and isinstance(node.value, ast.Name) and node.value.id == "sys"
    return isinstance(node, ast.Name) and node.id in STREAMS


def _written(target: ast.AST) -> str | None:
    if isinstance(target, ast.Subscript) and _is_environ(target.value):
        return "os.environ[...] ="
    if _is_environ(target):
        return "os.environ rebound"
    if isinstance(target, (ast.Tuple, ast.List)):
        return next((w for w in map(_written, target.elts) if w), None)
    return None


def _call(node: ast.Call) -> str | None:
    f = node.func
    if isinstance(f, ast.Attribute):
        if f.attr in ENV_WRITES and _is_environ(f.value):
            return f"os.environ.{f.attr}()"
        if f.attr in OS_ENV_CALLS and isinstance(f.value, ast.Name) and f.value.id == "os":
            return f"os.{f.attr}()"
        if f.attr in ("write", "writelines") and _is_stream(f.value):
            return f"sys.{getattr(f.value, 'attr', getattr(f.value, 'id', '?'))}.{f.attr}()"
    if isinstance(f, ast.Name) and f.id in OS_ENV_CALLS:
        return f"{f.id}()"
    return None


def impurities(source: str, filename: str = "<source>") -> list[str]:
    """``line: what`` for every print and every environment write in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        what = None
        if isinstance(node, ast.Name) and node.id == "print":      # a call, or print passed along
            what = "print"
        elif isinstance(node, ast.Call):
            what = _call(node)
        elif isinstance(node, (ast.Assign, ast.Delete)):
            what = next((w for w in map(_written, node.targets) if w), None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            what = _written(node.target)
        if what:
            out.append(f"{node.lineno}: {what}")
    return out


def test_pipeline_never_prints_or_writes_the_environment():
    found = [f"{p.relative_to(ROOT)}:{hit}" for p in sorted(PURE.rglob("*.py"))
             for hit in impurities(p.read_text(encoding="utf-8"), str(p))]
    assert not found, "pipeline/ must stay pure (log through logging; set the environment at process start):\n" \
        + "\n".join(found)


@pytest.mark.parametrize("snippet", [
    "print('x')",
    "def f(n):\n    if n:\n        print(n, file=sys.stderr)\n",
    "log = print",
    "import sys\nsys.stderr.write('warning')",
    "from sys import stdout\nstdout.write('x')",
    "import os\nos.environ['HF_HUB_OFFLINE'] = '1'",
    "import os\ndef load():\n    os.environ.setdefault('TRANSFORMERS_OFFLINE', '1')\n",
    "import os\nos.environ.update({'A': '1'})",
    "import os\nos.environ.pop('A', None)",
    "import os\ndel os.environ['A']",
    "import os\nos.environ['PATH'] += ':x'",
    "import os\nos.environ |= {'A': '1'}",
    "import os\nos.putenv('A', '1')",
    "from os import environ\nenviron['A'] = '1'",
    "from os import unsetenv\nunsetenv('A')",
    "import os\nos.environ = {}",
])
def test_the_scan_catches_a_planted_print_or_environment_write(snippet):
    assert len(impurities(snippet)) == 1


def test_the_scan_lets_reads_and_lookalikes_through():
    clean = ('"""Example:\n\n>>> print(one_line("a"))\n"""\nimport os\nimport logging\n'
             "path = os.environ.get('PYTHONPATH', '')\nhome = os.environ['HOME']\nd = {}\n"
             "d.setdefault('k', []).append(1)\ncounts = {}\ncounts.update(a=1)\n"
             "logging.getLogger(__name__).warning('%s', path)\n")
    assert impurities(clean) == []


def test_a_readable_secret_file_is_logged_not_printed(tmp_path, caplog, capsys):
    """``load_secret`` warns about a key file others may read the way its sibling does: a log
    record (the command line shows warnings on stderr), never a print from pipeline/."""
    from pipeline.deid.secret import load_secret

    key = tmp_path / "shared.key"
    key.write_text("00" * 32 + "\n", encoding="ascii")
    os.chmod(key, 0o644)
    with caplog.at_level(logging.WARNING, logger="pipeline.deid.secret"):
        assert load_secret(key) == bytes(32)
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err == ""
    warned = [r for r in caplog.records if r.name == "pipeline.deid.secret" and r.levelno == logging.WARNING]
    assert len(warned) == 1 and warned[0].getMessage() == f"{key} is readable by other users; chmod 600 it"
    assert os.stat(key).st_mode & 0o777 == 0o644      # only a warning: a file the user named keeps its mode
    caplog.clear()
    os.chmod(key, 0o600)
    with caplog.at_level(logging.WARNING, logger="pipeline.deid.secret"):
        load_secret(key)
    assert not caplog.records
