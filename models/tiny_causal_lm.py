"""A tiny causal language model checkpoint built on the spot, for tests and the benchmark only.

No real LLM is shipped or downloaded, yet the generative member (:mod:`models.llm_member`) must
be run end to end from a checkpoint folder. This writes one: a byte-level BPE tokenizer trained
on the given texts and a one-layer GPT-2 (``GPT2Config(n_layer=1, n_embd=32)`` by default),
saved with ``save_pretrained`` so that ``AutoModelForCausalLM.from_pretrained(dir,
local_files_only=True)`` loads it like any checkpoint. Untrained, it writes noise (which
measures speed and plumbing, not quality); ``memorize`` trains it on a few (prompt, completion)
pairs until greedy decoding reproduces them, so a test can check real generation -> alignment
-> spans with known answers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

EOS = "<|endoftext|>"


def build_tiny_checkpoint(out_dir: str | Path, texts: Sequence[str], *, vocab_size: int = 400, n_embd: int = 32,
                          n_layer: int = 1, n_head: int = 2, n_positions: int = 512, seed: int = 0,
                          memorize: Sequence[tuple[str, str]] = (), steps: int = 400, lr: float = 1e-2) -> Path:
    """Write a tiny GPT-2 checkpoint into ``out_dir`` (created owner-only) and return it."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(list(texts) + [p + c for p, c in memorize], trainer)
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS, bos_token=EOS, pad_token=EOS)
    eos_id = hf_tok.convert_tokens_to_ids(EOS)
    cfg = GPT2Config(vocab_size=tok.get_vocab_size(), n_positions=n_positions, n_embd=n_embd, n_layer=n_layer,
                     n_head=n_head, bos_token_id=eos_id, eos_token_id=eos_id, pad_token_id=eos_id)
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(cfg)
    if memorize:
        _memorize(model, hf_tok, memorize, eos_id, steps, lr)
    model.eval()
    model.save_pretrained(str(out))
    hf_tok.save_pretrained(str(out))
    return out


def _memorize(model, tok, pairs: Sequence[tuple[str, str]], eos_id: int, steps: int, lr: float) -> None:
    """Fit the completions (loss on completion tokens only) until each is the greedy one, with
    the mean loss under 0.1 (at most ``steps`` steps)."""
    import torch

    seqs, masks = [], []
    for prompt, completion in pairs:
        p = tok(prompt, add_special_tokens=False)["input_ids"]
        c = tok(completion, add_special_tokens=False)["input_ids"] + [eos_id]
        seqs.append(p + c)
        masks.append([0] * len(p) + [1] * len(c))
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), eos_id, dtype=torch.long)
    labels = torch.full((len(seqs), width), -100, dtype=torch.long)
    att = torch.zeros((len(seqs), width), dtype=torch.long)
    for k, (s, m) in enumerate(zip(seqs, masks)):
        ids[k, :len(s)] = torch.tensor(s)
        att[k, :len(s)] = 1
        labels[k, :len(s)] = torch.tensor([t if keep else -100 for t, keep in zip(s, m)])
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    model.train()
    for step in range(steps):
        logits = model(input_ids=ids, attention_mask=att).logits[:, :-1]
        target = labels[:, 1:]
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1),
                                                 ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 9 and loss.item() < 0.1:      # a clear margin, so padding noise cannot flip a token
            with torch.no_grad():
                pred = model(input_ids=ids, attention_mask=att).logits[:, :-1].argmax(-1)
            if bool(((target == -100) | (pred == target)).all()):
                break
