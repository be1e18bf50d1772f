"""What the keyed audit chain and its head file cost (issue 29, item 2).

For a log of ``--rows`` rows: one-row write transactions (``store.audit`` on its own, so each
commits and then writes the head file beside the key: lock, read the newest row and the count,
write, fsync, rename) with the head write on and off; ``audit --verify`` over the whole log;
a backup (with its manifest) and a restore of it. Medians of ``--repeats`` runs.

    nice python benchmarks/audit_chain.py --rows 100000
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import store  # noqa: E402


def _fill(db, n: int) -> None:
    with store.transaction(db):
        for i in range(n):
            store.audit(db, "ana", "export", f"project:{i % 50}", detail={"documents": i % 7})


def _appends(db, n: int) -> float:
    """Median milliseconds of one single-row write transaction."""
    times = []
    for i in range(n):
        t = time.perf_counter()
        store.audit(db, "ana", "export", f"project:{i}")
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--appends", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    path = folder / "wb.db"
    with store.connect(path) as db:
        t = time.perf_counter()
        _fill(db, args.rows)
        fill_s = time.perf_counter() - t
        hook = db._wb_after_commit
        on, off = [], []
        for _ in range(args.repeats):                  # interleaved, so both see the same disk
            db._wb_after_commit = hook
            on.append(_appends(db, args.appends))
            db._wb_after_commit = None                 # the same append without the head write
            off.append(_appends(db, args.appends))
        db._wb_after_commit = hook
        with_head, without = statistics.median(on), statistics.median(off)
        _appends(db, 1)                                # the head catches up
        verify = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            check = store.verify_audit_chain(db)
            verify.append(time.perf_counter() - t)
        assert check.ok, check.line()
    backups, restores = [], []
    for k in range(args.repeats):
        t = time.perf_counter()
        copy = store.backup(path, folder / f"b{k}.db")
        backups.append(time.perf_counter() - t)
        t = time.perf_counter()
        store.restore(copy, path, user="bench")
        restores.append(time.perf_counter() - t)
    print(f"log of {args.rows:,} rows (filled in one transaction in {fill_s:.1f} s)")
    print(f"{'one-row write transaction, head file on':45s} {with_head:8.2f} ms (median of {args.appends})")
    print(f"{'one-row write transaction, head file off':45s} {without:8.2f} ms")
    print(f"{'audit --verify (whole log)':45s} {statistics.median(verify) * 1000:8.0f} ms")
    print(f"{'backup (copy, verify, digest, manifest)':45s} {statistics.median(backups) * 1000:8.0f} ms")
    print(f"{'restore (copy, verify, re-record, swap)':45s} {statistics.median(restores) * 1000:8.0f} ms")


if __name__ == "__main__":
    main()
