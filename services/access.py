"""Server-side access checks: who may open which document, see which layer, write what.

Why here and not in the pages: hiding a button is not a check. Every page calls these
functions before it reads or writes, and tests call them directly, so a page that forgets to
hide a control still cannot leak a layer or overwrite one. They raise
:class:`pipeline.errors.PermissionDenied` (safe to show: it names ids, layers and roles, never
text).

Roles (``store.ROLES``):

* ``annotator`` opens only documents assigned to them, sees only the machine suggestions
  (``pre``) and their own layer (``annotator:<username>``) - never another annotator's layer
  nor ``gold`` (blind double annotation) - and writes only their own layer.
* ``reviewer`` opens any document of the project and every layer, writes ``gold``, decides
  risk, reads metrics. A reviewer with an assignment can also annotate it.
* ``lead`` can do everything a reviewer can, and is the only role that trains and activates
  models, manages users, assignments, schema, dictionaries, profiles and settings, runs
  de-identification and exports.

Reads and writes go through the store's functions, which write the audit rows (without text).
"""
from __future__ import annotations

from typing import Iterable

from sqlite_utils import Database

import store
from pipeline.errors import PermissionDenied
from pipeline.layers import ANNOTATOR_PREFIX, GOLD, PRE, annotator_layer
from pipeline.spans import Span
from store import DocumentRecord, LayerState, NotFoundError, User

_ANNOTATOR = frozenset({"view_project", "annotate"})
_REVIEWER = _ANNOTATOR | {"review", "write_gold", "view_all_documents", "view_all_layers", "decide_risk",
                          "view_risk", "view_metrics"}
_LEAD = _REVIEWER | {"train", "activate_model", "deidentify", "export", "admin", "manage_users",
                     "manage_assignments", "manage_schema", "manage_dictionaries", "manage_profiles",
                     "manage_settings", "manage_projects", "import_documents"}

#: What each role may do. Pages name an action when they start (see ``dashboard.state``).
ROLE_ACTIONS: dict[str, frozenset[str]] = {"annotator": _ANNOTATOR, "reviewer": frozenset(_REVIEWER),
                                           "lead": frozenset(_LEAD)}
ACTIONS: frozenset[str] = frozenset(_LEAD)

#: Words for messages ("... may not <words>").
ACTION_WORDS = {
    "view_project": "view this project", "annotate": "annotate documents", "review": "adjudicate documents",
    "write_gold": "write the gold layer", "view_all_documents": "open documents not assigned to them",
    "view_all_layers": "see other people's layers", "decide_risk": "decide on re-identification risk",
    "view_risk": "see re-identification risk", "view_metrics": "see metrics", "train": "train models",
    "activate_model": "activate models", "deidentify": "run de-identification", "export": "export documents",
    "admin": "open the Admin page", "manage_users": "manage users", "manage_assignments": "manage assignments",
    "manage_schema": "change the label schema", "manage_dictionaries": "manage dictionaries",
    "manage_profiles": "manage de-identification profiles", "manage_settings": "change project settings",
    "manage_projects": "create projects", "import_documents": "import documents",
}


def _signed_in(user: User | None) -> User:
    if user is None:
        raise PermissionDenied("you are not signed in (or your session has ended); sign in again")
    if user.disabled:
        raise PermissionDenied(f"the account {user.username!r} is disabled")
    return user


def can(user: User | None, action: str) -> bool:
    """True if ``user``'s role allows ``action`` (an element of :data:`ACTIONS`)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    if user is None or user.disabled:
        return False
    return action in ROLE_ACTIONS.get(user.role, frozenset())


def require(user: User | None, action: str) -> User:
    """Raise :class:`PermissionDenied` unless ``user`` may do ``action``; returns the user."""
    u = _signed_in(user)
    if not can(u, action):
        raise PermissionDenied(f"{u.username} ({u.role}) may not {ACTION_WORDS.get(action, action)}")
    return u


def is_assigned(db: Database, user: User, doc_id: int) -> bool:
    return bool(store.list_assignments(db, user=user.username, doc_id=int(doc_id)))


def open_document(db: Database, user: User | None, doc_id: int, *, project_id: int | None = None,
                  record: bool = False) -> DocumentRecord:
    """The document (with text) if ``user`` may open it, else :class:`PermissionDenied`.

    Annotators may open only documents assigned to them; for anything else they get the same
    answer whether or not the document exists (no probing of ids). ``project_id``, when given,
    must be the document's project. ``record`` writes a ``document.open`` audit row: pass it
    once when a page first opens a document, not on every rerun.
    """
    u = _signed_in(user)
    doc_id = int(doc_id)
    if not can(u, "view_all_documents") and not is_assigned(db, u, doc_id):
        raise PermissionDenied(f"document {doc_id} is not assigned to you ({u.username})")
    doc = store.get_document(db, doc_id)
    if project_id is not None and doc.project_id != int(project_id):
        raise PermissionDenied(f"document {doc_id} is not in project {project_id}")
    if record:
        store.audit(db, u.username, "document.open", f"document:{doc_id}", doc_id=doc_id)
    return doc


def layer_allowed(user: User, layer: str, *, assigned: bool) -> bool:
    """Whether ``user`` may read ``layer`` of a document (``assigned``: it is in their queue)."""
    if can(user, "view_all_layers"):
        return True
    return assigned and layer in (PRE, annotator_layer(user.username))


def visible_layers(db: Database, user: User | None, doc_id: int) -> list[str]:
    """Names of the existing layers of ``doc_id`` that ``user`` may see (sorted)."""
    u = _signed_in(user)
    open_document_check(db, u, doc_id)
    assigned = can(u, "view_all_layers") or is_assigned(db, u, doc_id)
    return sorted(name for name in store.layers_of(db, int(doc_id)) if layer_allowed(u, name, assigned=assigned))


def open_document_check(db: Database, user: User, doc_id: int) -> None:
    """:func:`open_document` without reading the text."""
    if not can(user, "view_all_documents") and not is_assigned(db, user, doc_id):
        raise PermissionDenied(f"document {int(doc_id)} is not assigned to you ({user.username})")


def read_layer_for(db: Database, user: User | None, doc_id: int, layer: str) -> LayerState:
    """``store.read_layer`` after checking ``user`` may see that layer of that document.
    A layer that does not exist yet reads as empty, version 0 (for a permitted layer)."""
    u = _signed_in(user)
    open_document_check(db, u, doc_id)
    assigned = can(u, "view_all_layers") or is_assigned(db, u, doc_id)
    if not layer_allowed(u, layer, assigned=assigned):
        raise PermissionDenied(f"{u.username} ({u.role}) may not see layer {layer} of document {int(doc_id)}")
    return store.read_layer(db, int(doc_id), layer)


def writable_layer(db: Database, user: User, doc_id: int, layer: str) -> None:
    """Raise unless ``user`` may write ``layer`` of ``doc_id``: gold needs ``write_gold``; an
    annotator layer only its owner, on an assigned document; ``pre`` and others' layers nobody."""
    if layer == GOLD:
        require(user, "write_gold")
        open_document_check(db, user, doc_id)
        return
    if layer == annotator_layer(user.username):
        require(user, "annotate")
        if not is_assigned(db, user, doc_id):
            raise PermissionDenied(f"document {int(doc_id)} is not assigned to you ({user.username})")
        return
    raise PermissionDenied(f"{user.username} ({user.role}) may not write layer {layer} of document {int(doc_id)}")


def save_layer_as(db: Database, user: User | None, doc_id: int, layer: str, spans: Iterable[Span],
                  expected_version: int, seconds: float | None = None, *, status: str | None = None) -> int:
    """Save ``layer`` of ``doc_id`` on behalf of ``user``; returns the new version.

    One transaction: the versioned save (``StaleSaveError`` if someone saved since
    ``expected_version``: nothing is written, the time is not recorded either) plus, for the
    user's own annotator layer, the time spent (``seconds``) and the assignment status
    (``in_progress``, or ``finished`` with ``status="finished"``; a finished assignment stays
    finished on a plain save). Gold saves default to ``finished``.
    """
    u = _signed_in(user)
    doc_id = int(doc_id)
    writable_layer(db, u, doc_id, layer)
    own = layer == annotator_layer(u.username)
    with store.transaction(db):
        if own:
            current = store.list_assignments(db, user=u.username, doc_id=doc_id)
            if not current:
                raise NotFoundError(f"document {doc_id} is not assigned to {u.username}")
            now_status = current[0].status
            new_status = status or ("finished" if now_status == "finished" else "in_progress")
            version = store.save_layer(db, doc_id, layer, spans, expected_version=expected_version, user=u.username,
                                 status=new_status)
            if seconds is not None and seconds > 0:
                store.record_time(db, doc_id, u.username, float(seconds))
            if new_status != now_status:
                store.set_assignment_status(db, doc_id, u.username, new_status, by=u.username)
        else:
            version = store.save_layer(db, doc_id, layer, spans, expected_version=expected_version, user=u.username,
                                 status=status or "finished")
    return version


def check_user_change(actor: User | None, target: str, *, role: str | None = None, disable: bool = False) -> None:
    """A lead may manage users but not lock themselves out: no disabling their own account and
    no giving up their own lead role (so a project cannot lose its last lead by accident)."""
    u = require(actor, "manage_users")
    if target == u.username and (disable or (role is not None and role != "lead")):
        raise PermissionDenied("you cannot disable your own account or give up your own lead role")


def actor(user: User | str | None, action: str) -> str | None:
    """Who a use-case acts for, as the audit log names them, after checking their right.

    A signed-in :class:`store.User` (the app) must be allowed ``action``; a plain name is the
    command line (``cli:<login>``) or the system, which the shell already trusts with the
    database file; ``None`` is the system.

    >>> actor("cli:ana", "manage_users")
    'cli:ana'
    """
    if user is None or isinstance(user, str):
        return user
    return require(user, action).username
