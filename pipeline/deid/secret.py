"""The per-project secret that keys every surrogate choice.

Whoever holds it can test guesses of originals against surrogates, so it is created with
owner-only permissions (0600) and never printed. The file format is the one
:mod:`pipeline.project_secret` writes (hex text, one line), so the app and the command line
derive the same surrogates from the same file; a file that is not hex is used as raw bytes.
"""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from pipeline.errors import WorkbenchError

MIN_BYTES = 16


class SecretError(WorkbenchError):
    """The secret file cannot be used (missing, too short); the message never shows its content."""


def _decode(raw: bytes) -> bytes:
    text = raw.strip()
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        key = text
    return key


def load_secret(path: str | os.PathLike) -> bytes:
    """The key in an existing secret file (hex text, or raw bytes); at least 16 bytes."""
    p = Path(path)
    if not p.is_file():
        raise SecretError(f"{p}: secret file not found")
    try:
        key = _decode(p.read_bytes())
    except OSError as e:
        raise SecretError(f"{p}: cannot read the secret file ({type(e).__name__})") from None
    if len(key) < MIN_BYTES:
        raise SecretError(f"{p}: the secret must be at least {MIN_BYTES} bytes")
    if os.name == "posix" and stat.S_IMODE(p.stat().st_mode) & 0o077:
        print(f"warning: {p} is readable by other users; chmod 600 it", file=sys.stderr)
    return key


def default_secret_path() -> Path:
    """The key beside the workbench database, so the app and the command line agree."""
    import store
    from pipeline.project_secret import secret_path_for
    return secret_path_for(store.default_db_path())


def ensure_secret(path: str | os.PathLike | None = None) -> bytes:
    """Load the secret at ``path`` (default: the database's key), creating it (0600) if missing."""
    from pipeline.project_secret import load_or_create_secret

    p = Path(path) if path is not None else default_secret_path()
    p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        return load_or_create_secret(p)
    except WorkbenchError as e:
        raise SecretError(str(e)) from None
