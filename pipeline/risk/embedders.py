"""Context embedders: a local sentence encoder, or a lexical fallback that needs no model.

An embedder turns context strings into an :class:`Embedding`: ``exact`` rows (unit length;
their dot product is the similarity the threshold applies to) and ``search`` rows (dense,
unit length, bounded dimension) that the approximate index uses to *find candidates* only.
For a neural encoder both are the same array.

Nothing here downloads anything. :func:`build_embedder` takes a *local directory*:
- a sentence-transformers directory (has ``modules.json``) is loaded as it is;
- a Hugging Face model directory (has ``config.json``: the project's own trained encoder; a
  token classifier is fine, its head is ignored) becomes ``Transformer`` + mean ``Pooling``;
- a model-version directory whose ensemble members are sub-directories uses the first member
  (sorted by name) that has a ``config.json`` or ``modules.json``.
The hub is switched off (``local_files_only`` here; ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` are
set once at process start, see :mod:`pipeline.offline`).

Without an encoder, :class:`LexicalEmbedder`: TF-IDF over character trigrams of the context
(padded with a space each side; trigrams hashed into 2^20 buckets with vectorised numpy:
260,000 contexts in ~1 s, where sklearn's Python ``char_wb`` analyser took ~6 s), weighted by sklearn's
``TfidfTransformer`` (sublinear tf, smooth idf) and L2-normalised: the exact vectors are these
sparse rows. The search rows are a signed feature-hashing sketch of them into ``dim`` (256)
dimensions, which keeps cosines unbiased (noise ~1/sqrt(dim)) but is used only to pick
candidates: every similarity that decides uniqueness is recomputed on the exact rows. (At
10,000 synthetic documents 128 dimensions took ~25% less time but missed ~2.5% more matches.)
A TruncatedSVD reduction was measured and rejected as the *exact* vectors: on MEDDOCAN train
contexts (character 3-4-grams) it inflated cosines (the dropped tail carries most of a character-n-gram vector's mass) and
cut the share of unique contexts from 19% to 6% at 256 dimensions, i.e. it hid risk.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence, Union

import numpy as np
import scipy.sparse as sp

Matrix = Union[np.ndarray, sp.csr_matrix]


@dataclass
class Embedding:
    """``exact``: unit rows whose dot products are the similarities; ``search``: dense unit rows
    for the approximate index (the same array as ``exact`` for dense embedders)."""

    exact: Matrix
    search: np.ndarray

    def __len__(self) -> int:
        return self.exact.shape[0]

    def take(self, rows: np.ndarray) -> "Embedding":
        ex = self.exact[rows]
        return Embedding(ex, ex if self.search is self.exact else self.search[rows])

    @staticmethod
    def concat(parts: Sequence["Embedding"]) -> "Embedding":
        parts = [p for p in parts if len(p)]
        if len(parts) == 1:
            return parts[0]
        same = all(p.search is p.exact for p in parts)
        if sp.issparse(parts[0].exact):
            ex = sp.vstack([p.exact for p in parts], format="csr")
        else:
            ex = np.concatenate([p.exact for p in parts])
        return Embedding(ex, ex if same and not sp.issparse(ex) else np.concatenate([p.search for p in parts]))


class Embedder(Protocol):
    """``fit`` sees the corpus's distinct contexts once; ``embed`` may then be called many times
    (re-scoring embeds only new strings, with the fitted state frozen)."""

    name: str
    fitted: bool

    def fit(self, texts: Sequence[str]) -> None: ...

    def embed(self, texts: Sequence[str]) -> Embedding: ...


def normalise_rows(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    x /= norms
    return x


_BITS = 20
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)


def trigram_counts(texts: Sequence[str], bits: int = _BITS) -> sp.csr_matrix:
    """Counts of hashed character trigrams of ``" " + text + " "``, one row per text."""
    n_rows = len(texts)
    if n_rows == 0:
        return sp.csr_matrix((0, 1 << bits), dtype=np.float32)
    joined = "\0".join(" " + t.replace("\0", " ") + " " for t in texts) + "\0"
    cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    sep = cps == 0
    row_of = np.cumsum(sep) - sep
    length = len(cps) - 2
    h = cps[:length] * _M1
    h = (h ^ cps[1:length + 1]) * _M2
    h = (h ^ cps[2:length + 2]) * _M1
    ok = ~(sep[:length] | sep[1:length + 1] | sep[2:length + 2])
    cols = (h[ok] >> np.uint64(64 - bits)).astype(np.int64)
    rows = row_of[:length][ok]
    x = sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n_rows, 1 << bits))
    x.sum_duplicates()
    return x


def sketch(x: sp.csr_matrix, dim: int) -> np.ndarray:
    """Signed feature hashing of sparse rows into ``dim`` dense columns, rows L2-normalised."""
    cols = x.indices.astype(np.uint64)
    h = (cols + np.uint64(1)) * _M2
    bucket = ((h >> np.uint64(16)) % np.uint64(dim)).astype(np.int32)
    sign = np.where((h >> np.uint64(63)) == np.uint64(1), 1.0, -1.0).astype(np.float32)
    dense = sp.csr_matrix((x.data * sign, bucket, x.indptr), shape=(x.shape[0], dim)).toarray()
    return normalise_rows(dense)


class LexicalEmbedder:
    """TF-IDF over hashed character trigrams (exact) + a signed-hash sketch (search)."""

    def __init__(self, dim: int = 256, fit_sample: int = 200_000, chunk: int = 100_000, seed: int = 0) -> None:
        self.dim = dim
        self.fit_sample = fit_sample
        self.chunk = chunk
        self.seed = seed
        self._tfidf = None

    @property
    def name(self) -> str:
        return f"lexical:tfidf-char3-hashed+sketch{self.dim}"

    @property
    def fitted(self) -> bool:
        return self._tfidf is not None

    def fit(self, texts: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import TfidfTransformer
        texts = list(texts)
        if len(texts) > self.fit_sample:
            idx = np.random.default_rng(self.seed).choice(len(texts), self.fit_sample, replace=False)
            texts = [texts[i] for i in np.sort(idx)]
        tfidf = TfidfTransformer(sublinear_tf=True)
        tfidf.fit(trigram_counts(texts or [""]))
        self._tfidf = tfidf

    def embed(self, texts: Sequence[str]) -> Embedding:
        if self._tfidf is None:
            self.fit(texts)
        texts = list(texts)
        exact_parts, search_parts = [], []
        for lo in range(0, max(1, len(texts)), self.chunk):
            x = self._tfidf.transform(trigram_counts(texts[lo:lo + self.chunk])).astype(np.float32).tocsr()
            x.sort_indices()
            exact_parts.append(x)
            search_parts.append(sketch(x, self.dim))
        return Embedding(sp.vstack(exact_parts, format="csr"), np.concatenate(search_parts))


def _model_dir(path: Path) -> Path:
    if (path / "modules.json").is_file() or (path / "config.json").is_file():
        return path
    for sub in sorted(p for p in path.iterdir() if p.is_dir()):
        if (sub / "config.json").is_file() or (sub / "modules.json").is_file():
            return sub
    raise FileNotFoundError(f"{path}: no encoder here (needs modules.json or config.json, "
                            "or a sub-directory with one)")


class SentenceEncoderEmbedder:
    """A sentence-transformers model from a local directory (mean pooling for a plain encoder).

    A plain encoder's mean-pooled vectors are anisotropic (all of them point roughly the same
    way, so every pair has a high cosine); with ``center=True`` (default for a plain encoder,
    off for a real sentence-transformers model, which is trained for cosine) the mean vector
    of the corpus's contexts, learnt in :meth:`fit`, is subtracted before normalising.
    """

    def __init__(self, path: str | os.PathLike, *, batch_size: int = 64, max_seq_length: int = 64,
                 device: str | None = None, center: bool | None = None) -> None:
        p = Path(path)
        if not p.is_dir():
            raise FileNotFoundError(f"{p}: encoder directory not found (give a local model folder; "
                                    f"hub names are never downloaded)")
        d = _model_dir(p)
        import torch
        from sentence_transformers import SentenceTransformer
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        if (d / "modules.json").is_file():
            self.model = SentenceTransformer(str(d), local_files_only=True, device=device)
            kind = "sentence-transformers"
        else:
            from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
            local = {"local_files_only": True}
            tr = Transformer(str(d), model_kwargs=dict(local), processor_kwargs=dict(local),
                             config_kwargs=dict(local), max_seq_length=max_seq_length)
            pool = Pooling(tr.get_embedding_dimension(), "mean")
            self.model = SentenceTransformer(modules=[tr, pool], device=device)
            kind = "encoder+mean-pooling"
        self.center = (kind != "sentence-transformers") if center is None else center
        self.batch_size = batch_size
        self._mean: np.ndarray | None = None
        self._fitted = False
        self.name = f"{kind}{'+centred' if self.center else ''}:{d.name}"

    def _raw(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.model.get_embedding_dimension() or 1), dtype=np.float32)
        return np.asarray(self.model.encode(texts, batch_size=self.batch_size, show_progress_bar=False,
                                            convert_to_numpy=True), dtype=np.float32)

    def fit(self, texts: Sequence[str]) -> None:
        if self.center:
            texts = list(texts)
            if len(texts) > 2_000:       # the mean of 2,000 contexts is stable; don't encode all twice
                idx = np.random.default_rng(0).choice(len(texts), 2_000, replace=False)
                texts = [texts[i] for i in np.sort(idx)]
            self._mean = self._raw(texts).mean(axis=0) if texts else None
        self._fitted = True

    @property
    def fitted(self) -> bool:
        return self._fitted

    def embed(self, texts: Sequence[str]) -> Embedding:
        vecs = self._raw(list(texts))
        if self.center and self._mean is not None:
            vecs = vecs - self._mean
        vecs = normalise_rows(vecs)
        return Embedding(vecs, vecs)


def build_embedder(encoder: str | os.PathLike | None, *, lexical_dim: int = 256) -> Embedder:
    """The embedder for ``encoder`` (a local directory) or the lexical fallback for ``None``."""
    if encoder:
        return SentenceEncoderEmbedder(encoder)
    return LexicalEmbedder(dim=lexical_dim)
