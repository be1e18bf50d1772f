"""Small helpers the import, export and stats commands share (not a subcommand: leading ``_``)."""
from __future__ import annotations

import getpass
import os
import sys
from typing import Callable

from pipeline.errors import WorkbenchError


class CommandError(WorkbenchError):
    """A user error raised by a command (printed as one line by the CLI)."""


def open_db(path: str | None):
    import store
    return store.connect(path) if path else store.connect(store.default_db_path())


def cli_user(explicit: str | None) -> str:
    """Who the audit log names for a command-line action."""
    if explicit:
        return explicit
    try:
        return f"cli:{os.environ.get('WORKBENCH_USER') or getpass.getuser()}"
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "cli"


def find_project(db, name: str):
    import store
    getter = getattr(store, "get_project_by_name", None)
    if getter is not None:
        return getter(db, name)
    return next((p for p in store.list_projects(db) if p.name == name), None)


def tqdm_progress(desc: str, unit: str = "file") -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A ``progress(done, total)`` callback drawing a tqdm bar on stderr (only on a terminal),
    and a ``close()`` for it."""
    from tqdm import tqdm

    state: dict = {}

    def progress(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=None, leave=False)
        bar.update(done - bar.n)

    def close() -> None:
        if state.get("bar") is not None:
            state["bar"].close()

    return progress, close


def print_table(headers: list[str], rows: list[list[object]], out=None) -> None:
    out = out or sys.stdout
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]

    def fmt(r: list[str]) -> str:
        return "  ".join(c.rjust(w) if c.replace(".", "", 1).isdigit() else c.ljust(w)
                         for c, w in zip(r, widths)).rstrip()

    print(fmt(headers), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for r in cells:
        print(fmt(r), file=out)
