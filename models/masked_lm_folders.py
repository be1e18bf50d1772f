"""Where masked language models live: a root folder of model versions and the one in use.

A model is written like a model version (:class:`models.version.VersionWriter`: complete or not
at all, owner-only: the vocabulary and the word lists hold words of the notes) into
``<root>/<name>/``, and ``<root>/CURRENT`` names the one in use (written atomically after the
folder is complete, so a failed or cancelled training leaves the previous model in use). It is
loaded with ``from_pretrained(path, local_files_only=True)`` (:meth:`models.masked_lm.MaskedLM.load`).

Apart from the model because choosing, replacing and pruning versions is file-system
bookkeeping that neither training nor filling spans needs to know about.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from models.masked_lm import META_FILE, MaskedLM, MaskedLMError
from models.version import TMP_PREFIX, VersionWriter, check_name
from pipeline.durable import fsync_path

CURRENT_FILE = "CURRENT"
KEEP_OLD = 2                 # previous models kept beside the current one


def is_model_dir(path: str | Path) -> bool:
    p = Path(path)
    return p.is_dir() and (p / META_FILE).is_file() and not p.name.startswith(TMP_PREFIX)


def current_model_dir(root: str | Path) -> Path | None:
    """The folder in use under ``root`` (named by ``CURRENT``), or None when there is none."""
    r = Path(root)
    f = r / CURRENT_FILE
    if not f.is_file():
        return None
    name = f.read_text(encoding="utf-8").strip()
    if not name:
        return None
    try:
        check_name(name)
    except ValueError:
        return None
    p = r / name
    return p if is_model_dir(p) else None


def resolve_model_dir(path: str | Path) -> Path:
    """A model folder itself, or the current one under a root folder."""
    p = Path(path)
    if is_model_dir(p):
        return p
    cur = current_model_dir(p)
    if cur is None:
        raise MaskedLMError(f"{p} holds no masked language model (train one with train-infill)")
    return cur


def load_masked_lm(path: str | Path) -> MaskedLM:
    """The model at ``path`` (a model folder, or a root folder's current model)."""
    return MaskedLM.load(resolve_model_dir(path))


def write_masked_lm(lm: MaskedLM, root: str | Path) -> Path:
    """Write ``lm`` into ``root/<name>`` (complete or not at all, owner-only), then make it
    current; older models beyond the previous :data:`KEEP_OLD` are removed. A failure before
    ``CURRENT`` is replaced leaves the previous model in use."""
    r = Path(root)
    with VersionWriter(r, lm.name) as tmp:
        lm.save(tmp)
    final = r / lm.name
    pointer = r / f".{CURRENT_FILE}.{os.getpid()}.tmp"
    fd = os.open(pointer, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(lm.name + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(pointer, r / CURRENT_FILE)
    fsync_path(r)
    _prune(r, keep=lm.name)
    return final


def _prune(root: Path, keep: str) -> None:
    models = sorted((p for p in root.iterdir() if is_model_dir(p) and p.name != keep), key=lambda p: p.name)
    for p in models[:max(0, len(models) - KEEP_OLD)]:
        shutil.rmtree(p, ignore_errors=True)


def model_info(path: str | Path) -> dict:
    """What a model folder says about itself (figures and its name only)."""
    d = resolve_model_dir(path)
    meta = json.loads((d / META_FILE).read_text(encoding="utf-8"))
    cfg = meta.get("config") or {}
    return {"name": meta.get("name") or d.name, "created": meta.get("created"), "documents": meta.get("documents"),
            "train_seconds": meta.get("train_seconds"), "losses": meta.get("losses") or [],
            "hidden": cfg.get("hidden"), "layers": cfg.get("layers"), "epochs": cfg.get("epochs"),
            "path": str(d)}
