"""Keyed hashing: every surrogate choice is a pure function of (secret, patient, type, original).

No table original -> surrogate is ever stored: re-running with the same per-project secret
re-derives the same surrogate, in any document of the patient, in any run. Without the secret
the mapping cannot be recomputed (HMAC-SHA256), so the surrogate does not reveal the original.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Callable, Iterator, Sequence


def keyed_bytes(secret: bytes, *parts: str) -> bytes:
    """HMAC-SHA256 of the parts joined with ``|`` (32 bytes)."""
    return hmac.digest(secret, "|".join(parts).encode("utf-8"), hashlib.sha256)


def keyed_int(secret: bytes, *parts: str) -> int:
    return int.from_bytes(keyed_bytes(secret, *parts), "big")


def keyed_stream(secret: bytes, *parts: str) -> Iterator[int]:
    """An endless, deterministic stream of bytes (0-255) for per-character choices."""
    counter = 0
    while True:
        block = keyed_bytes(secret, *parts, f"#{counter}")
        yield from block
        counter += 1


def keyed_offset(secret: bytes, lo: int, hi: int, *parts: str, min_abs: int = 1) -> int:
    """An integer in ``[lo, hi]`` with ``|v| >= min_abs`` (so never 0), derived from the parts.

    Values are indexed, not retried, so the choice is uniform over the allowed values.
    """
    if lo > hi:
        lo, hi = hi, lo
    m = max(1, int(min_abs))
    neg_hi, pos_lo = min(hi, -m), max(lo, m)
    n_neg = max(0, neg_hi - lo + 1)
    n_pos = max(0, hi - pos_lo + 1)
    if n_neg + n_pos == 0:
        raise ValueError("offset range must contain a value of at least the minimum size")
    k = keyed_int(secret, *parts) % (n_neg + n_pos)
    return lo + k if k < n_neg else pos_lo + (k - n_neg)


def choose(items: Sequence[str], secret: bytes, key_parts: Sequence[str],
           acceptable: Callable[[str], bool], *, max_draws: int = 64) -> str | None:
    """Pick an item: ``HMAC(secret, key) mod len(items)``, re-drawn deterministically while refused.

    Draw ``k`` (k >= 1) appends ``k`` to the key; after ``max_draws`` refusals the list is walked
    from the last draw's position, so a usable item is found whenever one exists. Returns None
    only when no item is acceptable.
    """
    n = len(items)
    if n == 0:
        return None
    idx = 0
    for k in range(max_draws):
        parts = tuple(key_parts) if k == 0 else (*key_parts, str(k))
        idx = keyed_int(secret, *parts) % n
        if acceptable(items[idx]):
            return items[idx]
    for step in range(1, n):
        cand = items[(idx + step) % n]
        if acceptable(cand):
            return cand
    return None
