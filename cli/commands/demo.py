"""``python -m pipeline demo``: create the synthetic demo project, or write the synthetic corpus.

Without ``--out`` a demo project is created in the database (documents at every workflow stage,
see :mod:`services.demo`). With ``--out DIR`` the corpus and its gold spans are written to a
folder in brat, i2b2 XML or JSONL instead, for tests, benchmarks and other tools. Output names
counts only; the notes are synthetic but are still never printed.
"""
from __future__ import annotations

import argparse

from pipeline.errors import WorkbenchError

NAME = "demo"
HELP = "create the synthetic demo project in a database, or write the synthetic corpus to a folder (--out)"

OUT_FORMATS = ("brat", "xml", "jsonl")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--docs", type=int, default=120, help="number of notes (default 120)")
    p.add_argument("--seed", type=int, default=7, help="random seed; the same seed gives the same corpus (default 7)")
    p.add_argument("--name", default=None, help="project name (default 'Demo (synthetic)')")
    p.add_argument("--out", default=None, help="write the corpus to this folder instead of creating a project")
    p.add_argument("--format", default="brat", choices=OUT_FORMATS, help="format for --out (default brat)")
    p.add_argument("--start-patient", type=int, default=0,
                   help="number of the first synthetic patient (to draw further, disjoint patients)")
    p.add_argument("--variety", default="narrow", choices=("narrow", "wide", "ward"),
                   help="with --out: the original generator (narrow, default), the widened one, or ward notes "
                        "(ICU nursing notes, discharge summaries, radiology, ED triage; PHI sparse)")
    p.add_argument("--part", default="all", choices=("all", "train", "heldout"),
                   help="with --out --variety wide or ward: the train or held-out part of templates, lists and formats")
    p.add_argument("--split-seed", type=int, default=0, help="with --variety wide or ward: which split into parts")


def run(args: argparse.Namespace) -> int:
    if args.docs < 1:
        raise WorkbenchError("--docs must be at least 1")
    if args.out:
        return _write_corpus(args)
    if args.start_patient or args.variety != "narrow" or args.part != "all":
        raise WorkbenchError("--start-patient, --variety and --part only apply with --out")
    from services.demo import DEMO_NAME, build_demo
    from services.projects import open_db

    with open_db(args.db) as db:
        summary = build_demo(db, n_docs=args.docs, seed=args.seed, name=args.name or DEMO_NAME)
    print(f"created demo project {summary.line()}")
    return 0


def _write_corpus(args: argparse.Namespace) -> int:
    from pipeline.synthetic import generate_corpus

    try:
        from pipeline.formats import write_collection
    except ImportError:  # the formats package is optional for this command
        raise WorkbenchError("writing a corpus needs pipeline.formats, which is not available") from None
    try:
        docs = generate_corpus(args.docs, args.seed, start_patient=args.start_patient, variety=args.variety,
                               part=args.part, split_seed=args.split_seed)
    except ValueError as e:
        raise WorkbenchError(str(e)) from None
    files = write_collection(docs, args.out, args.format)
    n_spans = sum(len(d.spans) for d in docs)
    print(f"wrote {len(docs)} synthetic notes ({n_spans} gold spans, {len({d.patient_id for d in docs})} patients) "
          f"as {args.format} to {args.out} ({len(files)} files)")
    return 0
