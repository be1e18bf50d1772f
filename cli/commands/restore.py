"""``python -m pipeline restore``: replace the database with a checked backup (app stopped).

The backup's audit log must still have its append-only triggers and an unbroken hash chain
(else it is refused); the restore is recorded in the restored audit log, with the range of
audit rows of the replaced database it drops (they stay in the kept ``.before-restore`` file)."""
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
    from cli.console import cli_user
    from services.maintenance import restore
    from services.settings import db_path as default_db_path

    db_path = args.db or default_db_path()
    kept = restore(args.from_, db_path, user=cli_user(None))
    print(f"restored {db_path} from {args.from_}")
    if kept is not None:
        print(f"the previous database was kept as {kept}")
    return 0
