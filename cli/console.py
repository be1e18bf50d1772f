"""What the commands share: console output (tables, progress bars), who the audit log names for a
command-line action, the ``--config`` file, and finding a project by name."""
from __future__ import annotations

import getpass
import json
import os
import sys
from pathlib import Path
from typing import Callable

from pipeline.errors import FormatError, WorkbenchError


class CommandError(WorkbenchError):
    """A user error raised by a command (printed as one line by the CLI)."""


def cli_user(explicit: str | None) -> str:
    """Who the audit log names for a command-line action."""
    if explicit:
        return explicit
    try:
        return f"cli:{os.environ.get('WORKBENCH_USER') or getpass.getuser()}"
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "cli"


def find_project(db, name: str):
    from services import projects  # here, not at import: a command that opens no store starts faster
    return projects.find_project(db, name)


def require_project(db, name: str):
    """The project called ``name``; a :class:`CommandError` when there is none."""
    project = find_project(db, name)
    if project is None:
        raise CommandError(f"no project named {name!r}")
    return project


def read_json_config(path: str | None) -> dict:
    """The JSON object in the ``--config`` file (``{}`` without one); a :class:`FormatError` otherwise."""
    extra: dict = {}
    if path:
        try:
            extra = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise FormatError(path, f"malformed JSON: {e.msg}", e.lineno) from None
        if not isinstance(extra, dict):
            raise FormatError(path, "the config must be a JSON object")
    return extra


def augment_options(args) -> dict:
    """The training config keys set by ``--augment-copies N`` and ``--no-augment-crf`` (only those
    given: a ``--config`` file or the defaults decide the rest)."""
    out: dict = {}
    if getattr(args, "augment_copies", None) is not None:
        from services.training import MAX_AUGMENT_COPIES

        if not 0 <= args.augment_copies <= MAX_AUGMENT_COPIES:
            raise WorkbenchError(f"--augment-copies must be between 0 and {MAX_AUGMENT_COPIES}")
        out["augment_copies"] = args.augment_copies
    if getattr(args, "no_augment_crf", False):
        out["augment_crf"] = False
    return out


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


def message_bar(disabled: bool = False):
    """``on_progress(done, total, message)`` drawing one tqdm bar on stderr, the message as its
    postfix; ``disabled``: no bar (and a no-op callback)."""
    if disabled:
        return None, lambda: None
    from tqdm import tqdm

    bar = tqdm(total=1, file=sys.stderr, bar_format="{l_bar}{bar}| {elapsed} {postfix}", disable=None)

    def progress(done: int, total: int | None, message: str | None) -> None:
        if total:
            bar.total = total
        bar.n = done
        if message:
            bar.set_postfix_str(message, refresh=False)
        bar.refresh()

    return progress, bar.close


def stage_bars():
    """``on_progress(done, total, message)`` drawing one tqdm bar per stage (message) on stderr."""
    from tqdm import tqdm

    state: dict = {}

    def progress(done: int, total: int | None, message: str | None) -> None:
        stage = message or "working"
        if state.get("stage") != stage:
            if state.get("bar") is not None:
                state["bar"].close()
            state["stage"] = stage
            state["bar"] = tqdm(total=total, desc=stage, unit="doc", file=sys.stderr, disable=None, leave=False)
        bar = state["bar"]
        if total is not None and bar.total != total:
            bar.total = total
        bar.update(max(0, int(done) - bar.n))

    def close() -> None:
        if state.get("bar") is not None:
            state["bar"].close()

    return progress, close
