"""``python -m pipeline users``: manage accounts from the command line (the installer's tool).

Passwords are asked with a hidden prompt, or read from standard input with ``--password-stdin``
(for scripts); they are never accepted as a command-line argument, where the process list and
the shell history would keep them. They must pass the workbench's one password policy
(:func:`services.users.password_problem`). ``unlock`` lifts a sign-in lockout (audited).
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
    u = sub.add_parser("unlock", help="lift a sign-in lockout after too many failed sign-ins")
    u.add_argument("username")


def read_password(from_stdin: bool, username: str | None = None) -> str:
    """A new password from the terminal (asked twice) or standard input, checked against the
    policy before anything is written; its words never include the password."""
    from services.users import PASSWORD_RULES, password_problem

    if from_stdin:
        pw = sys.stdin.readline().rstrip("\n")
    else:
        print(f"Passwords: {PASSWORD_RULES}.")
        pw = getpass.getpass("Password: ")
        if getpass.getpass("Repeat: ") != pw:
            raise WorkbenchError("the two passwords differ; nothing was changed")
    problem = password_problem(pw, username)
    if problem:
        raise WorkbenchError(f"{problem}; nothing was changed")
    return pw


def run(args: argparse.Namespace) -> int:
    from cli.console import cli_user
    from services import users
    from services.projects import open_db

    with open_db(args.db) as db:
        actor = cli_user(None)
        if args.action == "add":
            users.create_user(db, actor, args.username, read_password(args.password_stdin, args.username), args.role)
            print(f"user {args.username} created ({args.role})")
        elif args.action == "list":
            states = users.sign_in_states(db)
            for u in users.list_users(db):
                state = states.get(u.username)
                signin = "" if state is None else ("\tlocked" if state.locked
                                                   else f"\t{state.failures} failed sign-in(s)")
                print(f"{u.username}\t{u.role}\t{'disabled' if u.disabled else 'active'}{signin}")
        elif args.action == "set-role":
            users.set_role(db, actor, args.username, args.role)
            print(f"user {args.username} is now {args.role}")
        elif args.action == "reset-password":
            users.set_password(db, actor, args.username, read_password(args.password_stdin, args.username))
            print(f"password of {args.username} changed; their sessions were ended")
        elif args.action in ("disable", "enable"):
            users.set_disabled(db, actor, args.username, args.action == "disable")
            print(f"user {args.username} {args.action}d")
        elif args.action == "unlock":
            was_locked = users.unlock(db, actor, args.username)
            print(f"user {args.username} unlocked" if was_locked
                  else f"user {args.username} was not locked; their failed sign-ins were cleared")
    return 0
