"""``python -m pipeline stats [--project NAME]``: a project's counts as tables (or ``--json``).

Counts only (documents by status and split, spans by layer and category, work per annotator);
nothing here reads document text.
"""
from __future__ import annotations

import argparse
import json

from cli.console import print_table, require_project

NAME = "stats"
HELP = "show document, span and annotation counts of one project (or a line per project)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--project", default=None, help="project name (default: every project, one line each)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")


def _print_project(s: dict) -> None:
    print(f"project {s['project']}: {s['documents']} documents, {s['gold_documents']} with gold "
          f"({s['gold_finished']} finished, {s['gold_spans']} gold spans); active model: {s['active_model'] or '-'}")
    print()
    print_table(["status", "documents"], [[k, v] for k, v in s["documents_by_status"].items()])
    print()
    print_table(["split", "documents"], [[k, v] for k, v in s["documents_by_split"].items()])
    by_layer = s["spans_by_layer_category"]
    if by_layer:
        cats = sorted({c for per in by_layer.values() for c in per})
        layers = sorted(by_layer)
        print()
        rows = [[c, *(by_layer[la].get(c, 0) for la in layers)] for c in cats]
        rows.append(["total", *(s["spans_by_layer"].get(la, 0) for la in layers)])
        print_table(["category", *layers], rows)
    if s["assignments_by_user"]:
        print()
        print_table(["annotator", "assigned", "in_progress", "finished", "hours"],
                    [[u, int(a.get("assigned", 0)), int(a.get("in_progress", 0)), int(a.get("finished", 0)),
                      f"{a.get('seconds', 0.0) / 3600:.2f}"] for u, a in sorted(s["assignments_by_user"].items())])


def run(args: argparse.Namespace) -> int:
    from services import projects as svc

    with svc.open_db(args.db) as db:
        if args.project:
            project = require_project(db, args.project)
            figures = svc.stats(db, project.id)
            if args.json:
                print(json.dumps(figures, indent=2, sort_keys=True))
            else:
                _print_project(figures)
            return 0
        projects = svc.list_projects(db)
        all_figures = {p.name: {"id": p.id, "schema": p.schema.name, **svc.stats(db, p.id)} for p in projects}
    if args.json:
        print(json.dumps(all_figures, indent=2, sort_keys=True))
        return 0
    if not projects:
        print("no projects yet (python -m pipeline import PATH --format ... creates one)")
        return 0
    print_table(["project", "id", "schema", "documents", "gold docs", "gold spans", "pre spans"],
                [[n, f["id"], f["schema"], f["documents"], f["gold_documents"], f["gold_spans"],
                  f["spans_by_layer"].get("pre", 0)] for n, f in all_figures.items()])
    return 0
