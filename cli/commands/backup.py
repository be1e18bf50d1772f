"""``python -m pipeline backup``: a consistent copy of the database while the app runs, and its
manifest (``<out>.manifest``: the file's digest and the audit log's head, sealed with the key)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "backup"
HELP = "copy the workbench database to a file (safe while the app is running)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, default=None,
                        help="database file (default: $WORKBENCH_DB or ./var/workbench.db)")
    parser.add_argument("--out", type=Path, required=True, help="backup file to write (replaced if it exists)")


def run(args: argparse.Namespace) -> int:
    from services.maintenance import backup, backup_audit_problem, backup_manifest
    from services.settings import db_path as default_db_path

    db_path = args.db or default_db_path()
    out = backup(db_path, args.out)
    print(f"backed up {db_path} to {out} ({out.stat().st_size:,} bytes); keep {backup_manifest(out).name} "
          "beside it: a restore checks the backup against it")
    problem = backup_audit_problem(out)
    if problem:
        print(f"warning: the audit log was not verified ({problem}); restoring this backup will need "
              "--allow-unverified (run `audit --verify`)", file=sys.stderr)
    return 0
