"""Training the project's masked language model (:class:`models.masked_lm.MaskedLM`) on its notes.

The model is built from a config (never downloaded) over a WordPiece vocabulary learned from
the project's texts (:func:`models.subwords.train_wordpiece`) and trained with whole-word
masking on every document. Where PHI spans are known (gold), words inside them are masked more
often (``phi_mask_prob``), so the model learns what fits where a name, a place or a record
number stands. The word lists the model may propose from (overall, and per span type and
category, each word held by at least ``min_docs`` documents) are gathered here too.

Apart from the model because training is a job of its own (a CLI command, a background job
of the app) with its own seeded randomness, while filling spans needs none of it.
"""
from __future__ import annotations

import math
import os
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
import torch

from models.masked_lm import MaskedLM, MaskedLMConfig, _head
from models.subwords import SubwordTokenizer, train_wordpiece
from models.version import new_version_name
from pipeline.spans import Span

Progress = Callable[[int, int, float], None]        # (step, total steps, loss)


def _threads(cfg: MaskedLMConfig) -> None:
    torch.set_num_threads(max(1, cfg.threads or min(2, os.cpu_count() or 1)))


def _hf_config(cfg: MaskedLMConfig, tok: SubwordTokenizer):
    from transformers import BertConfig

    return BertConfig(vocab_size=tok.vocab_size, hidden_size=cfg.hidden, num_hidden_layers=cfg.layers,
                      num_attention_heads=cfg.heads, intermediate_size=cfg.intermediate,
                      max_position_embeddings=cfg.max_len, type_vocab_size=1, pad_token_id=tok.pad_id,
                      hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.0)


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
