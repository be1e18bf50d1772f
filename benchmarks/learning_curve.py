"""How fast annotated notes pay off: a learning curve of the default recipe's CRF member.

    nice python benchmarks/learning_curve.py              # MEDDOCAN and English, 25..all notes
    nice python benchmarks/learning_curve.py --quick      # 250-note pools, 25..all, no refit
    python benchmarks/learning_curve.py --corpus english --generator wide
    nice python benchmarks/learning_curve.py --corpus english --generator ward   # ICU-style notes, PHI sparse

For each corpus, models are trained (:func:`models.trainer.train_ensemble`, ``members=["crf"]``,
everything else the default recipe of the corpus's locale, dev split off the training notes as
the Train page does) on the first 25, 50, 100, 250 and all training notes, and scored on the
evaluation notes two ways: with the cold-start resources (the full detector: model + rules +
dictionaries, as pre-annotation runs it) and the model alone. Row 0 is the cold start without
any annotated note (rules and dictionaries alone).

* MEDDOCAN: ``/work/shared/data/meddocan`` train -> dev (there is no test split here).
* English: generated notes, training notes from the generator's train part and evaluation notes
  from its held-out part (templates, lists and formats no training note used); the generator is
  one option, ``--generator`` (:data:`GENERATORS`, :func:`english_notes`).

Two orders of the training notes: ``random`` (a seeded shuffle) and ``uncertain`` (active
learning as the ``uncertain`` queue order does it, :func:`pipeline.annotation.queue.uncertainty`:
the first 25 random, then at each step the model just trained pre-annotates the notes not yet
taken with the full detector and the ones whose suggestions sit nearest its thresholds come next).

Figures per row: span recall and precision (offsets, any type), document recall (every PHI
character of a note found) and binary character precision/recall over non-blank characters
(:mod:`pipeline.metrics.characters`). Prints a table (labels and figures only) and writes
``benchmarks/out/learning_curve.json``; the issue's goal: 100 notes reach 95 % of the span
recall of all notes.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from services.runtime import go_offline  # noqa: E402

go_offline()

MEDDOCAN_DIR = Path("/work/shared/data/meddocan")
SIZES = (25, 50, 100, 250, None)          # None: all training notes
QUICK_SIZES = (25, 50, 100, None)


def _wide(n: int, seed: int, part: str):
    from pipeline.synthetic import generate_corpus

    return generate_corpus(n, seed, variety="wide", part=part)


def _ward(n: int, seed: int, part: str):
    from pipeline.synthetic import generate_corpus

    return generate_corpus(n, seed, variety="ward", part=part)


#: English generators: ``name -> (n, seed, part) -> notes``; ``part`` is "train" or "heldout"
GENERATORS: dict[str, Callable] = {"wide": _wide, "ward": _ward}


def english_notes(n_train: int, n_eval: int, seed: int = 11, generator: str = "wide"):
    """English training notes (the generator's train part) and held-out evaluation notes (its
    held-out part, another seed): the one place the learning curve gets English notes."""
    make = GENERATORS[generator]
    return make(n_train, seed, "train"), make(n_eval, seed + 2000, "heldout")


def meddocan_notes(n_train: int | None, n_eval: int | None):
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN

    train = read_collection(MEDDOCAN_DIR / "train", "brat", MEDDOCAN)
    dev = read_collection(MEDDOCAN_DIR / "dev", "brat", MEDDOCAN)
    return train[:n_train] if n_train else train, dev[:n_eval] if n_eval else dev


def scores(detector, docs) -> dict:
    """One row's figures for ``detector`` on ``docs``."""
    from pipeline.detection.parallel import detect_many_parallel
    from pipeline.metrics import evaluate

    found = detect_many_parallel(detector, list(docs))
    system = {d.doc_id: s for d, s in zip(docs, found)}
    rep = evaluate(system, {d.doc_id: list(d.spans) for d in docs}, {d.doc_id: d.text for d in docs},
                   doc_ids=[d.doc_id for d in docs])
    sp, ch = rep.span_strict.micro, rep.characters.micro
    return {"span_r": sp.recall, "span_p": sp.precision, "doc_r": rep.document_recall,
            "char_r": ch.recall, "char_p": ch.precision, "strict_f1": rep.strict.micro.f1}


def train(docs, schema, locale: str, out: Path, seed: int, refit: bool = True):
    from models.trainer import TrainConfig, train_ensemble

    cfg = TrainConfig(members=["crf"], locale=locale, seed=seed, threads=1, refit_crf=refit)
    t = time.time()
    info = train_ensemble(list(docs), None, schema, cfg, out)
    return info, time.time() - t


def most_uncertain(info, pool, k: int) -> list:
    """The ``k`` notes of ``pool`` whose suggestions by the version just trained (full detector)
    sit nearest its thresholds; notes without suggestions last, in pool order."""
    from pipeline.annotation.queue import flatten_thresholds, uncertainty
    from pipeline.detection.detector import Detector
    from pipeline.detection.parallel import detect_many_parallel

    det = Detector.load(info.path)
    found = detect_many_parallel(det, list(pool))
    th = flatten_thresholds(info.thresholds)
    keyed = []
    for i, (d, spans) in enumerate(zip(pool, found)):
        u = uncertainty(spans, th)
        keyed.append(((1, 0.0, i) if u is None else (0, u, i), d))
    keyed.sort(key=lambda x: x[0])
    return [d for _, d in keyed[:k]]


def curve(name: str, train_pool, eval_docs, schema, locale: str, sizes, orders, seed: int, tmp: Path,
          refit: bool = True, uncertain_upto: int | None = None) -> dict:
    from pipeline.detection.detector import Detector

    out: dict = {"n_pool": len(train_pool), "n_eval": len(eval_docs), "rows": []}
    cold = scores(Detector.without_model(schema, locale), eval_docs)
    out["rows"].append({"order": "-", "notes": 0, "resources": "rules+dictionaries", **cold})
    print_row(name, out["rows"][-1])
    targets = sorted({min(s or len(train_pool), len(train_pool)) for s in sizes})
    shuffled = list(train_pool)
    random.Random(seed).shuffle(shuffled)
    trained: dict[int, dict] = {}      # size -> rows, shared by the orders (first step and "all")
    for order in orders:
        taken = shuffled[:targets[0]]
        for k, n in enumerate(targets):
            if order == "uncertain" and uncertain_upto and k > 0 and uncertain_upto < n < len(train_pool):
                continue        # the costly order only where it is compared (--uncertain-upto)
            if order == "uncertain" and k > 0 and n < len(train_pool):
                chosen = {d.doc_id for d in taken}
                pool = [d for d in shuffled if d.doc_id not in chosen]
                taken = taken + most_uncertain(info, pool, n - len(taken))
            elif order == "random" or n >= len(train_pool):
                taken = shuffled[:n]
            shared = k == 0 or n >= len(train_pool)
            if shared and n in trained:
                rows = [{**r, "order": order} for r in trained[n]["rows"]]
                info = trained[n]["info"]
            else:
                info, secs = train(taken, schema, locale, tmp / f"{name}-{order}-{n}", seed, refit)
                rows = []
                for res, det in (("with rules+dictionaries", Detector.load(info.path)),
                                 ("model alone", Detector.load(info.path, rules=False, dictionaries=False))):
                    rows.append({"order": order, "notes": n, "resources": res, "train_s": round(secs, 1),
                                 **scores(det, eval_docs)})
                if shared:
                    trained[n] = {"rows": rows, "info": info}
            for r in rows:
                out["rows"].append(r)
                print_row(name, r)
    out["goal"] = goal(out["rows"], len(train_pool))
    return out


def goal(rows: list[dict], n_all: int) -> dict:
    """Per order and resources: span recall at 100 notes as a share of the span recall of all notes."""
    res = {}
    for r in rows:
        if r["notes"] == 100:
            full = next((x for x in rows if x["notes"] == n_all and x["order"] == r["order"]
                         and x["resources"] == r["resources"]), None)
            if full and full["span_r"]:
                res[f"{r['order']}, {r['resources']}"] = r["span_r"] / full["span_r"]
    return res


HEADER = (f"{'corpus':9s} {'order':9s} {'notes':>5s} {'resources':24s} {'spanR':>6s} {'spanP':>6s} {'docR':>6s} "
          f"{'charR':>6s} {'charP':>6s} {'F1':>6s} {'train s':>7s}")


def print_row(name: str, r: dict) -> None:
    print(f"{name:9s} {r['order']:9s} {r['notes']:5d} {r['resources']:24s} {r['span_r']:6.3f} {r['span_p']:6.3f} "
          f"{r['doc_r']:6.3f} {r['char_r']:6.3f} {r['char_p']:6.3f} {r['strict_f1']:6.3f} "
          f"{r.get('train_s', 0):7.0f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller grid: 25, 50, 100 and all of a smaller pool")
    ap.add_argument("--corpus", default="meddocan,english", help="comma-separated: meddocan, english")
    ap.add_argument("--generator", default="wide", choices=sorted(GENERATORS), help="English note generator")
    ap.add_argument("--orders", default="random,uncertain", help="comma-separated: random, uncertain")
    ap.add_argument("--english-train", type=int, default=500, help="English training pool (all = this many)")
    ap.add_argument("--english-eval", type=int, default=200, help="English held-out evaluation notes")
    ap.add_argument("--meddocan-train", type=int, default=None, help="MEDDOCAN training pool (default all 500)")
    ap.add_argument("--meddocan-eval", type=int, default=None, help="MEDDOCAN dev notes scored (default all 250)")
    ap.add_argument("--no-refit", action="store_true",
                    help="score the fit on the notes minus their dev split, without the default refit on both "
                         "(about half the training time; --quick implies it)")
    ap.add_argument("--sizes", default=None,
                    help="comma-separated training sizes, 'all' for the whole pool (default 25,50,100,250,all)")
    ap.add_argument("--uncertain-upto", type=int, default=None,
                    help="train the uncertain order only up to this many notes (and at 'all', shared)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "learning_curve.json"))
    args = ap.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else SIZES
    if args.sizes:
        sizes = tuple(None if x.strip() == "all" else int(x) for x in args.sizes.split(",") if x.strip())
    if args.quick:
        args.english_train, args.english_eval = min(args.english_train, 250), min(args.english_eval, 100)
        args.meddocan_train = args.meddocan_train or 250
        args.meddocan_eval = args.meddocan_eval or 100
    refit = not (args.no_refit or args.quick)
    orders = [o.strip() for o in args.orders.split(",") if o.strip()]
    from pipeline.schemas import I2B2_2014, MEDDOCAN

    print(f"load average at start: {os.getloadavg()}; members: crf (default recipe otherwise"
          f"{'' if refit else ', without the refit on train + dev'})")
    print(HEADER, flush=True)
    result: dict = {"quick": args.quick, "refit": refit, "generator": args.generator, "seed": args.seed,
                    "corpora": {}}
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in [c.strip() for c in args.corpus.split(",") if c.strip()]:
            if corpus == "meddocan":
                pool, ev = meddocan_notes(args.meddocan_train, args.meddocan_eval)
                schema, locale = MEDDOCAN, "es"
            elif corpus == "english":
                pool, ev = english_notes(args.english_train, args.english_eval, args.seed, args.generator)
                schema, locale = I2B2_2014, "en"
            else:
                raise SystemExit(f"unknown corpus {corpus!r}")
            result["corpora"][corpus] = curve(corpus, pool, ev, schema, locale, sizes, orders, args.seed, Path(tmp),
                                              refit, args.uncertain_upto)
            print(f"{corpus}: span recall at 100 notes / at all notes: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in result["corpora"][corpus]["goal"].items()), flush=True)
            _write(args.out, result, t0)     # after each corpus: a long run leaves what it finished
    print(f"load average at end: {os.getloadavg()}; {result['wall_s']:.0f} s")
    return 0


def _write(path: str, result: dict, t0: float) -> None:
    result["wall_s"] = round(time.time() - t0, 1)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    raise SystemExit(main())
