"""``python -m pipeline users``: manage accounts from the command line (the installer's tool).

Passwords are asked with a hidden prompt, or read from standard input with ``--password-stdin``
(for scripts); they are never accepted as a command-line argument, where the process list and
the shell history would keep them.
"""
from __future__ import annotations

import argparse
import getpass
import sys

from pipeline.errors import WorkbenchError

NAME = "users"
HELP = "add, list and change user accounts (roles: annotator, reviewer, lead)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    sub = p.add_subparsers(dest="action", required=True)
    a = sub.add_parser("add", help="create a user")
    a.add_argument("username")
    a.add_argument("--role", choices=("annotator", "reviewer", "lead"), required=True)
    a.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    sub.add_parser("list", help="list users and roles")
    r = sub.add_parser("set-role", help="change a user's role")
    r.add_argument("username")
    r.add_argument("role", choices=("annotator", "reviewer", "lead"))
    pw = sub.add_parser("reset-password", help="set a new password (ends the user's sessions)")
    pw.add_argument("username")
    pw.add_argument("--password-stdin", action="store_true")
    d = sub.add_parser("disable", help="disable an account (ends its sessions)")
    d.add_argument("username")
    e = sub.add_parser("enable", help="re-enable an account")
    e.add_argument("username")


MIN_PASSWORD = 10


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        pw = sys.stdin.readline().rstrip("\n")
    else:
        pw = getpass.getpass("Password: ")
        if getpass.getpass("Repeat: ") != pw:
            raise WorkbenchError("the two passwords differ; nothing was changed")
    if len(pw) < MIN_PASSWORD:
        raise WorkbenchError(f"password too short: at least {MIN_PASSWORD} characters")
    return pw


def run(args: argparse.Namespace) -> int:
    from cli.console import cli_user, open_db
    from services import users

    db = open_db(args.db)
    actor = cli_user(None)
    if args.action == "add":
        users.create_user(db, actor, args.username, read_password(args.password_stdin), args.role)
        print(f"user {args.username} created ({args.role})")
    elif args.action == "list":
        for u in users.list_users(db):
            print(f"{u.username}\t{u.role}\t{'disabled' if u.disabled else 'active'}")
    elif args.action == "set-role":
        users.set_role(db, actor, args.username, args.role)
        print(f"user {args.username} is now {args.role}")
    elif args.action == "reset-password":
        users.set_password(db, actor, args.username, read_password(args.password_stdin))
        print(f"password of {args.username} changed; their sessions were ended")
    elif args.action in ("disable", "enable"):
        users.set_disabled(db, actor, args.username, args.action == "disable")
        print(f"user {args.username} {args.action}d")
    return 0
