"""The project's own masked language model: trained on its notes, used to infill PHI spans.

A small BERT-style ``AutoModelForMaskedLM`` built from a config (never downloaded) over a
WordPiece vocabulary learned from the project's texts (:func:`models.subwords.train_wordpiece`),
trained with whole-word masking on every document. Where PHI spans are known (gold), words
inside them are masked more often (``phi_mask_prob``), so the model learns what fits where a
name, a place or a record number stands: that is what the ``paraphrase`` action asks of it
(:mod:`pipeline.deid.paraphrase`, which decides everything else: shape, checks, keyed choice).

What it may propose for a word slot is restricted to whole words of its vocabulary seen in at
least ``min_docs`` different documents (patients, where known) - and, for a category the spans
name, to words seen inside spans of that type or category in that many documents. A
surrogate is therefore never a word that only one patient's note contains.

The model also gives token embeddings (:meth:`MaskedLM.embed`) for the BERTScore-style
similarity of the quality report (:mod:`pipeline.deid.quality`).

Folders: a model is written like a model version (:class:`models.version.VersionWriter`:
complete or not at all, owner-only: the vocabulary and the word lists hold words of the notes)
into ``<root>/<name>/``, and ``<root>/CURRENT`` names the one in use (written atomically after
the folder is complete, so a failed or cancelled training leaves the previous model in use).
It is loaded with ``from_pretrained(path, local_files_only=True)``.
"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import torch

from models.subwords import SubwordTokenizer, train_wordpiece
from models.version import TMP_PREFIX, VersionWriter, check_name, new_version_name
from pipeline.deid.paraphrase import Candidates, InfillRequest, piece_fits
from pipeline.durable import fsync_path
from pipeline.spans import Span

CURRENT_FILE = "CURRENT"
META_FILE = "masked_lm.json"
FILLERS_FILE = "fillers.json"
KEEP_OLD = 2                 # previous models kept beside the current one
MIN_FILLERS = 12             # a learned word list smaller than this is not used on its own

Progress = Callable[[int, int, float], None]        # (step, total steps, loss)


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


def _threads(cfg: MaskedLMConfig) -> None:
    torch.set_num_threads(max(1, cfg.threads or min(2, os.cpu_count() or 1)))


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


def _hf_config(cfg: MaskedLMConfig, tok: SubwordTokenizer):
    from transformers import BertConfig

    return BertConfig(vocab_size=tok.vocab_size, hidden_size=cfg.hidden, num_hidden_layers=cfg.layers,
                      num_attention_heads=cfg.heads, intermediate_size=cfg.intermediate,
                      max_position_embeddings=cfg.max_len, type_vocab_size=1, pad_token_id=tok.pad_id,
                      hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.0)


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
        return cls(str(meta.get("name") or d.name), tokenizer, model, cfg, fillers, meta)


def _head(model):
    """The masked-LM head (transform and vocabulary projection) of a BERT masked LM."""
    return model.cls


# --------------------------------------------------------------------------- training

@dataclass
class _Window:
    ids: np.ndarray       # pieces
    words: np.ndarray     # word index of each piece (window-local)
    phi: np.ndarray       # piece inside a known PHI span


@dataclass
class TrainReport:
    """What a training did (figures only)."""

    documents: int
    windows: int
    steps: int
    seconds: float
    losses: list[float] = field(default_factory=list)    # mean loss per epoch


class TrainingStopped(RuntimeError):
    """``should_stop`` asked the training to stop; nothing was written."""


def _encode(tok: SubwordTokenizer, texts: Sequence[str]):
    return tok.tok.encode_batch(list(texts), add_special_tokens=False)


def _inside(starts: np.ndarray, ends: np.ndarray, spans: Iterable[Span]) -> np.ndarray:
    flags = np.zeros(len(starts), dtype=bool)
    for s in spans:
        flags |= (starts < s.end) & (ends > s.start)
    return flags


def _windows(encs, spans: Sequence[Sequence[Span]], size: int) -> list[_Window]:
    out = []
    for enc, sp in zip(encs, spans):
        ids = np.asarray(enc.ids, dtype=np.int64)
        if not len(ids):
            continue
        wids = np.asarray([w if w is not None else -1 for w in enc.word_ids], dtype=np.int64)
        starts = np.asarray([a for a, _ in enc.offsets], dtype=np.int64)
        ends = np.asarray([b for _, b in enc.offsets], dtype=np.int64)
        phi = _inside(starts, ends, sp)
        for a in range(0, len(ids), size):
            w = wids[a:a + size]
            out.append(_Window(ids[a:a + size], w - w.min(), phi[a:a + size]))
    return out


def _fillers(tok: SubwordTokenizer, encs, spans: Sequence[Sequence[Span]], groups: Sequence[str],
             min_docs: int) -> dict:
    """Whole-word pieces by the documents (groups) holding them: overall, and inside spans of
    each type and category. Only those held by ``min_docs`` groups are kept."""
    overall: dict[int, set[str]] = {}
    by_label: dict[str, dict[int, set[str]]] = {}
    for enc, sp, g in zip(encs, spans, groups):
        wids = enc.word_ids
        n = len(wids)
        if not n:
            continue
        # a word that is one piece: its word id differs from both neighbours'
        single = [k for k in range(n) if wids[k] is not None and (k == 0 or wids[k - 1] != wids[k])
                  and (k == n - 1 or wids[k + 1] != wids[k])]
        ids = [enc.ids[k] for k in single]
        for pid in ids:
            overall.setdefault(pid, set()).add(g)
        if not sp or not single:
            continue
        a = np.asarray([enc.offsets[k][0] for k in single])
        b = np.asarray([enc.offsets[k][1] for k in single])
        starts = np.asarray([s.start for s in sp])
        ends = np.asarray([s.end for s in sp])
        inside = (starts[:, None] <= a[None, :]) & (b[None, :] <= ends[:, None])      # spans x words
        for si, wi in zip(*np.nonzero(inside)):
            s = sp[int(si)]
            pid = ids[int(wi)]
            for label in {s.category, s.type} - {""}:
                by_label.setdefault(label, {}).setdefault(pid, set()).add(g)
    keep = lambda m: sorted(i for i, gs in m.items() if len(gs) >= min_docs)  # noqa: E731
    return {"min_docs": min_docs, "frequent": keep(overall),
            "labels": {label: keep(m) for label, m in sorted(by_label.items())}}


def _schedule(total: int, warmup: float) -> Callable[[int], float]:
    w = max(1, int(total * warmup))
    return lambda step: (step + 1) / w if step < w else max(0.0, (total - step) / max(1, total - w))


def train_masked_lm(texts: Sequence[str], *, spans: Sequence[Sequence[Span]] | None = None,
                    groups: Sequence[str] | None = None, config: MaskedLMConfig | None = None,
                    name: str | None = None, progress: Progress | None = None,
                    should_stop: Callable[[], bool] | None = None) -> tuple[MaskedLM, TrainReport]:
    """Train a masked LM on ``texts`` (every document of the project).

    ``spans[i]``: known PHI spans of text ``i`` (masked more often, and the source of the
    per-category word lists); ``groups[i]``: its patient (default: each text its own), for
    ``min_docs``. ``should_stop`` is polled every step (:class:`TrainingStopped`).
    """
    from transformers import AutoModelForMaskedLM

    cfg = config or MaskedLMConfig()
    texts = [t for t in texts]
    if not any(t.strip() for t in texts):
        raise ValueError("no text to train a language model on")
    spans = [list(s) for s in spans] if spans is not None else [[] for _ in texts]
    groups = [str(g) for g in groups] if groups is not None else [str(i) for i in range(len(texts))]
    if not (len(spans) == len(groups) == len(texts)):
        raise ValueError("texts, spans and groups must have the same length")
    t0 = time.time()
    _threads(cfg)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    tok = train_wordpiece(texts, vocab_size=cfg.vocab_size)
    encs = _encode(tok, texts)
    wins = _windows(encs, spans, cfg.max_len - 2)
    fillers = _fillers(tok, encs, spans, groups, cfg.min_docs)
    model = AutoModelForMaskedLM.from_config(_hf_config(cfg, tok))
    torch.set_flush_denormal(True)
    params = list(model.parameters())
    try:
        opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay, fused=True)
    except (RuntimeError, TypeError, ValueError):
        opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    per_epoch = math.ceil(len(wins) / cfg.batch_size)
    total = per_epoch * cfg.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(opt, _schedule(total, cfg.warmup))
    rng = np.random.default_rng(cfg.seed)
    specials = len(("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"))
    report = TrainReport(documents=len(texts), windows=len(wins), steps=total, seconds=0.0)
    step = 0
    model.train()
    for _epoch in range(cfg.epochs):
        order = rng.permutation(len(wins))
        run_loss, n = 0.0, 0
        for b in range(0, len(order), cfg.batch_size):
            if should_stop is not None and should_stop():
                raise TrainingStopped("stopped on request")
            batch = [wins[k] for k in order[b:b + cfg.batch_size]]
            inp, att, labels = _masked_batch(batch, tok, cfg, rng, specials)
            if labels is None:
                step += 1
                continue
            hidden = model.base_model(input_ids=inp, attention_mask=att).last_hidden_state
            sel = labels != -100
            # the vocabulary head only at masked positions: it is most of a small model's cost
            logits = _head(model)(hidden[sel])
            loss = torch.nn.functional.cross_entropy(logits.float(), labels[sel])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            run_loss += float(loss.item())
            n += 1
            if progress is not None:
                progress(step, total, float(loss.item()))
        report.losses.append(round(run_loss / max(1, n), 4))
    model.eval()
    report.seconds = round(time.time() - t0, 2)
    meta = {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "documents": len(texts),
            "windows": len(wins), "train_seconds": report.seconds, "losses": report.losses,
            "with_spans": sum(1 for s in spans if s)}
    lm = MaskedLM(name or new_version_name("mlm-"), tok, model, cfg, fillers, meta)
    return lm, report


def _masked_batch(batch: Sequence[_Window], tok: SubwordTokenizer, cfg: MaskedLMConfig,
                  rng: np.random.Generator, specials: int):
    """Whole-word masking: a chosen word's pieces all become targets (80 % [MASK], 10 % a
    random piece, 10 % kept); words in PHI spans are chosen with ``phi_mask_prob``."""
    width = max(len(w.ids) for w in batch) + 2
    inp = np.full((len(batch), width), tok.pad_id, dtype=np.int64)
    att = np.zeros((len(batch), width), dtype=np.int64)
    labels = np.full((len(batch), width), -100, dtype=np.int64)
    for j, w in enumerate(batch):
        n = len(w.ids)
        inp[j, 0], inp[j, n + 1] = tok.cls_id, tok.sep_id
        inp[j, 1:n + 1] = w.ids
        att[j, :n + 2] = 1
        n_words = int(w.words.max()) + 1
        word_phi = np.zeros(n_words, dtype=bool)
        np.logical_or.at(word_phi, w.words, w.phi)
        p = np.where(word_phi, cfg.phi_mask_prob, cfg.mask_prob)
        chosen = rng.random(n_words) < p
        pick = chosen[w.words]
        if not pick.any():
            continue
        labels[j, 1:n + 1][pick] = w.ids[pick]
        r = rng.random(n)
        row = inp[j, 1:n + 1]
        row[pick & (r < 0.8)] = tok.mask_id
        rnd = pick & (r >= 0.8) & (r < 0.9)
        if rnd.any():
            row[rnd] = rng.integers(specials, tok.vocab_size, int(rnd.sum()))
    if not (labels != -100).any():
        return None, None, None
    return torch.from_numpy(inp), torch.from_numpy(att), torch.from_numpy(labels)


# --------------------------------------------------------------------------- folders

def is_model_dir(path: str | Path) -> bool:
    p = Path(path)
    return p.is_dir() and (p / META_FILE).is_file() and not p.name.startswith(TMP_PREFIX)


def current_model_dir(root: str | Path) -> Path | None:
    """The folder in use under ``root`` (named by ``CURRENT``), or None when there is none."""
    r = Path(root)
    f = r / CURRENT_FILE
    if not f.is_file():
        return None
    name = f.read_text(encoding="utf-8").strip()
    if not name:
        return None
    try:
        check_name(name)
    except ValueError:
        return None
    p = r / name
    return p if is_model_dir(p) else None


def resolve_model_dir(path: str | Path) -> Path:
    """A model folder itself, or the current one under a root folder."""
    p = Path(path)
    if is_model_dir(p):
        return p
    cur = current_model_dir(p)
    if cur is None:
        raise MaskedLMError(f"{p} holds no masked language model (train one with train-infill)")
    return cur


def load_masked_lm(path: str | Path) -> MaskedLM:
    """The model at ``path`` (a model folder, or a root folder's current model)."""
    return MaskedLM.load(resolve_model_dir(path))


def write_masked_lm(lm: MaskedLM, root: str | Path) -> Path:
    """Write ``lm`` into ``root/<name>`` (complete or not at all, owner-only), then make it
    current; older models beyond the previous :data:`KEEP_OLD` are removed. A failure before
    ``CURRENT`` is replaced leaves the previous model in use."""
    r = Path(root)
    with VersionWriter(r, lm.name) as tmp:
        lm.save(tmp)
    final = r / lm.name
    pointer = r / f".{CURRENT_FILE}.{os.getpid()}.tmp"
    fd = os.open(pointer, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(lm.name + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(pointer, r / CURRENT_FILE)
    fsync_path(r)
    _prune(r, keep=lm.name)
    return final


def _prune(root: Path, keep: str) -> None:
    models = sorted((p for p in root.iterdir() if is_model_dir(p) and p.name != keep), key=lambda p: p.name)
    for p in models[:max(0, len(models) - KEEP_OLD)]:
        shutil.rmtree(p, ignore_errors=True)


def model_info(path: str | Path) -> dict:
    """What a model folder says about itself (figures and its name only)."""
    d = resolve_model_dir(path)
    meta = json.loads((d / META_FILE).read_text(encoding="utf-8"))
    cfg = meta.get("config") or {}
    return {"name": meta.get("name") or d.name, "created": meta.get("created"), "documents": meta.get("documents"),
            "train_seconds": meta.get("train_seconds"), "losses": meta.get("losses") or [],
            "hidden": cfg.get("hidden"), "layers": cfg.get("layers"), "epochs": cfg.get("epochs"),
            "path": str(d)}
