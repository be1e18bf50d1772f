"""``python -m pipeline export --project NAME --format FMT --out DIR``: write a layer to files.

Only documents that have the layer are written (a document never annotated must not look like
one without PHI); plain text writes every document. The export is audited: files leaving the
database hold PHI.

``--run RUN_ID`` writes a de-identification run's outputs instead, gated by the risk decisions
(:mod:`services.release`): withheld and sent-back documents are left out and counted, and a
project that requires every red document to be decided refuses an undecided run.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from cli.console import CommandError, cli_user, require_project
from pipeline.formats import WRITERS

NAME = "export"
HELP = ("export a project's documents and one layer of spans as brat, i2b2 XML, JSONL, plain text, CoNLL, "
        "Label Studio, doccano, Prodigy, spaCy DocBin or Hugging Face Parquet")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", required=True, help="project name")
    p.add_argument("--run", type=int, default=None, metavar="RUN_ID",
                   help="export this de-identification run's outputs (withheld and sent-back documents left out)")
    p.add_argument("--format", required=True, choices=sorted(WRITERS), help="output format")
    p.add_argument("--layer", default="gold", help="layer to export: gold, pre or annotator:<user> (default gold)")
    p.add_argument("--out", required=True, help="output folder (must be empty or absent unless --force)")
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--split", default=None, help="only documents of this split")
    p.add_argument("--predictions", default="pre", metavar="LAYER",
                   help="label-studio, prodigy: also write this layer as the model's suggestions (default pre; "
                        "'none' to leave them out)")
    p.add_argument("--label", default="type", choices=("type", "category"), help="CoNLL tag names (default type)")
    p.add_argument("--force", action="store_true", help="write into a folder that already holds files")
    p.add_argument("--user", default=None, help="name recorded in the audit log (default cli:<login>)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    from services.exports import export_layer
    from services.projects import open_db

    user = cli_user(args.user)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CommandError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise CommandError(f"{out} is not empty; choose another folder or pass --force")
    with open_db(args.db) as db:
        project = require_project(db, args.project)
        if args.run is not None:
            return _export_run(db, user, project, args, out)
        predictions = None if args.predictions in ("", "none") else args.predictions
        s = export_layer(db, user, project, out, args.format, layer=args.layer, split=args.split, label=args.label,
                         predictions=predictions)
    summary = {"project": args.project, "format": args.format, "layer": s.layer, "documents": s.documents,
               "spans": s.spans, "files": s.files, "out": str(out)}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"exported {s.documents} documents ({s.spans} spans, layer {s.layer or '-'}) as {args.format} "
              f"to {out} ({s.files} files)")
    return 0


def _export_run(db, user: str, project, args: argparse.Namespace, out: Path) -> int:
    from services.deid_runs import get_run
    from services.release import export_run_folder

    run = get_run(db, user, args.run)
    if run.project_id != project.id:
        raise CommandError(f"run {args.run} is not a run of project {args.project!r}")
    plan = export_run_folder(db, user, args.run, out, args.format)
    summary = {"project": args.project, "run": args.run, "format": args.format, "documents": len(plan.release),
               "withheld": len(plan.withheld), "sent_back": len(plan.sent_back), "out": str(out)}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"run {args.run}: {plan.line()}; written as {args.format} to {out}")
    return 0
