"""``python -m pipeline train-starter``: an English team's first model, with no gold of its own.

Generates the starter recipe's notes (:mod:`pipeline.synthetic.starter`: ward-style and wide
generated English notes in the measured share, no real person in them) and trains the default
recipe's CRF on them (one surrogate copy, the recipe's case copies, the refit on train + dev),
writing a version under ``--out`` and marking it active there. The version records the identifiers
its detector suggests (``--convention``: HIPAA Safe Harbor for English unless told ``all``). Pre-annotate with it (``detect
--model OUT`` or a project's cold-start source) until the team's own gold can train a better one.
Prints figures and labels only.
"""
from __future__ import annotations

import argparse
import sys

NAME = "train-starter"
HELP = "train a starter detection model on generated notes (English: the measured ward/wide mix), no gold needed"

#: locales with a generator to learn from
LOCALES = ("en",)
#: the identifiers a starter suggests unless told otherwise, per locale: an English starter is for
#: a US ward, where HIPAA's Safe Harbor leaves ages under 90 and professions out; the model cannot
#: learn that from generated notes, which mark every age (pipeline.detection.conventions)
DEFAULT_CONVENTION = {"en": "safe-harbor"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--locale", default="en", help="language of the notes to come (only en has generated notes)")
    p.add_argument("--out", required=True, metavar="MODEL_DIR", help="models directory; the new version goes inside")
    p.add_argument("--notes", type=int, default=None,
                   help="generated notes to learn from (default: the recipe's, 500: about 10 minutes on two cores)")
    p.add_argument("--ward-share", type=float, default=None,
                   help="share of ward-style notes, the rest wide (default: the recipe's)")
    p.add_argument("--case-copies", type=int, default=None, choices=(0, 1, 2),
                   help="UPPER/lower copies of every note (default: the recipe's)")
    p.add_argument("--convention", choices=("safe-harbor", "all"), default=None,
                   help="identifiers it suggests: safe-harbor (HIPAA: ages over 89 only, no professions) "
                        "or all (i2b2 2014: every age and profession); default: safe-harbor for en")
    p.add_argument("--seed", type=int, default=11, help="seed of the generated notes and of training (default 11)")
    p.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    p.add_argument("--name", help="version name (default v<UTC time>-<random>)")
    p.add_argument("--no-activate", action="store_true", help="do not point MODEL_DIR/ACTIVE at the new version")


def recipe_from(args: argparse.Namespace):
    """The default recipe with the options given; ``WorkbenchError`` (one line) for a bad one."""
    from dataclasses import replace

    from pipeline.errors import WorkbenchError
    from pipeline.synthetic.starter import DEFAULT_RECIPE

    if args.locale.split("-")[0].split("_")[0].lower() not in LOCALES:
        raise WorkbenchError(f"no generated notes for locale {args.locale!r}; train-starter supports "
                             f"{', '.join(LOCALES)} (train on your own gold with 'train')")
    over = {k: v for k, v in (("notes", args.notes), ("ward_share", args.ward_share),
                              ("case_copies", args.case_copies)) if v is not None}
    try:
        return replace(DEFAULT_RECIPE, **over)
    except ValueError as e:
        raise WorkbenchError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    recipe = recipe_from(args)          # refused before models (and torch) are imported

    from models.registry import set_active
    from models.trainer import TrainConfig, train_ensemble
    from pipeline.detection.conventions import get_convention
    from pipeline.errors import WorkbenchError
    from pipeline.schemas import I2B2_2014
    from pipeline.synthetic.starter import starter_corpus

    docs = starter_corpus(recipe, args.seed)
    ward, wide = recipe.counts()
    print(f"generated {len(docs)} notes ({ward} ward-style, {wide} wide), {recipe.case_copies} case "
          f"cop{'y' if recipe.case_copies == 1 else 'ies'} each", file=sys.stderr)
    convention = args.convention or DEFAULT_CONVENTION.get("en", "all")
    cfg = TrainConfig(members=["crf"], locale="en", seed=args.seed, threads=args.threads,
                      case_copies=recipe.case_copies, name=args.name, convention=convention,
                      learn_spared_steps=False,   # generated dev notes: a cold start keeps every guard
                      case_view=True)   # its model reads one-case lines truecased (recall first)
    try:
        info = train_ensemble(docs, None, I2B2_2014, cfg, args.out)
    except (ValueError, FileExistsError) as e:
        raise WorkbenchError(str(e)) from None
    if not args.no_activate:
        set_active(args.out, info.name)
    print(f"starter model {info.name} written to {info.path}" + ("" if args.no_activate else " (active)"))
    print(f"generated notes: {info.n_train_docs} train, {info.n_dev_docs} dev   seconds {info.train_seconds:.0f}")
    print(f"suggests: {get_convention(convention).description} (--convention)")
    ch = info.metrics["ensemble"].get("characters")
    if ch:
        print(f"dev characters (generated notes, model alone): P {ch['precision']:.4f}  R {ch['recall']:.4f}   "
              f"document recall {ch['document_recall']:.4f}")
    return 0
