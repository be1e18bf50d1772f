"""``python -m pipeline export --project NAME --format FMT --out DIR``: write a layer to files.

Only documents that have the layer are written (a document never annotated must not look like
one without PHI); plain text writes every document. The export is audited: files leaving the
database hold PHI.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from pipeline.commands._store_helpers import CommandError, cli_user, open_db, require_project
from pipeline.formats import WRITERS, write_collection
from pipeline.spans import Document

NAME = "export"
HELP = "export a project's documents and one layer of spans as brat, i2b2 XML, JSONL, plain text or CoNLL"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", required=True, help="project name")
    p.add_argument("--format", required=True, choices=sorted(WRITERS), help="output format")
    p.add_argument("--layer", default="gold", help="layer to export: gold, pre or annotator:<user> (default gold)")
    p.add_argument("--out", required=True, help="output folder (must be empty or absent unless --force)")
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--split", default=None, help="only documents of this split")
    p.add_argument("--label", default="type", choices=("type", "category"), help="CoNLL tag names (default type)")
    p.add_argument("--force", action="store_true", help="write into a folder that already holds files")
    p.add_argument("--user", default=None, help="name recorded in the audit log (default cli:<login>)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def _named(doc: Document) -> Document:
    """The store's document (id = row id) renamed to the name it was imported under."""
    meta = {k: v for k, v in doc.meta.items() if k != "name" and v is not None}
    name = str(doc.meta.get("name") or doc.doc_id)
    return Document(doc_id=name, text=doc.text, spans=[s.with_(doc_id=name) for s in doc.spans], meta=meta,
                    patient_id=doc.patient_id, source_file=doc.source_file)


def run(args: argparse.Namespace) -> int:
    import store

    user = cli_user(args.user)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CommandError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise CommandError(f"{out} is not empty; choose another folder or pass --force")
    db = open_db(args.db)
    project = require_project(db, args.project)
    layer = None if args.format == "text" else args.layer
    docs = [_named(d) for d in store.load_documents(db, project.id, layer=layer, split=args.split)]
    if not docs:
        raise CommandError(f"project {args.project!r} has no documents with layer {args.layer!r}"
                           + (f" in split {args.split!r}" if args.split else ""))
    options: dict = {}
    if args.format == "xml" and project.schema.name == "meddocan":
        options["root"] = "MEDDOCAN"
    if args.format == "conll":
        options["label"] = args.label
    files = write_collection(docs, out, args.format, **options)
    n_spans = sum(len(d.spans) for d in docs)
    store.audit(db, user, "export", f"project:{project.id}",
                detail={"format": args.format, "layer": layer, "split": args.split, "documents": len(docs),
                        "spans": n_spans, "files": len(files), "out": str(out.resolve())})
    summary = {"project": args.project, "format": args.format, "layer": layer, "documents": len(docs),
               "spans": n_spans, "files": len(files), "out": str(out)}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"exported {len(docs)} documents ({n_spans} spans, layer {layer or '-'}) as {args.format} "
              f"to {out} ({len(files)} files)")
    return 0
