"""An annotator's queue: their assignments in the order the lead chose for the project.

The ordering itself is pure (:func:`pipeline.annotation.queue.order_queue`); this reads what it
needs from the store: the user's own assignments and, for the ``uncertain`` order, the ``pre``
layer of each queued document and the active model's thresholds.
"""
from __future__ import annotations

from sqlite_utils import Database

import store
from pipeline.annotation.queue import flatten_thresholds, order_queue
from pipeline.layers import PRE
from pipeline.spans import Span


def load_queue(db: Database, username: str, project_id: int, mode: str = "assigned",
               seed: int | str = 0) -> list[store.Assignment]:
    """``username``'s assignments in ``project_id``, in queue order.

    Only the user's own assignments are read: this is safe for any role.
    """
    assignments = store.list_assignments(db, user=username, project_id=project_id)
    pre: dict[int, list[Span]] = {}
    thresholds: dict[str, float] = {}
    if mode == "uncertain" and assignments:
        mv = store.active_model(db, project_id)
        thresholds = flatten_thresholds(mv.thresholds if mv else None)
        for a in assignments:
            if a.status != "finished":
                pre[a.doc_id] = store.read_layer(db, a.doc_id, PRE).spans
    return order_queue(assignments, mode, username=username, seed=seed, pre_spans=pre, thresholds=thresholds)


def finished_doc_ids(db: Database, username: str, project_id: int) -> set[int]:
    """The documents ``username`` has finished in ``project_id``: what "next" skips. Read when the
    action comes, without ordering the queue (the ``uncertain`` order reads every ``pre`` layer)."""
    return {a.doc_id for a in store.list_assignments(db, user=username, project_id=project_id, status="finished")}
