"""How far a generator's own held-out score is from text it did not write: ward notes against wide notes.

    python benchmarks/english_ward.py                      # 400 training notes, 200 per evaluation set
    python benchmarks/english_ward.py --train 100 --eval 60
    python benchmarks/english_ward.py --rules-only         # the rules + dictionaries row alone, no training
    python benchmarks/english_ward.py --train 1200 --models ward   # "after the loop": one ward of ~1,200 notes

Trains two CRF models (``members=["crf"]``, locale ``en``, the default CRF recipe otherwise): one on
``--train`` train-part notes of the ward generator (:mod:`pipeline.synthetic.ward`: ICU nursing
notes, discharge summaries, radiology, ED triage; PHI sparse), one on as many train-part notes of
the wide generator (:mod:`pipeline.synthetic.wide`). Each is run as the full detector (rules,
dictionaries and the model) on held-out ward notes as generated, on their UPPER and lower copies,
on train-part ward notes of another seed, and on held-out wide notes; rules and dictionaries
alone give a baseline row. Scores are character-level over non-space characters (binary
precision and recall, recall per category), with document recall and strict F1, computed by
:mod:`benchmarks.english_generalisation`'s scoring. The gap table says how much each model loses
from its own generator's held-out notes to the other generator's: the nearest thing to
"outside text" the project has. Prints tables (labels and figures only) and writes
``benchmarks/out/english_ward.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
from english_generalisation import _f, print_chars, print_rows, run_detector, score, train  # noqa: E402


def recased(docs, casing: str):
    """Copies of ``docs`` in ``casing`` (offsets unchanged: the case map keeps lengths)."""
    from dataclasses import replace

    from pipeline.synthetic.ward import recase

    return [replace(d, text=recase(d.text, casing), spans=list(d.spans), meta={**d.meta, "casing": casing})
            for d in docs]


def gap_table(rows: dict) -> None:
    print("\ngap: each model on its own generator's held-out notes and on the other generator's")
    print(f"{'model':12s} {'own held-out charP/R':>22s} {'other held-out charP/R':>24s} {'drop in R':>10s} "
          f"{'drop in P':>10s}")
    for model, own, other in (("ward CRF", "ward held-out", "wide held-out"),
                              ("wide CRF", "wide held-out", "ward held-out")):
        key = f"{model.split()[0]}-trained"
        a, b = rows[own][key]["chars"]["ALL"], rows[other][key]["chars"]["ALL"]
        print(f"{model:12s} {_f(a['precision'])} / {_f(a['recall'])}       {_f(b['precision'])} / {_f(b['recall'])}  "
              f"{_f(a['recall'] - b['recall'])}     {_f(a['precision'] - b['precision'])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", type=int, default=400, help="training notes per generator (default 400)")
    ap.add_argument("--eval", type=int, default=200, help="notes per evaluation set (default 200)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--split-seed", type=int, default=0)
    ap.add_argument("--rules-only", action="store_true", help="rules and dictionaries alone: no training, no gap table")
    ap.add_argument("--models", default="ward,wide", help="comma-separated generators to train a CRF on (ward, wide)")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "english_ward.json"))
    args = ap.parse_args(argv)

    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014
    from pipeline.synthetic import generate_corpus

    ss, n = args.split_seed, args.eval
    ward_held = generate_corpus(n, args.seed + 2000, variety="ward", part="heldout", split_seed=ss)
    train_sets = {} if args.rules_only else {
        g: generate_corpus(args.train, args.seed, variety=g, part="train", split_seed=ss)
        for g in ("ward", "wide") if g in args.models.split(",")}
    evals = {
        "ward held-out": ward_held,
        "ward held-out UPPER": recased(ward_held, "upper"),
        "ward held-out lower": recased(ward_held, "lower"),
        "ward train-part, other seed": generate_corpus(n, args.seed + 1000, variety="ward", part="train", split_seed=ss),
        "wide held-out": generate_corpus(n, args.seed + 2000, variety="wide", part="heldout", split_seed=ss),
    }
    print(f"load average at start: {os.getloadavg()}; CRF member only; {args.train} training notes per generator, "
          f"{n} notes per evaluation set")
    results: dict = {"mode": "crf", "n_train": args.train, "n_eval": n, "seed": args.seed, "split_seed": ss,
                     "timings": {}, "rows": {}}
    with tempfile.TemporaryDirectory() as tmp:
        dets = [("rules+dictionaries", Detector.without_model(I2B2_2014, "en"))]
        for name, docs in train_sets.items():
            path, wall, cpu = train(docs, True, Path(tmp) / name, args.seed)
            results["timings"][f"train {name}"] = {"wall_s": wall, "cpu_s": cpu, "load": os.getloadavg()}
            print(f"trained the {name} CRF: {wall:.0f} s wall, {cpu:.0f} s CPU")
            dets.append((f"{name}-trained", Detector.load(path)))
        for eval_name, docs in evals.items():
            rows = []
            for label, det in dets:
                system, cpu = run_detector(det, docs)
                rows.append((label, score(system, docs)))
                results["timings"][f"detect {eval_name} {label}"] = {"cpu_s": cpu}
            print_rows(f"{eval_name} ({len(docs)} notes; full detector)", rows)
            print_chars(eval_name, rows)
            results["rows"][eval_name] = dict(rows)
    if not args.rules_only and len(train_sets) == 2:
        gap_table(results["rows"])
    print(f"\nload average at end: {os.getloadavg()}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
