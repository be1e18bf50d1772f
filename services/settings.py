"""Project settings and installation paths: read in one place, so the app, the jobs and the
command line agree on them.

* :class:`ProjectSettings`: what a lead edits on the Admin page (queue order, models folder,
  checkpoint folder, target recall, low-confidence mark), parsed from ``Project.settings``.
* :func:`project_locale`: the locale of a project (its ``locale`` setting, else its schema's,
  :func:`pipeline.schemas.default_locale`): training, pre-annotation, detection and
  de-identification all ask here, so a ``german-8`` project is German everywhere.
* :func:`models_dir_for`: where a project's model versions live.
* :func:`secret_path` / :func:`project_secret`: the installation's surrogate key beside the database.
* :data:`STALE_JOB_SECONDS`: how long a job may go without a heartbeat before it counts as dead.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlite_utils import Database

import store
from pipeline.annotation.queue import QUEUE_ORDERS
from pipeline.deid.secret import ensure_secret, secret_path_for
from pipeline.errors import WorkbenchError
from pipeline.schemas import default_locale

REPO_ROOT = Path(__file__).resolve().parents[1]

#: A running job whose heartbeat is older than this has lost its worker (killed, crashed).
STALE_JOB_SECONDS = 60.0


@dataclass(frozen=True)
class ProjectSettings:
    """The project settings a lead edits on the Admin page (keys of ``Project.settings``):

    * ``queue_order``: ``assigned`` | ``random`` | ``uncertain`` (:mod:`pipeline.annotation.queue`);
    * ``queue_seed``: seed of the random order;
    * ``models_dir``: where trained model versions are written (relative to the database's
      folder unless absolute; empty: ``models/<database name>`` beside the database);
    * ``checkpoint_dir``: a local checkpoint folder to initialise encoders from ("" = train
      from scratch with the project's own tokenizer); never a hub name;
    * ``target_recall``: recall the per-category thresholds are tuned for;
    * ``low_confidence``: spans scored below this stand out on the Annotate page;
    * ``require_red_decided``: a run cannot be exported while any of its red documents has no
      risk decision (:mod:`services.release`).
    * ``require_decided``: a note can be finished only once every machine suggestion in it was
      decided (accepted, changed or removed; accepting in bulk counts), so none is left open.

    Other keys in the settings (e.g. ``demo``, ``locale``) are kept as they are.

    >>> s = ProjectSettings.from_settings({"queue_order": "random", "target_recall": "2", "demo": {"seed": 7}})
    >>> s.queue_order, s.target_recall, s.to_settings()["demo"]
    ('random', 1.0, {'seed': 7})
    """

    queue_order: str = "assigned"
    queue_seed: int = 0
    models_dir: str = ""
    checkpoint_dir: str = ""
    target_recall: float = 0.99
    low_confidence: float = 0.7
    require_red_decided: bool = False
    require_decided: bool = False
    extra: dict = field(default_factory=dict, compare=False)

    KEYS = ("queue_order", "queue_seed", "models_dir", "checkpoint_dir", "target_recall", "low_confidence",
            "require_red_decided", "require_decided")

    @classmethod
    def from_settings(cls, settings: dict | None) -> "ProjectSettings":
        s = dict(settings or {})
        d = cls()
        order = s.get("queue_order", d.queue_order)

        def num(key: str, default: float, cast: type = float) -> Any:
            try:
                return cast(s.get(key, default))
            except (TypeError, ValueError):
                return default

        return cls(queue_order=order if order in QUEUE_ORDERS else d.queue_order,
                   queue_seed=num("queue_seed", d.queue_seed, int),
                   models_dir=str(s.get("models_dir") or ""),
                   checkpoint_dir=str(s.get("checkpoint_dir") or ""),
                   target_recall=min(1.0, max(0.0, num("target_recall", d.target_recall))),
                   low_confidence=min(1.0, max(0.0, num("low_confidence", d.low_confidence))),
                   require_red_decided=s.get("require_red_decided") in (True, 1, "true", "1", "yes"),
                   require_decided=s.get("require_decided") is True,
                   extra={k: v for k, v in s.items() if k not in cls.KEYS})

    @classmethod
    def of(cls, project: store.Project | None) -> "ProjectSettings":
        settings = project.settings if project is not None else None
        return cls.from_settings(settings if isinstance(settings, dict) else None)

    def to_settings(self) -> dict:
        out = dict(self.extra)
        out.update(queue_order=self.queue_order, queue_seed=self.queue_seed, models_dir=self.models_dir,
                   checkpoint_dir=self.checkpoint_dir, target_recall=self.target_recall,
                   low_confidence=self.low_confidence, require_red_decided=self.require_red_decided,
                   require_decided=self.require_decided)
        return out

    def with_(self, **changes: Any) -> "ProjectSettings":
        return replace(self, **changes)


def project_locale(project: store.Project) -> str:
    """Locale of rules, dictionaries, surrogate lists and date order for ``project``: its
    ``locale`` setting, else its schema's (``es`` for MEDDOCAN, ``de`` for german-8, else ``en``)."""
    return str(ProjectSettings.of(project).extra.get("locale") or default_locale(project.schema))


def models_dir_for(project: store.Project, db_path: str | os.PathLike) -> Path:
    """``<models_dir>/project-<id>``, one sub-folder per project so two projects never share a
    directory or an ``ACTIVE`` file. ``models_dir`` is the project setting, relative to the
    database's folder unless absolute; empty means ``models/<database name>`` beside the database,
    so two databases never share model folders either."""
    db = Path(db_path).resolve()
    setting = ProjectSettings.of(project).models_dir.strip()
    base = Path(setting) if setting else Path("models") / db.stem
    if not base.is_absolute():
        base = db.parent / base
    return base / f"project-{int(project.id)}"


def checkpoint_dir(project: store.Project) -> Path | None:
    """The project's local encoder checkpoint folder (relative paths from the repository root),
    or ``None`` when encoders train from scratch."""
    setting = ProjectSettings.of(project).checkpoint_dir
    if not setting:
        return None
    return Path(setting) if Path(setting).is_absolute() else REPO_ROOT / setting


def db_path() -> Path:
    """The app's database: ``$WORKBENCH_DB``, else ``var/workbench.db`` in the repository."""
    return store.default_db_path()


def db_path_of(db: Database) -> str:
    """The file behind a connection (for the secret's location)."""
    for _seq, name, path in db.execute("PRAGMA database_list").fetchall():
        if name == "main" and path:
            return path
    raise WorkbenchError("the database has no file (an in-memory store cannot hold a secret key beside it)")


def secret_path(database: str | os.PathLike | None = None) -> Path:
    """The surrogate key beside ``database`` (default: the app's), so app and command line agree."""
    return secret_path_for(database if database is not None else db_path())


def project_secret(database: str | os.PathLike | None = None) -> bytes:
    """The surrogate key of the installation at ``database`` (created 0600 on first use)."""
    return ensure_secret(secret_path(database))
