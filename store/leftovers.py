"""Copies of the database left behind by a backup or restore that was killed (``kill -9``, a
power cut): removed the next time the database is opened (:func:`store.connect` calls
:func:`remove_leftovers`), because each is a full copy of every note and password hash, and
owner-only is not enough for that.

The names are the ones :mod:`store.backup` and :mod:`store.audit_chain` write, each ending in
the id of the process that wrote it; a file whose process is still running (a backup in
progress) is left alone:

* ``.<db>.restore-<pid>`` (and its ``-journal``/``-wal``/``-shm``): a restore's prepared copy;
* ``.<db>.before-restore.tmp-<pid>``: the replaced database being kept;
* ``.<head>.tmp-<pid>``: the audit head being written;
* ``.<out>.tmp-<pid>`` and ``.<out>.manifest.tmp-<pid>`` beside a backup being written, which may
  be in any folder: a backup first leaves a marker ``.<db>.backup-<pid>`` beside the database
  naming its output, and removes it when done.
"""
from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from store.audit_chain import head_path_for

log = logging.getLogger(__name__)
_SIDES = ("", "-journal", "-wal", "-shm")


def backup_marker_path(db_path: str | os.PathLike, pid: int | None = None) -> Path:
    """The marker a backup by process ``pid`` (default: this one) leaves beside the database.

    >>> import store
    >>> store.backup_marker_path("var/workbench.db", 4242).as_posix()
    'var/.workbench.db.backup-4242'
    """
    p = Path(db_path)
    return p.with_name(f".{p.name}.backup-{os.getpid() if pid is None else int(pid)}")


def backup_temp_paths(out: Path, pid: int | None = None) -> list[Path]:
    """The temporary files a backup to ``out`` writes (its copy and sidecars, its manifest)."""
    pid = os.getpid() if pid is None else int(pid)
    copy = out.with_name(f".{out.name}.tmp-{pid}")
    return [Path(str(copy) + side) for side in _SIDES] + [out.with_name(f".{out.name}.manifest.tmp-{pid}")]


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:      # someone else's process: not ours to judge
        return True
    return True


def _unlink(path: Path) -> int:
    try:
        path.unlink()
    except FileNotFoundError:
        return 0
    return 1


def remove_leftovers(db_path: str | os.PathLike) -> int:
    """Remove what killed backups and restores of the database at ``db_path`` left; return how
    many files went. Never touches a file whose process is alive, nor the kept
    ``.before-restore`` database (a restore keeps that on purpose).

    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> for name in (".workbench.db.restore-999999999", f".workbench.db.restore-{os.getpid()}", "workbench.db.before-restore"):
    ...     open(os.path.join(folder, name), "wb").close()
    >>> remove_leftovers(path)                                # the dead process's copy goes
    1
    >>> sorted(os.listdir(folder))                            # a live one's, and the kept file, stay
    ['.workbench.db.restore-...', 'workbench.db.before-restore']
    >>> shutil.rmtree(folder)
    """
    p = Path(db_path)
    folder = p.parent
    if not folder.is_dir():
        return 0
    prefixes = [f".{p.name}.restore-", f".{p.name}.before-restore.tmp-", f".{head_path_for(p).name}.tmp-"]
    pattern = re.compile("^(?:" + "|".join(re.escape(x) for x in prefixes) + r")(\d+)(?:-journal|-wal|-shm)?$")
    marker = re.compile("^" + re.escape(f".{p.name}.backup-") + r"(\d+)$")
    removed = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        m = pattern.match(name)
        if m and not _alive(int(m.group(1))):
            removed += _unlink(folder / name)
            continue
        m = marker.match(name)
        if m and not _alive(int(m.group(1))):
            try:
                out = Path((folder / name).read_text(encoding="utf-8").strip())
            except (OSError, UnicodeDecodeError):
                out = None
            if out is not None and out.name:
                removed += sum(_unlink(t) for t in backup_temp_paths(out, int(m.group(1))))
            _unlink(folder / name)
    if removed:
        log.warning("removed %d temporary file(s) (copies of the database) left by an interrupted backup or restore", removed)
    return removed
