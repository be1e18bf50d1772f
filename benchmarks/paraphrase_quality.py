"""Paraphrase surrogates on MEDDOCAN dev with gold spans: leaks, Same rate, quality against list
surrogates, speed, and the masked-LM training time.

    python benchmarks/paraphrase_quality.py [--data ../shared/data/meddocan] [--epochs 6] [--hidden 128]
        [--layers 2] [--threads 1] [--repeat 3] [--model DIR] [--save DIR] [--raw-training]
        [--synthetic N] [--dev-notes N]

1. Trains the project masked LM (:mod:`models.masked_lm`) on the notes of train, their gold PHI
   replaced by list surrogates first, as ``train-infill`` does (:mod:`models.masked_lm_source`;
   the carried spans guide the masking and the per-category word lists; each note is its own
   patient), from scratch, on the CPU; prints its wall and CPU seconds (``--model DIR`` loads one
   instead). ``--raw-training``: on the real notes and without the keyed set of the project's
   values, as before issue 29, for the comparison.
2. De-identifies dev (250 notes, gold spans, locale es) with the built-in ``paraphrase``
   profile and with ``replace`` (list surrogates), ``--repeat`` times each with a fresh context:
   notes/s as the median by wall clock and by process CPU time.
3. Prints the run's leak check (must be 0), Same rate (must be 0), fallbacks by reason, the
   "real value of the project" column (surrogates equal to or containing a PHI value of the
   training notes that is no public list entry, :mod:`benchmarks.project_values_count`; must be
   0), and the
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
from benchmarks.project_values_count import count_real_values, public_forms, training_forms  # noqa: E402
from models.masked_lm_source import surrogate_source  # noqa: E402
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
    ap.add_argument("--raw-training", action="store_true",
                    help="train on the real notes without the keyed set of project values (before issue 29)")
    ap.add_argument("--synthetic", type=int, default=0, metavar="N",
                    help="train on N synthetic English notes, paraphrase N/4 notes of other patients (not MEDDOCAN)")
    ap.add_argument("--dev-notes", type=int, default=0, help="only the first N dev notes (0: all)")
    args = ap.parse_args()

    if args.synthetic:
        from pipeline.synthetic import generate_corpus

        # the project's notes, and held-out notes of other patients (another seed)
        train = generate_corpus(args.synthetic, 2024)
        dev = generate_corpus(max(1, args.synthetic // 4), 2025, start_patient=1_000_000)
        locale, corpus = "en", f"synthetic English: train {len(train)}, held-out"
    else:
        train = read_collection(args.data / "train", "brat", MEDDOCAN)
        dev = read_collection(args.data / "dev", "brat", MEDDOCAN)
        locale, corpus = "es", f"MEDDOCAN train {len(train)} + dev"
    if args.dev_notes:
        dev = dev[:args.dev_notes]
    print(f"{corpus} {len(dev)} notes; dev has {sum(len(d.spans) for d in dev)} gold spans")

    # ---------------------------------------------------------------- 1. the masked LM
    if args.model:
        lm = load_masked_lm(args.model)
        print(f"masked LM {lm.name} loaded from {args.model} (not trained here)")
    else:
        cfg = MaskedLMConfig(hidden=args.hidden, layers=args.layers, heads=4, intermediate=4 * args.hidden,
                             epochs=args.epochs, threads=args.threads)
        if args.raw_training:
            texts, spans, groups, values = ([d.text for d in train], [d.spans for d in train],
                                            [d.doc_id for d in train], None)
            print("training on the real train notes, no keyed set (--raw-training: before issue 29)")
        else:
            source, wall, cpu = timed(lambda: surrogate_source(train, secret=SECRET, locale=locale))
            texts, spans, groups, values = source.texts, source.spans, source.groups, source.project_values
            print(f"train notes with PHI replaced by list surrogates: {source.counts()} ({wall:.1f} s wall)")
        before = load()
        (lm, report), wall, cpu = timed(lambda: train_masked_lm(texts, spans=spans, groups=groups, config=cfg))
        lm.project_values = values
        print(f"masked LM trained: hidden {cfg.hidden}, {cfg.layers} layers, {cfg.epochs} epochs, "
              f"{report.windows} windows of {cfg.max_len} pieces, {report.steps} steps, {cfg.threads} thread(s)")
        print(f"  training time: {wall:.1f} s wall, {cpu:.1f} s CPU   ({before} before, {load()} after)")
        print(f"  loss per epoch: {', '.join(f'{x:.3f}' for x in report.losses)}")
        if args.save:
            print(f"  written to {write_masked_lm(lm, args.save)}")

    # ---------------------------------------------------------------- 2. speed
    para, listed = builtin_profiles()["paraphrase"], builtin_profiles()["replace"]
    warm = DeidContext(secret=SECRET, locale=locale)
    deidentify_batch(dev[:20], listed, warm)                 # word lists loaded once
    runs: dict[str, list] = {}
    print(f"\nspeed on dev ({len(dev)} notes, gold spans), {args.repeat} runs each, fresh context per run")
    print(f"{'profile':<12}{'notes/s (wall, median)':>24}{'notes/s (CPU, median)':>23}   load")
    speed = {}
    for name, profile, infiller in (("paraphrase", para, lm), ("replace", listed, None)):
        walls, cpus = [], []
        for _ in range(args.repeat):
            ctx = DeidContext(secret=SECRET, locale=locale, infiller=infiller)
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
    forms, public = training_forms(train), public_forms(locale)
    real = {a: count_real_values(batch.results, forms, public, [a]) for a in ("paraphrase", "replace")}
    listed_real = count_real_values(runs["replace"][0].results, forms, public)
    print(f"real value of the project (surrogates equal to or containing a train PHI value that is no public "
          f"list entry; must be 0): paraphrase {real['paraphrase'][0]} of {real['paraphrase'][1]} fills, "
          f"its list fallbacks {real['replace'][0]} of {real['replace'][1]}; "
          f"replace profile {listed_real[0]} of {listed_real[1]}")
    rows, wall, cpu = timed(lambda: compare_with_list_surrogates(dev, batch.results, para, ctx, embed=lm.embed))
    print(f"\nquality on dev, the same {rows[0].notes} notes and spans ({wall:.1f} s wall, {cpu:.1f} s CPU, {load()}):")
    print(format_table(rows))

    by_cat = _per_category(dev, batch.results, para, ctx)
    print("\nper category (replacements only; BERTScore is per note, above):")
    print(format_table(by_cat))
    bad = s.leaks or s.same_rate or any(r.same_rate for r in rows) or real["paraphrase"][0] or real["replace"][0]
    print("\n" + ("FAIL: a leak, a surrogate equal to its original or a real value of the project" if bad else
                  "ok: 0 leaks, Same rate 0 for paraphrase and list surrogates, no real value of the project"))
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
