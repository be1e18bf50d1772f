"""Transformer members: small Hugging Face token classifiers of different architectures.

Each member is an ``AutoModelForTokenClassification`` built from a small config (BERT, ELECTRA or
RoBERTa style) over a WordPiece vocabulary trained on the project's documents, optionally
pre-trained as a masked language model on all the project's texts first, or initialised from a
local checkpoint directory (``from_pretrained(path, local_files_only=True)``; never a download).

Documents longer than one window are cut into overlapping windows of sub-word pieces; only the
first piece of each word carries a label (the others are ignored in the loss), and at prediction
time each word takes its distribution from the window where its first piece sits furthest from
a window edge. Rare types are up-weighted in the loss.

This module builds, runs and stores a member; its settings are :mod:`models.encoder_config`,
the windows :mod:`models.encoder_windows`, and the training loops :mod:`models.encoder_training`.
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from models.encoder_config import EncoderConfig, build_config
from models.encoder_training import EncoderTraining, ProgressHook
from models.encoder_windows import EncodedDoc, first_pieces, windows
from models.subwords import SubwordTokenizer, from_checkpoint, train_wordpiece
from models.words import Words


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


class EncoderMember(EncoderTraining):
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
    def _docs(self, words: list[Words], tags: list[list[str]] | None = None) -> list[EncodedDoc]:
        enc = self.tokenizer.encode_words([w.tokens for w in words])
        col = {l: k for k, l in enumerate(self.labels)}
        out = []
        for k, ((ids, wids), w) in enumerate(zip(enc, words)):
            labels = None
            if tags is not None:
                labels = [col.get(t, 0) for t in tags[k]]
            out.append(EncodedDoc(ids, wids, len(w), labels))
        return out

    def _windows(self, docs: list[EncodedDoc], overlap: int, with_labels: bool):
        """(doc index, start, end, input ids, labels-or-None) for every window."""
        size = self.config.max_len - 2
        out = []
        for di, d in enumerate(docs):
            first = first_pieces(d.wids)
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
                first = first_pieces(d.wids)
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

    def _mlm_windows(self, docs: list[EncodedDoc], extra_texts: list[str] | None) -> list:
        """Unlabelled windows of the training notes and the extra texts, for masked-LM pre-training."""
        from models.words import tokenize

        extra = [tokenize(t) for t in (extra_texts or [])]
        return self._windows(docs + self._docs(extra), overlap=0, with_labels=False)

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
