"""Label marginals of linear-chain CRFs by a vectorised forward-backward, for many CRFs and
documents at once.

Apart from :mod:`models.crf` because it is numpy arithmetic on exported weights, nothing of
crfsuite or of the features: the stacked members (:mod:`models.crf_stack`) call it on several
CRFs' emissions together, and a CRF member on its own.
"""
from __future__ import annotations

import numpy as np


def chain_marginals(trans: list[np.ndarray], ems: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """Per-token label marginals of several linear-chain CRFs over the same documents at once:
    ``trans[m]`` is CRF ``m``'s ``(L, L)`` transition scores and ``ems[m]`` its emission scores per
    document (equal lengths across CRFs). The CRFs are stacked with the documents, so the
    position-by-position recursion (the Python loop) runs once for all of them. See
    :meth:`CRFMember.marginals_batch`."""
    M = len(trans)
    if M == 0 or not ems[0]:
        return [[] for _ in range(M)]
    L = trans[0].shape[0]
    B = len(ems[0])
    lens = np.array([e.shape[0] for e in ems[0]])
    T = int(lens.max())
    if T == 0:
        return [[np.zeros((0, L), dtype=np.float32)] * B for _ in range(M)]
    E = np.ones((M, B, T, L))
    for m in range(M):
        for b, e in enumerate(ems[m]):
            if e.shape[0]:
                E[m, b, :e.shape[0]] = np.exp(e - e.max(axis=1, keepdims=True))
    A = np.stack([np.exp(t - t.max()) for t in trans])          # (M, L, L)
    AT = np.ascontiguousarray(A.transpose(0, 2, 1))
    alpha = np.empty((M, B, T, L))
    beta = np.empty((M, B, T, L))
    a = E[:, :, 0]
    alpha[:, :, 0] = a / a.sum(axis=2, keepdims=True)
    for t in range(1, T):
        a = np.matmul(alpha[:, :, t - 1], A) * E[:, :, t]
        alpha[:, :, t] = a / a.sum(axis=2, keepdims=True)
    beta[:, :, T - 1] = 1.0
    live = ((np.arange(T)[None, :] + 1) < lens[:, None])[None, :, :, None]   # position t has a successor
    for t in range(T - 2, -1, -1):
        b = np.matmul(E[:, :, t + 1] * beta[:, :, t + 1], AT)
        b /= b.sum(axis=2, keepdims=True)
        beta[:, :, t] = np.where(live[:, :, t], b, 1.0)
    p = alpha * beta
    p /= p.sum(axis=3, keepdims=True)
    return [[p[m, b, :lens[b]].astype(np.float32) for b in range(B)] for m in range(M)]


def marginals_all(trans: list[np.ndarray], ems: list[list[np.ndarray]], batch_size: int = 32) -> list[list[np.ndarray]]:
    """:func:`chain_marginals` for many documents, batched by length (input order kept)."""
    n = len(ems[0]) if ems else 0
    order = sorted(range(n), key=lambda k: ems[0][k].shape[0])
    out: list[list[np.ndarray | None]] = [[None] * n for _ in trans]
    for s in range(0, n, batch_size):
        idx = order[s:s + batch_size]
        got = chain_marginals(trans, [[e[k] for k in idx] for e in ems])
        for m in range(len(trans)):
            for k, p in zip(idx, got[m]):
                out[m][k] = p
    return out  # type: ignore[return-value]
