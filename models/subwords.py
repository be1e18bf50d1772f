"""Sub-word tokenizers for the encoder members: trained on the project's own documents, or taken
from a local checkpoint directory.

Either way the member works through a ``tokenizers.Tokenizer`` fed with the pre-split word
tokens (``is_pretokenized=True``), so sub-word pieces map back to word tokens through
``word_ids`` and from there to exact character offsets. Digits are pre-tokenized one by one so
the model sees every digit of a date, phone number or record number.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
WHOLE_WORD_SHARE = 0.85


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


def _pre_tokenizer():
    return pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Punctuation(),
        pre_tokenizers.Digits(individual_digits=True),
    ])


def train_wordpiece(texts: Iterable[str], vocab_size: int = 8000, min_frequency: int = 2) -> SubwordTokenizer:
    """A cased WordPiece vocabulary learned from the texts (NFC-normalised, digits split).

    The vocabulary is built here rather than with ``tokenizers``' trainer, whose choice among
    equally frequent pieces changes from run to run (a hash-map order): a seeded training must
    give the same model twice. Every character seen is a piece (so nothing is unknown); the
    rest of the budget goes to the word-initial prefixes and word-internal pieces that save the
    most characters over the corpus (count x (length - 1)), ties broken alphabetically.
    """
    import unicodedata
    from collections import Counter

    pre = _pre_tokenizer()
    words: Counter = Counter()
    for t in texts:
        t = unicodedata.normalize("NFC", t)
        words.update(w for w, _ in pre.pre_tokenize_str(t))
    chars: set[str] = set()
    cand: Counter = Counter()
    for w, c in words.items():
        chars.update(w)
        n = len(w)
        if n > 24 or c < min_frequency:
            continue
        for i in range(2, n):
            cand[w[:i]] += c
        for j in range(1, n - 1):
            for k in range(j + 2, n + 1):
                cand["##" + w[j:k]] += c
    vocab: dict[str, int] = {}
    for tok in SPECIALS:
        vocab[tok] = len(vocab)
    for ch in sorted(chars):
        for piece in (ch, "##" + ch):
            if piece not in vocab:
                vocab[piece] = len(vocab)
    # whole frequent words first (most of the budget), then the pieces that save most
    whole = sorted(((c, w) for w, c in words.items() if c >= min_frequency and len(w) > 1),
                   key=lambda x: (-x[0], x[1]))
    limit = len(vocab) + int(WHOLE_WORD_SHARE * max(0, vocab_size - len(vocab)))
    for _, w in whole:
        if len(vocab) >= limit:
            break
        if w not in vocab:
            vocab[w] = len(vocab)
    scored = sorted(((c * (len(p) - (3 if p.startswith("##") else 1))) ** 0.5, p) for p, c in cand.items())
    scored.sort(key=lambda x: (-x[0], x[1]))
    for _, p in scored:
        if len(vocab) >= vocab_size:
            break
        if p not in vocab:
            vocab[p] = len(vocab)
    tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token="[UNK]", max_input_chars_per_word=64))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = _pre_tokenizer()
    tok.decoder = decoders.WordPiece()
    return SubwordTokenizer(_plain(tok), vocab["[PAD]"], vocab["[UNK]"], vocab["[CLS]"], vocab["[SEP]"], vocab["[MASK]"])


def from_checkpoint(path: str | Path) -> SubwordTokenizer:
    """The fast tokenizer saved in a local checkpoint directory; never touches the network."""
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
