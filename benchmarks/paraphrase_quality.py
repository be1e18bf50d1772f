"""Paraphrase surrogates on MEDDOCAN dev with gold spans: leaks, Same rate, quality against list
surrogates, speed, and the masked-LM training time.

    python benchmarks/paraphrase_quality.py [--data ../shared/data/meddocan] [--epochs 6] [--hidden 128]
        [--layers 2] [--threads 1] [--repeat 3] [--model DIR] [--save DIR]

1. Trains the project masked LM (:mod:`models.masked_lm`) on the texts of train + dev (gold
   spans guide the masking and the per-category word lists; each note is its own patient), from
   scratch, on the CPU; prints its wall and CPU seconds (``--model DIR`` loads one instead).
2. De-identifies dev (250 notes, gold spans, locale es) with the built-in ``paraphrase``
   profile and with ``replace`` (list surrogates), ``--repeat`` times each with a fresh context:
   notes/s as the median by wall clock and by process CPU time.
3. Prints the run's leak check (must be 0), Same rate (must be 0), fallbacks by reason, and the
   quality table of :mod:`pipeline.deid.quality` for paraphrase beside list surrogates (same
   notes and spans; BERTScore-style similarity with the model's own token embeddings), overall
   and per category.

Every figure is printed with ``os.getloadavg()`` (the machine is shared). No document text is
printed. Exit status 1 if a leak is found or the Same rate is not 0.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from services.runtime import go_offline  # noqa: E402

go_offline()

from models.masked_lm import MaskedLMConfig  # noqa: E402
from models.masked_lm_folders import load_masked_lm, write_masked_lm  # noqa: E402
from models.masked_lm_train import train_masked_lm  # noqa: E402
from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch  # noqa: E402
from pipeline.deid.quality import (compare_with_list_surrogates, format_table, quality_row,  # noqa: E402
                                   replacements)
from pipeline.formats import read_collection  # noqa: E402
from pipeline.schemas import MEDDOCAN  # noqa: E402

SECRET = b"benchmark-secret-not-for-production"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "meddocan"


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="MEDDOCAN folder with train/ and dev/ (brat)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="torch threads for training (default 1)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model", type=Path, help="use this masked-LM folder instead of training one")
    ap.add_argument("--save", type=Path, help="write the trained model under this folder")
    args = ap.parse_args()

    train = read_collection(args.data / "train", "brat", MEDDOCAN)
    dev = read_collection(args.data / "dev", "brat", MEDDOCAN)
    print(f"MEDDOCAN train {len(train)} + dev {len(dev)} notes; dev has {sum(len(d.spans) for d in dev)} gold spans")

    # ---------------------------------------------------------------- 1. the masked LM
    if args.model:
        lm = load_masked_lm(args.model)
        print(f"masked LM {lm.name} loaded from {args.model} (not trained here)")
    else:
        cfg = MaskedLMConfig(hidden=args.hidden, layers=args.layers, heads=4, intermediate=4 * args.hidden,
                             epochs=args.epochs, threads=args.threads)
        docs = train + dev
        before = load()
        (lm, report), wall, cpu = timed(lambda: train_masked_lm(
            [d.text for d in docs], spans=[d.spans for d in docs], groups=[d.doc_id for d in docs], config=cfg))
        print(f"masked LM trained: hidden {cfg.hidden}, {cfg.layers} layers, {cfg.epochs} epochs, "
              f"{report.windows} windows of {cfg.max_len} pieces, {report.steps} steps, {cfg.threads} thread(s)")
        print(f"  training time: {wall:.1f} s wall, {cpu:.1f} s CPU   ({before} before, {load()} after)")
        print(f"  loss per epoch: {', '.join(f'{x:.3f}' for x in report.losses)}")
        if args.save:
            print(f"  written to {write_masked_lm(lm, args.save)}")

    # ---------------------------------------------------------------- 2. speed
    para, listed = builtin_profiles()["paraphrase"], builtin_profiles()["replace"]
    warm = DeidContext(secret=SECRET, locale="es")
    deidentify_batch(dev[:20], listed, warm)                 # word lists loaded once
    runs: dict[str, list] = {}
    print(f"\nspeed on dev ({len(dev)} notes, gold spans), {args.repeat} runs each, fresh context per run")
    print(f"{'profile':<12}{'notes/s (wall, median)':>24}{'notes/s (CPU, median)':>23}   load")
    speed = {}
    for name, profile, infiller in (("paraphrase", para, lm), ("replace", listed, None)):
        walls, cpus = [], []
        for _ in range(args.repeat):
            ctx = DeidContext(secret=SECRET, locale="es", infiller=infiller)
            ctx._lists, ctx._sets, ctx._derived = warm._lists, warm._sets, warm._derived
            batch, wall, cpu = timed(lambda: deidentify_batch(dev, profile, ctx))
            walls.append(wall)
            cpus.append(cpu)
            runs[name] = [batch, ctx]
        speed[name] = (len(dev) / statistics.median(walls), len(dev) / statistics.median(cpus))
        print(f"{name:<12}{speed[name][0]:>24.1f}{speed[name][1]:>23.1f}   {load()}")
    print(f"paraphrase costs {speed['replace'][1] / speed['paraphrase'][1]:.1f}x the CPU time of list surrogates")

    # ---------------------------------------------------------------- 3. checks and quality
    batch, ctx = runs["paraphrase"]
    s = batch.summary
    print(f"\nparaphrase run: {s.line()}")
    print(f"leaks: {s.leaks} (must be 0) · input PHI characters left: {s.uncovered_chars} · "
          f"Same rate: {s.same_rate:.4f} (must be 0)")
    print(f"paraphrased spans: {s.paraphrased} · list-surrogate fallbacks: {s.list_fallbacks} "
          f"{dict(s.paraphrase_fallbacks)}" + (f" ({s.fallback_note()})" if s.fallback_note() else ""))
    rows, wall, cpu = timed(lambda: compare_with_list_surrogates(dev, batch.results, para, ctx, embed=lm.embed))
    print(f"\nquality on dev, the same {rows[0].notes} notes and spans ({wall:.1f} s wall, {cpu:.1f} s CPU, {load()}):")
    print(format_table(rows))

    by_cat = _per_category(dev, batch.results, para, ctx)
    print("\nper category (replacements only; BERTScore is per note, above):")
    print(format_table(by_cat))
    bad = s.leaks or s.same_rate or any(r.same_rate for r in rows)
    print("\n" + ("FAIL: a leak or a surrogate equal to its original" if bad else
                  "ok: 0 leaks, Same rate 0 for paraphrase and list surrogates"))
    return 1 if bad else 0


def _per_category(dev, results, profile, ctx):
    base = deidentify_batch(dev, profile.with_list_surrogates(),
                            DeidContext(secret=ctx.secret, locale=ctx.locale)).results
    reps: dict[tuple[str, str], list] = defaultdict(list)
    notes: dict[tuple[str, str], set] = defaultdict(set)
    for d, r, b in zip(dev, results, base):
        for system, result in (("paraphrase", r), ("list surrogates", b)):
            for x in replacements(d.text, result):
                reps[(x.category, system)].append(x)
                notes[(x.category, system)].add(d.doc_id)
    rows = []
    for (cat, system), xs in sorted(reps.items()):
        row = quality_row(f"{cat} {system}", [], [], xs)
        row.notes = len(notes[(cat, system)])          # notes with such a replacement
        rows.append(row)
    return rows


if __name__ == "__main__":
    sys.exit(main())
