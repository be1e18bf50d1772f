"""``python -m pipeline risk-project``: score (or re-score) a de-identification run's risk.

Same job function as the Risk page's Re-score button (``services.risk``), run in this
process. Scores replace earlier ones; reviewers' decisions are kept. Prints one line with the
colour counts, the method and which embedder was used; never document text.
"""
from __future__ import annotations

import argparse

NAME = "risk-project"
HELP = "score a de-identification run's re-identification risk (decisions already taken are kept)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run", type=int, required=True, metavar="RUN_ID", help="de-identification run id")
    p.add_argument("--db", metavar="PATH", help="SQLite file (default: the app's database)")
    p.add_argument("--method", default="document-share", choices=("document-share", "corpus-share"),
                   help="context score (default document-share)")
    p.add_argument("--threshold", type=float, help="similarity below which a context is unique (default 0.5)")
    p.add_argument("--k", type=int,
                   help="quasi-identifier tuples shared by fewer individuals raise the level (default 5)")
    p.add_argument("--embedder", default="auto", choices=("auto", "lexical"),
                   help="auto: the active model's encoder when it has one, else lexical (default)")
    p.add_argument("--user", help="name recorded in the audit log (default cli:<login>)")


def run(args: argparse.Namespace) -> int:
    from cli.console import cli_user, stage_bars
    from services.deid_runs import get_run
    from services.projects import open_db
    from services.risk import risk_line
    from services.settings import db_path as default_db_path
    from services.worker import run_inline

    db_path = str(args.db or default_db_path())
    user = cli_user(args.user)
    with open_db(db_path) as db:
        run_ = get_run(db, user, args.run)
    params = {"run_id": run_.id, "project_id": run_.project_id, "method": args.method, "threshold": args.threshold,
              "k": args.k, "embedder": args.embedder, "user": user}
    progress, close = stage_bars()
    try:
        result = run_inline(db_path, "risk", params, user=user, on_progress=progress)
    finally:
        close()
    print(f"risk-project: run={result['run_id']} documents={result['documents']} {risk_line(result)}")
    return 0
