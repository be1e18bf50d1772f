"""``python -m pipeline audit``: read the audit log (who did what, when, to which document), or
check it: ``--verify`` recomputes the whole keyed chain (HMAC with a key derived from the
installation key beside the database), checks the append-only triggers and that the log reaches
the head recorded beside the key, and says in one line whether the log is intact or the first
row where it breaks: an edit, a forged or renumbered row, rows cut from the end (exit status 1)."""
from __future__ import annotations

import argparse
import json

NAME = "audit"
HELP = "print the audit log (every write and export), newest first"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--user", default=None, help="only this user's actions")
    p.add_argument("--action", default=None, help="only this action (a trailing .* matches a prefix, e.g. layer.*)")
    p.add_argument("--doc", type=int, default=None, help="only this document id")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--verify", action="store_true",
                   help="check the audit log's keyed chain, triggers and recorded head instead of printing rows "
                        "(exit status 1 when it does not hold)")


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from cli.console import CommandError
    from services.maintenance import audit_entries, verify_audit
    from services.projects import open_db

    with open_db(args.db) as db:
        if args.verify:
            check = verify_audit(db)
            if not check.ok:
                raise CommandError(check.line())
            print(check.line())
            return 0
        rows = audit_entries(db, doc_id=args.doc, user=args.user, action=args.action, limit=args.limit)
        for r in rows:
            if args.json:
                print(json.dumps(dataclasses.asdict(r), default=str, ensure_ascii=False))
            else:
                doc = f" doc {r.doc_id}" if r.doc_id is not None else ""
                print(f"{r.at}\t{r.user or 'system'}\t{r.action}\t{r.target or ''}{doc}")
        return 0
