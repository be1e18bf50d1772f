"""``python -m pipeline preannotate --project NAME``: write the ``pre`` layer with a model version.

The same job as the Train page's pre-annotate button (``services.preannotation.preannotate_job``),
run in this process with a tqdm bar. Default documents: those with no gold and no annotator
layer; default model: the project's active version. A project with no model of its own (a cold
start) can use ``--transfer-version ID`` (a version trained in another project of the same
locale; its labels are mapped onto this project's schema) and/or ``--pretrained NAME`` (a
pretrained member, e.g. ``spacy-es_core_news_sm``).
"""
from __future__ import annotations

import argparse

from cli.console import cli_user, require_project

NAME = "preannotate"
HELP = "pre-annotate a project's unannotated documents with its active model (writes the pre layer)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--project", required=True, help="project name")
    p.add_argument("--model-version", type=int, help="model version id (default: the active one)")
    p.add_argument("--doc", type=int, action="append", dest="docs", metavar="ID",
                   help="document id (repeatable; default: documents with no gold and no annotator layer)")
    p.add_argument("--rules-only", action="store_true", help="rules and dictionaries only (no model)")
    p.add_argument("--transfer-version", type=int, metavar="ID",
                   help="a model version id of another project of the same locale (cold start)")
    p.add_argument("--pretrained", metavar="NAME",
                   help="add a pretrained member that needs no gold (spacy-es_core_news_sm for Spanish)")
    p.add_argument("--user", help="name recorded in the audit log (default cli:<login>)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    import services.store_first  # noqa: F401 - first: the store's guard keeps sqlite-utils from importing pandas
    from cli.console import message_bar
    from services.preannotation import preannotate_from_store
    from services.projects import open_db
    from services.settings import db_path as default_db_path

    with open_db(args.db) as db:
        project = require_project(db, args.project)
    progress, close = message_bar(args.no_progress)
    try:
        r = preannotate_from_store(args.db or str(default_db_path()), project.id,
                                   model_version_id=args.model_version, doc_ids=args.docs, rules_only=args.rules_only,
                                   user=cli_user(args.user), progress=progress,
                                   transfer_version_id=args.transfer_version, pretrained=args.pretrained)
    finally:
        close()
    print(f"{r['documents']} document(s) pre-annotated, {r['spans']} span(s) "
          f"from {r.get('source') or ', '.join(r['parts'])}; {r['skipped_stale']} skipped (saved meanwhile), "
          f"{r['dropped_outside_schema']} span(s) outside the schema dropped")
    return 0
