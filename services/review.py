"""The Review page's use-cases: the documents awaiting adjudication, the finished layers of one
document, saving gold, reopening a settled disagreement, and the "possible misses" a reviewer
confirms or dismisses.

The adjudication itself (draft gold from the annotators' layers and the reviewer's choices,
possible misses) is pure: :mod:`pipeline.annotation.adjudication`. Everything here checks the
reviewer's right on the server (:mod:`services.access`) before it reads layers or writes.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from sqlite_utils import Database

import store
from pipeline.annotation.adjudication import as_gold, confirm_miss
from pipeline.layers import GOLD, annotator_layer, annotator_name
from pipeline.metrics.agreement import Disagreement
from pipeline.spans import Span
from services import access


@dataclass(frozen=True)
class ReviewItem:
    doc_id: int
    name: str
    annotators: tuple[str, ...]        # usernames whose layer of this document is finished
    gold_status: str | None            # None (no gold yet), "in_progress" or "finished"


def finished_layers(db: Database, doc_id: int) -> dict[str, list[Span]]:
    """``{username: spans}`` of the annotator layers of ``doc_id`` marked finished."""
    return {annotator_name(name): ls.spans for name, ls in store.annotator_layers(db, int(doc_id)).items()
            if ls.status == "finished"}


def review_queue(db: Database, project_id: int, *, awaiting_only: bool = True) -> list[ReviewItem]:
    """Documents with two or more finished annotator layers (assignment and layer finished),
    in document order; with ``awaiting_only``, those whose gold is not finished yet."""
    per_doc: dict[int, list[str]] = defaultdict(list)
    names: dict[int, str] = {}
    for a in store.list_assignments(db, project_id=project_id, status="finished"):
        per_doc[a.doc_id].append(a.user)
        names[a.doc_id] = a.doc_name
    out = []
    for doc_id in sorted(d for d, users in per_doc.items() if len(users) >= 2):
        layers = store.layers_of(db, doc_id)
        done = tuple(sorted(u for u in per_doc[doc_id]
                            if (info := layers.get(annotator_layer(u))) is not None and info.status == "finished"))
        if len(done) < 2:
            continue
        gold = layers.get(GOLD)
        status = gold.status if gold is not None else None
        if awaiting_only and status == "finished":
            continue
        out.append(ReviewItem(doc_id=doc_id, name=names[doc_id], annotators=done, gold_status=status))
    return out


def find_document(db: Database, user: store.User, project_id: int, name: str) -> store.DocumentRecord | None:
    """A document of the project by its name (reviewers open any document)."""
    access.require(user, "view_all_documents")
    return store.find_document(db, project_id, name.strip())


def annotator_layers_for(db: Database, user: store.User, doc_id: int) -> dict[str, list[Span]]:
    """:func:`finished_layers` after checking ``user`` may see everyone's layers."""
    access.require(user, "view_all_layers")
    access.open_document_check(db, user, doc_id)
    return finished_layers(db, doc_id)


def save_gold(db: Database, user: store.User, doc_id: int, spans: Sequence[Span], expected_version: int) -> int:
    """Save the reviewer's spans as the document's gold (a stale save is refused); the new version."""
    return access.save_layer_as(db, user, doc_id, GOLD, as_gold(spans, doc_id, user.username), expected_version)


REOPEN = "review.reopen"


def reopen(db: Database, user: store.User, doc_id: int, disagreement: Disagreement) -> int:
    """Reopen a settled disagreement of ``doc_id``: a finished gold layer goes back to "in
    progress" (the document returns to the documents awaiting adjudication, and gold must be saved
    again with every disagreement decided), and the reopening is audited with the disagreement's
    offsets, kind and the gold version it was settled in (no text). Returns that gold version
    (0 when it was settled in the editor but never saved)."""
    u = access.require(user, "write_gold")
    doc_id = int(doc_id)
    access.open_document_check(db, u, doc_id)
    with store.transaction(db):
        gold = store.layers_of(db, doc_id).get(GOLD)
        version = int(gold.version) if gold is not None else 0
        if gold is not None and gold.status == "finished":
            store.set_layer_status(db, doc_id, GOLD, "in_progress", user=u.username)
        store.audit(db, u.username, REOPEN, f"document:{doc_id}/{GOLD}", doc_id=doc_id,
                    detail={"start": int(disagreement.start), "end": int(disagreement.end),
                            "kind": disagreement.kind, "gold_version": version})
    return version


def reopened(db: Database, user: store.User, doc_id: int, gold_version: int) -> set[tuple[int, int]]:
    """The ``(start, end)`` of the disagreements of ``doc_id`` reopened since gold version
    ``gold_version`` was saved (a later save settles them again), read from the audit log, so a
    reload shows them open still."""
    access.require(user, "view_all_layers")
    return {(int(e.detail["start"]), int(e.detail["end"]))
            for e in store.list_audit(db, doc_id=int(doc_id), action=REOPEN, limit=1000)
            if e.detail.get("gold_version") == int(gold_version) and "start" in e.detail and "end" in e.detail}


def dismissed_misses(db: Database, user: store.User, doc_id: int) -> list[store.DismissedMiss]:
    access.require(user, "view_all_layers")
    return store.list_dismissed_misses(db, doc_id=doc_id)


def confirm(db: Database, user: store.User, doc_id: int, gold: Sequence[Span], miss: Span,
            expected_version: int) -> tuple[list[Span], int]:
    """Add a possible miss to gold: the new gold spans and version."""
    new = confirm_miss(gold, miss, user.username)
    version = access.save_layer_as(db, user, doc_id, GOLD, new, expected_version)
    return new, version


def dismiss(db: Database, user: store.User, doc_id: int, miss: Span) -> None:
    """Remember that a suggestion gold lacks is not PHI, so it is not offered again; audited."""
    u = access.require(user, "write_gold")
    access.open_document_check(db, u, doc_id)
    store.dismiss_miss(db, doc_id, miss.start, miss.end, miss.category, miss.type, user=u.username)
