"""Model versions: immutable directories written atomically.

A version directory holds ``version.json`` (the :class:`ModelVersionInfo`), the schema, label
list, thresholds, config and dev metrics as separate JSON files, and ``members/<name>/`` for each
member (weights, tokenizer). Training writes everything into a hidden temporary directory beside
the final one and renames it into place with ``os.replace`` only when complete: a run that dies
leaves at most a ``.tmp-*`` directory that readers ignore, and never touches other versions.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from pipeline.durable import fsync_path, fsync_tree, make_private

VERSION_FILE = "version.json"
TMP_PREFIX = ".tmp-"
_NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass
class ModelVersionInfo:
    name: str
    path: str
    created: str
    schema_name: str
    locale: str
    labels: list[str]
    members: list[str]
    weights: dict[str, float]
    thresholds: dict[str, float]
    target_recall: float
    metrics: dict = field(default_factory=dict)   # dev metrics: "ensemble", "ensemble@0.5", per member
    type_policy: dict = field(default_factory=dict)  # per type: how rule/dictionary spans merge (pipeline.detection.combine)
    config: dict = field(default_factory=dict)
    n_train_docs: int = 0
    n_dev_docs: int = 0
    train_seconds: float = 0.0
    # The hierarchical (superclass/subclass) mode: a category member beside the type members.
    # Versions written before it lack these keys and load as flat.
    mode: str = "flat"                                   # "flat" | "hierarchical"
    category_member: str = ""                            # e.g. "crf-category" (members/<name>), "" when flat
    category_labels: list[str] = field(default_factory=list)       # its BIO labels over categories
    category_thresholds: dict[str, float] = field(default_factory=dict)  # per category, tuned like thresholds
    fallback_types: dict[str, str] = field(default_factory=dict)   # category -> type when it has no "other" type
    # MASK-style member choice: category -> the members whose probabilities vote for its types
    # (absent category: every member); empty: the plain weighted average
    category_members: dict[str, list[str]] = field(default_factory=dict)
    # the locale pack's steps this model's own spans are spared from, learned on its dev notes
    # (pipeline.detection.step_policy); versions written before it spare none
    spared_steps: list[str] = field(default_factory=list)
    # the rule and dictionary sources this model's detector leaves out, learned on its dev notes
    # (pipeline.detection.source_policy); versions written before it mute none
    muted_sources: list[str] = field(default_factory=list)
    # the identifiers its detector suggests (pipeline.detection.conventions): "all" the schema's
    # types, or "safe-harbor" (a cold start for a HIPAA ward); versions written before it: "all"
    convention: str = "all"
    # whether its detector gives the model the locale pack's view of each note (TrainConfig.case_view);
    # versions written before it: False
    case_view: bool = False

    def to_json(self) -> dict:
        d = asdict(self)
        d.pop("path")
        return d

    @classmethod
    def from_dir(cls, path: str | Path) -> "ModelVersionInfo":
        p = Path(path)
        d = json.loads((p / VERSION_FILE).read_text(encoding="utf-8"))
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__ and k != "path"}
        return cls(path=str(p), **known)


def content_digest(path: str | Path) -> str:
    """SHA-256 over a model folder's files (relative names and bytes, in sorted order): which
    model this is, whatever the folder is called or where it was copied (a de-identification
    run's fingerprint names its detection model by it). Hidden temporary folders are left out."""
    root = Path(path)
    h = hashlib.sha256(b"model-folder-v1\x00")
    files = sorted(p for p in root.rglob("*") if p.is_file()
                   and not any(part.startswith(TMP_PREFIX) for part in p.relative_to(root).parts))
    for f in files:
        h.update(f.relative_to(root).as_posix().encode("utf-8") + b"\x00")
        h.update(str(f.stat().st_size).encode("ascii") + b"\x00")
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def new_version_name(prefix: str = "v") -> str:
    """Sortable and unique: UTC time to the second plus a short random suffix."""
    return f"{prefix}{datetime.now(timezone.utc).strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def check_name(name: str) -> str:
    if not _NAME_OK.match(name) or name.startswith(TMP_PREFIX):
        raise ValueError(f"invalid model version name {name!r}: letters, digits, '.', '_' and '-' only")
    return name


class VersionWriter:
    """Context manager: ``with VersionWriter(models_dir, name) as tmp: ...write into tmp...``.

    On normal exit the temporary directory is renamed to ``models_dir/name`` (refused if that
    exists: versions are immutable); on any exception it is removed and nothing is published.
    """

    def __init__(self, models_dir: str | Path, name: str):
        self.models_dir = Path(models_dir)
        self.name = check_name(name)
        self.final = self.models_dir / name
        self.tmp = self.models_dir / f"{TMP_PREFIX}{name}-{os.getpid()}"

    def __enter__(self) -> Path:
        self.models_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self.final.exists():
            raise FileExistsError(f"model version {self.name} already exists in {self.models_dir}")
        self.tmp.mkdir(mode=0o700)
        return self.tmp

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            return False
        make_private(self.tmp)   # a model holds identifiers of its training notes: owner-only
        fsync_tree(self.tmp)
        if self.final.exists():
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise FileExistsError(f"model version {self.name} already exists in {self.models_dir}")
        os.replace(self.tmp, self.final)
        fsync_path(self.models_dir)
        return False


def write_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=False), encoding="utf-8")


def remove_stale_tmp(models_dir: str | Path, older_than_s: float = 6 * 3600) -> list[str]:
    """Delete ``.tmp-*`` directories left by killed runs whose process is gone (or that are old)."""
    removed = []
    d = Path(models_dir)
    if not d.is_dir():
        return removed
    for p in d.iterdir():
        if not (p.is_dir() and p.name.startswith(TMP_PREFIX)):
            continue
        pid_s = p.name.rsplit("-", 1)[-1]
        alive = False
        if pid_s.isdigit():
            try:
                os.kill(int(pid_s), 0)
                alive = True
            except PermissionError:
                alive = True
            except (ProcessLookupError, OverflowError):
                alive = False
        if not alive or time.time() - p.stat().st_mtime > older_than_s:
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p.name)
    return removed
