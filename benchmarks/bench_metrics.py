"""Speed of evaluate() and agreement() on MEDDOCAN dev (250 documents): prints a table of medians.

    python benchmarks/bench_metrics.py [--corpus ../shared/data/meddocan/dev] [--repeat 7]

The system side is gold with ~8 % of spans deleted, shifted or relabelled and random scores, so
every measure (including the operating-point sweep) does real work.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.metrics.agreement import agreement  # noqa: E402
from pipeline.formats import read_collection  # noqa: E402
from pipeline.metrics import evaluate  # noqa: E402
from pipeline.schemas import MEDDOCAN  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "meddocan" / "dev"
    ap.add_argument("--corpus", default=str(default))
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    docs = read_collection(args.corpus, "brat", MEDDOCAN)
    gold = {d.doc_id: list(d.spans) for d in docs}
    texts = {d.doc_id: d.text for d in docs}
    rng = random.Random(0)
    system = {}
    for doc, spans in gold.items():
        out = []
        for s in spans:
            x = rng.random()
            if x < 0.03:
                continue
            if x < 0.06 and s.end - s.start > 2:
                s = s.with_(end=s.end - 1)
            elif x < 0.08:
                s = s.with_(category="DATE", type="FECHAS")
            out.append(s.with_(score=round(rng.random(), 3)))
        system[doc] = out
    ann = {"a": gold, "b": system, "c": {d: gold[d] for d in list(gold)[:125]}}
    cases = {
        "evaluate (all measures + sweep)": lambda: evaluate(system, gold, texts),
        "agreement (3 annotators)": lambda: agreement(ann, texts),
    }
    n_spans = sum(map(len, gold.values()))
    print(f"documents {len(docs)}, reference spans {n_spans}, repeat {args.repeat}")
    print(f"{'case':<34}{'median s':>10}{'min s':>10}")
    for name, fn in cases.items():
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        print(f"{name:<34}{statistics.median(times):>10.3f}{min(times):>10.3f}")


if __name__ == "__main__":
    main()
