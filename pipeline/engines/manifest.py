"""Which outputs of a de-identification folder are finished, so ``--resume`` skips only those.

A file's presence proves nothing: a run killed while a writer had the file open left a 0-byte
``.ann`` (or half a ``.txt``), and a resume that took it for done shipped it. Every output is
therefore written under a private name and moved into place with :func:`os.replace` (so a file
in the folder is one the writer finished), and then recorded here with a keyed digest of its
bytes. A resume skips a document only when each of its files is recorded and its bytes still
give the recorded digest: an empty, truncated, edited or unrecorded file is written again.

The digest is ``HMAC(key, name | bytes)`` with a key derived from the secret and the run's
fingerprint (:mod:`pipeline.deid.fingerprint`): a digest recorded under another profile, key,
schema or model never matches. The manifest (:data:`MANIFEST_FILE`, owner-only) holds output
names (pseudonyms) and digests, sorted, nothing else: the same outputs give the same bytes
whichever engine wrote them and in whatever order. It is itself replaced atomically, after the
files it lists; a file written but not yet recorded is simply written again by a resume.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Iterable

from pipeline.deid.keys import keyed_bytes

MANIFEST_FILE = ".deid-manifest.json"
_VERSION = 1


class OutputManifest:
    """The finished outputs of one folder under one fingerprint.

    ``record(path)`` after a file is in place; ``save()`` writes the manifest (done by the
    writers every so many files and when they finish); ``verified(path)`` whether the file is
    there, complete, and the one recorded.
    """

    def __init__(self, out_dir: str | os.PathLike, secret: bytes, fingerprint: str):
        self.out = Path(out_dir)
        self._key = keyed_bytes(secret, "deid-manifest", fingerprint)
        self.entries: dict[str, str] = _read(self.out / MANIFEST_FILE)
        self._unsaved = 0

    def digest(self, name: str, data: bytes) -> str:
        mac = hmac.new(self._key, name.encode("utf-8") + b"\x00", hashlib.sha256)
        mac.update(data)
        return mac.hexdigest()[:32]

    def _name(self, path: str | os.PathLike) -> str:
        try:
            return Path(path).relative_to(self.out).as_posix()
        except ValueError:
            return Path(path).resolve().relative_to(self.out.resolve()).as_posix()

    def record(self, path: str | os.PathLike, data: bytes | None = None) -> None:
        """Note a file now in place (``data``: its bytes, read from it when not given)."""
        name = self._name(path)
        self.entries[name] = self.digest(name, Path(path).read_bytes() if data is None else data)
        self._unsaved += 1

    def record_all(self, paths: Iterable[str | os.PathLike]) -> None:
        for p in paths:
            self.record(p)

    def verified(self, path: str | os.PathLike) -> bool:
        """The file exists, is recorded, and its bytes are the recorded ones."""
        p = Path(path)
        if not p.is_file():
            return False
        name = self._name(p)
        want = self.entries.get(name)
        if want is None:
            return False
        try:
            data = p.read_bytes()
        except OSError:
            return False
        return hmac.compare_digest(want, self.digest(name, data))

    def forget(self, path: str | os.PathLike) -> None:
        self.entries.pop(self._name(path), None)

    def save(self, *, every: int = 0) -> None:
        """Write the manifest atomically (owner-only); with ``every``, only once that many files
        were recorded since the last save."""
        if every and self._unsaved < every:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        final = self.out / MANIFEST_FILE
        tmp = self.out / f".{MANIFEST_FILE}.{os.getpid()}.tmp"
        body = json.dumps({"version": _VERSION, "outputs": dict(sorted(self.entries.items()))},
                          sort_keys=True, separators=(",", ":")) + "\n"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(body)
            os.chmod(tmp, 0o600)
            os.replace(tmp, final)
        finally:
            if tmp.exists():
                tmp.unlink()
        self._unsaved = 0


def _read(path: Path) -> dict[str, str]:
    """The recorded outputs; a missing or damaged manifest records nothing (everything is redone)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        outputs = data["outputs"]
        return {str(k): str(v) for k, v in outputs.items()} if isinstance(outputs, dict) else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
