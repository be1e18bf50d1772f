"""Context vectors for re-identification risk from a model version trained in the app.

Risk scoring (:mod:`pipeline.risk`) compares the text around each entity across documents; an
encoder that has read the project's notes gives better neighbours than character trigrams. A
version's encoder members are token classifiers with a tokenizer of the project's own
(``members/<name>/model`` + ``members/<name>/tokenizer``), which a generic sentence-encoder
loader cannot read, so this module embeds with the member itself: the encoder's last hidden
states, mean-pooled over a context's sub-word pieces, centred on the corpus mean (a plain
encoder's vectors all point roughly the same way) and L2-normalised.

A version without an encoder member (CRF only) has nothing to embed with:
:func:`encoder_member_dir` says so and risk scoring falls back to the lexical embedder.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from models.registry import resolve
from models.words import tokenize
from pipeline.risk.embedders import Embedding, normalise_rows


def encoder_member_dir(model_dir: str | Path) -> Path | None:
    """The version's encoder member with the largest ensemble weight (ties: by name), or ``None``."""
    version = resolve(model_dir)
    info = json.loads((version / "version.json").read_text(encoding="utf-8"))
    weights = info.get("weights") or {}
    found = []
    for d in sorted((version / "members").iterdir()) if (version / "members").is_dir() else []:
        meta_path = d / "member.json"
        if meta_path.is_file() and json.loads(meta_path.read_text(encoding="utf-8")).get("kind") == "encoder":
            found.append((-float(weights.get(d.name, 0.0)), d.name, d))
    return sorted(found)[0][2] if found else None


class MemberContextEmbedder:
    """:class:`pipeline.risk.embedders.Embedder` over an encoder member of a model version."""

    def __init__(self, member_dir: str | Path, *, batch_size: int = 64, max_pieces: int = 62) -> None:
        from models.encoder import EncoderMember

        self.member = EncoderMember.load(member_dir)
        self.batch_size = batch_size
        self.max_pieces = max_pieces
        self._mean: np.ndarray | None = None
        self.fitted = False
        self.name = f"encoder+mean-pooling+centred:{Path(member_dir).name}"

    def _raw(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        tok = self.member.tokenizer
        encoder = self.member.model.base_model
        hidden = self.member.model.config.hidden_size
        pieces = [ids[: self.max_pieces] for ids, _ in tok.encode_words([tokenize(t).tokens for t in texts])]
        out = np.zeros((len(texts), hidden), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda k: len(pieces[k]))
        with torch.inference_mode():
            for s in range(0, len(order), self.batch_size):
                chunk = order[s:s + self.batch_size]
                m = max(len(pieces[k]) for k in chunk) + 2
                ids = torch.full((len(chunk), m), tok.pad_id, dtype=torch.long)
                att = torch.zeros((len(chunk), m), dtype=torch.long)
                for row, k in enumerate(chunk):
                    seq = [tok.cls_id, *pieces[k], tok.sep_id]
                    ids[row, :len(seq)] = torch.tensor(seq)
                    att[row, :len(seq)] = 1
                states = encoder(input_ids=ids, attention_mask=att).last_hidden_state.float()
                mask = att.unsqueeze(-1).float()
                pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
                out[chunk] = pooled.numpy()
        return out

    def fit(self, texts: Sequence[str]) -> None:
        texts = list(texts)
        if len(texts) > 2_000:       # the mean of 2,000 contexts is stable; don't encode all twice
            idx = np.random.default_rng(0).choice(len(texts), 2_000, replace=False)
            texts = [texts[i] for i in np.sort(idx)]
        self._mean = self._raw(texts).mean(axis=0) if texts else None
        self.fitted = True

    def embed(self, texts: Sequence[str]) -> Embedding:
        vecs = self._raw(list(texts))
        if self._mean is not None:
            vecs = vecs - self._mean
        vecs = normalise_rows(vecs)
        return Embedding(vecs, vecs)
