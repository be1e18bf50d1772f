"""Table de-identification speed and memory: notes/s and peak RSS for 10k, 100k (and 1M) rows.

    python benchmarks/table_deid.py [--rows 10000 100000] [--format csv|parquet] [--workers N]
                                    [--note-chars 160] [--out-dir benchmarks/out/table] [--quick]

A table of synthetic notes (``pipeline.synthetic.generate_corpus``, ``variety="wide"``, each
note cut after its first lines to at most ``--note-chars`` characters: short notes) with an id,
a patient, a date and a kept column is generated once for the largest size, streaming (a
thousand notes at a time, appended), and the first N rows copied (streaming) for each smaller
size. Each size then runs in a process of its own (so its peak RSS is its own) through what
``python -m pipeline deidentify-table`` runs (:func:`services.table_deid.deidentify_table`:
rules and dictionaries of ``i2b2-2014``, chunks of 1000 rows, detection spread by
``BatchDetector``). Printed per size: rows, seconds, notes/s, the peak RSS of the process and of
its largest detection worker (MiB), this process's RSS after 10%, 50% and all of the rows (flat
or growing), and the leak check's count (with the rows and locations of the first few). No
document text is printed.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BATCH = 1_000


def _short(text: str, limit: int) -> str:
    """The note's first lines up to ``limit`` characters (at least its first line, cut at a space)."""
    out = ""
    for line in text.split("\n"):
        if out and len(out) + 1 + len(line) > limit:
            break
        out = f"{out}\n{line}" if out else line
    if len(out) > limit:
        out = out[:limit].rsplit(" ", 1)[0]
    return out if out.strip() else "No findings."


def generate(path: Path, n: int, note_chars: int, fmt: str) -> None:
    """``n`` rows of short synthetic notes written a thousand at a time (memory flat in ``n``)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline.synthetic.generator import generate_corpus

    writer = None
    done, patient = 0, 0
    while done < n:
        docs = generate_corpus(min(BATCH, n - done), 7, start_patient=patient, variety="wide")
        patient += len({d.patient_id for d in docs}) + 1
        frame = pd.DataFrame({"note_id": [f"r{done + i}-{d.doc_id}" for i, d in enumerate(docs)],
                              "patient": [d.patient_id for d in docs],
                              "seen": ["2070-03-14"] * len(docs), "ward": ["7B"] * len(docs),
                              "note": [_short(d.text, note_chars) for d in docs]})
        if fmt == "parquet":
            table = pa.Table.from_pandas(frame, preserve_index=False)
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
        else:
            frame.to_csv(path, mode="a", header=done == 0, index=False)
        done += len(docs)
    if writer is not None:
        writer.close()


def head(src: Path, dst: Path, n: int, fmt: str) -> None:
    """The first ``n`` rows of ``src`` into ``dst``, streaming."""
    from pipeline.formats.table_io import TableWriter, iter_table

    with TableWriter(dst, fmt) as w:
        left = n
        for chunk in iter_table(src, fmt, chunk_rows=BATCH):
            w.write(chunk.frame.iloc[:left])
            left -= min(left, len(chunk.frame))
            if not left:
                break
        w.commit()


def run_one(path: Path, fmt: str, workers: int | None) -> dict:
    """De-identify ``path`` (in this process); the figures as a dict."""
    from pipeline.deid import builtin_profiles
    from pipeline.deid.table_rows import ColumnPlan
    from services.runtime import go_offline
    from services.table_deid import TableJob, deidentify_table, table_detector

    go_offline()
    det = table_detector(schema="i2b2-2014")
    plan = ColumnPlan(text=("note",), id="note_id", patient="patient", dates=("seen",), keep=("ward",))
    out = path.with_name(f"out-{path.name}")
    job = TableJob(path, out, plan, builtin_profiles()["replace"], b"benchmark-key-0123456789", "en", fmt)
    samples: list[tuple[int, float]] = []      # (rows done, RSS now in MiB): flat or growing?

    def progress(done: int, _total) -> None:
        samples.append((done, _rss_now_mib()))

    t0 = time.perf_counter()
    s = deidentify_table(job, det, workers=workers, progress=progress)
    dt = time.perf_counter() - t0
    out.unlink()
    marks = [samples[max(0, round(len(samples) * f) - 1)] for f in (0.1, 0.5, 1.0)] if samples else []
    return {"rows": s.rows, "seconds": round(dt, 1), "notes_per_s": round(s.rows / dt, 1),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "worker_peak_rss_mib": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
            "rss_at": " / ".join(f"{round(m)}@{n // 1000}k" for n, m in marks),
            "leaks": s.leaks, "leak_where": [{k: d[k] for k in ("row", "location", "category", "kind")}
                                             for d in s.leak_details[:5]],
            "workers": workers or "cores"}


def _rss_now_mib() -> float:
    """This process's resident memory now (Linux ``/proc``), in MiB."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return float("nan")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--format", choices=("csv", "parquet"), default="csv")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--note-chars", type=int, default=160)
    p.add_argument("--out-dir", default=None, help="where the generated tables stay (default: a temporary folder)")
    p.add_argument("--quick", action="store_true", help="one size of 500 rows")
    p.add_argument("--run-one", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.run_one:
        print(json.dumps(run_one(Path(args.run_one), args.format, args.workers)))
        return 0
    sizes = [500] if args.quick else sorted(args.rows)
    root = Path(args.out_dir) if args.out_dir else Path(tempfile.mkdtemp(prefix="table-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    big = root / f"notes-{sizes[-1]}.{args.format}"
    if not big.exists():
        t0 = time.perf_counter()
        generate(big, sizes[-1], args.note_chars, args.format)
        print(f"generated {sizes[-1]} rows in {time.perf_counter() - t0:.0f} s ({big.stat().st_size / 2**20:.1f} MiB)")
    print("| rows | seconds | notes/s | peak RSS (MiB) | worker peak RSS (MiB) | RSS at 10% / 50% / 100% | leaks |")
    print("|---:|---:|---:|---:|---:|---|---:|")
    for n in sizes:
        path = big if n == sizes[-1] else root / f"notes-{n}.{args.format}"
        if not path.exists():
            head(big, path, n, args.format)
        cmd = [sys.executable, __file__, "--run-one", str(path), "--format", args.format]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
        print(f"| {r['rows']} | {r['seconds']} | {r['notes_per_s']} | {r['peak_rss_mib']} | "
              f"{r['worker_peak_rss_mib']} | {r['rss_at']} | {r['leaks']} |", flush=True)
        if r["leak_where"]:
            print(f"  leaks (row, location, category, kind; no text): {r['leak_where']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
