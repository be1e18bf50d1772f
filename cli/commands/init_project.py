"""``python -m pipeline init-project``: what ``./workbench start`` runs before the app.

Creates (or migrates) the database and, on a first start only (no project yet), the synthetic
demo project, so a new installation opens on a workbench with work in it; creates the secret key
file (owner-only) beside the database; and, while no lead account exists, the first lead account:
its password is asked on the terminal, read from ``--lead-password-stdin``, or (no terminal)
generated and printed once. There is never a default password. Idempotent: later starts change
nothing. With ``--train-demo`` (what ``./workbench start`` passes) a first start also queues the
demo set-up job: a model trained on the demo's gold set and activated, and a de-identification run
with risk scores, in the background, so every page shows real work within minutes.
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
    p.add_argument("--lead-user", default="lead", help="name of the first lead account (default: lead)")
    p.add_argument("--lead-password-stdin", action="store_true",
                   help="read the first lead's password from standard input instead of asking")
    p.add_argument("--train-demo", action="store_true",
                   help="on a first start, train and activate a model for the demo and de-identify it, in the "
                        "background (a job; progress on the Train page)")


def run(args: argparse.Namespace) -> int:
    from pipeline.deid.secret import load_or_create_secret
    from services import projects
    from services.demo import ensure_demo_summary, start_demo_setup
    from services.settings import db_path, secret_path

    path = args.db or db_path()
    with projects.open_db(path) as db:     # open while its -wal/-shm get the owner-only mode
        restrict_permissions(path)
        load_or_create_secret(secret_path(path))
        ensure_first_lead(db, args.lead_user, from_stdin=args.lead_password_stdin)
        summary = None if args.no_demo else ensure_demo_summary(db, n_docs=args.demo_docs, seed=args.seed)
        if summary is not None:
            print(f"database ready; created demo project {summary.line()}")
            if args.train_demo:
                job_id = start_demo_setup(path, summary.project_id)
                print(f"training a model for the demo and de-identifying it in the background (job {job_id}; "
                      "progress on the Train page)")
        else:
            found = projects.list_projects(db)
            n_docs = sum(projects.stats(db, p.id)["documents"] for p in found)
            print(f"database ready: {len(found)} project(s), {n_docs} documents")
    return 0


def ensure_first_lead(db, username: str, *, from_stdin: bool = False) -> bool:
    """Create the first lead account if there is none; True when one was created."""
    import secrets
    import sys

    from cli.commands.users import read_password
    from services import users

    if users.has_lead(db):
        return False
    if from_stdin or sys.stdin.isatty():
        if not from_stdin:
            print(f"No lead account yet. Choose a password for the lead account '{username}'.")
        password = read_password(from_stdin, username)
        users.create_user(db, "installer", username, password, "lead")
        print(f"lead account '{username}' created")
    else:
        password = secrets.token_urlsafe(12)
        users.create_user(db, "installer", username, password, "lead")
        print(f"lead account '{username}' created; its password, shown this once: {password}")
        print("  (sign in and change it, or reset it with: python -m pipeline users reset-password "
              f"{username})")
    return True


def restrict_permissions(db_path) -> None:
    """The database holds identifiable notes: owner-only file, and an owner-only folder when it is ours."""
    import os
    from pathlib import Path

    p = Path(db_path)
    for f in (p, p.with_name(p.name + "-wal"), p.with_name(p.name + "-shm")):
        if f.exists():
            os.chmod(f, 0o600)
    if p.parent.name == "var":
        os.chmod(p.parent, 0o700)
