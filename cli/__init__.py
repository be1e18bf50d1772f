"""``python -m pipeline``: the command line over the same use-cases the app calls.

One module per subcommand in :mod:`cli.commands`, each with ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``, listed in :data:`COMMANDS`. Errors the user
can act on (bad files, stale saves, locked database) are printed as one line on stderr with
exit status 1; they never include document text.
"""
from __future__ import annotations

import argparse
import logging
import sys

from cli.commands import (audit, backup, deid_project, deidentify, demo, detect, detect_llm, evaluate, export,
                          export_model, import_cmd, init_project, preannotate, restore, risk, risk_project, run_job,
                          stats, table_deid, train, train_infill, train_project, train_starter, users)
from pipeline.errors import is_user_error, one_line
from services.runtime import go_offline

#: Every subcommand, in the order ``--help`` lists them (by name).
COMMANDS = (audit, backup, deid_project, deidentify, demo, detect, detect_llm, evaluate, export, export_model,
            import_cmd, init_project, preannotate, restore, risk, risk_project, run_job, stats, table_deid, train,
            train_infill, train_project, train_starter, users)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every subcommand's parser; with ``only`` (a command name), only that one gets its options
    (the others are listed by name and help): some commands' options import libraries to list
    their choices, and a ``detect`` should not pay for them at start-up."""
    if only not in {mod.NAME for mod in COMMANDS}:
        only = None
    parser = argparse.ArgumentParser(
        prog="python -m pipeline",
        description="De-identification workbench: import, detect, train, de-identify, evaluate, score risk.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details (never document text)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for mod in COMMANDS:
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        if only is None or mod.NAME == only:
            mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    go_offline()        # before any command imports a model library: this process never downloads
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only=next((w for w in words if not w.startswith("-")), None))
    args = parser.parse_args(words)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - the CLI's last line of defence
        if is_user_error(e):  # one line, whatever names it quotes (a file name may hold a newline)
            print(f"error: {one_line(e)}", file=sys.stderr)
            return 1
        # Unexpected: show the exception type and where, not its message (it may quote text).
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb else "?"
        print(f"error: unexpected {type(e).__name__} at {where}; rerun with -v for details", file=sys.stderr)
        if args.verbose:
            logging.getLogger("pipeline").exception("unexpected error")
        return 2
