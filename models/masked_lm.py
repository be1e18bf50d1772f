"""The project's own masked language model: the model itself, used to infill PHI spans.

A small BERT-style ``AutoModelForMaskedLM`` over a WordPiece vocabulary learned from the
project's texts, with the word lists it may propose from. Where PHI spans are known (gold), it
was trained to learn what fits where a name, a place or a record number stands: that is what
the ``paraphrase`` action asks of it (:mod:`pipeline.deid.paraphrase`, which decides everything
else: shape, checks, keyed choice).

What it may propose for a word slot is restricted to whole words of its vocabulary seen in at
least ``min_docs`` different documents (patients, where known) - and, for a category the spans
name, to words seen inside spans of that type or category in that many documents. A
surrogate is therefore never a word that only one patient's note contains.

The model also gives token embeddings (:meth:`MaskedLM.embed`) for the BERTScore-style
similarity of the quality report (:mod:`pipeline.deid.quality`).

This module is what a loaded model needs at inference time (its settings, :class:`MaskedLM`,
its own folder format: :meth:`MaskedLM.save` / :meth:`MaskedLM.load`); training it lives in
:mod:`models.masked_lm_train`, and the root folder of versions with its ``CURRENT`` pointer in
:mod:`models.masked_lm_folders`, so neither weighs on the code that only fills spans.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from models.subwords import SubwordTokenizer
from pipeline.deid.paraphrase import Candidates, InfillRequest, piece_fits
from pipeline.deid.project_values import ProjectValues

META_FILE = "masked_lm.json"
FILLERS_FILE = "fillers.json"
PROJECT_VALUES_FILE = "project_values.json"     # keyed digests only (pipeline.deid.project_values)
MIN_FILLERS = 12             # a learned word list smaller than this is not used on its own


class MaskedLMError(RuntimeError):
    """A masked-LM folder that cannot be used (the message names the folder, never a word)."""


@dataclass
class MaskedLMConfig:
    """Size and training of the model. The defaults train in seconds to minutes on a CPU."""

    hidden: int = 128
    layers: int = 2
    heads: int = 4
    intermediate: int = 512
    vocab_size: int = 8000
    max_len: int = 128           # pieces per window, [CLS] and [SEP] included
    epochs: int = 4
    batch_size: int = 32
    lr: float = 1e-3
    weight_decay: float = 0.01
    warmup: float = 0.06
    mask_prob: float = 0.15      # share of words masked
    phi_mask_prob: float = 0.5   # share of words inside known PHI spans masked
    min_docs: int = 3            # a word may be proposed only if this many documents hold it
    seed: int = 13
    threads: int = 0             # torch threads (0: up to 2)

    @classmethod
    def from_dict(cls, d: dict | None) -> "MaskedLMConfig":
        d = dict(d or {})
        unknown = sorted(set(d) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"unknown masked-LM settings: {', '.join(unknown)}")
        return cls(**d)


class _InferenceThreads:
    """Torch threads for one inference call, restored after: a model this small runs its many
    small products fastest on one thread (several spin against each other on a busy machine,
    measured 5x slower on 2 shared cores)."""

    def __init__(self, n: int):
        self.n = n
        self.before = 0

    def __enter__(self) -> None:
        self.before = torch.get_num_threads()
        if self.n and self.n != self.before:
            torch.set_num_threads(self.n)

    def __exit__(self, *exc) -> None:
        if torch.get_num_threads() != self.before:
            torch.set_num_threads(self.before)


# --------------------------------------------------------------------------- the model

class MaskedLM:
    """A trained masked LM with its tokenizer and word lists: the engine's ``Infiller``."""

    def __init__(self, name: str, tokenizer: SubwordTokenizer, model, config: MaskedLMConfig,
                 fillers: dict | None = None, meta: dict | None = None):
        self.name = name
        self.tokenizer = tokenizer
        self.model = model
        self.model.eval()
        self.config = config
        self.fillers = fillers or {"min_docs": config.min_docs, "frequent": [], "labels": {}}
        self.meta = meta or {}
        vocab = tokenizer.tok.get_vocab(with_added_tokens=True)
        self._pieces = [""] * tokenizer.vocab_size
        for piece, i in vocab.items():
            if 0 <= i < len(self._pieces):
                self._pieces[i] = piece
        self._allowed: dict[tuple[str, str, str], torch.Tensor] = {}
        self._literal: dict[str, list[int]] = {}
        self.inference_threads = 1
        #: the keyed set of the PHI values of the notes it was trained from (None: a model made
        #: before the set existed, which services refuse to use)
        self.project_values: ProjectValues | None = None

    def __repr__(self) -> str:
        return f"MaskedLM(name={self.name!r}, vocab={self.tokenizer.vocab_size}, hidden={self.config.hidden})"

    # ------------------------------------------------------------------ what a slot may hold
    def allowed(self, kind: str, category: str = "", type_: str = "") -> torch.Tensor:
        """Boolean mask over the vocabulary: pieces that may fill a slot of ``kind`` in a span of
        ``category``/``type_`` (see the module docstring)."""
        key = (kind, category if kind in ("name", "word", "ascii") else "", type_ if kind in ("name", "word") else "")
        mask = self._allowed.get(key)
        if mask is not None:
            return mask
        base = {i for i, p in enumerate(self._pieces) if piece_fits(p, kind)}
        if kind in ("name", "word", "ascii"):
            labels = self.fillers.get("labels", {})
            pools = [labels.get("NAME", [])] if kind == "ascii" else [labels.get(type_, []), labels.get(category, [])]
            pools.append(self.fillers.get("frequent", []))
            for pool in pools:
                narrowed = base & set(pool)
                if len(narrowed) >= MIN_FILLERS:
                    base = narrowed
                    break
        mask = torch.zeros(len(self._pieces), dtype=torch.bool)
        if base:
            mask[sorted(base)] = True
        self._allowed[key] = mask
        return mask

    def _literal_ids(self, literal: str) -> list[int]:
        ids = self._literal.get(literal)
        if ids is None:
            ids = self.tokenizer.tok.encode(literal, add_special_tokens=False).ids
            self._literal[literal] = ids
        return ids

    # ------------------------------------------------------------------ infilling
    def infill(self, text: str, requests: Sequence[InfillRequest], top_k: int = 32) -> list[list[Candidates]]:
        """Per request, per slot: the ``top_k`` allowed pieces with their log-probabilities, the
        span replaced by its template (a [MASK] per slot, kept text as it is) in its context."""
        if not requests:
            return []
        with _InferenceThreads(self.inference_threads), torch.inference_mode():
            return self._infill(text, requests, top_k)

    def _infill(self, text: str, requests: Sequence[InfillRequest], top_k: int) -> list[list[Candidates]]:
        enc = self.tokenizer.tok.encode(text, add_special_tokens=False)
        ids = enc.ids
        starts = np.asarray([a for a, _ in enc.offsets], dtype=np.int64)
        ends = np.asarray([b for _, b in enc.offsets], dtype=np.int64)
        tok = self.tokenizer
        rows: list[list[int]] = []
        slots: list[list[tuple[int, str]]] = []
        budget = self.config.max_len - 2
        for r in requests:
            template: list[int] = []
            kinds: list[tuple[int, str]] = []
            for what, value in r.parts:
                if what == "slot":
                    kinds.append((len(template), value))
                    template.append(tok.mask_id)
                else:
                    template += self._literal_ids(value)
            if len(template) > budget:
                rows.append([])
                slots.append([])
                continue
            side = (budget - len(template)) // 2
            left_end = int(np.searchsorted(ends, r.start, side="right"))
            right_start = int(np.searchsorted(starts, r.end, side="left"))
            left = ids[max(0, left_end - side):left_end]
            right = ids[right_start:right_start + (budget - len(template) - len(left))]
            if len(left) + len(template) + len(right) < budget and left_end - len(left) > 0:
                more = budget - len(template) - len(left) - len(right)
                left = ids[max(0, left_end - len(left) - more):left_end]
            rows.append([tok.cls_id, *left, *template, *right, tok.sep_id])
            slots.append([(1 + len(left) + pos, kind) for pos, kind in kinds])
        out: list[list[Candidates]] = [[[] for _ in s] for s in slots]
        order = [k for k in range(len(rows)) if rows[k]]
        for b in range(0, len(order), 64):
            chunk = order[b:b + 64]
            width = max(len(rows[k]) for k in chunk)
            inp = torch.full((len(chunk), width), tok.pad_id, dtype=torch.long)
            att = torch.zeros((len(chunk), width), dtype=torch.long)
            for j, k in enumerate(chunk):
                inp[j, :len(rows[k])] = torch.tensor(rows[k])
                att[j, :len(rows[k])] = 1
            hidden = self.model.base_model(input_ids=inp, attention_mask=att).last_hidden_state
            where = [(j, pos) for j, k in enumerate(chunk) for pos, _ in slots[k]]
            rows_idx = torch.tensor([j for j, _ in where], dtype=torch.long)
            cols_idx = torch.tensor([pos for _, pos in where], dtype=torch.long)
            # the vocabulary head only where a slot is (not at every position of every row)
            all_lp = torch.log_softmax(_head(self.model)(hidden[rows_idx, cols_idx]).float(), dim=-1)
            # slots sharing what they may hold are ranked together: one masked top-k per kind
            groups: dict[tuple[str, str, str], list[tuple[int, int, int]]] = {}
            n_done = 0
            for j, k in enumerate(chunk):
                req = requests[k]
                for s_idx, (_pos, kind) in enumerate(slots[k]):
                    groups.setdefault((kind, req.category, req.type), []).append((n_done, k, s_idx))
                    n_done += 1
            for (kind, category, type_), members in groups.items():
                allowed = self.allowed(kind, category, type_)
                n = min(top_k, int(allowed.sum()))
                if n == 0:
                    continue
                lp = all_lp[[m[0] for m in members]].masked_fill(~allowed, float("-inf"))
                vals, idx = torch.topk(lp, n, dim=-1)
                for (_, k, s_idx), vs, ids in zip(members, vals.tolist(), idx.tolist()):
                    out[k][s_idx] = [(self._pieces[i], round(v, 4)) for v, i in zip(vs, ids)]
        return out

    # ------------------------------------------------------------------ embeddings
    def embed(self, texts: Sequence[str], batch_size: int = 32) -> list[np.ndarray]:
        """Per text, one unit-length vector per sub-word piece (the encoder's last layer; texts
        longer than a window are cut into consecutive windows)."""
        with _InferenceThreads(self.inference_threads), torch.inference_mode():
            return self._embed(texts, batch_size)

    def _embed(self, texts: Sequence[str], batch_size: int) -> list[np.ndarray]:
        tok = self.tokenizer
        size = self.config.max_len - 2
        windows: list[tuple[int, list[int]]] = []
        for t_idx, enc in enumerate(tok.tok.encode_batch(list(texts), add_special_tokens=False)):
            ids = enc.ids
            for a in range(0, max(1, len(ids)), size):
                windows.append((t_idx, ids[a:a + size]))
        parts: list[list[np.ndarray]] = [[] for _ in texts]
        base = self.model.base_model
        order = sorted(range(len(windows)), key=lambda k: len(windows[k][1]))
        for b in range(0, len(order), batch_size):
            chunk = [windows[k] for k in order[b:b + batch_size]]
            width = max(len(w) for _, w in chunk) + 2
            inp = torch.full((len(chunk), width), tok.pad_id, dtype=torch.long)
            att = torch.zeros((len(chunk), width), dtype=torch.long)
            for j, (_, w) in enumerate(chunk):
                row = [tok.cls_id, *w, tok.sep_id]
                inp[j, :len(row)] = torch.tensor(row)
                att[j, :len(row)] = 1
            hidden = base(input_ids=inp, attention_mask=att).last_hidden_state.float()
            hidden = torch.nn.functional.normalize(hidden, dim=-1).numpy()
            for j, (t_idx, w) in enumerate(chunk):
                if w:
                    parts[t_idx].append((order[b + j], hidden[j, 1:1 + len(w)]))  # type: ignore[arg-type]
        out = []
        dim = self.config.hidden
        for p in parts:
            p.sort(key=lambda x: x[0])   # type: ignore[index]
            out.append(np.concatenate([x[1] for x in p], axis=0) if p else np.zeros((0, dim), np.float32))  # type: ignore[index]
        return out

    # ------------------------------------------------------------------ storage
    def save(self, directory: str | Path) -> None:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(str(d / "model"), safe_serialization=True)
        self.tokenizer.save(d / "tokenizer")
        (d / FILLERS_FILE).write_text(json.dumps(self.fillers), encoding="utf-8")
        if self.project_values is not None:
            (d / PROJECT_VALUES_FILE).write_text(self.project_values.to_json(), encoding="utf-8")
        meta = {**self.meta, "name": self.name, "config": asdict(self.config)}
        (d / META_FILE).write_text(json.dumps(meta, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path) -> "MaskedLM":
        """A model folder written by :meth:`save` (offline: ``local_files_only``)."""
        from transformers import AutoModelForMaskedLM
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        d = Path(directory)
        try:
            meta = json.loads((d / META_FILE).read_text(encoding="utf-8"))
            fillers = json.loads((d / FILLERS_FILE).read_text(encoding="utf-8"))
            tokenizer = SubwordTokenizer.load(d / "tokenizer")
            model = AutoModelForMaskedLM.from_pretrained(str(d / "model"), local_files_only=True)
        except (OSError, ValueError, KeyError) as e:
            raise MaskedLMError(f"{d}: not a usable masked-LM folder ({type(e).__name__})") from None
        cfg = MaskedLMConfig.from_dict(meta.get("config"))
        lm = cls(str(meta.get("name") or d.name), tokenizer, model, cfg, fillers, meta)
        pv = d / PROJECT_VALUES_FILE
        if pv.is_file():
            lm.project_values = ProjectValues.from_json(pv.read_text(encoding="utf-8"))
        return lm


def _head(model):
    """The masked-LM head (transform and vocabulary projection) of a BERT masked LM."""
    return model.cls
