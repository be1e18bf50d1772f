"""Local engine vs Ray engine: notes/s for de-identification (and rules-only detection), per-batch overhead.

    python benchmarks/ray_scale.py [--sizes 1000 10000] [--repeat 3] [--cpus 2] [--detect]

Synthetic notes (``generate_corpus(n, 2024)``, gold spans, ~4-5 notes per patient), profile
``replace``, output written as brat into a temporary folder (writing is part of the time; reading
is not: both engines get the same documents in memory). The Ray runtime is started once
(``ray.init(num_cpus=--cpus)``, its start-up is reported on its own) and each Ray run then pays
its actor pool's start-up. Tables show medians of ``--repeat`` runs (wall clock).

Per-batch overhead: a no-op actor (returns a placeholder per note) through the same driver path
(units pickled, Ray Data ``map_batches`` with the actor pool, results unpickled on the driver),
run at 16 and 256 notes per batch on the largest size: the time difference divided by the
difference in batch count. The driver's own share per note (pickling out, unpickling back,
writing brat) bounds what more workers can give: reported as the driver ceiling.
Prints no document text.
"""
from __future__ import annotations

import argparse
import logging
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.deid import DeidContext, builtin_profiles  # noqa: E402
from pipeline.engines import DeidJob, DetectJob, DetectSpec, RayOptions  # noqa: E402
from pipeline.engines.local import LocalEngine  # noqa: E402
from pipeline.engines.ray_engine import RayEngine, _stream  # noqa: E402
from pipeline.spans import Document  # noqa: E402

SECRET = b"benchmark-secret-not-for-production"


class NoopWorker:
    """Measures the pipe, not the work: one small reply per note."""

    def __init__(self, **_):
        pass

    def __call__(self, batch):
        import numpy as np

        out = np.empty(len(batch["payload"]), dtype=object)
        for k, p in enumerate(batch["payload"]):
            out[k] = pickle.dumps([(i, None) for i, _ in pickle.loads(p)])
        return {"unit": batch["unit"], "payload": out}


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _median(fn, repeat: int) -> float:
    return statistics.median(_timed(fn) for _ in range(repeat))


def _deid(engine, docs: list[Document], locale: str = "en"):
    def run():
        with tempfile.TemporaryDirectory(prefix="ray-scale-") as tmp:
            engine.deidentify(DeidJob(docs, builtin_profiles()["replace"], DeidContext(secret=SECRET, locale=locale),
                                      Path(tmp) / "out", "brat"))
    return run


def _detect(engine, docs: list[Document]):
    def run():
        with tempfile.TemporaryDirectory(prefix="ray-scale-") as tmp:
            engine.detect(DetectJob(docs, DetectSpec(schema="i2b2-2014", locale="en"), Path(tmp) / "out", "brat"))
    return run


def _noop(opts: RayOptions, docs: list[Document], per: int) -> tuple[float, int]:
    units = [[(i, d) for i, d in enumerate(docs[k:k + per], start=k)] for k in range(0, len(docs), per)]

    def run():
        rows = [{"unit": k, "payload": pickle.dumps(u)} for k, u in enumerate(units)]
        n = sum(len(r) for r in _stream(opts, rows, NoopWorker, {}, 1))
        assert n == len(docs)
    return _timed(run), len(units)


def _driver_share(docs: list[Document]) -> float:
    """Seconds per note the driver spends whatever the cluster: pickling, unpickling, writing brat."""
    from pipeline.formats import write_collection

    t = time.perf_counter()
    blob = pickle.dumps([(i, d) for i, d in enumerate(docs)])
    back = pickle.loads(blob)
    with tempfile.TemporaryDirectory(prefix="ray-scale-") as tmp:
        for k in range(0, len(back), 64):
            write_collection([d for _, d in back[k:k + 64]], tmp, "brat")
    return (time.perf_counter() - t) / len(docs)


def _row(task: str, n: int, tl: float, tr: float) -> None:
    print(f"{task:<14}{n:>7}{tl:>9.1f}{n / tl:>11.1f}{tr:>8.1f}{n / tr:>9.1f}{tl / tr:>10.2f}x", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--detect", action="store_true", help="also rules-only detection (smallest size)")
    args = ap.parse_args()

    import ray

    from pipeline.synthetic import generate_corpus

    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start; "
          f"Ray runtime with num_cpus={args.cpus}, {args.cpus} actors of 1 CPU; repeat {args.repeat} (median)")
    t_init = _timed(lambda: ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
                                     logging_level=logging.WARNING))
    opts = RayOptions()
    corpora = {n: generate_corpus(n, 2024) for n in args.sizes}
    local, remote = LocalEngine(), RayEngine(opts)
    _deid(local, corpora[args.sizes[0]][:50])()      # word lists loaded once in the driver, like a warm worker

    print(f"\nRay start-up (ray.init): {t_init:.1f} s\n")
    print(f"{'task':<14}{'notes':>7}{'local s':>9}{'local n/s':>11}{'ray s':>8}{'ray n/s':>9}{'ray/local':>11}")
    for n in args.sizes:
        docs = corpora[n]
        tl = _median(_deid(local, docs), args.repeat)
        tr = _median(_deid(remote, docs), args.repeat)
        _row("deidentify", n, tl, tr)
    if args.detect:
        n = args.sizes[0]
        docs = [Document(d.doc_id, d.text, [], dict(d.meta), d.patient_id) for d in corpora[n]]
        tl = _median(_detect(local, docs), args.repeat)
        tr = _median(_detect(remote, docs), args.repeat)
        _row("detect(rules)", n, tl, tr)

    big = corpora[max(args.sizes)]
    runs = {per: [_noop(opts, big, per) for _ in range(args.repeat)] for per in (16, 256)}
    t16, u16 = statistics.median(t for t, _ in runs[16]), runs[16][0][1]
    t256, u256 = statistics.median(t for t, _ in runs[256]), runs[256][0][1]
    per_batch = (t16 - t256) / (u16 - u256)
    fixed = t256 - per_batch * u256
    driver = _driver_share(big)
    print(f"\nno-op pipe, {len(big)} notes: {u16} batches of 16 in {t16:.1f} s, "
          f"{u256} batches of 256 in {t256:.1f} s")
    print(f"per-batch overhead: {per_batch * 1000:.1f} ms; fixed per run (actor pool start-up etc.): {fixed:.1f} s")
    print(f"driver share (pickle + unpickle + write brat): {driver * 1000:.2f} ms/note "
          f"-> driver ceiling about {1 / driver:.0f} notes/s whatever the cluster size")
    ray.shutdown()


if __name__ == "__main__":
    main()
