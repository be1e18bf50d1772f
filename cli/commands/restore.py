"""``python -m pipeline restore``: replace the database with a checked backup (app stopped)."""
from __future__ import annotations

import argparse
from pathlib import Path

NAME = "restore"
HELP = "replace the workbench database with a backup (stop the app first; the old file is kept)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, default=None,
                        help="database file to replace (default: $WORKBENCH_DB or ./var/workbench.db)")
    parser.add_argument("--from", dest="from_", type=Path, required=True, metavar="FILE",
                        help="backup file written by `python -m pipeline backup`")


def run(args: argparse.Namespace) -> int:
    from services.maintenance import restore
    from services.settings import db_path as default_db_path

    db_path = args.db or default_db_path()
    kept = restore(args.from_, db_path)
    print(f"restored {db_path} from {args.from_}")
    if kept is not None:
        print(f"the previous database was kept as {kept}")
    return 0
