"""Training an encoder member: fine-tuning with early stopping on dev F1, masked-LM pre-training,
the loss with rare labels up-weighted, and the optimiser and its schedule.

:class:`EncoderTraining` is the training half of :class:`models.encoder.EncoderMember` (which
builds members, encodes notes into windows, predicts and saves); its methods read the member's
``config``, ``model``, ``tokenizer``, ``labels`` and ``history`` and call its ``_batch`` and
``predict_proba``.
"""
from __future__ import annotations

import copy
import logging
import math
import random
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from models.encoder_windows import EncodedDoc
from models.words import Words

log = logging.getLogger("models.encoder")   # the member's logger, as before training had a module of its own


@dataclass
class ProgressHook:
    """What a member reports while it trains (the ensemble turns these into job progress)."""

    begin: Callable[[int], None] = lambda total_steps: None         # steps this member will take
    step: Callable[[str, float], None] = lambda phase, loss: None   # one optimisation step done
    epoch: Callable[[int, float, float], None] = lambda epoch, loss, dev_f1: None


class EncoderTraining:
    """The optimisation loops of an encoder member (mixed into :class:`models.encoder.EncoderMember`)."""

    def _loss(self, docs: list[EncodedDoc]) -> torch.nn.CrossEntropyLoss:
        """Cross-entropy with rare labels up-weighted (:func:`class_weights` of the label counts)."""
        counts = np.ones(len(self.labels))
        for d in docs:
            for y in d.labels:
                counts[y] += 1
        weights = class_weights(counts, self.config.class_weight_power, self.config.max_class_weight)
        return torch.nn.CrossEntropyLoss(weight=torch.tensor(weights, dtype=torch.float32), ignore_index=-100)

    def _finetune(self, docs: list[EncodedDoc], wins: list, steps_per_epoch: int, hook: ProgressHook,
                  dev_items: list[tuple[str, Words]] | None,
                  dev_eval: Callable[["EncoderTraining", list[np.ndarray]], float] | None) -> None:
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
