"""The key of the audit chain and its head, both kept outside the database.

Why: a chain of plain SHA-256 hashes can be recomputed by anyone who holds the database file,
so edits, forged rows and renumbering would verify. Each row's ``row_hash`` is therefore an
HMAC-SHA256 keyed with :func:`chain_key`, derived from the installation key
(``<db>.secret.key``, :mod:`pipeline.deid.secret`), which never sits in the database or a
backup. A valid chain can still be cut short (the last rows deleted, or the whole file put back
from an earlier copy): the **head** (the newest row's id, its MAC and the row count) is kept in
a small owner-only file beside the key, ``<db>.audit.head``, sealed with the key, so
verification sees a log that ends before it.

The head is written after each write transaction that appended audit rows commits (never
before: a rolled-back row must not become the head), under an exclusive ``flock`` and only
forward (a slower process cannot move it back), atomically (temporary file, ``os.replace``; not
synced on every commit, which tripled the cost of a one-row write in
``benchmarks/audit_chain.py``, while a restore's head is synced). A crash between a commit and
the head write leaves the head behind: rows past it whose MACs hold were written by a key
holder, so that is not a false alarm. Its row count costs nothing per commit: since the
insert trigger makes each new row the next id, the count grows with the id from the last head.
"""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator

from pipeline.deid.secret import load_or_create_secret, secret_path_for

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no cross-process lock, the head may lag
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

#: What the installation key is derived into for the audit chain (other uses derive other keys).
KEY_PURPOSE = b"workbench audit chain v1"
HEAD_FORMAT = 1


class HeadFileError(Exception):
    """The head file is damaged or its seal does not hold (words about the file, never content)."""


def head_path_for(db_path: str | os.PathLike) -> Path:
    """Where the head of the database at ``db_path`` lives, beside its key: ``x.db`` -> ``x.audit.head``.

    >>> import store
    >>> store.audit_head_path("var/workbench.db").as_posix(), store.audit_head_path("var/wb.sqlite").name
    ('var/workbench.audit.head', 'wb.sqlite.audit.head')
    """
    p = Path(db_path)
    return p.with_name(p.name + ".audit.head") if p.suffix != ".db" else p.with_suffix(".audit.head")


def chain_key(secret: bytes) -> bytes:
    """The audit chain's key: HMAC-SHA256 of the installation key and :data:`KEY_PURPOSE`."""
    return hmac.new(secret, KEY_PURPOSE, hashlib.sha256).digest()


def chain_mac(key: bytes, prev_mac: str, id: int, at: str, user: str | None, action: str,
              target: str | None, doc_id: int | None, detail_json: str) -> str:
    """One row's MAC: HMAC-SHA256 over the previous row's MAC and this row's id and content.

    >>> k = chain_key(b"k" * 32)
    >>> a = chain_mac(k, "0" * 64, 1, "2070-01-02T00:00:00.000000+00:00", "ana", "export", "project:1", None, "{}")
    >>> len(a), a == chain_mac(chain_key(b"j" * 32), "0" * 64, 1, "2070-01-02T00:00:00.000000+00:00", "ana", "export", "project:1", None, "{}")
    (64, False)
    """
    payload = json.dumps([id, at, user, action, target, doc_id, detail_json], ensure_ascii=True,
                         separators=(",", ":"))
    return hmac.new(key, f"{prev_mac}\n{payload}".encode("ascii"), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Head:
    """The newest audit row as last recorded: its id, its MAC and how many rows the log had."""

    id: int
    mac: str
    rows: int


#: The head of an empty log: written when a log starts (a new database, or the upgrade of one
#: whose log is empty), so that from then on a missing head file is always a sign of tampering.
EMPTY_HEAD = Head(0, "0" * 64, 0)


@dataclass
class ChainKeying:
    """How one connection keys and records its chain: the key file to read (lazily, so a
    connection that never audits creates nothing) and the head file to advance (``None``: none,
    for an in-memory store or a restore's copy, whose head is written once it is in place)."""

    key_file: Path | None
    head_file: Path | None
    _key: bytes | None = None

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = chain_key(load_or_create_secret(self.key_file) if self.key_file else secrets.token_bytes(32))
        return self._key

    @property
    def existing_key(self) -> bytes | None:
        """The key when its file exists (``None`` otherwise): checking must never create a key."""
        if self._key is None and self.key_file is not None and not self.key_file.is_file():
            return None
        return self.key


def keying_for(db_path: str | os.PathLike | None, *, head: bool = True) -> ChainKeying:
    """The keying of the database at ``db_path`` (``None`` or ``:memory:``: a key for this
    connection only, and no head file)."""
    if db_path is None or str(db_path) == ":memory:":
        return ChainKeying(None, None)
    return ChainKeying(secret_path_for(db_path), head_path_for(db_path) if head else None)


def existing_key(db_path: str | os.PathLike) -> bytes | None:
    """The chain key of an installation whose key file exists, else ``None`` (never creates one).

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> store.audit_key(path) is None                         # no key file yet
    True
    >>> with store.connect(path) as db:
    ...     _ = store.audit(db, "ana", "export", "project:1")  # the first keyed row creates it
    >>> len(store.audit_key(path)), os.path.exists(os.path.join(folder, "workbench.secret.key"))
    (32, True)
    >>> shutil.rmtree(folder)
    """
    path = secret_path_for(db_path)
    return chain_key(load_or_create_secret(path)) if path.is_file() else None


def _seal(key: bytes, heads: list[Head]) -> str:
    body = json.dumps([HEAD_FORMAT, [asdict(h) for h in heads]], separators=(",", ":"), sort_keys=True)
    return hmac.new(key, b"audit head\n" + body.encode("ascii"), hashlib.sha256).hexdigest()


def read_heads(path: Path, key: bytes) -> list[Head] | None:
    """The heads recorded in ``path`` (``None`` when there is no file). Normally one; a restore
    that had not finished swapping leaves the new head first and the replaced one second.
    Raises :class:`HeadFileError` when the file is damaged or its seal does not hold."""
    try:
        raw = path.read_text(encoding="ascii")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        raise HeadFileError("the audit head file cannot be read") from None
    try:
        data = json.loads(raw)
        heads = [Head(int(h["id"]), str(h["mac"]), int(h["rows"])) for h in data["heads"]]
        seal = str(data["seal"])
    except (ValueError, KeyError, TypeError):
        raise HeadFileError("the audit head file is damaged") from None
    if not heads or not hmac.compare_digest(seal, _seal(key, heads)):
        raise HeadFileError("the audit head file's seal does not hold (it was edited, or the key changed)")
    return heads


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``<head>.lock`` for the read-compare-write of the head."""
    if fcntl is None:
        yield
        return
    fd = os.open(str(path.with_name(path.name + ".lock")), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)   # releases the lock


def _write(path: Path, key: bytes, heads: list[Head], *, sync: bool) -> None:
    data = {"format": HEAD_FORMAT, "heads": [asdict(h) for h in heads], "seal": _seal(key, heads)}
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(json.dumps(data, sort_keys=True) + "\n")
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_heads(path: Path, key: bytes, heads: list[Head]) -> None:
    """Replace the head file with ``heads`` whatever it held (a restore moves the head back),
    synced to disk."""
    with _locked(path):
        _write(path, key, heads, sync=True)


def current_head(conn: Any, since: Head | None = None) -> Head | None:
    """The newest row of the log behind ``conn`` as a :class:`Head` (``None`` for an empty log).

    The row count is counted (a scan), unless ``since`` is an earlier head still in the log: the
    insert trigger makes every row after it the next id, so the count grows with the id."""
    last = conn.execute("SELECT id, row_hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchone()
    if last is None or last[1] is None:
        return None
    if since is not None and since.id <= int(last[0]):
        rows = since.rows + int(last[0]) - since.id
    else:
        rows = conn.execute("SELECT COUNT(*) FROM audit_log WHERE id <= ?", [int(last[0])]).fetchone()[0]
    return Head(int(last[0]), str(last[1]), int(rows))


def _still_there(conn: Any, head: Head) -> bool:
    if head.id == 0:
        return True
    row = conn.execute("SELECT row_hash FROM audit_log WHERE id = ?", [head.id]).fetchone()
    return row is not None and row[0] == head.mac


def advance_head(db: Any) -> None:
    """After a commit that appended audit rows: record the log's newest committed row as the head,
    unless the file already names that row or a later one. Reads the database under the lock, so
    of two processes the later writer of the file also saw the later row."""
    keying: ChainKeying | None = getattr(db, "_wb_chain", None)
    if keying is None or keying.head_file is None:
        return
    path = keying.head_file
    try:
        with _locked(path):
            if getattr(db, "_wb_head_reset", False):    # a log starts, or was just re-keyed whole
                db._wb_head_reset = False
                _write(path, keying.key, [current_head(db.conn) or EMPTY_HEAD], sync=True)
                return
            try:
                known = read_heads(path, keying.key)
            except HeadFileError:
                log.warning("the audit head file does not hold; left as it is for `audit --verify`")
                return
            if known is None:   # removed: re-creating it would hide what was cut from the log
                log.warning("the audit head file is missing; not re-created (run `audit --verify`)")
                return
            base = next((h for h in known if _still_there(db.conn, h)), None)   # two while a restore swaps
            if base is None:
                return      # a head that no longer matches stays as evidence for verify
            head = current_head(db.conn, since=base)
            if head is None or (base is known[0] and base.id >= head.id):
                return
            _write(path, keying.key, [head], sync=False)   # a lost write only leaves the head behind
    except OSError as e:  # the rows are committed; a head left behind is weaker, not wrong
        log.warning("could not record the audit log's head (%s); it lags until the next write", type(e).__name__)
