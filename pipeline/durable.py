"""Files that must survive a crash and must not be read by others.

Flushing (model versions, backups): a rename or a copy is only durable once the data and the
folder entry are synced. Privacy: everything the workbench writes holds PHI, so processes run
with an owner-only umask (:func:`use_private_umask`) and writers that must not depend on the
caller's umask set owner-only modes themselves (:func:`make_private`)."""
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


#: The process umask of the app, the command line, jobs and workers: every file they create is
#: readable by its owner only (notes, models, backups and exports all hold PHI).
PRIVATE_UMASK = 0o077


def use_private_umask() -> int:
    """Make files this process creates from now on owner-only; returns the previous umask."""
    return os.umask(PRIVATE_UMASK)


def make_private(path: str | os.PathLike) -> None:
    """Owner-only permissions on ``path`` (0600 for a file, 0700 for a folder and, recursively,
    everything in it), whatever the umask was when it was written. Missing paths are ignored."""
    p = Path(path)
    if p.is_symlink() or not p.exists():
        return
    if p.is_dir():
        for dirpath, dirnames, files in os.walk(p):
            for f in files:
                fp = os.path.join(dirpath, f)
                if not os.path.islink(fp):
                    os.chmod(fp, 0o600)
            os.chmod(dirpath, 0o700)
    else:
        os.chmod(p, 0o600)
