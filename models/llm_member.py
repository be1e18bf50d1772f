"""The generative member: a local causal language model rewrites the note with PHI replaced by a
placeholder; the rewrite is aligned back to the note to recover spans.

This reproduces the "moderate-size LLMs rewriting the note" systems: no training, a prompt, a
local checkpoint (``AutoModelForCausalLM.from_pretrained(path, local_files_only=True)``; nothing
is ever downloaded). It is off by default and slow (one generated token per note token).

* **Chunks.** The note is cut on line boundaries (sentence, then word boundaries for longer
  lines) into chunks that fit the model's context together with the prompt and the rewrite
  (:func:`models.llm_text.chunk_ranges`); whitespace-only chunks are not sent.
* **Generation.** Greedy (``do_sample=False``, one beam), at most
  ``ceil(new_token_ratio * chunk tokens) + new_token_margin`` new tokens (capped by
  ``max_new_tokens`` and the context), stopped at end-of-text or a stop string; chunks of
  similar length are batched with left padding. A checkpoint's own sampling defaults are not
  used (a fresh ``GenerationConfig``). A tokenizer with a chat template gets the prompt as a
  user message (``chat_template="auto"``).
* **Alignment.** :func:`pipeline.detection.rewrite_align.align_rewrite` per chunk. Where the
  rewrite stopped short of the chunk's end (token limit, or the model ended early), the rest of
  the chunk is rewritten again, at most ``continuations`` times; a rewrite cut at the token limit
  leaves its trailing placeholders to that next try (how far their PHI ran is unknown).
* **Spans.** Source ``llm:<name>``, score = the chunk rewrite's faithfulness (share of its own
  words copied from the note). Typed placeholders (``[{label}]``) resolve through the schema;
  untyped ones get the generic label (the schema's OTHER, or ``generic_label``).
* **Voting.** :meth:`LLMMember.predict_proba` gives, like every member, a per-word-token
  distribution over the version's BIO labels (:func:`models.llm_text.spans_to_probs`): tokens outside spans are
  ``O`` with probability 1; a span's tokens put ``confidence x score`` on ``B-``/``I-`` of the
  types its placeholder names (an untyped placeholder: spread evenly over every type), the rest
  on ``O``. Averaged as it is, an even spread barely moves any one type;
  :func:`models.llm_vote.average_with_llm` moves that mass onto the types the other members
  favour at each token: the member votes "PHI here" and leaves the type to them.
* **Storage.** ``members/<name>/member.json``, kind ``llm``: the checkpoint *path* (never
  copied; a fingerprint of its config and file sizes guards against a changed folder), the
  prompt, the placeholder and every setting. It holds no note text.

A stub ``rewriter`` (chunk texts -> :class:`Generation`) can stand in for the model: the tests'
deterministic rewriting cases and the benchmark's oracle rows use it.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from models.llm_text import Placed, _dedupe, chunk_ranges, spans_to_probs, tag_types  # noqa: F401 (re-exported)
from models.words import Words
from pipeline.detection.rewrite_align import align_rewrite
from pipeline.detection.rewrite_placeholders import Placeholder, PlacedSpan
from pipeline.detection.rewrite_labels import known_tags, placed_to_spans
from pipeline.schemas import LabelSchema
from pipeline.spans import Span


KIND = "llm"

DEFAULT_PROMPT = (
    "Copy the clinical note below exactly, but replace every piece of protected health information "
    "(names of people, ages, dates, street addresses, cities and countries, hospitals and institutions, "
    "phone and fax numbers, e-mail and web addresses, identifiers and record numbers, professions) "
    "with {placeholder}. Change nothing else and add nothing.\n\n"
    "### Note\n{text}\n\n### Rewritten note\n"
)
DEFAULT_STOP = ("\n###",)


@dataclass
class LLMConfig:
    """Settings of a generative member (all saved in ``member.json``)."""

    checkpoint: str = ""
    prompt: str = DEFAULT_PROMPT        # must hold {text}; {placeholder} shows the placeholder(s)
    placeholder: str = "[PHI]"          # or a typed template such as "[{label}]"
    generic_label: str = ""             # category/type of untyped spans ("" = the schema's OTHER)
    max_chunk_tokens: int = 384         # note tokens per chunk (the context may allow fewer)
    new_token_ratio: float = 1.3        # new tokens allowed per chunk token ...
    new_token_margin: int = 24          # ... plus this
    max_new_tokens: int = 768
    batch_size: int = 4
    stop: list[str] = field(default_factory=lambda: list(DEFAULT_STOP))
    chat_template: str = "auto"         # "auto" (when the tokenizer has one), "on", "off"
    continuations: int = 2              # re-rewrites of a chunk's unaccounted rest
    confidence: float = 0.95            # PHI mass of a span's tokens in predict_proba (x the span score)
    dtype: str = "float32"              # torch dtype name for the weights ("bfloat16" on CPUs with AMX)

    @classmethod
    def from_dict(cls, d: dict) -> "LLMConfig":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def check(self) -> None:
        if "{text}" not in self.prompt:
            raise ValueError("the LLM prompt template must contain {text}")
        if self.chat_template not in ("auto", "on", "off"):
            raise ValueError("chat_template must be auto, on or off")
        if self.max_chunk_tokens < 1 or self.max_new_tokens < 1 or self.batch_size < 1 or self.continuations < 0:
            raise ValueError("max_chunk_tokens, max_new_tokens and batch_size must be positive, continuations >= 0")
        if not 0 < self.confidence <= 1:
            raise ValueError("confidence must lie in (0, 1]")
        Placeholder(self.placeholder)


@dataclass
class Generation:
    """One chunk's rewrite: the text, and whether it ended at the token limit."""

    text: str
    truncated: bool = False
    new_tokens: int = 0


@dataclass
class NoteRewrite:
    """What the member made of one note (the rewrite is PHI-bearing text: never log it)."""

    placed: list[Placed]
    rewrite: str
    chunks: int = 0
    truncated: int = 0
    continuations: int = 0
    new_tokens: int = 0


Rewriter = Callable[[list[str]], list[Generation]]


# ------------------------------------------------------------------------------- member
def checkpoint_fingerprint(path: str | Path) -> str:
    """A short hash of a checkpoint folder's ``config.json`` and its files' names and sizes:
    cheap, and it changes when the folder holds another model."""
    p = Path(path)
    h = hashlib.sha256()
    cfg = p / "config.json"
    if cfg.is_file():
        h.update(cfg.read_bytes())
    for f in sorted(p.iterdir()):
        if f.is_file():
            h.update(f"{f.name}:{f.stat().st_size}\n".encode())
    return h.hexdigest()[:16]


def _quiet_transformers() -> None:
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:  # pragma: no cover
        pass


class LLMMember:
    """A generative rewriting member; see the module notes."""

    kind = KIND

    def __init__(self, name: str, labels: list[str], schema: LabelSchema, config: LLMConfig, *,
                 model=None, tokenizer=None, rewriter: Rewriter | None = None, fingerprint: str = ""):
        config.check()
        if model is None and rewriter is None:
            raise ValueError("an LLM member needs a model or a rewriter")
        self.name = name
        self.labels = list(labels)
        self.schema = schema
        self.config = config
        self.model = model
        self.tokenizer = tokenizer
        self.rewriter = rewriter
        self.fingerprint = fingerprint
        ph = Placeholder(config.placeholder)
        self.placeholder = Placeholder(ph.template, known_tags(schema)) if ph.typed else ph
        self._chat = False
        if tokenizer is not None:
            has = bool(getattr(tokenizer, "chat_template", None))
            self._chat = config.chat_template == "on" or (config.chat_template == "auto" and has)
        self.stats = {"chunks": 0, "truncated": 0, "continuations": 0, "new_tokens": 0, "seconds": 0.0}
        #: with ``keep_rewrites`` on, every note's rewrite in call order (for the content score; PHI-bearing)
        self.keep_rewrites = False
        self.rewrites: list[str] = []

    # -------------------------------------------------------------------------- loading
    @classmethod
    def from_checkpoint(cls, name: str, labels: list[str], schema: LabelSchema,
                        config: LLMConfig) -> "LLMMember":
        """Load ``config.checkpoint`` (a local folder; never a download)."""
        path = Path(config.checkpoint or "")
        if not config.checkpoint or not (path / "config.json").is_file():
            raise FileNotFoundError(f"LLM checkpoint folder {path} has no config.json")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        _quiet_transformers()
        tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        dtype = getattr(torch, config.dtype, None)
        if not isinstance(dtype, torch.dtype):
            raise ValueError(f"unknown torch dtype {config.dtype!r}")
        model = AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True, dtype=dtype)
        model.eval()
        cfg = LLMConfig.from_dict({**asdict(config), "checkpoint": str(path.resolve())})
        return cls(name, labels, schema, cfg, model=model, tokenizer=tok, fingerprint=checkpoint_fingerprint(path))

    def save(self, directory: str | Path) -> None:
        """``member.json`` only: the checkpoint stays where it is (its path is recorded)."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        (d / "member.json").write_text(json.dumps({
            "kind": self.kind, "name": self.name, "labels": self.labels,
            "schema": json.loads(self.schema.to_json()), "config": asdict(self.config),
            "checkpoint_fingerprint": self.fingerprint,
        }, indent=1, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path) -> "LLMMember":
        d = Path(directory)
        meta = json.loads((d / "member.json").read_text(encoding="utf-8"))
        if meta.get("kind") != KIND:
            raise ValueError(f"{d}: not an LLM member")
        config = LLMConfig.from_dict(meta.get("config", {}))
        member = cls.from_checkpoint(meta["name"], meta["labels"], LabelSchema.from_json(meta["schema"]), config)
        want = meta.get("checkpoint_fingerprint") or ""
        if want and member.fingerprint != want:
            raise ValueError(f"LLM member {meta['name']}: the checkpoint at {config.checkpoint} is not the one "
                             "it was saved with")
        return member

    # ------------------------------------------------------------------------- prompting
    @property
    def context_tokens(self) -> int:
        cfg = getattr(self.model, "config", None)
        for attr in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
            v = getattr(cfg, attr, None)
            if isinstance(v, int) and v > 0:
                return v
        return 2048

    def placeholder_text(self) -> str:
        ph = self.placeholder
        if not ph.typed:
            return ph.template
        return "the kind of information in brackets, one of " + ", ".join(
            ph.render(c) for c in self.schema.categories)

    def prompt(self, chunk: str) -> str:
        body = self.config.prompt.replace("{placeholder}", self.placeholder_text()).replace("{text}", chunk)
        if self._chat:
            return self.tokenizer.apply_chat_template([{"role": "user", "content": body}],
                                                      add_generation_prompt=True, tokenize=False)
        return body

    def count_tokens(self, texts: list[str]) -> list[int]:
        if self.tokenizer is None:
            return [len(t.split()) for t in texts]
        return [len(ids) for ids in self.tokenizer(texts, add_special_tokens=False)["input_ids"]]

    def chunk_limit(self) -> int:
        if self.model is None:
            return self.config.max_chunk_tokens
        overhead = self.count_tokens([self.prompt("")])[0] + 2
        room = self.context_tokens - overhead - self.config.new_token_margin
        limit = min(self.config.max_chunk_tokens, int(room / (1.0 + self.config.new_token_ratio)))
        if limit < 8:
            raise ValueError(f"LLM member {self.name}: the model's context ({self.context_tokens} tokens) "
                             "leaves no room for a note chunk after the prompt")
        return limit

    # ------------------------------------------------------------------------ generation
    def _generate(self, chunks: list[str]) -> list[Generation]:
        if self.rewriter is not None:
            return self.rewriter(chunks)
        import torch
        from transformers import GenerationConfig

        tok, cfg = self.tokenizer, self.config
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        tok.padding_side = "left"
        eos = getattr(self.model.generation_config, "eos_token_id", None)
        if eos is None:
            eos = tok.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos]) - {None}
        sizes = self.count_tokens(chunks)
        prompts = [self.prompt(c) for c in chunks]
        out: list[Generation | None] = [None] * len(chunks)
        order = sorted(range(len(chunks)), key=lambda k: sizes[k])
        for s in range(0, len(order), max(1, cfg.batch_size)):
            idx = order[s:s + max(1, cfg.batch_size)]
            enc = tok([prompts[k] for k in idx], return_tensors="pt", padding=True,
                      add_special_tokens=not self._chat)
            n_in = enc["input_ids"].shape[1]
            budget = max(math.ceil(cfg.new_token_ratio * sizes[k]) + cfg.new_token_margin for k in idx)
            budget = max(1, min(budget, cfg.max_new_tokens, self.context_tokens - n_in))
            gen = GenerationConfig(max_new_tokens=budget, do_sample=False, num_beams=1,
                                   eos_token_id=sorted(eos_ids) or None, pad_token_id=tok.pad_token_id)
            kwargs = {}
            if cfg.stop:
                kwargs = {"stop_strings": list(cfg.stop), "tokenizer": tok}
            with torch.inference_mode():
                seqs = self.model.generate(**enc, generation_config=gen, **kwargs)
            for row, k in zip(seqs[:, n_in:].tolist(), idx):
                n = len(row)
                ended = False
                for j, t in enumerate(row):
                    if t in eos_ids:
                        n, ended = j, True
                        break
                text = tok.decode(row[:n], skip_special_tokens=True)
                cut = min((text.find(x) for x in cfg.stop if x and x in text), default=-1)
                if cut >= 0:
                    text, ended = text[:cut], True
                out[k] = Generation(text, truncated=not ended and n >= budget, new_tokens=n)
        return out  # type: ignore[return-value]

    # ------------------------------------------------------------------------- rewriting
    def rewrite_notes(self, texts: list[str]) -> list[NoteRewrite]:
        """Rewrite every note chunk by chunk and align each chunk's rewrite back."""
        t0 = time.perf_counter()
        limit = self.chunk_limit()
        notes = [NoteRewrite([], "") for _ in texts]
        parts: list[list[tuple[int, str]]] = [[] for _ in texts]
        todo: list[tuple[int, int, int]] = []          # (note, start, end)
        for n, text in enumerate(texts):
            for a, b in chunk_ranges(text, self.count_tokens, limit):
                todo.append((n, a, b))
        for attempt in range(self.config.continuations + 1):
            send = []
            for n, a, b in todo:
                seg = texts[n][a:b]
                lead = len(seg) - len(seg.lstrip())
                body = seg.strip()
                if body:
                    send.append((n, a + lead, a + lead + len(body)))
                else:
                    parts[n].append((a, seg))
            if not send:
                break
            gens = self._generate([texts[n][a:b] for n, a, b in send])
            todo = []
            for (n, a, b), g in zip(send, gens):
                chunk = texts[n][a:b]
                last_try = attempt >= self.config.continuations
                al = align_rewrite(chunk, g.text, self.placeholder, truncated=g.truncated and not last_try)
                if g.truncated and not last_try and al.covered_end == 0:
                    al = align_rewrite(chunk, g.text, self.placeholder)   # no progress: take what it gives
                    last_try = True
                note = notes[n]
                note.chunks += 1
                note.truncated += int(g.truncated)
                note.new_tokens += g.new_tokens
                note.continuations += int(attempt > 0)
                note.placed += [Placed(p.start + a, p.end + a, p.tag, al.faithfulness) for p in al.spans]
                parts[n].append((a, g.text))
                rest = chunk[al.covered_end:]
                if not last_try and al.covered_end > 0 and re.search(r"\w", rest):
                    todo.append((n, a + al.covered_end, b))
        for n, note in enumerate(notes):
            note.placed = _dedupe(note.placed)
            note.rewrite = "\n".join(t for _, t in sorted(parts[n], key=lambda x: x[0]))
        self.stats["chunks"] += sum(x.chunks for x in notes)
        self.stats["truncated"] += sum(x.truncated for x in notes)
        self.stats["continuations"] += sum(x.continuations for x in notes)
        self.stats["new_tokens"] += sum(x.new_tokens for x in notes)
        self.stats["seconds"] += time.perf_counter() - t0
        if self.keep_rewrites:
            self.rewrites += [n.rewrite for n in notes]
        return notes

    def spans_of(self, note: NoteRewrite, doc_id: str) -> list[Span]:
        out: list[Span] = []
        for p in note.placed:
            out += placed_to_spans([PlacedSpan(p.start, p.end, p.tag)], doc_id, self.name, self.schema,
                                   score=p.score, generic=self.config.generic_label or None)
        return out

    def predict_spans(self, texts: list[str], doc_ids: list[str]) -> list[list[Span]]:
        """Spans per note (source ``llm:<name>``), each list sorted."""
        return [self.spans_of(n, d) for n, d in zip(self.rewrite_notes(texts), doc_ids)]

    def predict_proba(self, items: list[tuple[str, Words]], batch_size: int = 0) -> list[np.ndarray]:
        """Per note, the ``(n_words, n_labels)`` distribution the ensemble averages."""
        notes = self.rewrite_notes([t for t, _ in items])
        return [spans_to_probs(n.placed, w, self.labels, self.schema, self.config.confidence)
                for n, (_, w) in zip(notes, items)]
