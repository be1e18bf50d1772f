"""Two people, two threads, two processes' worth of connections on one SQLite file: stale saves
are refused, concurrent writers queue instead of deadlocking, a file held locked by someone
else ends in a clear StoreBusyError (never a crash or a half write), and a backup taken while
writers run is consistent. Each thread opens its own connection, as the store requires."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

import store
from pipeline.errors import StaleSaveError, StoreBusyError
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span
from store.migrations import LATEST_VERSION

TEXT = "Paciente: Juan Pérez García, 53 años, ingresa el 12/03/2019 en el Hospital Clínico de Madrid."


def span(doc_id: int, start: int, end: int, source: str) -> Span:
    return Span(str(doc_id), start, end, "NAME", "NOMBRE_SUJETO_ASISTENCIA", source)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, int, list[int]]:
    path = tmp_path / "wb.db"
    db = store.connect(path)
    pid = store.create_project(db, "p", MEDDOCAN)
    ids = store.add_documents(db, pid, [Document(f"doc-{i}", TEXT) for i in range(4)])
    db.close()
    return path, pid, ids


def run_threads(n: int, target) -> list:
    """Run ``target(i, barrier)`` in ``n`` threads; return results/exceptions by index."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def wrap(i: int) -> None:
        try:
            results[i] = target(i, barrier)
        except BaseException as e:  # noqa: BLE001 - collected and asserted on
            results[i] = e

    threads = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return results


def test_stale_save_from_a_second_connection_is_refused(setup):
    path, _, ids = setup
    doc = ids[0]
    ana, bob = store.connect(path), store.connect(path)
    v_ana = store.read_layer(ana, doc, "gold").version
    v_bob = store.read_layer(bob, doc, "gold").version
    assert v_ana == v_bob == 0
    assert store.save_layer(ana, doc, "gold", [span(doc, 10, 27, "human:ana")], expected_version=v_ana, user="ana") == 1
    with pytest.raises(StaleSaveError, match="saved by ana"):
        store.save_layer(bob, doc, "gold", [span(doc, 10, 14, "human:bob")], expected_version=v_bob, user="bob")
    for conn in (ana, bob):
        state = store.read_layer(conn, doc, "gold")
        assert state.version == 1 and [(s.start, s.end, s.source) for s in state.spans] == [(10, 27, "human:ana")]
    ana.close()
    bob.close()


def test_threads_racing_to_save_the_same_layer_exactly_one_wins(setup):
    path, _, ids = setup
    doc = ids[1]
    for round_ in range(5):
        def save(i: int, barrier: threading.Barrier):
            db = store.connect(path)
            try:
                expected = store.read_layer(db, doc, "annotator:shared").version
                barrier.wait()
                return store.save_layer(db, doc, "annotator:shared", [span(doc, i, i + 5, f"human:t{i}")],
                                        expected_version=expected, user=f"t{i}")
            finally:
                db.close()

        results = run_threads(4, save)
        winners = [i for i, r in enumerate(results) if isinstance(r, int)]
        losers = [r for r in results if isinstance(r, StaleSaveError)]
        assert len(winners) == 1 and len(losers) == 3, [type(r).__name__ for r in results]
        db = store.connect(path)
        state = store.read_layer(db, doc, "annotator:shared")
        db.close()
        assert state.version == round_ + 1 == results[winners[0]]
        assert [(s.start, s.source) for s in state.spans] == [(winners[0], f"human:t{winners[0]}")]


def test_concurrent_writers_queue_instead_of_failing(setup):
    path, pid, ids = setup

    def work(i: int, barrier: threading.Barrier):
        db = store.connect(path)
        try:
            barrier.wait()
            for j, doc in enumerate(ids):
                store.assign(db, doc, f"user{i}")
                store.record_time(db, doc, f"user{i}", 1.5)
                store.audit(db, f"user{i}", "test.ping", detail={"j": j})
            return True
        finally:
            db.close()

    assert run_threads(4, work) == [True] * 4
    db = store.connect(path)
    assert len(store.list_assignments(db, project_id=pid)) == 16
    assert db.execute("SELECT SUM(seconds_spent) FROM assignments").fetchone()[0] == pytest.approx(16 * 1.5)
    assert len(store.list_audit(db, action="test.ping", limit=100)) == 16
    db.close()


@pytest.mark.parametrize("lock", ["IMMEDIATE", "EXCLUSIVE"])
def test_a_file_held_locked_ends_in_store_busy_error_and_writes_nothing(setup, lock):
    path, _, ids = setup
    db = store.connect(path, busy_timeout_ms=50, retry_seconds=0.4)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute(f"BEGIN {lock}")
    try:
        with pytest.raises(StoreBusyError) as e:
            store.save_layer(db, ids[0], "gold", [span(ids[0], 0, 8, "human:ana")], expected_version=0, user="ana")
        assert "busy" in str(e.value) and "wb.db" in str(e.value) and "nothing was changed" in str(e.value)
        with pytest.raises(StoreBusyError):
            store.create_user(db, "ana", "pw-123456-abcdef", "annotator")
        assert store.read_layer(db, ids[0], "gold").version == 0  # WAL: reading still works meanwhile
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert not db.conn.in_transaction
    assert store.save_layer(db, ids[0], "gold", [span(ids[0], 0, 8, "human:ana")], expected_version=0, user="ana") == 1
    assert store.get_user(db, "ana") is None
    db.close()


def test_a_lock_released_within_the_retry_window_is_waited_for(setup):
    path, _, ids = setup
    db = store.connect(path, busy_timeout_ms=20, retry_seconds=30)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    releaser = threading.Timer(0.3, lambda: holder.execute("ROLLBACK"))
    releaser.start()
    try:
        assert store.save_layer(db, ids[2], "gold", [], expected_version=0, user="ana") == 1
    finally:
        releaser.join()
        holder.close()
        db.close()


def test_backup_taken_while_writers_run_is_consistent(setup, tmp_path):
    path, pid, _ = setup
    stop = threading.Event()

    def writer(i: int, barrier: threading.Barrier):
        db = store.connect(path)
        n = 0
        try:
            barrier.wait()
            while not stop.is_set() and n < 400:
                store.add_documents(db, pid, [Document(f"w{i}-{n}", TEXT, [span(0, 10, 27, "import:test")])])
                n += 1
            return n
        finally:
            db.close()

    results: dict = {}
    t = threading.Thread(target=lambda: results.update(n=run_threads(2, writer)))
    t.start()
    try:
        backups = [store.backup(path, tmp_path / f"b{k}.db") for k in range(3)]
    finally:
        stop.set()
        t.join(timeout=60)
    assert all(isinstance(n, int) for n in results["n"])
    for b in backups:
        assert store.check_database_file(b) == LATEST_VERSION
        conn = sqlite3.connect(b)
        docs = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        added = conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'document.add'").fetchone()[0]
        layers = conn.execute("SELECT COUNT(*) FROM layers").fetchone()[0]
        spans = conn.execute("SELECT COUNT(*) FROM spans").fetchone()[0]
        conn.close()
        assert docs == added and spans == layers == docs - 4  # every import is wholly in or wholly out


def test_threads_opening_a_new_file_migrate_it_once(tmp_path):
    path = tmp_path / "fresh" / "wb.db"

    def open_it(i: int, barrier: threading.Barrier):
        barrier.wait()
        db = store.connect(path)
        try:
            return store.schema_version(db)
        finally:
            db.close()

    assert run_threads(4, open_it) == [LATEST_VERSION] * 4
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == LATEST_VERSION
    conn.close()


def test_connections_belong_to_their_thread(setup):
    path, pid, _ = setup
    db = store.connect(path)
    mine = store.thread_db(path)
    assert store.thread_db(path) is mine

    def other(i: int, barrier: threading.Barrier):
        theirs = store.thread_db(path)
        try:
            assert theirs is not mine and store.get_project(theirs, pid).name == "p"
            store.get_project(db, pid)
        except sqlite3.ProgrammingError:
            return "refused"
        finally:
            store.close_thread_dbs()
        return "shared"

    assert run_threads(1, other) == ["refused"]
    store.close_thread_dbs()
    db.close()
