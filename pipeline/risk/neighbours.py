"""Best similarity of each context to the contexts of *other* owners (documents or patients).

Memory stays bounded: nothing N x N is ever built. Identical strings are deduplicated before
this runs; a string seen under two or more owners is marked ``owner = -1`` and is "not unique"
by definition (similarity 1.0, nothing to search). For the rest:

- ``exact``: rows are compared with all rows in chunks (at most ``chunk_elems`` similarities,
  ~64 MB, at a time), same-owner columns masked, the row maximum kept. Cost O(U^2); used up to
  ``exact_cutoff`` distinct contexts (default 20,000: roughly 700-1,300 documents of 30
  entities; measured ~8 s for 16,000 distinct contexts on two idle cores, 16 minutes at
  160,000, where the approximate search takes ~1 s and ~15 s).
- ``ann``: a faiss IVF inner-product index (8-bit scalar-quantised lists, nlist ~ sqrt(U),
  nprobe >= 6 and >= ~2,000 vectors scanned per query) over the dense ``search`` rows returns
  ``k`` candidates per row; each candidate with another owner is re-scored on the ``exact``
  rows and the best kept. Rows whose candidates all share their owner are asked again with a
  larger ``k``; any still unresolved go through the exact search. Every similarity reported is exact; the approximation can
  only *miss* a match, so its errors make contexts look unique, never the reverse: it errs
  towards more risk, not less. The misses sit just above the threshold (synthetic documents,
  2,000 of them: exact best similarity 0.51-0.60 for 80% of the missed ones); at 10,000
  synthetic documents it called 13% more contexts unique than the exact search. Scanning
  more lists narrows the gap (nprobe 12: 10%, 24: 8%) at 2x and 4x the search time.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from pipeline.risk.embedders import Embedding

MULTI_OWNER = -1
DEFAULT_EXACT_CUTOFF = 20_000


def _as_embedding(x: Embedding | np.ndarray) -> Embedding:
    if isinstance(x, Embedding):
        return x
    x = np.ascontiguousarray(x, dtype=np.float32)
    return Embedding(x, x)


def _prepare(emb: Embedding | np.ndarray, owners: np.ndarray, rows: np.ndarray | None
             ) -> tuple[Embedding, np.ndarray, np.ndarray, np.ndarray]:
    """Both searches' arguments as arrays, and their result filled with NaN (no other owner)."""
    emb = _as_embedding(emb)
    rows = np.arange(len(emb)) if rows is None else np.asarray(rows, dtype=np.int64)
    return emb, np.asarray(owners, dtype=np.int64), rows, np.full(len(rows), np.nan, dtype=np.float32)


def exact_best_other(emb: Embedding | np.ndarray, owners: np.ndarray, rows: np.ndarray | None = None,
                     *, chunk_elems: int = 16_000_000) -> np.ndarray:
    """Exact best similarity to a row of another owner, for ``rows`` (default: all).

    Returns NaN where no other owner exists.
    """
    emb, owners, rows, out = _prepare(emb, owners, rows)
    n = len(emb)
    if n == 0 or len(rows) == 0:
        return out
    ex = emb.exact
    sparse = sp.issparse(ex)
    ex_t = ex.T.tocsr() if sparse else ex.T
    multi = owners == MULTI_OWNER
    step = max(1, chunk_elems // max(1, n))
    for lo in range(0, len(rows), step):
        r = rows[lo:lo + step]
        sims = ex[r] @ ex_t
        sims = sims.toarray() if sparse else np.asarray(sims)
        same = (owners[None, :] == owners[r][:, None]) & ~multi[None, :]
        sims[same] = -np.inf
        best = sims.max(axis=1)
        best[np.isneginf(best)] = np.nan
        out[lo:lo + len(r)] = best
    return out


def _row_dots(ex, a: np.ndarray, b: np.ndarray, chunk: int = 200_000) -> np.ndarray:
    """Exact dot products of rows ``a[i]`` and ``b[i]``, in chunks of pairs."""
    out = np.empty(len(a), dtype=np.float32)
    for lo in range(0, len(a), chunk):
        x, y = a[lo:lo + chunk], b[lo:lo + chunk]
        if sp.issparse(ex):
            out[lo:lo + len(x)] = np.asarray(ex[x].multiply(ex[y]).sum(axis=1)).ravel()
        else:
            out[lo:lo + len(x)] = np.einsum("ij,ij->i", ex[x], ex[y])
    return out


def _ivf_index(vectors: np.ndarray, nprobe: int, min_scan: int = 2_000, seed: int = 0):
    """faiss IVF with 8-bit scalar-quantised lists: a quarter of the memory of IVF-Flat and,
    the scan being memory-bound, faster; the quantisation error only reorders candidates, which
    are re-scored exactly afterwards."""
    import faiss
    n, d = vectors.shape
    nlist = int(max(1, min(4096, round(math.sqrt(n)), n // 40)))
    quantizer = faiss.IndexFlatIP(d)
    index = faiss.IndexIVFScalarQuantizer(quantizer, d, nlist, faiss.ScalarQuantizer.QT_8bit,
                                          faiss.METRIC_INNER_PRODUCT)
    index.cp.niter = 10
    index.cp.seed = seed
    sample_n = min(n, 40 * nlist)
    sample = vectors
    if sample_n < n:
        sample = vectors[np.sort(np.random.default_rng(seed).choice(n, sample_n, replace=False))]
    index.train(np.ascontiguousarray(sample))
    index.add(vectors)
    # at least ``nprobe`` lists and about ``min_scan`` vectors per query: small corpora are
    # searched more thoroughly, which costs little there
    index.nprobe = int(min(nlist, max(nprobe, math.ceil(min_scan * nlist / n))))
    return index


def _rerank(ex, owners: np.ndarray, q: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact best over candidate ``ids`` (q x k) of another owner; and which rows had one."""
    valid = ids >= 0
    safe = np.where(valid, ids, 0)
    nb_owner = owners[safe]
    q_owner = owners[q][:, None]
    other = valid & ((nb_owner != q_owner) | (nb_owner == MULTI_OWNER))
    best = np.full(len(q), -np.inf, dtype=np.float32)
    qi, kj = np.nonzero(other)                  # row-major: qi is sorted
    if len(qi):
        sims = _row_dots(ex, q[qi], safe[qi, kj])
        starts = np.flatnonzero(np.r_[True, qi[1:] != qi[:-1]])
        best[qi[starts]] = np.maximum.reduceat(sims, starts)
    found = np.isfinite(best)
    return best, found


def ann_best_other(emb: Embedding | np.ndarray, owners: np.ndarray, rows: np.ndarray | None = None, *,
                   k: int = 16, nprobe: int = 6, retry_k: int = 64, query_chunk: int = 20_000) -> np.ndarray:
    """Approximate best similarity to another owner (see the module doc); NaN where none exists."""
    emb, owners, rows, out = _prepare(emb, owners, rows)
    n = len(emb)
    if n == 0 or len(rows) == 0:
        return out
    search = np.ascontiguousarray(emb.search, dtype=np.float32)
    index = _ivf_index(search, nprobe)
    left_parts: list[np.ndarray] = []
    for lo in range(0, len(rows), query_chunk):
        q = rows[lo:lo + query_chunk]
        _, ids = index.search(search[q], min(k, n))
        best, found = _rerank(emb.exact, owners, q, ids)
        out[lo:lo + len(q)] = np.where(found, best, np.nan)
        left_parts.append(np.flatnonzero(~found) + lo)
    left = np.concatenate(left_parts)
    if len(left) and retry_k > k:
        _, ids = index.search(search[rows[left]], min(retry_k, n))
        best, found = _rerank(emb.exact, owners, rows[left], ids)
        out[left[found]] = best[found]
        left = left[~found]
    if len(left):
        out[left] = exact_best_other(emb, owners, rows[left])
    return out


def best_other_similarity(emb: Embedding | np.ndarray, owners: np.ndarray, *,
                          exact_cutoff: int = DEFAULT_EXACT_CUTOFF, k: int = 16,
                          method: str = "auto") -> tuple[np.ndarray, str]:
    """Best similarity to another owner for every row; rows with ``owner == -1`` get 1.0.

    ``method`` is ``auto`` (exact up to ``exact_cutoff`` rows, else ann), ``exact`` or ``ann``.
    Returns the similarities and the method actually used.
    """
    emb = _as_embedding(emb)
    owners = np.asarray(owners, dtype=np.int64)
    n = len(owners)
    out = np.ones(n, dtype=np.float32)
    rows = np.flatnonzero(owners != MULTI_OWNER)
    used = method if method != "auto" else ("exact" if n <= exact_cutoff else "ann")
    if used not in ("exact", "ann"):
        raise ValueError(f"unknown neighbour method {method!r}")
    if len(rows):
        out[rows] = exact_best_other(emb, owners, rows) if used == "exact" else ann_best_other(emb, owners, rows, k=k)
    return out, used
