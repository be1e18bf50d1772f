"""Model versions in a models directory: list them, pick the active one, load one.

A models directory holds one sub-directory per version (see :mod:`models.version`) and, for
use from plain folders, an ``ACTIVE`` file naming the active version (written atomically). The
app keeps its own record of the active version in the store and calls :func:`load_version`
with a path.
"""
from __future__ import annotations

import os
from pathlib import Path

from models.version import TMP_PREFIX, VERSION_FILE, ModelVersionInfo, check_name

ACTIVE_FILE = "ACTIVE"


def is_version_dir(path: str | Path) -> bool:
    p = Path(path)
    return p.is_dir() and (p / VERSION_FILE).is_file() and not p.name.startswith(TMP_PREFIX)


def list_versions(models_dir: str | Path) -> list[ModelVersionInfo]:
    """Complete versions, oldest first (half-written ``.tmp-*`` directories are skipped)."""
    d = Path(models_dir)
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.iterdir()):
        if is_version_dir(p):
            try:
                out.append(ModelVersionInfo.from_dir(p))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # unreadable: not a usable version
    out.sort(key=lambda i: (i.created, i.name))
    return out


def active_version(models_dir: str | Path) -> str | None:
    f = Path(models_dir) / ACTIVE_FILE
    if not f.is_file():
        return None
    name = f.read_text(encoding="utf-8").strip()
    return name or None


def set_active(models_dir: str | Path, name: str) -> None:
    """Point ``ACTIVE`` at a complete version (temp file + ``os.replace``: never half-written)."""
    d = Path(models_dir)
    check_name(name)
    if not is_version_dir(d / name):
        raise FileNotFoundError(f"no model version {name} in {d}")
    tmp = d / f"{ACTIVE_FILE}.tmp-{os.getpid()}"
    tmp.write_text(name + "\n", encoding="utf-8")
    os.replace(tmp, d / ACTIVE_FILE)


def resolve(model_dir: str | Path) -> Path:
    """A version directory itself, or the active (else newest) version of a models directory."""
    p = Path(model_dir)
    if is_version_dir(p):
        return p
    if not p.is_dir():
        raise FileNotFoundError(f"model directory {p} does not exist")
    name = active_version(p)
    if name and is_version_dir(p / name):
        return p / name
    versions = list_versions(p)
    if not versions:
        raise FileNotFoundError(f"{p} holds no model version")
    return Path(versions[-1].path)


def load_version(model_dir: str | Path, members: list[str] | None = None):
    """Load the version at (or active in) ``model_dir`` as an :class:`models.ensemble.Ensemble`."""
    from models.ensemble import Ensemble

    return Ensemble.load(resolve(model_dir), members=members)
