"""``python -m pipeline export-model --shareable``: a copy of a model version that can leave the
installation, without what it learned from words seen inside PHI, even once (see :mod:`models.shareable`).

A model folder holds identifiers of its training notes (CRF features name words, word clusters
and tokenizer vocabularies list them), so it is PHI like the database and never copied out as it
is. The shareable copy needs the training documents with their gold spans to know which words
were PHI: ``--train`` (and ``--dev``) for a version trained on folders, or ``--project`` for a
version trained in the app (its recorded train and dev documents are read from the store).
Prints counts only.
"""
from __future__ import annotations

import argparse

from pipeline.errors import WorkbenchError

NAME = "export-model"
HELP = "write a shareable copy of a model version (without features and vocabulary of words seen inside PHI)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--shareable", action="store_true",
                   help="remove what the model learned from words seen inside PHI, even once "
                        "(required: a model is PHI)")
    p.add_argument("--out", required=True, metavar="DIR", help="new folder for the copy (must not exist)")
    p.add_argument("--model", metavar="MODEL_DIR", help="a version folder, or a models folder (its active version)")
    p.add_argument("--train", metavar="PATH", help="the annotated documents the version was trained on")
    p.add_argument("--dev", metavar="PATH", help="its dev documents, when training used a separate --dev")
    p.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl"), help="format of --train/--dev")
    p.add_argument("--schema", default="auto", help="label schema of --train (default: auto)")
    p.add_argument("--project", metavar="NAME", help="a version trained in the app: the project")
    p.add_argument("--version", metavar="NAME", help="with --project: the version (default: the active one)")
    p.add_argument("--db", default=None, help="database file for --project (default: the app's)")


def run(args: argparse.Namespace) -> int:
    from models.shareable import shareable_copy

    if not args.shareable:
        raise WorkbenchError("a model holds identifiers of its training notes and is never exported as it is; "
                             "pass --shareable to write a copy without them")
    if args.project:
        from cli.console import cli_user, require_project
        from services.projects import open_db
        from services.training import training_documents, version_for_export

        with open_db(args.db) as db:
            project = require_project(db, args.project)
            user = cli_user(None)
            mv = version_for_export(db, user, project, args.version)
            docs = training_documents(db, user, project, mv)
        model_dir = mv.path
    else:
        if not args.model or not args.train:
            raise WorkbenchError("name the version with --model and its training documents with --train "
                                 "(or use --project for a version trained in the app)")
        from pipeline.formats import read_collection, read_collection_auto

        schema, docs = read_collection_auto(args.train, args.format, args.schema)
        if args.dev:
            docs = docs + read_collection(args.dev, args.format, schema)
        model_dir = args.model
    report = shareable_copy(model_dir, args.out, docs)
    def total(key: str) -> int:
        return sum(m.get(key, 0) for m in report.members.values())

    print(f"shareable copy of {report.version} written to {args.out}: removed {total('features_removed')} CRF "
          f"features, {total('cluster_words_removed')} cluster words and {total('vocabulary_entries_renamed')} "
          f"vocabulary entries; kept {total('features_kept')} features, {total('cluster_words_kept')} cluster words "
          f"and {total('vocabulary_entries_kept')} vocabulary entries")
    print(f"words treated as PHI: {report.phi_words} seen inside a PHI span in {report.training_documents} training "
          f"documents, {report.phi_words_seen_outside_phi} of them also seen outside PHI (removed all the same); "
          f"{report.public_words_kept} public words (function, title, street and institution words) kept")
    return 0
