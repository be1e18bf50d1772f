"""The per-installation secret that keys every surrogate choice (and anything else keyed).

It lives in its own file beside the database (``<db>.secret.key``, see :func:`secret_path_for`),
never inside the SQLite file and never in an export or backup, with owner-only permissions
(0600). Losing it means new surrogates no longer match earlier runs; leaking it lets someone
test guesses of originals against surrogates, so it is treated like a password and never
printed. The app, the jobs and the command line all read it through this module, so they
derive the same surrogates from the same file.

Two ways in: :func:`load_or_create_secret` (the workbench's own key, created on first use) and
:func:`load_secret` (a key file a user names with ``--secret-file``: hex text, or raw bytes).
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
MIN_BYTES = 16


class SecretError(WorkbenchError):
    """The secret file cannot be used (missing, too short); the message never shows its content."""


def secret_path_for(db_path: str | os.PathLike) -> Path:
    """Where the key of the database at ``db_path`` lives: ``x.db`` -> ``x.secret.key``."""
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
    if len(key) < MIN_BYTES:
        raise WorkbenchError(f"{path}: the secret key is too short ({len(key)} bytes, need at least {MIN_BYTES})")
    return key


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
        log.warning("%s is readable by other users; chmod 600 it", p)
    return key


def ensure_secret(path: str | os.PathLike) -> bytes:
    """:func:`load_or_create_secret` in a private folder, its failures as :class:`SecretError`."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        return load_or_create_secret(p)
    except WorkbenchError as e:
        raise SecretError(str(e)) from None
