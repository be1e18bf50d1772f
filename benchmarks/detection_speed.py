"""The speed users get: the real commands timed as whole processes (start-up included).

Runs ``python -m pipeline detect`` (one process, ``--workers 1``, and every usable core),
``deidentify --model`` and ``preannotate`` (a project holding the notes, the model registered and
active) on N notes: the MEDDOCAN dev notes (250) and, for 2,500, the dev notes ten times over with
fresh ids, written to a temporary folder. Per command and size it prints the median of
``--repeat`` runs (default 5): notes/s, start-up seconds (the same command on one note: from
the command starting to its first note processed and written), CPU seconds per note (the process
and its workers), and peak memory (RSS and PSS of the process tree, sampled every 100 ms from /proc).

    nice python benchmarks/detection_speed.py --model /tmp/crf-model [--repeat 5] [--sizes 250,2500]
                                              [--dev /work/shared/data/meddocan/dev]

The model: a CRF-only version, e.g. ``python -m pipeline train --train <meddocan train>
--members crf --out /tmp/crf-model``. Prints the 1-minute load average before and after: the
figures mean something only on an otherwise idle machine. Prints figures only, never text.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEV = "/work/shared/data/meddocan/dev"
SAMPLE_S = 0.1          # memory sampling interval (a run lasts seconds; peaks last longer than this)


def _children(pid: int) -> list[int]:
    """Child process ids of ``pid`` from /proc/PID/task/*/children (no scan of every process)."""
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(x) for x in f.read().split())
    except OSError:
        pass
    return out


def _tree_memory(root: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes of ``root`` and its descendants, from /proc. RSS counts the pages forked
    workers share with their parent once per process; PSS splits each shared page among them.
    Cheap on purpose: the sampler shares the machine with the command it measures (scanning all
    of /proc every 20 ms took a good part of one of the two cores and slowed the forked workers)."""
    rss = pss = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        todo.extend(_children(pid))
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
        except OSError:
            pass
    return rss, pss


def run_once(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds of the process tree, peak tree RSS and PSS bytes) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0, 0]

    def sample() -> None:
        while proc.poll() is None:
            rss, pss = _tree_memory(proc.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            time.sleep(SAMPLE_S)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - t0
    t.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd[2:4])}: {err.decode()[-300:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, peak[0], peak[1]


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _autogroup() -> str:
    """Whether the kernel shares CPU between sessions (autogroups) rather than processes: then, on
    a machine others keep busy, a command's workers share its one group's slice and every core
    cannot beat one process; the figures for every core mean something only on an idle machine."""
    try:
        on = Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return "autogroup scheduling: unknown"
    return "autogroup scheduling: " + ("on (under load, workers share one session's CPU slice)" if on else "off")


def make_copies(dev: Path, n: int, out: Path) -> Path:
    """``n`` notes under ``out``: the dev notes again and again, each copy with a fresh id."""
    stems = sorted(p.stem for p in dev.glob("*.txt"))
    out.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        stem = stems[i % len(stems)]
        new = f"{stem}-c{i // len(stems):02d}"
        shutil.copyfile(dev / f"{stem}.txt", out / f"{new}.txt")
        shutil.copyfile(dev / f"{stem}.ann", out / f"{new}.ann")
    return out


def setup_project(db: Path, notes: Path, model: Path) -> None:
    """A project holding ``notes`` (no layer: all to pre-annotate) with ``model`` active."""
    sys.path.insert(0, str(REPO))
    import store
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN

    from pipeline.spans import Document

    docs = [Document(d.doc_id, d.text) for d in read_collection(notes, "brat", MEDDOCAN)]
    with store.connect(str(db)) as con:
        pid = store.create_project(con, "bench", MEDDOCAN)
        store.add_documents(con, pid, docs, layer=None)
        # the version's own dev figures stand for the evaluation activation asks for
        version = model / (model / "ACTIVE").read_text().strip() if (model / "ACTIVE").is_file() else model
        metrics = json.loads((version / "metrics.json").read_text(encoding="utf-8")) or {"benchmark": 1}
        mv = store.add_model_version(con, pid, "crf", str(model), metrics=metrics)
        store.activate_model(con, mv)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="a CRF-only model version (or models) directory")
    ap.add_argument("--dev", default=DEV, help="MEDDOCAN dev folder (brat)")
    ap.add_argument("--repeat", "--repeats", type=int, default=5,
                    help="runs per figure; the median is printed (default 5; 3 on a busy machine, and say so)")
    ap.add_argument("--sizes", default="250,2500", help="note counts (default 250,2500)")
    ap.add_argument("--only", default="detect,deidentify,preannotate", help="commands to time")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--repo", default=str(REPO),
                    help="checkout whose commands are timed (default this one; another for a before/after)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    only = set(args.only.split(","))
    repo = Path(args.repo).resolve()
    env = {**os.environ, "PYTHONPATH": str(repo)}
    has_workers = "--workers" in (repo / "cli" / "commands" / "detect.py").read_text(encoding="utf-8")
    py = [args.python, "-m", "pipeline"]
    print(f"repo {repo.name}; load average (1, 5, 15 min) before: {_load()}; "
          f"usable cores: {len(os.sched_getaffinity(0))}; median of {args.repeat}; {_autogroup()}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="detection-speed-") as tmp:
        tmp_p = Path(tmp)
        sets = {n: make_copies(Path(args.dev), n, tmp_p / f"notes{n}") for n in sorted(set(sizes) | {1})}
        secret = tmp_p / "secret.key"
        secret.write_bytes(os.urandom(32))
        secret.chmod(0o600)

        def command(kind: str, n: int, k: int) -> list[str]:
            out = str(tmp_p / f"out-{kind}-{n}-{k}")
            if kind == "detect-1":
                return py + ["detect", "--model", args.model, "--input", str(sets[n]), "--output", out, "--workers", "1"]
            if kind == "detect":
                return py + ["detect", "--model", args.model, "--input", str(sets[n]), "--output", out]
            if kind == "deidentify":
                return py + ["deidentify", "--model", args.model, "--input", str(sets[n]), "--output", out,
                             "--secret-file", str(secret), "--schema", "meddocan"]
            return py + ["preannotate", "--db", str(tmp_p / f"db{n}.sqlite"), "--project", "bench", "--no-progress"]

        kinds = [k for k in ("detect-1", "detect", "deidentify", "preannotate")
                 if k.split("-")[0] in only and (k != "detect-1" or has_workers)]
        if "preannotate" in kinds:
            for n in sets:
                setup_project(tmp_p / f"db{n}.sqlite", sets[n], Path(args.model))
        # the commands take turns within each repeat, so a change in the machine's load falls on all
        start = {kind: [] for kind in kinds}
        runs = {(kind, n): [] for kind in kinds for n in sizes}
        for k in range(args.repeat):
            for kind in kinds:
                start[kind].append(run_once(command(kind, 1, k), env, repo)[0])
        for n in sizes:
            for k in range(args.repeat):
                for kind in kinds:
                    runs[(kind, n)].append(run_once(command(kind, n, k), env, repo))
            for kind in kinds:
                got = runs[(kind, n)]
                wall = statistics.median(r[0] for r in got)
                rows.append(dict(kind=kind, n=n, wall=wall, rate=n / wall, startup=statistics.median(start[kind]),
                                 cpu=statistics.median(r[1] for r in got) / n,
                                 peak=statistics.median(r[2] for r in got) / 2**20,
                                 pss=statistics.median(r[3] for r in got) / 2**20))
                r = rows[-1]
                print(f"{kind:11s} {n:5d} notes: {r['rate']:6.1f} notes/s  wall {wall:5.2f} s  start-up "
                      f"{r['startup']:4.2f} s  CPU {r['cpu'] * 1000:5.1f} ms/note  peak RSS {r['peak']:4.0f} MiB "
                      f"PSS {r['pss']:4.0f} MiB", flush=True)
    print(f"load average (1, 5, 15 min) after: {_load()}")
    by = {(r["kind"], r["n"]): r for r in rows}
    print("\n| command | notes | notes/s | start-up s | CPU ms/note | peak RSS MiB | peak PSS MiB | vs detect |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ref = by.get(("detect", r["n"]))
        ratio = f"{r['rate'] / ref['rate']:.2f}" if ref else "-"   # detect-1 / detect: 1 process vs every core
        print(f"| {r['kind']} | {r['n']} | {r['rate']:.1f} | {r['startup']:.2f} | {r['cpu'] * 1000:.1f} | "
              f"{r['peak']:.0f} | {r['pss']:.0f} | {ratio} |")
    if len(sizes) > 1:
        lo, hi = min(sizes), max(sizes)
        for kind in kinds:
            if (kind, lo) in by and (kind, hi) in by:
                a, b = by[(kind, hi)], by[(kind, lo)]
                print(f"{kind}: peak memory {hi} / {lo} notes = {a['peak'] / b['peak']:.2f}x (RSS), "
                      f"{a['pss'] / b['pss']:.2f}x (PSS)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
