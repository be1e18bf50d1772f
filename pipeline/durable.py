"""Flushing files and folders to disk, for writes that must survive a crash (model versions,
backups): a rename or a copy is only durable once the data and the folder entry are synced."""
from __future__ import annotations

import os
from pathlib import Path


def fsync_path(path: str | os.PathLike, *, strict: bool = False) -> None:
    """``fsync`` a file or a folder. Best effort by default (a file system that cannot sync a
    folder is not an error); ``strict=True`` lets a failed sync of an opened path raise."""
    try:
        fd = os.open(str(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        if strict:
            raise
    finally:
        os.close(fd)


def fsync_tree(root: str | os.PathLike) -> None:
    """Every file below ``root``, then each folder: contents are on disk before a rename makes
    them visible (a crash must not publish zeros)."""
    for dirpath, _, files in os.walk(root):
        for f in files:
            fsync_path(os.path.join(dirpath, f), strict=True)
        fsync_path(Path(dirpath))
