"""Which generated notes an English starter CRF should learn from (the cold-start recipe).

    nice python benchmarks/english_recipe.py --split-seed 1     # choose: another split of templates and lists
    nice python benchmarks/english_recipe.py --split-seed 0     # report: the split the other benchmarks use
    nice python benchmarks/english_recipe.py --candidates half-500 --refit   # one recipe, the default recipe's refit

Each candidate (:data:`CANDIDATES`: a :class:`pipeline.synthetic.starter.StarterRecipe`) is trained
(``members=["crf"]``, locale ``en``, the default recipe otherwise: one surrogate copy, the
candidate's case copies; without the refit on train + dev unless ``--refit``, the same for every
candidate) on train-part notes of ``--split-seed`` and run as the full detector (rules,
dictionaries, model) on that split's held-out ward notes as generated, in UPPER and in lower
case, and on its held-out wide notes. The recipe is chosen on ``--split-seed 1`` by the mean
character F1 over those four sets (declared before any run), and reported on ``--split-seed 0``,
whose held-out notes the choice never saw. Character-level binary precision / recall over
non-space characters, recall per category, document recall. Prints labels and figures only;
writes ``benchmarks/out/english_recipe-<split>.json``.
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
from english_generalisation import _f, run_detector, score  # noqa: E402
from english_ward import recased  # noqa: E402

from pipeline.synthetic.starter import StarterRecipe  # noqa: E402

CANDIDATES: dict[str, StarterRecipe] = {
    "wide-400": StarterRecipe(ward_share=0.0, case_copies=1, notes=400),
    "ward-400": StarterRecipe(ward_share=1.0, case_copies=1, notes=400),
    "half-400": StarterRecipe(ward_share=0.5, case_copies=1, notes=400),
    "ward3:1-400": StarterRecipe(ward_share=0.75, case_copies=1, notes=400),
    "ward-400-cc2": StarterRecipe(ward_share=1.0, case_copies=2, notes=400),
    "ward-800": StarterRecipe(ward_share=1.0, case_copies=1, notes=800),
    "half-800": StarterRecipe(ward_share=0.5, case_copies=1, notes=800),
}
CATS = ("NAME", "LOCATION", "DATE", "AGE", "CONTACT", "ID", "PROFESSION")


def train(docs, recipe: StarterRecipe, out: Path, seed: int, refit: bool):
    from models.trainer import TrainConfig, train_ensemble
    from pipeline.schemas import I2B2_2014

    cfg = TrainConfig(members=["crf"], locale="en", seed=seed, threads=1, refit_crf=refit,
                      case_copies=recipe.case_copies, learn_spared_steps=False)   # as train-starter
    t, c = time.time(), time.process_time()
    info = train_ensemble(list(docs), None, I2B2_2014, cfg, out)
    return info, time.time() - t, time.process_time() - c


def f1(p, r) -> float:
    return 0.0 if not p or not r else 2 * p * r / (p + r)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split-seed", type=int, default=1, help="1: choose the recipe; 0: report it")
    ap.add_argument("--candidates", default=",".join(CANDIDATES), help="comma-separated names of CANDIDATES")
    ap.add_argument("--eval", type=int, default=200, help="notes per evaluation set (default 200)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--refit", action="store_true", help="the default recipe's refit on train + dev too")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    from pipeline.detection.detector import Detector
    from pipeline.synthetic import generate_corpus
    from pipeline.synthetic.starter import starter_corpus

    ss, n = args.split_seed, args.eval
    ward_held = generate_corpus(n, args.seed + 2000, variety="ward", part="heldout", split_seed=ss)
    evals = {"ward held-out": ward_held, "ward UPPER": recased(ward_held, "upper"),
             "ward lower": recased(ward_held, "lower"),
             "wide held-out": generate_corpus(n, args.seed + 2000, variety="wide", part="heldout", split_seed=ss)}
    out_path = Path(args.out or REPO / "benchmarks" / "out" / f"english_recipe-{ss}.json")
    print(f"load average at start: {os.getloadavg()}; split seed {ss}; refit {args.refit}; {n} notes per set",
          flush=True)
    res: dict = {"split_seed": ss, "refit": args.refit, "n_eval": n, "rows": {}}
    names = [c.strip() for c in args.candidates.split(",") if c.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            recipe = CANDIDATES[name]
            docs = starter_corpus(recipe, args.seed, part="train", split_seed=ss)
            info, wall, cpu = train(docs, recipe, Path(tmp) / name, args.seed, args.refit)
            det = Detector.load(info.path)
            row: dict = {"train_wall_s": round(wall, 1), "train_cpu_s": round(cpu, 1), "load": os.getloadavg(),
                         "sets": {}}
            for ev_name, ev_docs in evals.items():
                system, _ = run_detector(det, ev_docs)
                s = score(system, ev_docs)
                c = s["chars"]
                row["sets"][ev_name] = {"P": c["ALL"]["precision"], "R": c["ALL"]["recall"], "doc_r": s["doc_r"],
                                        "cat_r": {k: c[k]["recall"] for k in CATS if k in c}}
            row["select"] = sum(f1(v["P"], v["R"]) for v in row["sets"].values()) / len(row["sets"])
            res["rows"][name] = row
            line = "  ".join(f"{k}: {_f(v['P'])}/{_f(v['R'])} d{_f(v['doc_r'])}" for k, v in row["sets"].items())
            print(f"{name:13s} train {wall:5.0f}s  meanF1 {row['select']:.3f}  {line}", flush=True)
            for k, v in row["sets"].items():
                print(f"    {k:14s} recall per category: "
                      + " ".join(f"{c} {_f(r)}" for c, r in v["cat_r"].items()), flush=True)
            out_path.parent.mkdir(parents=True, exist_ok=True)
            out_path.write_text(json.dumps(res, indent=1, default=str))
    best = max(res["rows"], key=lambda k: res["rows"][k]["select"])
    print(f"highest mean character F1 on split seed {ss}: {best}; load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
