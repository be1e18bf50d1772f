"""Spanish rule pack (+ shipped dictionaries) against MEDDOCAN gold: strict P/R/F1 per type.

Strict = same start, same end, same fine type. Candidates from the rules and the dictionaries
are combined with :func:`pipeline.detection.combine.combine` exactly as detection does, so the figures are
those of the rule/dictionary layer a project starts with before any model is trained.

    python benchmarks/rules_meddocan.py                 # dev split, rules + dictionaries
    python benchmarks/rules_meddocan.py --split train   # the split the rules were tuned on
    python benchmarks/rules_meddocan.py --no-dict       # rules alone

Prints one table (counts and scores, no document text) and the median time per document.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.detection.combine import combine  # noqa: E402
from pipeline.detection.dictionaries import DictionaryMatcher  # noqa: E402
from pipeline.formats import read_brat  # noqa: E402
from pipeline.detection.rules import run_rules  # noqa: E402
from pipeline.schemas import MEDDOCAN  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "meddocan"


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--no-dict", action="store_true", help="rules only")
    ap.add_argument("--no-combine", action="store_true", help="score raw candidates (overlaps allowed)")
    args = ap.parse_args(argv)

    docs = read_brat(args.corpus / args.split, MEDDOCAN)
    matcher = None if args.no_dict else DictionaryMatcher.shipped("es", MEDDOCAN)
    tp: Counter = Counter()
    fp: Counter = Counter()
    fn: Counter = Counter()
    times: list[float] = []
    for d in docs:
        t0 = time.perf_counter()
        cands = run_rules(d.text, d.doc_id, "es", MEDDOCAN)
        if matcher is not None:
            cands += matcher.match(d.text, d.doc_id)
        pred = cands if args.no_combine else combine(cands, d.text)[0]
        times.append(time.perf_counter() - t0)
        p = {(s.start, s.end, s.type) for s in pred}
        g = {(s.start, s.end, s.type) for s in d.spans}
        for k in p & g:
            tp[k[2]] += 1
        for k in p - g:
            fp[k[2]] += 1
        for k in g - p:
            fn[k[2]] += 1

    types = sorted(set(tp) | set(fp) | set(fn), key=lambda t: (-(tp[t] + fn[t]), t))
    mode = "rules" if args.no_dict else "rules+dictionaries"
    print(f"MEDDOCAN {args.split}: {len(docs)} documents, {mode}, strict (start, end, type)")
    print(f"{'type':34s} {'gold':>5s} {'pred':>5s} {'tp':>5s} {'P':>6s} {'R':>6s} {'F1':>6s}")
    for t in types:
        p, r, f = prf(tp[t], fp[t], fn[t])
        print(f"{t:34s} {tp[t] + fn[t]:5d} {tp[t] + fp[t]:5d} {tp[t]:5d} {p:6.3f} {r:6.3f} {f:6.3f}")
    T, F, N = sum(tp.values()), sum(fp.values()), sum(fn.values())
    p, r, f = prf(T, F, N)
    print(f"{'micro (all types)':34s} {T + N:5d} {T + F:5d} {T:5d} {p:6.3f} {r:6.3f} {f:6.3f}")
    print(f"median time per document: {statistics.median(times) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
