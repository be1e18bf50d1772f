"""Do the risk colours separate documents that still hold PHI from those that do not?

    nice -n 10 python benchmarks/risk_separation.py /work/shared/data/meddocan/dev \\
        [--train /work/shared/data/meddocan/train] [--models /tmp/risk-models] [--model VERSION] [--quick]

On MEDDOCAN, a CRF-only default-recipe model (``benchmarks/risk_models.py``) detects the
spans, the ``replace`` profile de-identifies with them, and :mod:`pipeline.risk` scores the
released notes with the candidates the same model sees outside the spans
(:mod:`services.risk_evidence`). A note *holds missed PHI* when a letter or digit of one of its
gold spans lies outside every span the output rewrote (it is then in the released text as
written).

A note *holds missed PHI* (the main figures) when a word of a gold span carrying content (a
digit, or three letters or more that are not a function word) is left; the tables "any
character" count a function word left beside a surrogate too ("su" of "su padre").

Reported, per set: the share of notes with missed PHI that are red or amber (goal >= 0.95),
the share of notes without any that are green (goal >= 0.70), the share of red notes that hold
missed PHI, and the colour x truth table.

Thresholds are chosen on **train only**, cross-fitted: a model trained on one half of train
detects and scores the other half, and the reverse; ``residual_amber`` is the highest value that
keeps 95 % of those notes with missed PHI red or amber, ``residual_red`` the lowest at which half
of the red notes hold missed PHI. **dev** is then scored once with those thresholds by the model
trained on all of train (held out: nothing is tuned on it; the test split is never read).
Lexical evidence (:mod:`pipeline.risk.lexical`: a relative's kinship word, a rare capitalised
word beside a replaced span, an identifier-shaped token) is swept on the same tuning rows: every
variant x ``residual_amber``, and the choice, fixed before dev was scored, is the highest
flagged share whose green share is >= 0.72 (the goal plus a margin of 0.02). BEFORE (no lexical
evidence, ``RiskConfig`` defaults) and AFTER (the choice) are printed for the tuning set and for
dev. Then the second opinion (:mod:`pipeline.risk.gold_evidence`, ``benchmarks/risk_second.py``):
a word classifier and a memory of marked words trained on the gold notes the detecting model
learned from; its thresholds and the model's amber beside it are swept on the same tuning rows
with the same rule. BEFORE (no lexical evidence, ``RiskConfig`` defaults), LEXICAL (the lexical
choice) and AFTER (lexical + the second opinion) are printed for dev, with the time the opinion
takes to train and its cost per 100 notes. Prints figures only, never text; writes
``benchmarks/out/risk_separation.json``.

On a machine with the cores, the whole run (trains the three versions, about 3 minutes each on
two idle cores)::

    nice -n 10 python benchmarks/risk_separation.py /work/shared/data/meddocan/dev

On a loaded one (the figures in the closing note of issue 32: load average 20 on two cores), one
direction of the cross-fit and the half-a version for dev too (a model trained on 250 train
notes)::

    nice -n 10 python benchmarks/risk_separation.py /work/shared/data/meddocan/dev --halves 1 \
        --model benchmarks/out/risk_models/half-a/<version> --second-gold half-a

(``--second-gold half-a``: the dev model learned from half a, so the second opinion does too.)
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
from services.runtime import go_offline  # noqa: E402
from risk_second import TUNED, add_second, choose_second, config_of, print_sweep, train_second  # noqa: E402
from risk_truth import missed_categories, missed_phi  # noqa: E402

go_offline()

GOAL_FLAGGED, GOAL_GREEN = 0.95, 0.70
SECRET = b"risk-separation-benchmark-key-32"


def by_category(rows: list[dict], cols: list[str]) -> dict:
    """Per category of missed PHI: the notes missing it and the share of them flagged red or amber
    (a note missing two categories counts under both)."""
    out: dict = {}
    for r, c in zip(rows, cols):
        for cat in r.get("missed_categories", ()):
            n, f = out.get(cat, (0, 0))
            out[cat] = (n + 1, f + (c != "green"))
    return {cat: {"notes": n, "flagged": f, "flagged_share": f / n} for cat, (n, f) in sorted(out.items())}


def print_by_category(name: str, s: dict) -> None:
    print(f"\n{name}, by category of the PHI left (a note under each category it misses):")
    print("| category | notes with it left | flagged red or amber | share | still green (missed) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for cat, v in s.items():
        print(f"| {cat} | {v['notes']} | {v['flagged']} | {v['flagged_share']:.3f} | {v['notes'] - v['flagged']} |")


def scored_set(detector, docs: list, *, content: bool = True, floor: float | None = None) -> list[dict]:
    """Detect, de-identify (replace), find candidates; per note its truth and risk inputs."""
    from pipeline.deid import DeidContext, builtin_profiles, deidentify
    from pipeline.risk import DeidDocument, DeidSpan
    from pipeline.schemas import MEDDOCAN
    from services.risk_evidence import with_candidates

    profile = builtin_profiles()["replace"]
    ctx = DeidContext(secret=SECRET, locale="es")
    found = detector.detect_many(docs)
    rows, released = [], []
    for doc, spans in zip(docs, found):
        r = deidentify(doc, spans, profile, ctx)
        released.append(DeidDocument(doc.doc_id, r.text, [DeidSpan(s.start, s.end, s.category, s.type, action=a,
                                                                    score=float(s.score), source=s.source)
                                                           for s, a in zip(r.spans, r.actions)]))
        rewritten = [s for s, a in zip(r.source_spans, r.actions) if a != "keep"]   # what the output replaced
        rows.append({"id": doc.doc_id, "missed": missed_phi(doc, rewritten, content=content),
                     "missed_any": missed_phi(doc, rewritten), "has_phi": bool(doc.spans),
                     "missed_categories": missed_categories(doc, rewritten, MEDDOCAN)})
    with_candidates(detector, released, lexical=None, **({} if floor is None else {"floor": floor}))
    for row, d in zip(rows, released):
        row["doc"] = d
    return rows


def colours(rows: list[dict], config) -> list[str]:
    from pipeline.risk import score_run

    by_id = {r.doc_id: r.colour for r in score_run([r["doc"] for r in rows], config)}
    return [by_id[r["id"]] for r in rows]


def table(rows: list[dict], cols: list[str]) -> dict:
    t = {f"{c}|{m}": 0 for c in ("red", "amber", "green") for m in ("missed", "clean")}
    for r, c in zip(rows, cols):
        t[f"{c}|{'missed' if r['missed'] else 'clean'}"] += 1
    missed = [c for r, c in zip(rows, cols) if r["missed"]]
    clean = [c for r, c in zip(rows, cols) if not r["missed"]]
    red = [r["missed"] for r, c in zip(rows, cols) if c == "red"]
    return {"notes": len(rows), "with_missed_phi": len(missed),
            "flagged_share": sum(c != "green" for c in missed) / len(missed) if missed else None,
            "green_share_of_clean": sum(c == "green" for c in clean) / len(clean) if clean else None,
            "red_precision": sum(red) / len(red) if red else None, "table": t}


_RANK = {"green": 0, "amber": 1, "red": 2}


def only_glue(text: str) -> bool:
    from pipeline.risk.residual import only_glue as glue
    return glue(text)


def fixed_colours(rows: list[dict], base) -> list[str]:
    """Each note's colour from everything but the model's and the second opinion's candidates
    (they are what is tuned)."""
    from pipeline.risk import DeidDocument, score_run

    docs = [DeidDocument(r["doc"].doc_id, r["doc"].text, r["doc"].spans,
                         candidates=[c for c in r["doc"].candidates if c.source not in TUNED]) for r in rows]
    by_id = {x.doc_id: x.colour for x in score_run(docs, base)}
    return [by_id[r["id"]] for r in rows]


def colours_at(rows: list[dict], fixed: list[str], amber: float, red: float) -> list[str]:
    """What the scorer gives at these thresholds (the model's strongest candidate sets the level)."""
    out = []
    for r, f in zip(rows, fixed):
        text = r["doc"].text
        p = max((c.score for c in r["doc"].candidates if c.source == "model" and not only_glue(text[c.start:c.end])),
                default=0.0)
        level = "red" if p >= red else "amber" if p >= amber else "green"
        out.append(max(f, level, key=_RANK.__getitem__))
    return out


def tune(rows: list[dict], base, amber: float | None = None) -> tuple[float, float]:
    """``residual_amber``: the highest keeping >= 95 % of missed notes flagged, or where no
    threshold does, the one with the largest flagged share + green share (Youden's J);
    ``residual_red``: the lowest at which >= half of the red notes hold missed PHI (both on
    these rows only)."""
    fixed = fixed_colours(rows, base)
    grid = [0.005, 0.01, 0.02, 0.03, 0.05, 0.075] + [round(0.1 * i, 2) for i in range(1, 10)] + [0.95, 0.99]
    if amber is None:
        shares = {t: table(rows, colours_at(rows, fixed, t, 1.01)) for t in grid}
        reach = [t for t in grid if (shares[t]["flagged_share"] or 0) >= GOAL_FLAGGED]
        amber = max(reach) if reach else max(grid, key=lambda t: (shares[t]["flagged_share"] or 0)
                                             + (shares[t]["green_share_of_clean"] or 0))
    amber = min(amber, 1.0)
    red = 1.0
    for t in reversed([g for g in grid if g >= amber]):
        s = table(rows, colours_at(rows, fixed, amber, t))
        if s["red_precision"] is not None and s["red_precision"] >= 0.5:
            red = t
    return amber, red


GREEN_MARGIN = 0.02   # the choice keeps green >= goal + this on the tuning set (fixed before dev was scored)


def lexical_variants() -> dict[str, "LexicalConfig"]:
    """The lexical evidence variants swept on the tuning set (:mod:`pipeline.risk.lexical`)."""
    from pipeline.risk.lexical import LexicalConfig

    out = {}
    for kin in ("off", "structured", "any"):
        for near in (0.0, 1.0, 2.0, 3.0):
            for ids in (0, 6):
                for anywhere in ((0.0, 1.0) if near == 0.0 else (0.0,)):
                    name = f"kinship={kin} rare_near<{near:g} rare_any<{anywhere:g} id_digits>={ids}"
                    out[name] = LexicalConfig(kinship=kin != "off", kinship_any=kin == "any", rare_near_zipf=near,
                                              rare_any_zipf=anywhere, id_digits=ids)
    return out


def with_lexical(rows: list[dict], words, cfg) -> list[dict]:
    """The rows with their lexical candidates found again under ``cfg`` (the rest kept)."""
    from pipeline.risk import DeidDocument
    from pipeline.risk.lexical import lexical_candidates

    out = []
    for r in rows:
        d = r["doc"]
        keep = [c for c in d.candidates if not c.source.startswith("lexical:")]
        doc = DeidDocument(d.doc_id, d.text, d.spans, candidates=keep)
        doc.candidates = keep + lexical_candidates(doc, words, cfg)
        out.append({**r, "doc": doc})
    return out


def choose_lexical(rows: list[dict], words, base) -> tuple[str, float, list[dict], list[dict]]:
    """Every variant x ``residual_amber`` (red off) on the tuning rows; the choice, fixed before
    dev is scored: the highest flagged share whose green share is >= goal + margin (ties: higher
    green). Returns the variant's name, its amber threshold, its rows and the sweep."""
    grid = [0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 1.01]
    sweep_rows, best, best_key = [], None, None
    for name, cfg in lexical_variants().items():
        vrows = with_lexical(rows, words, cfg)
        fixed = fixed_colours(vrows, base)
        for t in grid:
            s = table(vrows, colours_at(vrows, fixed, t, 1.01))
            fl, gr = s["flagged_share"] or 0.0, s["green_share_of_clean"] or 0.0
            sweep_rows.append({"variant": name, "residual_amber": t, "flagged_share": fl, "green_share_of_clean": gr})
            key = (fl, gr)
            if gr >= GOAL_GREEN + GREEN_MARGIN and (best_key is None or key > best_key):
                best, best_key = (name, t, vrows), key
    if best is None:
        raise SystemExit("no variant keeps green above the goal on the tuning set")
    return best[0], best[1], best[2], sweep_rows


def strict_view(rows: list[dict]) -> list[dict]:
    """The same notes judged by any letter or digit of PHI left (function words included)."""
    return [{**r, "missed": r["missed_any"]} for r in rows]


def sweep(rows: list[dict], base) -> list[dict]:
    """Flagged and green shares at each ``residual_amber`` (red off): the trade-off to choose from."""
    fixed = fixed_colours(rows, base)
    out = []
    for t in (0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5):
        s = table(rows, colours_at(rows, fixed, t, 1.01))
        out.append({"residual_amber": t, "flagged_share": s["flagged_share"], "green_share_of_clean": s["green_share_of_clean"]})
    return out


def print_table(name: str, s: dict) -> None:
    t = s["table"]
    print(f"\n{name}: {s['notes']} notes, {s['with_missed_phi']} with missed PHI")
    print("| colour | notes with missed PHI | notes without |")
    print("| --- | ---: | ---: |")
    for c in ("red", "amber", "green"):
        print(f"| {c} | {t[c + '|missed']} | {t[c + '|clean']} |")
    fmt = (lambda v: "n/a" if v is None else f"{v:.3f}")
    print(f"missed PHI flagged red or amber: {fmt(s['flagged_share'])} (goal >= {GOAL_FLAGGED}); "
          f"notes without missed PHI green: {fmt(s['green_share_of_clean'])} (goal >= {GOAL_GREEN}); "
          f"red notes holding missed PHI: {fmt(s['red_precision'])}")


def second_stage(cross: list[dict], parts: list, words, chosen, tuned, *, hold_model: bool, result: dict):
    """The second opinion's thresholds chosen on the tuning rows (each part of the cross-fit with
    the opinion of the half its model learned from); prints and records them, returns the config."""
    second_rows = with_lexical(cross, words, chosen)
    i = 0
    for n, opinion, _ in parts:
        add_second(second_rows[i:i + n], opinion)
        i += n
    th, sweep_rows = choose_second(second_rows, fixed_colours(second_rows, tuned), GOAL_GREEN + GREEN_MARGIN, table,
                                   (tuned.residual_amber, tuned.residual_red), joint=not hold_model)
    opinion, seconds = parts[0][1], parts[0][2]
    second_cfg = config_of(tuned, th, opinion.notes)
    print_sweep(sweep_rows)
    result["second"] = {"thresholds": th, "train_seconds": seconds, "joint": not hold_model, "sweep": sweep_rows}
    print(f"second opinion chosen on train: {th}; trained on {opinion.notes} gold notes in {seconds:.1f} s")
    result["train_second"] = table(second_rows, colours(second_rows, second_cfg))
    print_table("AFTER (lexical + the second opinion trained on gold), train cross-fitted (tuning set)",
                result["train_second"])
    return second_cfg


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dev", help="MEDDOCAN dev folder (brat)")
    ap.add_argument("--train", help="MEDDOCAN train folder (default: beside dev)")
    ap.add_argument("--models", default=str(REPO / "benchmarks" / "out" / "risk_models"),
                    help="folder of the cached versions (trained there when absent)")
    ap.add_argument("--model", help="an existing version trained on train for dev (skips training 'full')")
    ap.add_argument("--quick", action="store_true", help="100 notes of each train half and of dev")
    ap.add_argument("--halves", type=int, choices=(1, 2), default=2,
                    help="2: both directions of the cross-fit; 1: only the model of the first half scoring the "
                         "second (half the training, for a loaded machine)")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "risk_separation.json"))
    ap.add_argument("--second-gold", choices=("train", "half-a"), default="train",
                    help="the gold notes the second opinion for dev learns from: all of train (with the model trained "
                         "on all of it) or half a (with --model of half a: the notes that model learned from)")
    ap.add_argument("--hold-model", action="store_true",
                    help="hold the model's amber where the lexical stage chose it (default: sweep it with the second "
                         "opinion's thresholds, as residual_amber_beside_opinion)")
    ap.add_argument("--floor", type=float, default=0.005,
                    help="lowest probability a model candidate is kept at (the sweep starts there)")
    args = ap.parse_args()

    from pipeline.detection.detector import Detector
    from pipeline.formats import read_collection
    from pipeline.risk import RiskConfig
    from pipeline.schemas import MEDDOCAN
    from risk_models import halves, train
    from services.risk_evidence import lexical_words

    dev_dir = Path(args.dev)
    train_dir = Path(args.train) if args.train else dev_dir.parent / "train"
    train_docs = read_collection(train_dir, "brat", MEDDOCAN)
    dev_docs = read_collection(dev_dir, "brat", MEDDOCAN)
    a, b = halves(train_docs)
    out_dir = Path(args.models)
    cut = (lambda xs: xs[:100]) if args.quick else (lambda xs: xs)
    t0 = time.time()
    cross = scored_set(Detector.load(train(a, out_dir, "half-a")), cut(b), floor=args.floor)
    opinion_a, train_s = train_second(a)
    parts = [(len(cross), opinion_a, train_s)]
    if args.halves == 2:
        cross += scored_set(Detector.load(train(b, out_dir, "half-b")), cut(a), floor=args.floor)
        parts.append((len(cross) - parts[0][0], *train_second(b)))
    base = RiskConfig()
    words = lexical_words(MEDDOCAN, "es")
    result = {"halves": args.halves, "before": {"residual_amber": base.residual_amber,
                                                "residual_red": base.residual_red, "lexical": "off"}}
    result["train_before"] = table(cross, colours(cross, base))
    print_table("BEFORE (no lexical evidence, RiskConfig defaults), train cross-fitted (tuning set)",
                result["train_before"])
    name, amber, chosen_rows, result["lexical_sweep"] = choose_lexical(cross, words, base)
    amber, red = tune(chosen_rows, base, amber)
    tuned = replace(base, residual_amber=amber, residual_red=red)
    chosen = lexical_variants()[name]
    print(f"\nchosen on train ({args.halves} cross-fitted half/halves, {len(cross)} notes; highest flagged share with "
          f"green >= {GOAL_GREEN + GREEN_MARGIN}): {name}, residual_amber={amber} residual_red={red}")
    best = sorted(result["lexical_sweep"], key=lambda x: (-x["flagged_share"], -x["green_share_of_clean"]))
    print("tuning set, best flagged share at each green floor:")
    for floor in (0.60, 0.65, 0.70, 0.72, 0.75, 0.80):
        x = next((x for x in best if x["green_share_of_clean"] >= floor), None)
        if x:
            print(f"  green >= {floor}: flagged {x['flagged_share']:.3f} green {x['green_share_of_clean']:.3f} "
                  f"({x['variant']}, residual_amber={x['residual_amber']})")
    result["chosen"] = {"variant": name, "residual_amber": amber, "residual_red": red}
    result["train_after"] = table(chosen_rows, colours(chosen_rows, tuned))
    print_table("LEXICAL (chosen lexical evidence and thresholds, no second opinion), train cross-fitted (tuning set)",
                result["train_after"])
    second_cfg = second_stage(cross, parts, words, chosen, tuned, hold_model=args.hold_model, result=result)
    full = Path(args.model) if args.model else train(train_docs, out_dir, "full")
    dev = scored_set(Detector.load(full), cut(dev_docs), floor=args.floor)
    dev_after = with_lexical(dev, words, chosen)
    dev_second = with_lexical(dev, words, chosen)
    opinion_dev, dev_train_s = (opinion_a, train_s) if args.second_gold == "half-a" else train_second(train_docs)
    per_100 = add_second(dev_second, opinion_dev)
    result["second"].update({"dev_gold": args.second_gold, "dev_train_seconds": dev_train_s,
                             "candidates_seconds_per_100_notes": per_100})
    print(f"\nsecond opinion for dev: trained on {args.second_gold} ({opinion_dev.notes} notes) in {dev_train_s:.1f} s; "
          f"its candidates cost {per_100:.2f} s per 100 notes")
    for label, rows_, cfg in (("BEFORE, dev held out", dev, base), ("LEXICAL, dev held out", dev_after, tuned),
                              ("AFTER, dev held out", dev_second, replace(second_cfg, opinion_notes=opinion_dev.notes))):
        cols = colours(rows_, cfg)
        result[label] = table(rows_, cols)
        print_table(label, result[label])
        result[label + ", by category"] = by_category(rows_, cols)
        print_by_category(label, result[label + ", by category"])
        result[label + ", any character"] = table(strict_view(rows_), cols)
        print_table(label + ", any character of PHI left counts", result[label + ", any character"])
    print(f"\n{time.time() - t0:.0f} s")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
