"""One way to open the store (issue 28): ``with store.connect(path) as db:`` (or the services'
door to it, ``with projects.open_db(path) as db:``), closed by the ``with`` however the block
ends. Nothing outside :mod:`store.connection` closes a connection by hand, and every call that
opens one is a ``with`` item, so an early return or an exception cannot leak it.

The source checks read the code's syntax trees (docstrings and doctests are text to them): a
``.close()`` on a receiver named like a connection (``db``, ``tdb``, ``conn``, ``db.conn``,
``connection``, ``database``) and an opener call (``connect``, ``open_db``, ``sqlite3.connect``)
that is not the expression of a ``with`` item. The long-lived connections have one owner:
:func:`store.thread_db`'s per-thread cache (the app's), closed by :func:`store.close_thread_dbs`
only, so a ``with`` around ``thread_db(...)``, which would close a connection the cache still
hands out, is refused too.
"""
from __future__ import annotations

import ast
import sqlite3
import stat
from pathlib import Path

import pytest

import store
from cli import main
from services import jobs, projects

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ("store", "services", "cli", "dashboard", "pages", "pipeline", "models", "benchmarks", "streamlit_app.py")
#: the opener and the context managers themselves, and the per-thread cache's close hook
OWNER = Path("store/connection.py")
OPENERS = {"connect", "open_db"}
#: functions that hand a fresh connection to their caller, whose call is then the ``with`` item
FACTORIES = {"connect", "open_db"}


def _connection_like(name: str) -> bool:
    low = name.lower().lstrip("_")
    return low.endswith("db") or "conn" in low or low in {"database", "connection"}


def _receiver(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def manual_closes(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, source)`` of every ``X.close()`` whose receiver is named like a connection."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "close"
                and not node.args and (name := _receiver(node.func.value)) and _connection_like(name)):
            found.append((node.lineno, ast.unparse(node)))
    return found


def _opener(call: ast.Call) -> bool:
    return _called(call) in OPENERS


def unmanaged_opens(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, source)`` of every opener call that is not a ``with`` item's expression (nor
    returned straight from a factory named like an opener)."""
    managed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            managed.update(id(item.context_expr) for item in node.items)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in FACTORIES:
            managed.update(id(r.value) for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None)
    return [(node.lineno, ast.unparse(node)) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and _opener(node) and id(node) not in managed]


def closed_cached(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, source)`` of every ``thread_db(...)`` used as a ``with`` item (it would close the
    thread's cached connection under the next page run)."""
    return [(item.context_expr.lineno, ast.unparse(item.context_expr)) for node in ast.walk(tree)
            if isinstance(node, (ast.With, ast.AsyncWith)) for item in node.items
            if isinstance(item.context_expr, ast.Call) and _called(item.context_expr) == "thread_db"]


def _called(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)


def _source_files() -> list[Path]:
    files: list[Path] = []
    for entry in SOURCE:
        p = ROOT / entry
        files += [p] if p.is_file() else sorted(p.rglob("*.py"))
    return [f for f in files if f.relative_to(ROOT) != OWNER]


def _scan(check) -> list[str]:
    problems = []
    for f in _source_files():
        for line, code in check(ast.parse(f.read_text(encoding="utf-8"), filename=str(f))):
            problems.append(f"{f.relative_to(ROOT)}:{line}: {code}")
    return problems


PLANTED = '''
import store

def leaky(path, early):
    db = store.connect(path)
    if early:
        return None           # the early return that leaked a connection
    db.conn.close()

def by_hand(conn, tdb):
    conn.close()
    tdb.close()

def fine(path, state):
    with store.connect(path) as db, projects.open_db(path) as other:
        state["bar"].close()  # a progress bar, not a connection
        return db, other, session.thread_db(path)

def closes_the_cached_one(path):
    with session.thread_db(path) as db:
        return db
'''


def test_the_checks_catch_a_planted_example():
    tree = ast.parse(PLANTED)
    assert [line for line, _ in manual_closes(tree)] == [8, 11, 12]
    assert unmanaged_opens(tree) == [(5, "store.connect(path)")]
    assert closed_cached(tree) == [(20, "session.thread_db(path)")]


def test_no_connection_is_closed_by_hand_outside_the_opener():
    problems = _scan(manual_closes)
    assert not problems, "close connections with `with store.connect(...) as db:`:\n" + "\n".join(problems)


def test_every_connection_is_opened_as_a_context_manager():
    problems = _scan(unmanaged_opens)
    assert not problems, "open with `with store.connect(...) as db:`:\n" + "\n".join(problems)


def test_no_block_closes_the_threads_cached_connection():
    problems = _scan(closed_cached)
    assert not problems, "thread_db(...) is owned by its cache; do not close it with `with`:\n" + "\n".join(problems)


def _closed(db) -> bool:
    try:
        db.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False


def test_a_return_inside_the_block_closes_the_connection(tmp_path):
    def projects_of(path):
        with store.connect(path) as db:
            return db, store.list_projects(db)

    db, found = projects_of(tmp_path / "w.db")
    assert found == [] and _closed(db)


def test_an_exception_inside_the_block_closes_the_connection(tmp_path):
    seen = []
    with pytest.raises(RuntimeError):
        with projects.open_db(tmp_path / "w.db") as db:
            seen.append(db)
            raise RuntimeError("boom")
    assert _closed(seen[0])


def test_the_opener_keeps_every_setting(tmp_path):
    path = tmp_path / "new" / "w.db"
    with store.connect(path, busy_timeout_ms=1234) as db:
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert db.execute("PRAGMA busy_timeout").fetchone()[0] == 1234
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.schema_version(db) == store.LATEST_VERSION
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


@pytest.fixture
def opened(monkeypatch):
    """Every connection :func:`store.connect` hands out while the test runs."""
    seen = []
    real = store.connect

    def recording(*args, **kwargs):
        db = real(*args, **kwargs)
        seen.append(db)
        return db

    monkeypatch.setattr(store, "connect", recording)
    return seen


def test_jobs_close_their_connections_on_early_returns(tmp_path, opened):
    path = tmp_path / "w.db"
    with store.connect(path) as db:
        job_id = store.create_job(db, "selftest", {})
        store.update_job(db, job_id, status="failed", error="cancelled on request")
    assert jobs.run_queued(path, job_id, {}) == 1                  # already ended: returns early
    assert jobs.finish(path, job_id, "done", None, {}) is False   # its late outcome is refused
    assert len(opened) == 3 and all(_closed(db) for db in opened)


def test_commands_close_their_connections(tmp_path, opened, capsys):
    path = str(tmp_path / "w.db")
    assert main(["stats", "--db", path]) == 0
    assert main(["audit", "--db", path, "--limit", "1"]) == 0
    assert "no projects yet" in capsys.readouterr().out
    assert len(opened) == 2 and all(_closed(db) for db in opened)


def test_the_thread_cache_owns_its_connection_until_closed(tmp_path):
    path = tmp_path / "w.db"
    db = store.thread_db(path)
    assert store.thread_db(path) is db and not _closed(db)     # long-lived: stays open between uses
    store.close_thread_dbs()
    assert _closed(db)
