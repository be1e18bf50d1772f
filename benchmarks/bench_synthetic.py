"""Speed of the synthetic corpus, the annotator simulation and the demo project: a table of medians.

    python benchmarks/bench_synthetic.py [--notes 300] [--repeat 5]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.synthetic import generate_corpus, simulate_annotator  # noqa: E402


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    n = args.notes
    rows = []
    t = _median(lambda: generate_corpus(n, 1), args.repeat)
    rows.append((f"generate_corpus({n})", t, n / t))
    docs = generate_corpus(n, 1)
    t = _median(lambda: [simulate_annotator(d, "ben", 1) for d in docs], args.repeat)
    rows.append((f"simulate_annotator x{n}", t, n / t))
    try:
        import store
        from services.demo import build_demo

        def demo() -> None:
            with tempfile.TemporaryDirectory() as tmp:
                with store.connect(Path(tmp) / "wb.db") as db:
                    build_demo(db, n_docs=120, seed=7)

        t = _median(demo, max(1, args.repeat // 2))
        rows.append(("demo project (120 docs, new db)", t, 120 / t))
    except ImportError:
        pass
    spans = sum(len(d.spans) for d in docs)
    print(f"{n} notes, {spans} gold spans, {sum(len(d.text) for d in docs) / n:.0f} chars/note on average")
    print(f"{'step':36} {'median s':>9} {'docs/s':>9}")
    for name, secs, rate in rows:
        print(f"{name:36} {secs:9.3f} {rate:9.0f}")


if __name__ == "__main__":
    main()
