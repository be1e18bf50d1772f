"""``python -m pipeline deidentify``: de-identify a folder of documents into another folder.

Uses the spans in the input files (gold, an annotator's, a detector's), or detects them first
with ``--model``. Writes the de-identified documents in the same format with their new spans,
and prints one summary line (documents, spans per category and action, leaks found). Exit
status 3 when the leak check found an original PHI string in the output.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pipeline.errors import WorkbenchError

NAME = "deidentify"
HELP = ("de-identify documents (brat, i2b2 XML, JSONL) with a profile (redact, replace or a JSON file); "
        "exit 3 if the leak check finds PHI left in the output")

LEAK_EXIT = 3


class DeidCommandError(WorkbenchError):
    """A usage error of the deidentify command (printed as one line)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input", required=True, metavar="DIR", help="folder (or file/zip) of documents with spans")
    p.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl", "text"),
                   help="format of the input and the output (default brat; text needs --model)")
    p.add_argument("--profile", default="replace", metavar="PROFILE",
                   help="redact, replace (default) or a profile JSON file")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for the de-identified documents")
    p.add_argument("--model", metavar="MODEL_DIR", help="detect spans with this model first (input spans ignored)")
    p.add_argument("--secret-file", metavar="PATH",
                   help="per-project secret for keyed surrogates (default: the workbench database's key, var/workbench.secret.key, created 0600 if missing)")
    p.add_argument("--schema", default="auto",
                   help="label schema: meddocan, i2b2-2014, german-8, a JSON file, or auto (default)")
    p.add_argument("--locale", default="auto", help="surrogate lists and date order: en, es, de or auto (the schema's locale)")
    p.add_argument("--resume", action="store_true",
                   help="skip documents already in the output folder (the rerun writes identical files)")
    p.add_argument("--force", action="store_true", help="write into an output folder that already holds files")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of one line")
    from cli.engine_options import add_engine_arguments
    add_engine_arguments(p)


def _read(path: str, fmt: str, schema_arg: str):
    from pipeline.formats import read_collection_auto
    return read_collection_auto(path, fmt, schema_arg)


def _done_ids(docs, out: Path, fmt: str, schema) -> tuple[set[str], list]:
    """Documents an interrupted run already wrote (and, for JSONL, those documents themselves)."""
    if fmt == "jsonl":
        existing = out / "documents.jsonl"
        if not existing.is_file():
            return set(), []
        from pipeline.formats import read_collection
        prior = read_collection(existing, "jsonl", schema)
        return {d.doc_id for d in prior}, prior
    done = set()
    for d in docs:
        if fmt == "brat" and (out / f"{d.doc_id}.txt").is_file() and (out / f"{d.doc_id}.ann").is_file():
            done.add(d.doc_id)
        elif fmt in ("xml", "text") and (out / f"{d.doc_id}{'.xml' if fmt == 'xml' else '.txt'}").is_file():
            done.add(d.doc_id)
    return done, []


def run(args: argparse.Namespace) -> int:
    from cli.console import tqdm_progress
    from cli.engine_options import engine_from_args
    from pipeline.deid import DeidContext, load_profile, load_secret
    from pipeline.engines import DeidJob
    from pipeline.schemas import default_locale
    from services.settings import project_secret

    profile = load_profile(args.profile)
    inp, out = Path(args.input), Path(args.output)
    if out.exists() and not out.is_dir():
        raise DeidCommandError(f"{out} exists and is not a folder")
    if out.resolve() == inp.resolve():
        raise DeidCommandError("--output must differ from --input (originals must not be overwritten)")
    if out.is_dir() and any(out.iterdir()) and not (args.force or args.resume):
        raise DeidCommandError(f"{out} is not empty; choose another folder, or pass --resume or --force")
    if args.format == "text" and not args.model:
        raise DeidCommandError("plain text carries no spans: pass --model to detect them, or use brat/xml/jsonl")

    schema, docs = _read(str(inp), args.format, args.schema)
    secret = load_secret(args.secret_file) if args.secret_file else project_secret()
    locale = args.locale if args.locale != "auto" else default_locale(schema)
    ctx = DeidContext(secret=secret, locale=locale)

    done, prior = _done_ids(docs, out, args.format, schema) if args.resume else (set(), [])
    progress, close = tqdm_progress("deidentify", unit="doc")
    try:  # the engine de-identifies (detecting first with --model) and writes; local or on Ray
        s = engine_from_args(args).deidentify(DeidJob(docs, profile, ctx, out, args.format, frozenset(done), prior,
                                                      model_dir=args.model, progress=progress))
    finally:
        close()

    if args.json:
        print(json.dumps({"profile": profile.name, "output": str(out), **s.to_dict()}, indent=2, sort_keys=True))
    else:
        print(f"deidentify: profile={profile.name} {s.line()} output={out}")
    if s.leaks:
        print(f"warning: the leak check found {s.leaks} original PHI string(s) in the output "
              f"({', '.join(f'{c}={n}' for c, n in sorted(s.leaks_by_category.items()))}); "
              "see the documents and offsets with --json", file=sys.stderr)
        return LEAK_EXIT
    return 0
