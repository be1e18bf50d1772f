"""English beyond the generator's own notes: train on one part of the synthetic generator, score on
notes built only from held-out templates, names, places and formats.

    python benchmarks/english_generalisation.py            # default ensemble (slow: encoders)
    python benchmarks/english_generalisation.py --quick    # CRF member only (minutes)

Trains two models with :func:`models.trainer.train_ensemble` (default :class:`TrainConfig` for
locale ``en``, or ``members=["crf"]`` with ``--quick``): one on ``--train`` notes of the old
(narrow) generator, one on ``--train`` train-part notes of the wide generator
(:mod:`pipeline.synthetic.wide`). Scores each on (a) in-distribution notes (its own generator,
another seed) and (b) wide held-out notes (templates, lists and formats no training note used),
for rules and dictionaries alone, the model alone and the full detector
(:class:`pipeline.detection.detector.Detector`): per-category character recall and precision
(any label), strict P/R/F1, span recall (offsets, any type), document recall (all PHI characters
of a note found). Prints tables (labels and figures only) with the load average, and writes
``benchmarks/out/english_generalisation.json``.
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
from services.runtime import go_offline  # noqa: E402

go_offline()

CATEGORIES = ("NAME", "LOCATION", "DATE", "AGE", "CONTACT", "ID", "PROFESSION", "OTHER")


def char_scores(system: dict, gold_docs) -> dict:
    """Per gold category: share of its non-blank PHI characters inside any system span (recall);
    per system category: share of its non-blank characters inside any gold span (precision);
    ``ALL`` pooled. One implementation: :mod:`pipeline.metrics.characters`."""
    from pipeline.metrics.characters import by_label, corpus_counts

    c = corpus_counts([d.text for d in gold_docs],
                      [[(s.start, s.end, s.category) for s in system.get(d.doc_id, ())] for d in gold_docs],
                      [[(s.start, s.end, s.category) for s in d.spans] for d in gold_docs])
    return by_label(c.per_label, c.micro)


def score(system: dict, gold_docs) -> dict:
    """Every figure of one row: strict P/R/F1, span recall (any type), token recall, document
    recall, and the character scores per category."""
    from pipeline.metrics.report import evaluate

    reference = {d.doc_id: list(d.spans) for d in gold_docs}
    texts = {d.doc_id: d.text for d in gold_docs}
    rep = evaluate({k: list(v) for k, v in system.items()}, reference, texts, doc_ids=[d.doc_id for d in gold_docs])
    return {"strict_p": rep.strict.micro.precision, "strict_r": rep.strict.micro.recall, "strict_f1": rep.strict.micro.f1,
            "span_r": rep.span_strict.micro.recall, "span_merged_r": rep.span_merged.micro.recall,
            "token_r": rep.binary_token.micro.recall, "token_p": rep.binary_token.micro.precision,
            "doc_r": rep.document_recall, "chars": char_scores(system, gold_docs)}


def run_detector(det, docs) -> tuple[dict, float]:
    t = time.process_time()
    found = det.detect_many(docs)
    return {d.doc_id: spans for d, spans in zip(docs, found)}, time.process_time() - t


def _f(x) -> str:
    return "   -  " if x is None else f"{x:6.3f}"


def print_rows(title: str, rows: list[tuple[str, dict]]) -> None:
    print(f"\n{title}")
    print(f"{'row':46s} {'strictP':>7s} {'strictR':>7s} {'F1':>6s} {'spanR':>6s} {'tokR':>6s} {'docR':>6s} "
          f"{'charR':>6s} {'charP':>6s}")
    for name, r in rows:
        c = r["chars"]["ALL"]
        print(f"{name:46s} {_f(r['strict_p']):>7s} {_f(r['strict_r']):>7s} {_f(r['strict_f1'])} {_f(r['span_r'])} "
              f"{_f(r['token_r'])} {_f(r['doc_r'])} {_f(c['recall'])} {_f(c.get('precision'))}")


def print_chars(title: str, rows: list[tuple[str, dict]]) -> None:
    cats = [c for c in CATEGORIES if any(c in r["chars"] and r["chars"][c].get("support") for _, r in rows)]
    print(f"\n{title}: character recall / precision per category")
    print(f"{'row':46s} " + " ".join(f"{c[:8]:>13s}" for c in cats))
    for name, r in rows:
        cells = []
        for c in cats:
            x = r["chars"].get(c, {})
            cells.append(f"{_f(x.get('recall')).strip():>6s}/{_f(x.get('precision')).strip():<6s}")
        print(f"{name:46s} " + " ".join(f"{cell:>13s}" for cell in cells))


def train(docs, quick: bool, out_dir: Path, seed: int):
    from models.trainer import TrainConfig, train_ensemble
    from pipeline.schemas import I2B2_2014

    cfg = TrainConfig(locale="en", seed=seed, threads=2)
    if quick:
        cfg.members = ["crf"]
    t, c = time.time(), time.process_time()
    info = train_ensemble(list(docs), None, I2B2_2014, cfg, out_dir)
    return info.path, time.time() - t, time.process_time() - c


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="CRF member only")
    ap.add_argument("--train", type=int, default=400, help="training notes per generator")
    ap.add_argument("--eval", type=int, default=200, help="notes per evaluation set")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--split-seed", type=int, default=0)
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "english_generalisation.json"))
    args = ap.parse_args(argv)

    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014
    from pipeline.synthetic import generate_corpus

    ss = args.split_seed
    sets = {
        "narrow-train": generate_corpus(args.train, args.seed),
        "wide-train": generate_corpus(args.train, args.seed, variety="wide", part="train", split_seed=ss),
        "narrow-eval": generate_corpus(args.eval, args.seed + 1000),
        "wide-train-eval": generate_corpus(args.eval, args.seed + 1000, variety="wide", part="train", split_seed=ss),
        "heldout": generate_corpus(args.eval, args.seed + 2000, variety="wide", part="heldout", split_seed=ss),
    }
    print(f"load average at start: {os.getloadavg()}; mode: {'CRF only (--quick)' if args.quick else 'default ensemble'}")
    results: dict = {"mode": "quick" if args.quick else "default", "n_train": args.train, "n_eval": args.eval,
                     "timings": {}, "rows": {}}
    rules = Detector.without_model(I2B2_2014, "en")
    with tempfile.TemporaryDirectory() as tmp:
        models = {}
        for name in ("narrow", "wide"):
            path, wall, cpu = train(sets[f"{name}-train"], args.quick, Path(tmp) / name, args.seed)
            models[name] = path
            results["timings"][f"train {name}"] = {"wall_s": wall, "cpu_s": cpu, "load": os.getloadavg()}
            print(f"trained on {name}: {wall:.0f} s wall, {cpu:.0f} s CPU, load {os.getloadavg()}")
        for eval_name, own in (("in-distribution", None), ("held-out", "heldout")):
            rows = []
            for name in ("narrow", "wide"):
                docs = sets[own or ("narrow-eval" if name == "narrow" else "wide-train-eval")]
                dets = [("rules+dictionaries", rules),
                        (f"{name}-trained model alone", Detector.load(models[name], rules=False, dictionaries=False)),
                        (f"{name}-trained full detector", Detector.load(models[name]))]
                for label, det in dets:
                    if own and label == "rules+dictionaries" and name == "wide":
                        continue   # the same held-out notes: one rules row
                    system, cpu = run_detector(det, docs)
                    row = f"{label}, {'narrow' if docs is sets['narrow-eval'] else 'wide'} notes" if not own else label
                    r = score(system, docs)
                    rows.append((row, r))
                    results["timings"][f"detect {eval_name} {row}"] = {"cpu_s": cpu, "load": os.getloadavg()}
            print_rows(f"{eval_name} ({args.eval} notes each)", rows)
            print_chars(eval_name, rows)
            results["rows"][eval_name] = {k: v for k, v in rows}
    print(f"\nload average at end: {os.getloadavg()}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
