"""Transformer members: small Hugging Face token classifiers of different architectures.

Each member is an ``AutoModelForTokenClassification`` built from a small config (BERT, ELECTRA or
RoBERTa style) over a WordPiece vocabulary trained on the project's documents, optionally
pre-trained as a masked language model on all the project's texts first, or initialised from a
local checkpoint directory (``from_pretrained(path, local_files_only=True)``; never a download).

Documents longer than one window are cut into overlapping windows of sub-word pieces; only the
first piece of each word carries a label (the others are ignored in the loss), and at prediction
time each word takes its distribution from the window where its first piece sits furthest from
a window edge. Rare types are up-weighted in the loss.
"""
from __future__ import annotations

import copy
import json
import logging
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from models.subwords import SubwordTokenizer, from_checkpoint, train_wordpiece
from models.words import Words

log = logging.getLogger(__name__)

ARCHITECTURES = ("bert", "electra", "roberta")


@dataclass
class EncoderConfig:
    arch: str = "bert"
    hidden: int = 128
    layers: int = 2
    heads: int = 4
    intermediate: int = 512
    embedding_size: int = 0          # ELECTRA only; 0 = hidden
    dropout: float = 0.1
    attention_dropout: float = 0.0   # costly on CPU (a T x T mask per head) and little use here
    vocab_size: int = 8000
    max_len: int = 256               # sub-word pieces per window, [CLS] and [SEP] included
    overlap: int = 32                # pieces shared by consecutive windows
    epochs: int = 6
    patience: int = 2                # epochs without dev F1 gain before stopping
    batch_size: int = 16
    lr: float = 2e-3
    weight_decay: float = 0.01
    warmup: float = 0.1
    class_weight_power: float = 0.5  # rare labels: weight (median entity count / count) ** power
    max_class_weight: float = 10.0
    input_mask: float = 0.1          # fine-tuning: share of input pieces replaced by [MASK] (context over memory)
    mlm_epochs: int = 0              # masked-LM pre-training passes over all texts (0 = none)
    mlm_lr: float = 1e-3
    init_from: str = ""              # local checkpoint directory (offline)
    seed: int = 13
    bf16: bool = False               # bfloat16 autocast (CPUs with AVX512-BF16 / AMX)

    @classmethod
    def from_dict(cls, d: dict) -> "EncoderConfig":
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def _quiet_transformers() -> None:
    """No progress bars from transformers' save/load on the user's terminal."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover
        pass


def _set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


def build_config(cfg: EncoderConfig, vocab_size: int, num_labels: int, pad_id: int):
    from transformers import BertConfig, ElectraConfig, RobertaConfig

    common = dict(vocab_size=vocab_size, hidden_size=cfg.hidden, num_hidden_layers=cfg.layers,
                  num_attention_heads=cfg.heads, intermediate_size=cfg.intermediate,
                  hidden_dropout_prob=cfg.dropout, attention_probs_dropout_prob=cfg.attention_dropout,
                  type_vocab_size=1, pad_token_id=pad_id, num_labels=num_labels)
    if cfg.arch == "bert":
        return BertConfig(max_position_embeddings=cfg.max_len, **common)
    if cfg.arch == "electra":
        return ElectraConfig(max_position_embeddings=cfg.max_len, embedding_size=cfg.embedding_size or cfg.hidden,
                             **common)
    if cfg.arch == "roberta":
        # RoBERTa numbers positions from pad_id + 1
        return RobertaConfig(max_position_embeddings=cfg.max_len + pad_id + 2, **common)
    raise ValueError(f"unknown encoder architecture {cfg.arch!r}; use one of {', '.join(ARCHITECTURES)}")


def windows(n: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Cover ``range(n)`` with windows of ``size`` overlapping by ``overlap`` (the last one flush right)."""
    if n <= size:
        return [(0, n)]
    step = max(1, size - overlap)
    out = []
    a = 0
    while True:
        if a + size >= n:
            out.append((max(0, n - size), n))
            break
        out.append((a, a + size))
        a += step
    return out


@dataclass
class _Doc:
    ids: list[int]
    wids: list[int]
    n_words: int
    labels: list[int] | None = None   # per word


def _first_piece(wids: list[int]) -> np.ndarray:
    w = np.asarray(wids)
    first = np.ones(len(w), dtype=bool)
    if len(w) > 1:
        first[1:] = w[1:] != w[:-1]
    return first


@dataclass
class ProgressHook:
    """What a member reports while it trains (the ensemble turns these into job progress)."""

    begin: Callable[[int], None] = lambda total_steps: None         # steps this member will take
    step: Callable[[str, float], None] = lambda phase, loss: None   # one optimisation step done
    epoch: Callable[[int, float, float], None] = lambda epoch, loss, dev_f1: None


class EncoderMember:
    kind = "encoder"

    def __init__(self, name: str, labels: list[str], config: EncoderConfig, tokenizer: SubwordTokenizer, model):
        self.name = name
        self.labels = list(labels)
        self.config = config
        self.tokenizer = tokenizer
        self.model = model
        self.model.eval()
        self.history: list[dict] = []

    # ------------------------------------------------------------------ helpers
    def _docs(self, words: list[Words], tags: list[list[str]] | None = None) -> list[_Doc]:
        enc = self.tokenizer.encode_words([w.tokens for w in words])
        col = {l: k for k, l in enumerate(self.labels)}
        out = []
        for k, ((ids, wids), w) in enumerate(zip(enc, words)):
            labels = None
            if tags is not None:
                labels = [col.get(t, 0) for t in tags[k]]
            out.append(_Doc(ids, wids, len(w), labels))
        return out

    def _windows(self, docs: list[_Doc], overlap: int, with_labels: bool):
        """(doc index, start, end, input ids, labels-or-None) for every window."""
        size = self.config.max_len - 2
        out = []
        for di, d in enumerate(docs):
            first = _first_piece(d.wids)
            for a, b in windows(len(d.ids), size, overlap):
                ids = [self.tokenizer.cls_id] + d.ids[a:b] + [self.tokenizer.sep_id]
                lab = None
                if with_labels:
                    lab = [-100] + [d.labels[d.wids[j]] if first[j] else -100 for j in range(a, b)] + [-100]
                out.append((di, a, b, ids, lab))
        return out

    def _batch(self, items, with_labels: bool):
        m = max(len(x[3]) for x in items)
        ids = torch.full((len(items), m), self.tokenizer.pad_id, dtype=torch.long)
        att = torch.zeros((len(items), m), dtype=torch.long)
        lab = torch.full((len(items), m), -100, dtype=torch.long) if with_labels else None
        for k, x in enumerate(items):
            n = len(x[3])
            ids[k, :n] = torch.tensor(x[3])
            att[k, :n] = 1
            if with_labels:
                lab[k, :n] = torch.tensor(x[4])
        return ids, att, lab

    # --------------------------------------------------------------- prediction
    @torch.inference_mode()
    def predict_proba(self, items: list[tuple[str, Words]], batch_size: int = 32) -> list[np.ndarray]:
        words = [w for _, w in items]
        docs = self._docs(words)
        wins = self._windows(docs, self.config.overlap, with_labels=False)
        L = len(self.labels)
        piece_probs = [np.zeros((len(d.ids), L), dtype=np.float32) for d in docs]
        best = [np.full(len(d.ids), -1, dtype=np.int64) for d in docs]
        order = sorted(range(len(wins)), key=lambda k: len(wins[k][3]))
        self.model.eval()
        for s in range(0, len(order), batch_size):
            chunk = [wins[k] for k in order[s:s + batch_size]]
            ids, att, _ = self._batch(chunk, with_labels=False)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.config.bf16):
                logits = self.model(input_ids=ids, attention_mask=att).logits
            probs = torch.softmax(logits.float(), dim=-1).numpy()
            for k, (di, a, b, _, _) in enumerate(chunk):
                pos = np.arange(a, b)
                cent = np.minimum(pos - a, b - 1 - pos)
                take = cent > best[di][a:b]
                if take.any():
                    best[di][a:b][take] = cent[take]
                    piece_probs[di][a:b][take] = probs[k, 1:1 + (b - a)][take]
        out = []
        for d, pp in zip(docs, piece_probs):
            wp = np.zeros((d.n_words, L), dtype=np.float32)
            wp[:, 0] = 1.0  # words without any piece stay O
            if d.ids:
                first = _first_piece(d.wids)
                idx = np.flatnonzero(first)
                wp[np.asarray(d.wids)[idx]] = pp[idx]
            out.append(wp)
        return out

    # ------------------------------------------------------------------ training
    @classmethod
    def train(cls, name: str, train_items: list[tuple[str, Words]], train_tags: list[list[str]],
              labels: list[str], config: EncoderConfig, *,
              dev_items: list[tuple[str, Words]] | None = None,
              dev_eval: Callable[["EncoderMember", list[np.ndarray]], float] | None = None,
              extra_texts: list[str] | None = None, hook: ProgressHook | None = None) -> "EncoderMember":
        """Fit a member; early-stops on ``dev_eval`` (dev F1 from the member's dev probabilities).

        The steps: seed and build the untrained member (:meth:`_untrained`), cut the training
        notes into labelled windows, pre-train as a masked LM when asked (:meth:`_pretrain_mlm`),
        then fine-tune with early stopping (:meth:`_finetune`)."""
        hook = hook or ProgressHook()
        texts = [t for t, _ in train_items] + list(extra_texts or [])  # the vocabulary sees them all
        member = cls._untrained(name, labels, config, texts)
        docs = member._docs([w for _, w in train_items], train_tags)
        wins = member._windows(docs, overlap=min(config.overlap, 32), with_labels=True)
        steps_per_epoch = math.ceil(len(wins) / config.batch_size)
        mlm_wins = member._mlm_windows(docs, extra_texts) if config.mlm_epochs > 0 and not config.init_from else None
        hook.begin(steps_per_epoch * config.epochs
                   + (math.ceil(len(mlm_wins) / config.batch_size) * config.mlm_epochs if mlm_wins is not None else 0))
        if mlm_wins is not None:
            member._pretrain_mlm(mlm_wins, hook)
        member._finetune(docs, wins, steps_per_epoch, hook, dev_items, dev_eval)
        return member

    @classmethod
    def _untrained(cls, name: str, labels: list[str], config: EncoderConfig, texts: list[str]) -> "EncoderMember":
        """Seed the run, then a member from ``config.init_from`` (offline: ``local_files_only``)
        or a fresh model over a vocabulary trained on ``texts``. ``config.max_len`` shrinks to
        what a checkpoint's position table holds."""
        from transformers import AutoModelForTokenClassification

        _set_seed(config.seed)
        if config.init_from:
            tokenizer = from_checkpoint(config.init_from)
            model = AutoModelForTokenClassification.from_pretrained(
                config.init_from, local_files_only=True, num_labels=len(labels), ignore_mismatched_sizes=True)
            max_pos = getattr(model.config, "max_position_embeddings", config.max_len)
            if model.config.model_type in ("roberta", "xlm-roberta", "camembert"):
                max_pos -= tokenizer.pad_id + 1
            config.max_len = min(config.max_len, max_pos)
        else:
            tokenizer = train_wordpiece(texts, vocab_size=config.vocab_size)
            hf_cfg = build_config(config, tokenizer.vocab_size, len(labels), tokenizer.pad_id)
            model = AutoModelForTokenClassification.from_config(hf_cfg)
        model.config.id2label = {i: l for i, l in enumerate(labels)}
        model.config.label2id = {l: i for i, l in enumerate(labels)}
        return cls(name, labels, config, tokenizer, model)

    def _mlm_windows(self, docs: list[_Doc], extra_texts: list[str] | None) -> list:
        """Unlabelled windows of the training notes and the extra texts, for masked-LM pre-training."""
        from models.words import tokenize

        extra = [tokenize(t) for t in (extra_texts or [])]
        return self._windows(docs + self._docs(extra), overlap=0, with_labels=False)

    def _loss(self, docs: list[_Doc]) -> torch.nn.CrossEntropyLoss:
        """Cross-entropy with rare labels up-weighted (:func:`class_weights` of the label counts)."""
        counts = np.ones(len(self.labels))
        for d in docs:
            for y in d.labels:
                counts[y] += 1
        weights = class_weights(counts, self.config.class_weight_power, self.config.max_class_weight)
        return torch.nn.CrossEntropyLoss(weight=torch.tensor(weights, dtype=torch.float32), ignore_index=-100)

    def _finetune(self, docs: list[_Doc], wins: list, steps_per_epoch: int, hook: ProgressHook,
                  dev_items: list[tuple[str, Words]] | None,
                  dev_eval: Callable[["EncoderMember", list[np.ndarray]], float] | None) -> None:
        """Epochs over the labelled windows; after each, dev F1 (when ``dev_eval`` and
        ``dev_items`` are given) keeps the best weights and stops after ``patience`` epochs
        without gain."""
        config, model = self.config, self.model
        loss_fn = self._loss(docs)
        # tiny gradients of a small model drift into denormal floats, which x86 CPUs handle
        # a hundred times slower; flushing them to zero changes nothing that matters here
        torch.set_flush_denormal(True)
        opt = _adamw(model.parameters(), config.lr, config.weight_decay)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, _linear_warmup(steps_per_epoch * config.epochs, config.warmup))
        rng = random.Random(config.seed)
        gen = torch.Generator().manual_seed(config.seed + 2)
        best_f1, best_state, best_epoch, bad = -1.0, None, -1, 0
        for epoch in range(config.epochs):
            avg = self._finetune_epoch(wins, rng, gen, loss_fn, opt, sched, hook)
            dev_f1 = float("nan")
            if dev_items and dev_eval is not None:
                model.eval()
                dev_f1 = float(dev_eval(self, self.predict_proba(dev_items)))
            self.history.append({"epoch": epoch + 1, "loss": avg, "dev_f1": dev_f1})
            hook.epoch(epoch + 1, avg, dev_f1)
            if dev_eval is None or not dev_items:
                continue
            if dev_f1 > best_f1 + 1e-6:
                best_f1, best_epoch, bad = dev_f1, epoch + 1, 0
                best_state = copy.deepcopy(model.state_dict())
            else:
                bad += 1
                if bad >= config.patience:
                    # the steps of the epochs we skip still count as done for progress bars
                    for _ in range(steps_per_epoch * (config.epochs - epoch - 1)):
                        hook.step("skipped", float("nan"))
                    break
        if best_state is not None:
            model.load_state_dict(best_state)
        model.eval()
        self.best_epoch = best_epoch

    def _finetune_epoch(self, wins: list, rng: random.Random, gen: torch.Generator, loss_fn, opt, sched,
                        hook: ProgressHook) -> float:
        """One pass over the windows in ``rng``'s order; the mean loss."""
        config, model, tokenizer = self.config, self.model, self.tokenizer
        model.train()
        order = list(range(len(wins)))
        rng.shuffle(order)
        run_loss, n = 0.0, 0
        for s in range(0, len(order), config.batch_size):
            batch = [wins[k] for k in order[s:s + config.batch_size]]
            ids, att, lab = self._batch(batch, with_labels=True)
            if config.input_mask > 0:
                # hide some pieces (labels stay): names and numbers must be recognised from
                # their context too, not only memorised from the few hundred training notes
                hide = (torch.rand(ids.shape, generator=gen) < config.input_mask) & att.bool()
                hide &= (ids != tokenizer.cls_id) & (ids != tokenizer.sep_id)
                ids = ids.masked_fill(hide, tokenizer.mask_id)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=config.bf16):
                logits = model(input_ids=ids, attention_mask=att).logits
            loss = loss_fn(logits.float().view(-1, len(self.labels)), lab.view(-1))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            run_loss += loss.item()
            n += 1
            hook.step("finetune", loss.item())
        return run_loss / max(1, n)

    def _pretrain_mlm(self, wins: list, hook: ProgressHook) -> None:
        from transformers import AutoModelForMaskedLM

        cfg = self.config
        hf_cfg = copy.deepcopy(self.model.config)
        mlm = AutoModelForMaskedLM.from_config(hf_cfg)
        opt = _adamw(mlm.parameters(), cfg.mlm_lr, cfg.weight_decay)
        steps = math.ceil(len(wins) / cfg.batch_size) * cfg.mlm_epochs
        sched = torch.optim.lr_scheduler.LambdaLR(opt, _linear_warmup(steps, cfg.warmup))
        rng = random.Random(cfg.seed + 1)
        gen = torch.Generator().manual_seed(cfg.seed + 1)
        vocab = self.tokenizer.vocab_size
        specials = {self.tokenizer.pad_id, self.tokenizer.cls_id, self.tokenizer.sep_id}
        mlm.train()
        for _ in range(cfg.mlm_epochs):
            order = list(range(len(wins)))
            rng.shuffle(order)
            for s in range(0, len(order), cfg.batch_size):
                ids, att, _ = self._batch([wins[k] for k in order[s:s + cfg.batch_size]], with_labels=False)
                labels = ids.clone()
                maskable = att.bool()
                for sid in specials:
                    maskable &= ids != sid
                pick = (torch.rand(ids.shape, generator=gen) < 0.15) & maskable
                labels[~pick] = -100
                r = torch.rand(ids.shape, generator=gen)
                inp = ids.clone()
                inp[pick & (r < 0.8)] = self.tokenizer.mask_id
                rnd = pick & (r >= 0.8) & (r < 0.9)
                inp[rnd] = torch.randint(len(specials) + 2, vocab, (int(rnd.sum()),), generator=gen)
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=cfg.bf16):
                    logits = mlm(input_ids=inp, attention_mask=att).logits
                loss = torch.nn.functional.cross_entropy(logits.float().view(-1, logits.shape[-1]), labels.view(-1),
                                                         ignore_index=-100)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(mlm.parameters(), 1.0)
                opt.step()
                sched.step()
                opt.zero_grad(set_to_none=True)
                hook.step("mlm", loss.item())
        base_src = getattr(mlm, mlm.base_model_prefix)
        base_dst = getattr(self.model, self.model.base_model_prefix)
        missing = base_dst.load_state_dict(base_src.state_dict(), strict=False)
        if missing.missing_keys:
            log.debug("MLM transfer: %d encoder weights not pre-trained", len(missing.missing_keys))

    # ------------------------------------------------------------------- storage
    def save(self, directory: str | Path) -> None:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        _quiet_transformers()
        self.model.save_pretrained(str(d / "model"), safe_serialization=True)
        self.tokenizer.save(d / "tokenizer")
        cfg = asdict(self.config)
        (d / "member.json").write_text(json.dumps({
            "kind": self.kind, "name": self.name, "labels": self.labels, "config": cfg,
            "history": self.history, "best_epoch": getattr(self, "best_epoch", -1),
        }, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path) -> "EncoderMember":
        from transformers import AutoModelForTokenClassification

        d = Path(directory)
        meta = json.loads((d / "member.json").read_text(encoding="utf-8"))
        _quiet_transformers()
        model = AutoModelForTokenClassification.from_pretrained(str(d / "model"), local_files_only=True)
        member = cls(meta["name"], meta["labels"], EncoderConfig.from_dict(meta["config"]),
                     SubwordTokenizer.load(d / "tokenizer"), model)
        member.history = meta.get("history", [])
        member.best_epoch = meta.get("best_epoch", -1)
        return member


def _adamw(params, lr: float, weight_decay: float) -> torch.optim.Optimizer:
    """AdamW with the fused kernel where this torch build has it for CPU (one pass, not a loop)."""
    params = list(params)
    try:
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, fused=True)
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)


def class_weights(counts: np.ndarray, power: float, max_weight: float) -> np.ndarray:
    """Loss weight per label: 1 for O and for entity labels at least as frequent as the median
    entity label; rarer labels get ``(median / count) ** power`` up to ``max_weight``. Weighting
    against O instead would make every entity label heavy and the model trigger-happy."""
    ent = counts[1:][counts[1:] > 1]
    ref = float(np.median(ent)) if len(ent) else 1.0
    w = np.clip((ref / np.maximum(counts, 1.0)) ** power, 1.0, max_weight)
    w[0] = 1.0
    return w


def _linear_warmup(total: int, warmup: float):
    w = max(1, int(total * warmup))

    def f(step: int) -> float:
        if step < w:
            return (step + 1) / w
        return max(0.0, (total - step) / max(1, total - w))

    return f

