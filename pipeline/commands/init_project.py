"""``python -m pipeline init-project``: what ``./workbench start`` runs before the app.

Creates (or migrates) the database and, on a first start only (no project yet), the synthetic
demo project, so a new installation opens on a workbench with work in it. Prints one line of
counts. Idempotent: later starts change nothing.
"""
from __future__ import annotations

import argparse

NAME = "init-project"
HELP = "create the database and, on first start, the demo project (run by ./workbench start)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--no-demo", action="store_true", help="create the database only, without the demo project")
    p.add_argument("--demo-docs", type=int, default=120, help="documents in the demo project (default 120)")
    p.add_argument("--seed", type=int, default=7, help="seed of the demo corpus (default 7)")


def run(args: argparse.Namespace) -> int:
    import store
    from pipeline.demo import ensure_demo_summary

    path = args.db or store.default_db_path()
    db = store.connect(path)
    summary = None if args.no_demo else ensure_demo_summary(db, n_docs=args.demo_docs, seed=args.seed)
    if summary is not None:
        print(f"database ready; created demo project {summary.line()}")
    else:
        projects = store.list_projects(db)
        n_docs = db.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        print(f"database ready: {len(projects)} project(s), {n_docs} documents")
    return 0
