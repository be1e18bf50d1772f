"""``python -m pipeline import PATH --format FMT``: read a collection and store it in one go.

All or nothing: every file is checked before the database is touched, and the project (when
new) and its documents are written in one transaction. The summary names counts and labels only.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from cli.console import CommandError, cli_user, find_project, print_table, tqdm_progress
from pipeline.formats import READERS, Limits
from pipeline.schemas import get_schema

NAME = "import"
HELP = ("import documents (with their spans) from brat, i2b2 XML, JSONL, plain text, a table (CSV, TSV, "
        "Parquet), Label Studio, doccano, Prodigy, spaCy DocBin or Hugging Face Parquet into a project")

DEFAULT_SCHEMA = "i2b2-2014"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="a file, a folder or a .zip")
    p.add_argument("--format", required=True, choices=sorted(READERS), help="input format")
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--project", default=None, help="project name (default: the input's name); created if missing")
    p.add_argument("--schema", default=None,
                   help=f"label schema of a new project: i2b2-2014, meddocan, german-8 or a JSON file "
                        f"(default {DEFAULT_SCHEMA}; an existing project keeps its own)")
    p.add_argument("--layer", default="gold", choices=("gold", "pre"), help="layer the imported spans go to")
    p.add_argument("--split", default=None, choices=("train", "dev", "test"), help="split of every imported document")
    p.add_argument("--allow-overlap", action="store_true", help="accept overlapping spans in one document")
    p.add_argument("--max-file-mb", type=float, default=20.0, help="refuse files larger than this (default 20)")
    p.add_argument("--user", default=None, help="name recorded in the audit log (default cli:<login>)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    t = p.add_argument_group("tables (csv, tsv, parquet): one document per row and text column")
    t.add_argument("--text-column", action="append", metavar="COL", help="column of notes (default text; repeat)")
    t.add_argument("--id-column", metavar="COL", help="document name (default id, else row-<n>)")
    t.add_argument("--patient-column", metavar="COL", help="patient id (default patient_id)")
    t.add_argument("--keep-column", action="append", metavar="COL",
                   help="metadata column to keep (repeat; default: every other column)")
    t.add_argument("--drop-column", action="append", default=[], metavar="COL", help="column to leave out (repeat)")


def _table_columns(args):
    """The ``--*-column`` options as :class:`TableColumns` (None when none was given)."""
    from pipeline.formats.table import TableColumns
    from pipeline.formats.table_io import TABLE_FORMATS

    given = [args.text_column, args.id_column, args.patient_column, args.keep_column, args.drop_column]
    if not any(given):
        return None
    if args.format not in TABLE_FORMATS:
        raise CommandError(f"the --*-column options are for tables ({', '.join(TABLE_FORMATS)}), not {args.format}")
    return TableColumns(text=tuple(args.text_column or ("text",)), id=args.id_column, patient=args.patient_column,
                        keep=tuple(args.keep_column) if args.keep_column else None, drop=tuple(args.drop_column))


def _schema_for(db, args):
    project = find_project(db, args.project)
    if project is None:
        return None, get_schema(args.schema or DEFAULT_SCHEMA)
    if args.schema:
        wanted = get_schema(args.schema)
        if wanted.categories != project.schema.categories:
            raise CommandError(f"project {args.project!r} uses schema {project.schema.name!r}, "
                               f"not {wanted.name!r}; leave --schema out or import into another project")
    return project, project.schema


def run(args: argparse.Namespace) -> int:
    from services.imports import import_path
    from services.projects import open_db

    path = Path(args.path)
    if not args.project:
        args.project = path.stem if path.suffix.lower() == ".zip" or path.is_file() else path.name
    user = cli_user(args.user)
    columns = _table_columns(args)
    with open_db(args.db) as db:
        _project, schema = _schema_for(db, args)
        progress, close = tqdm_progress("reading")
        try:  # the app's upload checks too: no archive inside the archive, no binary data in a text
            s = import_path(db, path, args.format, project_name=args.project, schema=schema, user=user,
                            layer=args.layer, split=args.split, allow_overlap=args.allow_overlap, progress=progress,
                            limits=Limits(max_file_bytes=int(args.max_file_mb * 1_000_000)), columns=columns)
        finally:
            close()
    summary = {
        "project": args.project, "project_id": s.project_id, "created": s.created, "schema": schema.name,
        "format": args.format, "layer": s.layer, "documents": s.documents, "spans": s.spans,
        "spans_per_category": s.spans_per_category, "spans_per_type": s.spans_per_type,
        "other_layers": s.other_layers,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"imported {summary['documents']} documents with {summary['spans']} spans into "
          f"{'new ' if s.created else ''}project {args.project!r} (id {s.project_id}, schema {schema.name}, "
          f"layer {summary['layer'] or '-'})")
    if s.other_layers:
        print("also stored: " + ", ".join(f"{n} spans in layer {layer}" for layer, n in s.other_layers.items()))
    if s.spans_per_type:
        rows = [[*label.split("/", 1), n] for label, n in s.spans_per_type.items()]
        print_table(["category", "type", "spans"], rows)
    return 0
