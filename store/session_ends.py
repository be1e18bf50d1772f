"""Sessions that ended, recorded beside the database so that no copy of the database brings
them back.

Signing out, a password reset and disabling an account delete the session's row, but a backup
taken before still holds it: restoring that backup (or copying an old file back by hand) would
make a signed-out cookie work again. So every ended session's token hash is also appended, with
its expiry, to ``<db>.sessions-ended`` (owner-only), a file that lives beside the database and
is in no backup, and :func:`store.users.user_for_session` refuses a hash listed there. The
record is written *before* the row is deleted, inside the same transaction: if it cannot be
written nothing changes and the caller gets a one-line error; if the transaction fails after it,
the session is merely ended early.

Entries are needed only until the session would have expired anyway, so the file is pruned of
expired entries when it grows past :data:`PRUNE_ABOVE_BYTES`. Appends and the pruning take an
exclusive ``flock`` on the file (the app and the command line may end sessions at once); readers
cache the parsed set until the file's size or modification time changes.

A database with no file (``:memory:``) has nothing to restore and records nothing.
"""
from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from typing import Iterable

from sqlite_utils import Database

from store.db import now_iso
from pipeline.errors import WorkbenchError

SUFFIX = ".sessions-ended"
PRUNE_ABOVE_BYTES = 256 * 1024

_cache: dict[str, tuple[tuple[int, int, int], frozenset[str]]] = {}
_cache_lock = threading.Lock()


def ended_path(db: Database) -> Path | None:
    """``<db file>.sessions-ended``, or ``None`` for a database without a file."""
    for _seq, name, path in db.execute("PRAGMA database_list").fetchall():
        if name == "main" and path:
            return Path(path).with_name(Path(path).name + SUFFIX)
    return None


def _parse(raw: str) -> dict[str, str]:
    """``token_hash -> expires_at`` (the latest expiry if a hash is listed twice)."""
    out: dict[str, str] = {}
    for line in raw.splitlines():
        parts = line.split()
        if len(parts) == 2 and len(parts[0]) == 64:
            out[parts[0]] = max(parts[1], out.get(parts[0], ""))
    return out


def _open_locked(path: Path) -> int:
    """An exclusive lock on the current file at ``path`` (reopened if pruning replaced it)."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def record_ended(db: Database, ended: Iterable[tuple[str, str]]) -> None:
    """Append ``(token_hash, expires_at)`` pairs (durably: fsynced before the row is deleted).
    Raises :class:`WorkbenchError` in one line when the file cannot be written.

    >>> import tempfile, store
    >>> from store.session_ends import ended_hashes, ended_path, record_ended
    >>> folder = tempfile.TemporaryDirectory()
    >>> with store.connect(folder.name + "/w.db") as db:
    ...     record_ended(db, [("ab" * 32, "2999-01-01T00:00:00")])
    ...     ended_hashes(db) == {"ab" * 32}, ended_path(db).name
    (True, 'w.db.sessions-ended')
    >>> folder.cleanup()
    """
    lines = "".join(f"{h} {exp}\n" for h, exp in ended)
    path = ended_path(db)
    if not lines or path is None:
        return
    try:
        fd = _open_locked(path)
        try:
            os.write(fd, lines.encode("ascii"))
            os.fsync(fd)
            if os.fstat(fd).st_size > PRUNE_ABOVE_BYTES:
                _prune(path, fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise WorkbenchError(f"cannot record the end of a session beside the database ({type(e).__name__}); "
                         "nothing was changed") from None


def _prune(path: Path, fd: int) -> None:
    """Rewrite the file without expired entries (atomically; the caller holds the lock)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    now = now_iso()
    live = {h: exp for h, exp in _parse(b"".join(chunks).decode("ascii", "replace")).items() if exp > now}
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="ascii") as f:
        os.chmod(tmp, 0o600)
        f.write("".join(f"{h} {exp}\n" for h, exp in live.items()))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def ended_hashes(db: Database) -> frozenset[str]:
    """The token hashes of every session recorded as ended (expired entries included until
    they are pruned: they are refused for their expiry anyway)."""
    path = ended_path(db)
    if path is None:
        return frozenset()
    try:
        st = path.stat()
    except FileNotFoundError:
        return frozenset()
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
    key = str(path)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    try:
        hashes = frozenset(_parse(path.read_text(encoding="ascii", errors="replace")))
    except OSError as e:
        raise WorkbenchError(f"cannot read the record of ended sessions beside the database ({type(e).__name__})") from None
    with _cache_lock:
        _cache[key] = (stamp, hashes)
    return hashes
