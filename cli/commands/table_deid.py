"""``python -m pipeline deidentify-table``: de-identify a CSV, TSV or Parquet table into the same table.

The user names the text column(s), the id column and the patient column; the other columns are
pseudonymised (``--pseudonymise mrn:pat``: the same HMAC and key as document and patient names),
shifted as dates by the patient's offset (``--date-column``), kept (``--keep``) or dropped (the
default for a column nobody named; ``--other keep`` keeps them). Spans are detected with
``--model`` (a model version folder) or the locale's rules and dictionaries. The table is
streamed in chunks with a progress bar on stderr; the output appears only when every row was
written. Prints one summary line (counts, never a cell); exit status 3 when the leak check found
input PHI in the output (the summary's ``leak_details`` name rows and offsets, with ``--json``).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

NAME = "deidentify-table"
HELP = "de-identify the text columns of a CSV, TSV or Parquet table (ids pseudonymised, dates shifted); exit 3 on leaks"
LEAK_EXIT = 3


def _pseudonymise(spec: str) -> tuple[str, str]:
    col, _, kind = spec.partition(":")
    if not col:
        raise argparse.ArgumentTypeError("give a column name, optionally with :KIND (pat, doc, enc, ...)")
    return col, kind or "id"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="the table (.csv, .tsv or .parquet)")
    p.add_argument("output", help="where to write the de-identified table (same format)")
    p.add_argument("--format", choices=("csv", "tsv", "parquet"), help="table format (default: from the suffix)")
    p.add_argument("--text-column", action="append", required=True, metavar="COL", help="a column of notes (repeat)")
    p.add_argument("--id-column", metavar="COL", help="the note id: becomes its document pseudonym (doc-...)")
    p.add_argument("--patient-column", metavar="COL", help="the patient id: becomes the patient pseudonym (pat-...)")
    p.add_argument("--pseudonymise", action="append", type=_pseudonymise, default=[], metavar="COL[:KIND]",
                   help="replace a column's values by keyed pseudonyms; KIND pat gives the patient pseudonym "
                        "(default kind: id)")
    p.add_argument("--date-column", action="append", default=[], metavar="COL",
                   help="shift this column's dates by the patient's offset (repeat)")
    p.add_argument("--keep", action="append", default=[], metavar="COL", help="keep this column as it is (repeat)")
    p.add_argument("--drop", action="append", default=[], metavar="COL", help="leave this column out (repeat)")
    p.add_argument("--other", choices=("drop", "keep"), default="drop",
                   help="columns named by no option (default drop: they may hold PHI)")
    p.add_argument("--profile", default="replace", metavar="PROFILE",
                   help="redact, replace (default) or a profile JSON file")
    p.add_argument("--model", metavar="MODEL_DIR", help="detect with this model version (default: rules and "
                                                        "dictionaries of the schema's locale)")
    p.add_argument("--schema", default="i2b2-2014", help="label schema without --model (default i2b2-2014)")
    p.add_argument("--locale", default=None, help="surrogate lists and date order (default: the schema's or model's)")
    p.add_argument("--secret-file", metavar="PATH",
                   help="key of the pseudonyms and surrogates (default: the workbench database's key)")
    p.add_argument("--chunk-rows", type=int, default=1000, help="rows read and written at a time (default 1000)")
    p.add_argument("--max-cell-mb", type=float, default=20.0, help="refuse a cell larger than this (default 20)")
    p.add_argument("--workers", type=int, default=None, metavar="N", help="processes to detect in (default: cores)")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    from cli.console import CommandError, tqdm_progress
    from pipeline.deid import load_profile, load_secret
    from pipeline.deid.table_rows import ColumnPlan, ColumnPlanError
    from pipeline.formats.table_io import table_format
    from services.settings import project_secret
    from services.table_deid import TableJob, deidentify_table, table_detector

    out = Path(args.output)
    if out.exists() and not args.force:
        raise CommandError(f"{out} exists; choose another file or pass --force")
    if args.chunk_rows < 1:
        raise CommandError("--chunk-rows must be at least 1")
    try:
        plan = ColumnPlan(text=tuple(args.text_column), id=args.id_column, patient=args.patient_column,
                          keep=tuple(args.keep), drop=tuple(args.drop), pseudonymise=dict(args.pseudonymise),
                          dates=tuple(args.date_column), other=args.other)
    except ColumnPlanError as e:
        raise CommandError(str(e)) from None
    fmt = table_format(args.input, args.format)
    profile = load_profile(args.profile)
    secret = load_secret(args.secret_file) if args.secret_file else project_secret()
    detector = table_detector(model_dir=args.model, schema=args.schema, locale=args.locale)
    job = TableJob(Path(args.input), out, plan, profile, secret, args.locale or detector.locale, fmt,
                   chunk_rows=args.chunk_rows, max_cell_chars=int(args.max_cell_mb * 1_000_000))
    progress, close = tqdm_progress("deidentify-table", unit="row")
    try:
        s = deidentify_table(job, detector, progress=progress, workers=args.workers)
    finally:
        close()
    if args.json:
        print(json.dumps({"profile": profile.name, **s.to_dict()}, indent=2, sort_keys=True))
    else:
        print(f"deidentify-table: profile={profile.name} {s.line()} output={out}")
    if s.leaks:
        print(f"error: the leak check found {s.leaks} piece(s) of input PHI in the output; do not release it; "
              "see the rows and offsets with --json", file=sys.stderr)
        return LEAK_EXIT
    return 0
