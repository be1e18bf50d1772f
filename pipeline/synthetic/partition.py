"""Train and held-out parts of every list the wide generator draws from.

Why: a model that scores 0.998 on more notes from its own generator has only shown that it
learned the generator. A benchmark that trains on ``train``-part notes and scores ``heldout``-part
notes (templates, names, places and value formats none of the training notes used) measures
something closer to generalisation.

The split is deterministic: values are ranked by ``sha256(f"{split_seed}:{kind}:{value}")`` and the
last ``share`` of the ranking is held out (at least one value on each side when there are two or
more), so the same seed gives the same parts in every process and on every machine.
"""
from __future__ import annotations

import hashlib
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")

PARTS = ("all", "train", "heldout")
HELDOUT_SHARE = 0.3


def check_part(part: str) -> str:
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; use one of {', '.join(PARTS)}")
    return part


def _rank(kind: str, value: str, split_seed: int) -> str:
    return hashlib.sha256(f"{split_seed}:{kind}:{value}".encode("utf-8")).hexdigest()


def split(kind: str, values: Sequence[T], split_seed: int = 0, *, share: float = HELDOUT_SHARE,
          key: Callable[[T], str] = str, always_train: frozenset[str] = frozenset()) -> tuple[tuple[T, ...], tuple[T, ...]]:
    """``(train, heldout)`` of ``values`` (each in input order).

    ``always_train``: keys that may never be held out (the narrow generator's own lists, so a
    model trained on the narrow corpus has not seen the held-out values either).

    >>> split("dates", ["a", "b", "c", "d"], 0)
    (('b', 'c', 'd'), ('a',))
    """
    free = [v for v in values if key(v) not in always_train]
    ranked = sorted(free, key=lambda v: _rank(kind, key(v), split_seed))
    n_out = int(round(len(ranked) * share))
    if len(ranked) >= 2:
        n_out = min(max(n_out, 1), len(ranked) - 1)
    else:
        n_out = 0
    held = {key(v) for v in ranked[len(ranked) - n_out:]} if n_out else set()
    return (tuple(v for v in values if key(v) not in held), tuple(v for v in values if key(v) in held))


def part_of(kind: str, values: Sequence[T], part: str, split_seed: int = 0, **kw) -> tuple[T, ...]:
    """The values of ``part`` (``all``: every value)."""
    check_part(part)
    if part == "all":
        return tuple(values)
    train, held = split(kind, values, split_seed, **kw)
    return train if part == "train" else held
