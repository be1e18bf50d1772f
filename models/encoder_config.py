"""An encoder member's settings (:class:`EncoderConfig`) and the Hugging Face config built from
them (:func:`build_config`): BERT, ELECTRA or RoBERTa style.

Kept apart from :mod:`models.encoder` so that a training run's settings
(:mod:`models.train_config`) can name architectures and defaults without importing torch.
"""
from __future__ import annotations

from dataclasses import dataclass

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
