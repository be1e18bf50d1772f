"""English held-out notes as written, in capitals and in lower case: does case decide?

    python benchmarks/english_case.py                   # 300 training notes, 150 held-out
    python benchmarks/english_case.py --train 100 --eval 60

Trains a CRF member (``members=["crf"]``, default :class:`TrainConfig` for locale ``en``
otherwise) on ``--train`` train-part notes of the wide generator (:mod:`pipeline.synthetic.wide`),
then scores rules and dictionaries alone (:meth:`Detector.without_model`) and rules plus the CRF
(:meth:`Detector.load`) on ``--eval`` held-out notes (templates, lists and formats no training
note used) three times: as generated, upper-cased and lower-cased (character offsets unchanged: a
character whose case mapping changes length keeps its case). Figures: character-level binary
precision and recall over non-blank characters (any label; :func:`english_generalisation.char_scores`),
with the name and location recall beside. Prints the table with the load average and writes
``benchmarks/out/english_case.json``. Run it from two checkouts to compare before and after.
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
from services.runtime import go_offline  # noqa: E402

go_offline()

from english_generalisation import char_scores, run_detector  # noqa: E402


def recased(docs, how: str):
    """Copies of ``docs`` with their text in ``how`` case ("upper", "lower"), spans unchanged."""
    from dataclasses import replace

    def one(c: str) -> str:
        x = c.upper() if how == "upper" else c.lower()
        return x if len(x) == 1 else c

    return [replace(d, text="".join(map(one, d.text)), spans=list(d.spans)) for d in docs]


def _f(x) -> str:
    return "   -  " if x is None else f"{x:6.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", type=int, default=300)
    ap.add_argument("--eval", type=int, default=150)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--eval-variety", default="wide",
                    help="the generator of the held-out notes (any variety generate_corpus knows; training is always wide)")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "english_case.json"))
    args = ap.parse_args(argv)

    from models.trainer import TrainConfig, train_ensemble
    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014
    from pipeline.synthetic import generate_corpus

    train_docs = generate_corpus(args.train, args.seed, variety="wide", part="train", split_seed=0)
    heldout = generate_corpus(args.eval, args.seed + 2000, variety=args.eval_variety, part="heldout", split_seed=0)
    copies = {"as written": heldout, "UPPER": recased(heldout, "upper"), "lower": recased(heldout, "lower")}
    print(f"load average at start: {os.getloadavg()}")
    results: dict = {"n_train": args.train, "n_eval": args.eval, "eval_variety": args.eval_variety, "rows": {}}
    with tempfile.TemporaryDirectory() as tmp:
        cfg = TrainConfig(locale="en", seed=args.seed, threads=2, members=["crf"])
        t = time.time()
        info = train_ensemble(list(train_docs), None, I2B2_2014, cfg, Path(tmp) / "crf")
        results["train_wall_s"] = time.time() - t
        print(f"trained the CRF on {args.train} notes: {results['train_wall_s']:.0f} s wall")
        dets = [("rules+dictionaries", Detector.without_model(I2B2_2014, "en")),
                ("rules+dictionaries+CRF", Detector.load(info.path))]
        print(f"\n{'detector':24s} {'copy':11s} {'charP':>6s} {'charR':>6s} {'nameR':>6s} {'locR':>6s} {'nameP':>6s}")
        for label, det in dets:
            for copy, docs in copies.items():
                system, _ = run_detector(det, docs)
                c = char_scores(system, docs)
                row = {"precision": c["ALL"]["precision"], "recall": c["ALL"]["recall"],
                       "name_recall": c.get("NAME", {}).get("recall"), "name_precision": c.get("NAME", {}).get("precision"),
                       "location_recall": c.get("LOCATION", {}).get("recall"), "chars": c}
                results["rows"][f"{label} | {copy}"] = row
                print(f"{label:24s} {copy:11s} {_f(row['precision'])} {_f(row['recall'])} {_f(row['name_recall'])} "
                      f"{_f(row['location_recall'])} {_f(row['name_precision'])}")
    print(f"\nload average at end: {os.getloadavg()}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
