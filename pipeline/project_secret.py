"""The per-installation secret behind consistent surrogates (HMAC key) and anything else keyed.

It lives in its own file beside the database (``<db>.secret.key``), never inside the SQLite
file and never in an export or backup, with owner-only permissions (0600). Losing it means new
surrogates no longer match earlier runs; leaking it lets someone test guesses of originals
against surrogates, so it is treated like a password.
"""
from __future__ import annotations

import logging
import os
import secrets
import stat
from pathlib import Path

from pipeline.errors import WorkbenchError

log = logging.getLogger(__name__)
KEY_BYTES = 32


def secret_path_for(db_path: str | os.PathLike) -> Path:
    p = Path(db_path)
    return p.with_name(p.name + ".secret.key") if p.suffix != ".db" else p.with_suffix(".secret.key")


def load_or_create_secret(path: str | os.PathLike) -> bytes:
    """Read the key, creating it (0600, atomically, never overwriting) on first use."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(KEY_BYTES) + "\n")
        log.info("created a new secret key file")
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        os.chmod(path, 0o600)
        log.warning("secret key file was readable by others; permissions reset to 0600")
    raw = path.read_text(encoding="ascii", errors="strict").strip()
    try:
        key = bytes.fromhex(raw)
    except ValueError:
        raise WorkbenchError(f"{path}: the secret key file is damaged (expected hex); restore it from your key backup") from None
    if len(key) < 16:
        raise WorkbenchError(f"{path}: the secret key is too short ({len(key)} bytes, need at least 16)")
    return key
