"""The order of an annotator's queue, and the plan for handing documents out.

The lead chooses the order per project (setting ``queue_order``):

* ``assigned``: the order the lead assigned them (assignment position);
* ``random``: shuffled, reproducibly per annotator (seed = project setting ``queue_seed`` and
  the username), so two annotators do not work through a double-annotated sample in the same
  order, and a reload does not reshuffle;
* ``uncertain``: active learning - documents whose machine suggestions (the ``pre`` layer)
  sit nearest the active model's decision thresholds first. A document's uncertainty is the
  mean distance ``|score - threshold|`` of its suggestions; the thresholds come from the model
  version's ``thresholds`` (per fine type or category, default 0.5). Documents without
  suggestions have no measurable uncertainty and go after those with some.

In every order, finished documents go last (in assigned order): the queue leads with work.
"""
from __future__ import annotations

import random
from typing import Any, Collection, Mapping, Sequence

from pipeline.spans import Span

QUEUE_ORDERS = ("assigned", "random", "uncertain")
#: The orders as the pages say them.
QUEUE_ORDER_WORDS = {"assigned": "as assigned", "random": "shuffled per annotator",
                     "uncertain": "least certain suggestions first"}
DEFAULT_THRESHOLD = 0.5


def flatten_thresholds(thresholds: Mapping[str, Any] | None) -> dict[str, float]:
    """A model version's ``thresholds`` as ``{label: threshold}``.

    Accepts the flat form ``{"NAME": 0.4, "DOCTOR": 0.35, "default": 0.5}`` and nested forms
    (``{"per_category": {...}, "per_type": {...}, "default": ...}``); anything that is not a
    number in [0, 1] is ignored.
    """
    out: dict[str, float] = {}
    if not thresholds:
        return out
    for key, val in thresholds.items():
        if isinstance(val, Mapping):
            out.update(flatten_thresholds(val))
        elif isinstance(val, (int, float)) and not isinstance(val, bool) and 0.0 <= float(val) <= 1.0:
            out[str(key)] = float(val)
    return out


def threshold_for(span: Span, thresholds: Mapping[str, float]) -> float:
    """The fine type's threshold, else the category's, else ``default``, else 0.5."""
    for key in (span.type, span.category, "default"):
        if key and key in thresholds:
            return float(thresholds[key])
    return DEFAULT_THRESHOLD


def uncertainty(spans: Sequence[Span], thresholds: Mapping[str, float] | None = None) -> float | None:
    """Mean ``|score - threshold|`` of the spans (smaller = less certain); ``None`` without spans."""
    if not spans:
        return None
    th = thresholds or {}
    return sum(abs(float(s.score) - threshold_for(s, th)) for s in spans) / len(spans)


def order_queue(assignments: Sequence[Any], mode: str = "assigned", *, username: str = "", seed: int | str = 0,
                pre_spans: Mapping[int, Sequence[Span]] | None = None,
                thresholds: Mapping[str, float] | None = None) -> list[Any]:
    """``assignments`` (objects with ``doc_id``, ``status``, ``position``) in queue order.

    ``pre_spans`` (doc id -> the document's ``pre`` spans) is needed for ``uncertain`` only.
    Unknown modes raise ``ValueError``.
    """
    if mode not in QUEUE_ORDERS:
        raise ValueError(f"queue order must be one of {', '.join(QUEUE_ORDERS)}, not {mode!r}")
    by_position = sorted(assignments, key=lambda a: (a.position, a.doc_id))
    todo = [a for a in by_position if a.status != "finished"]
    done = [a for a in by_position if a.status == "finished"]
    if mode == "random":
        random.Random(f"queue:{seed}:{username}").shuffle(todo)
    elif mode == "uncertain":
        pre = pre_spans or {}

        def key(item: tuple[int, Any]) -> tuple[int, float, int]:
            i, a = item
            u = uncertainty(list(pre.get(a.doc_id, ())), thresholds)
            return (1, 0.0, i) if u is None else (0, u, i)

        todo = [a for _, a in sorted(enumerate(todo), key=key)]
    return todo + done


def keep_order(shown: Sequence[int], fresh: Sequence[int]) -> list[int]:
    """The queue as the annotator has been seeing it: the documents of ``shown`` that are still in
    ``fresh`` stay where they were (a document finished a moment ago does not jump to the end, so
    "next" is the one that was below it), documents new to the queue follow in ``fresh``'s order."""
    now = list(dict.fromkeys(int(d) for d in fresh))
    present = set(now)
    kept = [d for d in dict.fromkeys(int(d) for d in shown) if d in present]
    seen = set(kept)
    return kept + [d for d in now if d not in seen]


def neighbours(order: Sequence[int], doc_id: int) -> tuple[int | None, int | None]:
    """The documents before and after ``doc_id`` in ``order`` (``None`` at either end or when it
    is not there)."""
    if doc_id not in order:
        return None, None
    i = list(order).index(doc_id)
    return (order[i - 1] if i > 0 else None), (order[i + 1] if i + 1 < len(order) else None)


def next_open(order: Sequence[int], doc_id: int | None, done: Collection[int]) -> int | None:
    """The document "next" and "finish & next" open: the first one after ``doc_id`` in ``order``
    that is not ``done`` (finished notes are skipped, so a finished note never opens while an
    unfinished one waits), else the first not-done one before it (the queue wraps round to work
    left behind); ``None`` when every other document is done. ``doc_id`` itself is never
    returned; one not in ``order`` starts the search at the top.

    >>> next_open([1, 2, 3, 4], 1, done={2})
    3
    >>> next_open([1, 2, 3, 4], 3, done={4})
    1
    >>> next_open([1, 2], 1, done={2}) is None
    True
    """
    ids = [int(d) for d in order]
    i = ids.index(int(doc_id)) if doc_id is not None and int(doc_id) in ids else -1
    for d in ids[i + 1:] + ids[:max(i, 0)]:
        if d not in done and d != doc_id:
            return d
    return None


def plan_assignments(doc_ids: Sequence[int], annotators: Sequence[str], *, double_fraction: float = 0.0,
                     seed: int | str = 0) -> list[tuple[int, str]]:
    """Who gets which document: ``(doc_id, annotator)`` pairs, in document order.

    Documents go round-robin to ``annotators`` in the order given. A reproducible random sample
    of ``round(double_fraction * n)`` documents also goes to a second annotator (the next one
    in the rotation), for agreement figures and adjudication. With one annotator there is no
    second one, so nothing is doubled.
    """
    if not annotators:
        raise ValueError("choose at least one annotator")
    if not 0.0 <= double_fraction <= 1.0:
        raise ValueError("the share of double-annotated documents must be between 0 and 1")
    docs = list(dict.fromkeys(int(d) for d in doc_ids))
    people = list(dict.fromkeys(annotators))
    n_double = int(round(double_fraction * len(docs))) if len(people) > 1 else 0
    doubled = set(random.Random(f"double:{seed}").sample(docs, n_double)) if n_double else set()
    out: list[tuple[int, str]] = []
    turn = 0
    for d in docs:
        out.append((d, people[turn % len(people)]))
        turn += 1
        if d in doubled:
            out.append((d, people[turn % len(people)]))
            turn += 1
    return out
