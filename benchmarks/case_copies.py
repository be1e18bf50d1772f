"""Does case augmentation pay? The CRF member trained with and without case copies
(``TrainConfig.case_copies``: the training notes' surrogate copies again in UPPER or lower
case), scored on the held-out evaluation notes as written, in upper case and in lower case.

    nice python benchmarks/case_copies.py                      # English, 100 notes, CRF only
    nice python benchmarks/case_copies.py --corpus meddocan    # MEDDOCAN train -> dev

English: training notes from the wide generator's train part, evaluation notes from its
held-out part (as ``benchmarks/learning_curve.py`` gets them). MEDDOCAN: the first ``--train``
train notes, the first ``--eval`` dev notes. Each model is scored as the model alone and as the
full detector (rules and dictionaries too): span recall, document recall, character P/R and
strict F1. Prints a table and writes ``benchmarks/out/case_copies.json``.
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
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))
from learning_curve import english_notes, meddocan_notes, scores  # noqa: E402


def recased(docs, form: str):
    from pipeline.deid.augment import recase
    from pipeline.spans import Document

    return [Document(d.doc_id, recase(d.text, form), list(d.spans), patient_id=d.patient_id) for d in docs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="english", choices=("english", "meddocan"))
    ap.add_argument("--train", type=int, default=100)
    ap.add_argument("--eval", type=int, default=100)
    ap.add_argument("--copies", default="0,1", help="case copies to compare (0 none, 1 one per note, 2 both)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "case_copies.json"))
    args = ap.parse_args(argv)

    from models.trainer import TrainConfig, train_ensemble
    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014, MEDDOCAN

    if args.corpus == "english":
        train, ev = english_notes(args.train, args.eval, args.seed)
        schema, locale = I2B2_2014, "en"
    else:
        train, ev = meddocan_notes(args.train, args.eval)
        schema, locale = MEDDOCAN, "es"
    sets = {"as written": ev, "UPPER": recased(ev, "upper"), "lower": recased(ev, "lower")}
    print(f"load average at start: {os.getloadavg()}; {args.corpus}: {len(train)} training notes, "
          f"{len(ev)} evaluation notes; CRF member, refit on train + dev off")
    print(f"{'case copies':12s} {'detector':12s} {'eval case':11s} {'spanR':>6s} {'docR':>6s} {'charR':>6s} "
          f"{'charP':>6s} {'F1':>6s}")
    out: dict = {"corpus": args.corpus, "n_train": len(train), "n_eval": len(ev), "rows": []}
    with tempfile.TemporaryDirectory() as tmp:
        for copies in [int(c) for c in args.copies.split(",")]:
            cfg = TrainConfig(members=["crf"], locale=locale, seed=args.seed, threads=1, refit_crf=False,
                              case_copies=copies)
            t = time.time()
            info = train_ensemble(list(train), None, schema, cfg, Path(tmp) / f"c{copies}")
            secs = time.time() - t
            for det_name, det in (("model alone", Detector.load(info.path, rules=False, dictionaries=False)),
                                  ("full", Detector.load(info.path))):
                for case, docs in sets.items():
                    r = {"case_copies": copies, "detector": det_name, "eval": case, "train_s": round(secs, 1),
                         **scores(det, docs)}
                    out["rows"].append(r)
                    print(f"{copies:<12d} {det_name:12s} {case:11s} {r['span_r']:6.3f} {r['doc_r']:6.3f} "
                          f"{r['char_r']:6.3f} {r['char_p']:6.3f} {r['strict_f1']:6.3f}", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
