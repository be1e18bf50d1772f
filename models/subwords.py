"""Sub-word tokenizers for the encoder members: trained on the project's own documents, or taken
from a local checkpoint directory.

Either way the member works through a ``tokenizers.Tokenizer`` fed with the pre-split word
tokens (``is_pretokenized=True``), so sub-word pieces map back to word tokens through
``word_ids`` and from there to exact character offsets. Digits are pre-tokenized one by one so
the model sees every digit of a date, phone number or record number.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


@dataclass
class SubwordTokenizer:
    tok: Tokenizer
    pad_id: int
    unk_id: int
    cls_id: int
    sep_id: int
    mask_id: int

    @property
    def vocab_size(self) -> int:
        return self.tok.get_vocab_size(with_added_tokens=True)

    def encode_words(self, docs: list[list[str]]) -> list[tuple[list[int], list[int]]]:
        """Per document: sub-word ids and, for each, the index of the word it belongs to."""
        out = []
        for enc in self.tok.encode_batch(docs, is_pretokenized=True, add_special_tokens=False):
            wid = enc.word_ids
            ids = enc.ids
            out.append(([i for i, w in zip(ids, wid) if w is not None], [w for w in wid if w is not None]))
        return out

    def save(self, directory: str | Path) -> None:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.tok.save(str(d / "tokenizer.json"))
        (d / "special_tokens.json").write_text(json.dumps({
            "pad_id": self.pad_id, "unk_id": self.unk_id, "cls_id": self.cls_id,
            "sep_id": self.sep_id, "mask_id": self.mask_id}), encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path) -> "SubwordTokenizer":
        d = Path(directory)
        tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        ids = json.loads((d / "special_tokens.json").read_text(encoding="utf-8"))
        return cls(_plain(tok), **ids)


def _plain(tok: Tokenizer) -> Tokenizer:
    tok.no_truncation()
    tok.no_padding()
    return tok


def train_wordpiece(texts: Iterable[str], vocab_size: int = 8000, min_frequency: int = 2) -> SubwordTokenizer:
    """A cased WordPiece vocabulary learned from the texts (NFC-normalised, digits split)."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=64))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Punctuation(),
        pre_tokenizers.Digits(individual_digits=True),
    ])
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                        special_tokens=list(SPECIALS), show_progress=False)
    tok.train_from_iterator(texts, trainer)
    v = tok.get_vocab()
    return SubwordTokenizer(_plain(tok), v["[PAD]"], v["[UNK]"], v["[CLS]"], v["[SEP]"], v["[MASK]"])


def from_checkpoint(path: str | Path) -> SubwordTokenizer:
    """The fast tokenizer saved in a local checkpoint directory; never touches the network."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(str(path), local_files_only=True, use_fast=True)
    backend = getattr(hf, "backend_tokenizer", None)
    if backend is None:
        raise ValueError(f"{path}: the checkpoint has no fast tokenizer (tokenizer.json)")

    def tid(attr: str, fallback: int | None) -> int:
        v = getattr(hf, attr, None)
        if v is None:
            if fallback is None:
                raise ValueError(f"{path}: the tokenizer has no {attr.replace('_id', '')} token")
            return fallback
        return int(v)

    unk = tid("unk_token_id", 0)
    return SubwordTokenizer(_plain(Tokenizer.from_str(backend.to_str())), tid("pad_token_id", 0), unk,
                            tid("cls_token_id", None) if hf.cls_token_id is not None else tid("bos_token_id", unk),
                            tid("sep_token_id", None) if hf.sep_token_id is not None else tid("eos_token_id", unk),
                            tid("mask_token_id", unk))
