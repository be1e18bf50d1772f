"""A backup's manifest, ``<backup>.manifest`` beside the file: what a restore checks the backup
against, sealed with the audit chain's key so only a key holder can write one that holds.

It records the backup file's SHA-256 (any rewrite of the file, audit log or not, changes it),
its schema version, and the audit log's head at the moment of the snapshot (the newest row's id
and MAC and the row count; ``null`` when the log was not verified when the backup was taken, or
was not keyed yet). Owner-only, written atomically after the backup itself.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from pipeline.durable import fsync_path
from pipeline.errors import FormatError
from store.audit_chain import Head

MANIFEST_FORMAT = 1


def backup_manifest_path(backup_path: str | os.PathLike) -> Path:
    """``backup.db`` -> ``backup.db.manifest``.

    >>> import store
    >>> store.backup_manifest_path("backups/monday.db").as_posix()
    'backups/monday.db.manifest'
    """
    p = Path(backup_path)
    return p.with_name(p.name + ".manifest")


@dataclass(frozen=True)
class Manifest:
    sha256: str
    schema_version: int
    audit_head: Head | None
    audit_problem: str | None = None

    def body(self) -> dict:
        return {"format": MANIFEST_FORMAT, "sha256": self.sha256, "schema_version": self.schema_version,
                "audit_head": asdict(self.audit_head) if self.audit_head else None,
                "audit_problem": self.audit_problem}


def _seal(key: bytes, body: dict) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hmac.new(key, b"backup manifest\n" + text.encode("ascii"), hashlib.sha256).hexdigest()


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def copy_hashing(src: Path, dst: Path) -> str:
    """Copy ``src`` to a fresh owner-only ``dst`` and return the SHA-256 of exactly the bytes
    copied, so what is checked is what is restored.

    >>> import os, shutil, tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.db").write_bytes(b"abc")
    >>> copy_hashing(folder / "a.db", folder / "b.db") == file_sha256(folder / "b.db")
    True
    >>> oct(os.stat(folder / "b.db").st_mode & 0o777)
    '0o600'
    >>> shutil.rmtree(folder)
    """
    h = hashlib.sha256()
    fd = os.open(str(dst), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(src, "rb") as fin, os.fdopen(fd, "wb") as fout:
        for block in iter(lambda: fin.read(1 << 20), b""):
            h.update(block)
            fout.write(block)
        fout.flush()
        os.fsync(fout.fileno())
    return h.hexdigest()


def write_manifest(backup_path: Path, key: bytes, manifest: Manifest) -> Path:
    out = backup_manifest_path(backup_path)
    body = manifest.body()
    data = dict(body, seal=_seal(key, body))
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(json.dumps(data, sort_keys=True, indent=1) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, out)
        fsync_path(out.parent)
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


def read_manifest(backup_path: Path, key: bytes) -> Manifest | None:
    """The backup's manifest when its seal holds under ``key``; ``None`` when there is none.
    Raises :class:`FormatError` (one line, no content) when it is damaged or its seal fails."""
    path = backup_manifest_path(backup_path)
    if not path.is_file():
        return None
    name = str(backup_path)
    try:
        data = json.loads(path.read_text(encoding="ascii"))
        seal = str(data.pop("seal"))
        head = data.get("audit_head")
        manifest = Manifest(str(data["sha256"]), int(data["schema_version"]),
                            Head(int(head["id"]), str(head["mac"]), int(head["rows"])) if head else None,
                            data.get("audit_problem"))
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise FormatError(name, "its manifest is damaged; it is not restored") from None
    if int(data.get("format", 0)) != MANIFEST_FORMAT or not hmac.compare_digest(seal, _seal(key, manifest.body())):
        raise FormatError(name, "its manifest's seal does not hold under this installation's key (the backup "
                                "or its manifest was rewritten, or another installation made it); it is not restored")
    return manifest


def remove_manifest(backup_path: Path) -> None:
    """A stale manifest must never describe a new file of the same name."""
    try:
        backup_manifest_path(backup_path).unlink()
    except FileNotFoundError:
        pass

