"""After the loop, on the generator's own ward: a CRF trained on one ward's notes, scored on its other patients.

    nice python benchmarks/english_ward_loop.py --sizes 100,400            # default recipe, 250 eval notes
    nice python benchmarks/english_ward_loop.py --sizes 100 --recipe '{"crf": {"c2": 0.01}}' --no-refit
    nice python benchmarks/english_ward_loop.py --sizes 400 --heldout 200  # + the held-out ward part

The setting of the issue's "after the loop" goal (a CRF trained with the default recipe on ~1,200
annotated notes of the same ward, other patients): ward notes (:mod:`pipeline.synthetic.ward`) from
the generator's TRAIN part only (its templates, phrase pools and lists), split by patient
(:func:`models.split.patient_split`) into training notes and evaluation notes, so no patient is on
both sides. A CRF (``members=["crf"]``, locale ``en``, the default recipe unless ``--recipe`` gives
:class:`models.train_config.TrainConfig` overrides) is trained on the first 100, 400, 1,200 training
notes and scored two ways: the model alone (no rules, no dictionaries) and the full cold-start
stack (model + rules + dictionaries), on the evaluation notes as written and on their UPPER and
lower copies; ``--heldout`` adds notes of the held-out part (templates the training notes never
used). Character-level binary precision / recall over non-space characters, recall per category,
and the dev figures the training run itself recorded (thresholds, dev F1 at them and at 0.5).
Every note read here is a train-part note; the held-out part is only scored.

``--convention hipaa`` gives the ward the annotation convention of HIPAA's Safe Harbor (and of the
2008 PhysioNet nursing-note gold): ages under 90 are not PHI, in the training notes and in the
evaluation notes alike. The rules were written for the i2b2 convention (every age), so this is a
ward whose conventions the rules do not share; the model learns the ward's from its gold, and the
run learns on dev which rule and dictionary sources to leave out
(:mod:`pipeline.detection.source_policy`). ``--muted`` with ``--model`` replaces what it learnt.
Prints tables (labels and figures only) and writes ``benchmarks/out/english_ward_loop.json``.
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
from english_generalisation import print_chars, print_rows, run_detector, score  # noqa: E402
from english_ward import recased  # noqa: E402


def ward_split(n_pool: int, n_eval: int, seed: int, split_seed: int = 0):
    """Train-part ward notes of ``n_pool + n_eval`` notes' patients, split by patient into
    training notes and about ``n_eval`` evaluation notes (same templates and lists, other patients)."""
    from models.split import patient_split
    from pipeline.synthetic import generate_corpus

    pool = generate_corpus(n_pool + n_eval, seed, variety="ward", part="train", split_seed=split_seed)
    return patient_split(pool, n_eval / (n_pool + n_eval), seed)


def train(docs, out: Path, seed: int, recipe: dict, refit: bool, unlabelled: list[str] | None = None):
    """Train the CRF member with the ``en`` default recipe plus ``recipe``'s overrides
    (``unlabelled``: the project's other notes' texts, for the word clusters, as the Train page passes them)."""
    from models.trainer import TrainConfig, train_ensemble
    from pipeline.schemas import I2B2_2014

    cfg = TrainConfig.from_dict({"members": ["crf"], "locale": "en", "seed": seed, "threads": 1,
                                 "refit_crf": refit, **recipe})
    t, c = time.time(), time.process_time()
    info = train_ensemble(list(docs), None, I2B2_2014, cfg, out, extra_texts=unlabelled)
    return info, time.time() - t, time.process_time() - c


def dev_summary(info) -> dict:
    """What the run recorded on its own dev notes: thresholds, strict F1 at them and at 0.5."""
    m = info.metrics
    return {"thresholds": info.thresholds, "dev_f1": m["ensemble"]["strict"]["f1"],
            "dev_f1@0.5": m["ensemble@0.5"]["strict"]["f1"],
            "dev_chars": m["ensemble"].get("characters", {}), "n_train": info.n_train_docs, "n_dev": info.n_dev_docs,
            "spared_steps": list(getattr(info, "spared_steps", [])),
            "muted_sources": list(getattr(info, "muted_sources", []))}


def hipaa_ages(docs):
    """``docs`` with the gold ages under 90 taken out (Safe Harbor: only ages over 89 are PHI)."""
    import re
    from dataclasses import replace

    def kept(d, s):
        if s.category != "AGE":
            return True
        m = re.search(r"\d+", d.text[s.start:s.end])
        return m is None or int(m.group()) >= 90
    return [replace(d, spans=[s for s in d.spans if kept(d, s)]) for d in docs]


def phi_share(docs) -> float:
    """Share of non-space characters inside gold spans."""
    phi = tot = 0
    for d in docs:
        inside = bytearray(len(d.text))
        for s in d.spans:
            inside[s.start:s.end] = b"\1" * (s.end - s.start)
        for ch, f in zip(d.text, inside):
            if not ch.isspace():
                tot += 1
                phi += f
    return phi / max(tot, 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100,400", help="comma-separated training sizes (up to --pool)")
    ap.add_argument("--pool", type=int, default=None, help="training notes generated (default: the largest size)")
    ap.add_argument("--eval", type=int, default=250, help="evaluation notes (other patients of the same ward)")
    ap.add_argument("--heldout", type=int, default=0, help="also score this many held-out ward notes")
    ap.add_argument("--recipe", default="{}", help="JSON TrainConfig overrides (default: the en default recipe)")
    ap.add_argument("--no-refit", action="store_true", help="without the refit on train + dev (half the time)")
    ap.add_argument("--no-case-copies", action="store_true", help="score as written only (no UPPER / lower copies)")
    ap.add_argument("--model", default=None, help="score this trained version (a folder) instead of training")
    ap.add_argument("--spared", default=None,
                    help="with --model: comma-separated steps to spare instead of the version's own ('' for none)")
    ap.add_argument("--muted", default=None,
                    help="with --model: comma-separated sources to leave out instead of the version's own ('' for none)")
    ap.add_argument("--convention", choices=("i2b2", "hipaa"), default="i2b2",
                    help="hipaa: the ward's gold marks ages over 89 only, as Safe Harbor does")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--split-seed", type=int, default=0)
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "english_ward_loop.json"))
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    recipe = json.loads(args.recipe)

    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014
    from pipeline.synthetic import generate_corpus

    train_pool, ev = ward_split(args.pool or max(sizes), args.eval, args.seed, args.split_seed)
    if args.convention == "hipaa":
        train_pool, ev = hipaa_ages(train_pool), hipaa_ages(ev)
    evals = {"same ward": ev}
    if not args.no_case_copies:
        evals.update({"same ward UPPER": recased(ev, "upper"), "same ward lower": recased(ev, "lower")})
    if args.heldout:
        held = generate_corpus(args.heldout, args.seed + 2000, variety="ward", part="heldout", split_seed=args.split_seed)
        evals["ward held-out"] = hipaa_ages(held) if args.convention == "hipaa" else held
    print(f"load average at start: {os.getloadavg()}; recipe overrides {recipe}; refit {not args.no_refit}; "
          f"{len(train_pool)} training notes, {len(ev)} evaluation notes (PHI {phi_share(ev):.3f} of characters)")
    result: dict = {"recipe": recipe, "refit": not args.no_refit, "seed": args.seed, "n_eval": len(ev),
                    "sizes": {}, "rules": {}}
    rules = Detector.without_model(I2B2_2014, "en")
    for name, docs in evals.items():
        result["rules"][name] = score(run_detector(rules, docs)[0], docs)
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            if args.model:
                info, wall, cpu = _given(args.model, args.spared, args.muted)
            else:
                info, wall, cpu = train(train_pool[:n], Path(tmp) / f"n{n}", args.seed, recipe, not args.no_refit)
            dev = dev_summary(info)
            print(f"\n{n} notes: trained {wall:.0f} s wall, {cpu:.0f} s CPU; dev F1 {dev['dev_f1']:.3f} at thresholds, "
                  f"{dev['dev_f1@0.5']:.3f} at 0.5; thresholds {dev['thresholds']}; spared steps {dev['spared_steps']}; "
                  f"muted sources {dev['muted_sources']}")
            dets = (("model alone", Detector.load(info.path, rules=False, dictionaries=False)),
                    ("model + rules + dictionaries", Detector.load(info.path)))
            muted = list(getattr(info, "muted_sources", []))
            if muted:    # the same model and stack with nothing muted, to show what muting did
                dets += (("... nothing muted", Detector.load(info.path)),)
            for label, det in dets:
                det.ensemble.info.spared_steps = list(info.spared_steps)
                det.ensemble.info.muted_sources = [] if label == "... nothing muted" else muted
            got: dict = {"train_wall_s": round(wall), "train_cpu_s": round(cpu), "dev": dev, "rows": {}}
            for name, docs in evals.items():
                rows = [("rules + dictionaries", result["rules"][name])]
                rows += [(label, score(run_detector(det, docs)[0], docs)) for label, det in dets]
                print_rows(f"{name}, {n} training notes", rows)
                print_chars(name, rows)
                got["rows"][name] = dict(rows[1:])
            result["sizes"][str(n)] = got
            _write(args.out, result)
    print(f"\nload average at end: {os.getloadavg()}")
    return 0


def _given(path: str, spared: str | None, muted: str | None = None):
    """A trained version's info (``--model``), its spared steps (muted sources) replaced when
    ``spared`` (``muted``) is given."""
    from models.version import ModelVersionInfo

    info = ModelVersionInfo.from_dir(path)
    if spared is not None:
        info.spared_steps = [x for x in spared.split(",") if x]
    if muted is not None:
        info.muted_sources = [x for x in muted.split(",") if x]
    return info, 0.0, 0.0


def _write(path: str, result: dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(result, indent=1, default=str))


if __name__ == "__main__":
    raise SystemExit(main())
