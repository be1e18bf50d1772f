"""``python -m pipeline restore``: replace the database with a checked backup (app stopped).

The backup's audit log must still have its append-only triggers and an unbroken keyed chain
ending at the head its manifest records, and the file must match the manifest (else it is
refused). A backup that cannot be verified (from before the keyed chain, or without a manifest)
needs ``--allow-unverified`` and is recorded as unverifiable. The restore is recorded in the
restored audit log, with the range of audit rows of the replaced database it drops (they stay in
the kept ``.before-restore`` file)."""
from __future__ import annotations

import argparse
from pathlib import Path

NAME = "restore"
HELP = "replace the workbench database with a backup (stop the app first; the old file is kept)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, default=None,
                        help="database file to replace (default: $WORKBENCH_DB or ./var/workbench.db)")
    parser.add_argument("--from", dest="from_", type=Path, required=True, metavar="FILE",
                        help="backup file written by `python -m pipeline backup` (its .manifest beside it)")
    parser.add_argument("--allow-unverified", action="store_true",
                        help="accept a backup whose audit log cannot be verified (made before the keyed chain, "
                             "or without its manifest); the restore records it as unverifiable")


def run(args: argparse.Namespace) -> int:
    from cli.console import cli_user
    from services.maintenance import audit_entries, restore
    from services.projects import open_db
    from services.settings import db_path as default_db_path

    db_path = args.db or default_db_path()
    kept = restore(args.from_, db_path, user=cli_user(None), allow_unverified=args.allow_unverified)
    print(f"restored {db_path} from {args.from_}")
    with open_db(db_path) as db:
        row = audit_entries(db, action="database.restore", limit=1)[0]
    if row.detail.get("verified") is False:
        print(f"the backup's audit log could not be verified ({row.detail.get('unverifiable_reason')}); "
              f"restored as unverified, recorded in audit row {row.id}")
    if kept is not None:
        print(f"the previous database was kept as {kept}")
    return 0
