"""Projects and what a lead manages in them: the project list, documents and their statuses,
assignments, the label schema, dictionaries, de-identification profiles and settings.

Every write takes the acting user: a signed-in :class:`store.User` (the Admin page) whose role
must allow the action, or a plain name (the command line), see :func:`services.access.actor`.
The store writes the audit rows.

Settings, dictionaries and de-identification profiles are versioned: a save passes the version
it started from (``expected_version``, the one the page displayed) and a stale save is refused
with :class:`pipeline.errors.StaleSaveError` without writing, instead of the last writer
silently winning.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from sqlite_utils import Database

import store
from pipeline.annotation.queue import plan_assignments
from pipeline.deid.profile import Profile
from pipeline.detection.dictionary_lists import make_list
from pipeline.errors import FormatError, WorkbenchError
from pipeline.schemas import LabelSchema
from services import access
from services.settings import ProjectSettings


class ProjectError(WorkbenchError):
    """A project that does not exist or cannot be changed as asked (safe to show)."""


# --------------------------------------------------------------------------- opening and finding

def open_db(path: str | os.PathLike | None = None) -> Database:
    """A connection to the database at ``path`` (default: the app's, ``$WORKBENCH_DB``): the
    store's one opener (:func:`store.connect`) for the callers that do not import the store (the
    command line, a page's deferred download). Use it as ``with open_db(path) as db:``, which
    closes it when the block ends."""
    return store.connect(path if path is not None else store.default_db_path())


def list_projects(db: Database) -> list[store.Project]:
    return store.list_projects(db)


def get_project(db: Database, project_id: int) -> store.Project:
    return store.get_project(db, project_id)


def find_project(db: Database, name: str) -> store.Project | None:
    return store.get_project_by_name(db, name)


def require_project(db: Database, name: str) -> store.Project:
    """The project called ``name``; a :class:`ProjectError` when there is none."""
    project = find_project(db, name)
    if project is None:
        raise ProjectError(f"no project named {name!r}")
    return project


def create_project(db: Database, user: store.User | str | None, name: str, schema: LabelSchema,
                   settings: dict | None = None) -> int:
    """A new, empty project (leads); its id."""
    return store.create_project(db, name, schema, settings, user=access.actor(user, "manage_projects"))


def stats(db: Database, project_id: int) -> dict:
    """Documents by status, gold, spans per layer, assignments per user (no text)."""
    return store.stats(db, project_id)


# --------------------------------------------------------------------------- documents

def documents(db: Database, project_id: int, *, ids: Sequence[int] | None = None) -> list[store.DocumentRecord]:
    """The project's documents without their text (names, patients, splits)."""
    return store.list_documents(db, project_id, ids=ids)


def document_statuses(db: Database, project_id: int) -> dict[int, str]:
    """Each document's status: new, assigned, in_progress, annotated or gold."""
    return store.document_statuses(db, project_id)


# --------------------------------------------------------------------------- assignments

def assignments(db: Database, project_id: int) -> list[store.Assignment]:
    return store.list_assignments(db, project_id=project_id)


def assign_documents(db: Database, user: store.User | str | None, project_id: int, doc_ids: Sequence[int],
                     annotators: Sequence[str], *, double_fraction: float = 0.0,
                     seed: int | str = 0) -> list[tuple[int, str]]:
    """Hand documents out in turn to ``annotators``, a share of them to a second annotator too
    (:func:`pipeline.annotation.queue.plan_assignments`): all assignments or none."""
    who = access.actor(user, "manage_assignments")
    known = {d.id for d in store.list_documents(db, project_id, ids=list(doc_ids))}
    stray = [d for d in doc_ids if int(d) not in known]
    if stray:
        raise ProjectError(f"documents {', '.join(map(str, stray[:10]))} are not in project {project_id}")
    try:
        plan = plan_assignments(doc_ids, annotators, double_fraction=double_fraction, seed=seed)
    except ValueError as e:
        raise ProjectError(str(e)) from None
    with store.transaction(db):
        for doc_id, annotator in plan:
            store.assign(db, doc_id, annotator, by=who)
    return plan


# --------------------------------------------------------------------------- schema, settings

def update_schema(db: Database, user: store.User | str | None, project_id: int, schema: LabelSchema) -> None:
    store.update_project_schema(db, project_id, schema, user=access.actor(user, "manage_schema"))


def update_settings(db: Database, user: store.User | str | None, project_id: int, settings: ProjectSettings,
                    expected_version: int | None = None) -> int:
    """Save the project settings; returns the project's new version. ``expected_version`` is the
    project version the settings were read at (``store.Project.version``): a save after someone
    else's is refused (``StaleSaveError``); ``None`` saves unchecked (scripts that set settings
    wholesale). A checkpoint folder must be a local folder (never a hub name)."""
    who = access.actor(user, "manage_settings")
    if settings.checkpoint_dir and not Path(settings.checkpoint_dir).expanduser().is_dir():
        raise FormatError(settings.checkpoint_dir, "is not a local folder (only local checkpoints are used)")
    return store.update_project_settings(db, project_id, settings.to_settings(), user=who,
                                         expected_version=expected_version)


# --------------------------------------------------------------------------- dictionaries, profiles

def dictionaries(db: Database, project_id: int) -> list[store.Dictionary]:
    return store.list_dictionaries(db, project_id)


def save_dictionary(db: Database, user: store.User | str | None, project: store.Project, category: str,
                    type_: str, name: str, lines: Sequence[str], *, filename: str = "dictionary",
                    expected_version: int | None = None) -> int:
    """Clean and check an uploaded list (:func:`pipeline.detection.dictionary_lists.make_list`) and save
    it for the project; the number of entries kept. ``expected_version``: the version of the
    dictionary of that name the caller replaces (as displayed); ``None`` (or 0): a new
    dictionary, refused if one of that name exists."""
    who = access.actor(user, "manage_dictionaries")
    try:
        cleaned = make_list(category, type_, name, lines, schema=project.schema)
    except ValueError as e:  # make_list's messages name the list, never entries
        raise FormatError(filename, str(e)) from None
    store.save_dictionary(db, project.id, category, type_, name, list(cleaned.entries), user=who,
                          expected_version=int(expected_version or 0))
    return len(cleaned.entries)


def delete_dictionary(db: Database, user: store.User | str | None, dict_id: int) -> None:
    store.delete_dictionary(db, dict_id, user=access.actor(user, "manage_dictionaries"))


def profiles(db: Database, project_id: int) -> list[store.DeidProfile]:
    return store.list_deid_profiles(db, project_id)


def save_profile(db: Database, user: store.User | str | None, project_id: int, profile: Profile,
                 expected_version: int | None = None) -> int:
    """Save a de-identification profile under its name (leads); returns its id.
    ``expected_version``: the version of the stored profile the edit started from (as
    displayed); ``None``: a new profile, refused (``DuplicateError``) if one of that name exists.
    A stale save is refused (``StaleSaveError``) and writes nothing."""
    who = access.actor(user, "manage_profiles")
    name = (profile.name or "").strip()
    if not name:
        raise ProjectError("a de-identification profile needs a name")
    return store.save_deid_profile(db, project_id, name, profile.to_dict(), user=who,
                                   expected_version=int(expected_version or 0))
