"""A shareable copy of a model version: what a model learned from words it only ever saw as PHI
is taken out.

Why a model is PHI: a CRF member keeps a weight for every feature string it saw, and features
name words (``w=pedro``, ``w[1]=garcia``, ``bi+1=pedro|garcia``, prefixes and suffixes); its word
clusters map words of the training notes to ids; an encoder's tokenizer vocabulary was trained
on the notes. Each of them can hold patients' names and record numbers. A model folder is
therefore owner-only like the database, and leaving the installation needs this copy.

What the copy drops, decided from the training documents and their gold spans:

* *PHI words* are the (lower-cased, accent-stripped) word tokens that occur inside a PHI span of
  the training notes even once, wherever else they occur: a surname annotated in ten notes and
  missed by the annotator in an eleventh is still a name (issue 29). Not words: punctuation
  (``,`` ``/`` ``.`` inside addresses, dates and e-mails). Kept as public: the closed-class words
  of the locale packs (:data:`PUBLIC_WORDS`: function words, titles, street and institution
  words such as "de", "dr", "calle", "hospital"), which name nobody and which most address and
  organisation spans hold. Without either exception the copy lost 22 points of document recall
  on MEDDOCAN dev (``benchmarks/shareable_model.py``). *Safe words* are the other words of the
  notes ("paciente");
* CRF features whose word values are not all safe words (``w``, ``w[k]``, bigrams, line keys,
  the line's first word) or whose prefix/suffix occurs in no safe word are removed with their
  weights; non-lexical features (shapes, lengths, positions, rule and gazetteer hits, cluster
  ids) stay;
* cluster entries of words that are not safe are removed;
* encoder vocabulary entries that no safe word's tokenization produces are renamed
  ``[unused<k>]`` (ids, and so the network, stay aligned) and their embedding rows are zeroed;
  such words are then split into smaller pieces or read as unknown.

The copy is written with owner-only modes too (it is still a clinical model); ``shareable.json``
inside it says what was removed and what was kept, in counts (never the words). Its accuracy
cost is measured by ``benchmarks/shareable_model.py``.
"""
from __future__ import annotations

import json
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from models.crf_feature_spec import norm_token
from models.registry import resolve
from models.version import VERSION_FILE
from models.words import tokenize
from pipeline.durable import make_private
from pipeline.errors import WorkbenchError
from pipeline.spans import Document

REPORT_FILE = "shareable.json"
WORD_FEATURES = re.compile(r"^(w|w\[-?\d+\]|lfirst|key)$")
BIGRAM_FEATURES = re.compile(r"^bi[-+]\d$")
AFFIX_FEATURES = re.compile(r"^([sp])([234])(\[-?\d+\])?$")


class NotShareable(WorkbenchError):
    """No shareable copy can be written as asked (safe to show: names folders and members only)."""


@dataclass
class ShareableReport:
    """What a shareable copy removed and kept, in counts (no words).

    ``phi_words``: words seen inside a PHI span (all treated as PHI but the public ones);
    ``phi_words_seen_outside_phi``: of those, the ones also seen outside every span (missed
    annotations, or ordinary words inside a span), which a rule of "only ever inside PHI" would
    have kept; ``public_words_kept``: public words (:data:`PUBLIC_WORDS`) seen inside PHI and
    kept; ``safe_words``: the words kept."""

    version: str
    training_documents: int
    safe_words: int
    phi_words: int
    phi_words_seen_outside_phi: int = 0
    public_words_kept: int = 0
    members: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------- which words are safe

def _span_categories(doc: Document, starts: Sequence[int], ends: Sequence[int]) -> list[frozenset[str]]:
    """Per word token: the categories of the gold spans of ``doc`` it overlaps (empty: outside PHI)."""
    spans = sorted((s.start, s.end, s.category) for s in doc.spans)
    out = []
    k = 0
    for a, b in zip(starts, ends):
        while k < len(spans) and spans[k][1] <= a:
            k += 1
        j, cats = k, set()
        while j < len(spans) and spans[j][0] < b:
            if spans[j][1] > a:
                cats.add(spans[j][2])
            j += 1
        out.append(frozenset(cats))
    return out


def _public_words() -> frozenset[str]:
    """Closed-class words of the locale packs (normalised): function words, titles, street and
    institution words. Lists shipped with the code, not learned from notes; they hold no names."""
    from pipeline.locales.western import WORDS

    words: set[str] = set()
    for group in (WORDS.function_words, WORDS.titles, WORDS.street_words, WORDS.name_goes_on,
                  WORDS.abbreviations, WORDS.abbreviations_4):
        for w in group:
            words.update(norm_token(t) for t in tokenize(w).tokens if any(c.isalpha() for c in t))
    return frozenset(words)


PUBLIC_WORDS = _public_words()


def _is_word(token: str) -> bool:
    """A token with a letter or a digit; punctuation (``,`` ``/`` ``-`` ``.``) names nobody."""
    return any(c.isalnum() for c in token)


def word_sets(docs: Iterable[Document], public: frozenset[str] = PUBLIC_WORDS) -> dict[str, set[str]]:
    """The training notes' words by where they were seen: ``outside`` (some occurrence outside
    every gold span), ``inside`` (some occurrence inside one), ``phi`` (inside, even once,
    wherever else: every such word but the public ones and punctuation), ``safe`` (the rest)."""
    outside: set[str] = set()
    inside: set[str] = set()
    for doc in docs:
        w = tokenize(doc.text)
        for tok, cats in zip(w.tokens, _span_categories(doc, w.starts, w.ends)):
            (inside if cats else outside).add(norm_token(tok))
    phi = {x for x in inside if _is_word(x)} - public
    return {"outside": outside, "inside": inside, "phi": phi, "safe": (outside | inside) - phi}


def safe_and_phi_words(docs: Iterable[Document], public: frozenset[str] = PUBLIC_WORDS) -> tuple[set[str], set[str]]:
    """``(safe, phi)``: the words a shareable copy may keep, and the words it treats as PHI:
    every word seen inside a PHI span even once (but the public words), wherever else it was
    seen."""
    sets = word_sets(docs, public)
    return sets["safe"], sets["phi"]


def _affixes(words: Iterable[str]) -> set[str]:
    out = set()
    for w in words:
        for n in (2, 3, 4):
            out.add("p" + str(n) + "=" + w[:n])
            out.add("s" + str(n) + "=" + w[-n:])
    return out


def attribute_is_safe(attr: str, safe: set[str], safe_affixes: set[str]) -> bool:
    """Whether a CRF feature string names only safe words (non-lexical features always are)."""
    name, eq, value = attr.partition("=")
    if not eq:
        return True
    if WORD_FEATURES.match(name):
        if name == "key":
            value = value.split("|", 1)[0]
            return all(part in safe for part in value.split(" ") if part)
        return value in safe
    if BIGRAM_FEATURES.match(name):
        return all(part in safe for part in value.split("|"))
    m = AFFIX_FEATURES.match(name)
    if m:
        return f"{m.group(1)}{m.group(2)}={value}" in safe_affixes
    return True


# --------------------------------------------------------------------------- members

def _clean_crf(member_dir: Path, safe: set[str], safe_affixes: set[str]) -> dict[str, int]:
    names = (member_dir / "attributes.txt").read_text(encoding="utf-8").split("\n")
    if names == [""]:
        names = []
    state = sp.load_npz(member_dir / "state.npz").tocsr()
    keep = [i for i, a in enumerate(names) if attribute_is_safe(a, safe, safe_affixes)]
    (member_dir / "attributes.txt").write_text("\n".join(names[i] for i in keep), encoding="utf-8")
    sp.save_npz(member_dir / "state.npz", state[keep] if keep else sp.csr_matrix((0, state.shape[1]),
                                                                                   dtype=state.dtype))
    dropped_clusters = kept_clusters = 0
    cpath = member_dir / "clusters.json"
    if cpath.is_file():
        clusters = json.loads(cpath.read_text(encoding="utf-8"))
        kept = {w: c for w, c in clusters.items() if w in safe}
        dropped_clusters, kept_clusters = len(clusters) - len(kept), len(kept)
        cpath.write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
    return {"features_kept": len(keep), "features_removed": len(names) - len(keep),
            "cluster_words_kept": kept_clusters, "cluster_words_removed": dropped_clusters}


def _clean_encoder(member_dir: Path, safe_words: set[str], safe_tokens: list[str]) -> dict[str, int]:
    from safetensors.numpy import load_file, save_file
    from tokenizers import Tokenizer

    tok_path = member_dir / "tokenizer" / "tokenizer.json"
    specials = json.loads((member_dir / "tokenizer" / "special_tokens.json").read_text(encoding="utf-8"))
    tok = Tokenizer.from_file(str(tok_path))
    used: set[int] = set(int(v) for v in specials.values())
    for enc in tok.encode_batch([[w] for w in safe_tokens], is_pretokenized=True, add_special_tokens=False):
        used.update(enc.ids)
    data = json.loads(tok_path.read_text(encoding="utf-8"))
    vocab: dict[str, int] = data["model"]["vocab"]
    drop = sorted(i for t, i in vocab.items() if i not in used)
    if drop:
        by_id = {i: t for t, i in vocab.items()}
        for k, i in enumerate(drop):
            by_id[i] = f"[unused{k}]"
        data["model"]["vocab"] = {t: i for i, t in sorted(by_id.items())}
        tok_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        weights_path = member_dir / "model" / "model.safetensors"
        tensors = load_file(str(weights_path))
        rows = np.asarray(drop)
        for key, arr in tensors.items():
            if key.endswith("word_embeddings.weight") and arr.shape[0] >= len(vocab):
                arr = arr.copy()
                arr[rows] = 0
                tensors[key] = arr
        save_file(tensors, str(weights_path), metadata={"format": "pt"})
    return {"vocabulary": len(vocab), "vocabulary_entries_kept": len(vocab) - len(drop),
            "vocabulary_entries_renamed": len(drop)}


# --------------------------------------------------------------------------- the copy

def shareable_copy(model_dir: str | Path, out_dir: str | Path, training_docs: Sequence[Document]) -> ShareableReport:
    """Write a copy of the version at (or active in) ``model_dir`` into ``out_dir`` (which must
    not exist) without what it learned from words seen inside PHI in ``training_docs``."""
    src = resolve(model_dir)
    out = Path(out_dir)
    if out.exists():
        raise NotShareable(f"{out} already exists; choose a new folder")
    if not training_docs:
        raise NotShareable("a shareable copy needs the version's training documents with their gold spans")
    info = json.loads((src / VERSION_FILE).read_text(encoding="utf-8"))
    sets = word_sets(training_docs)
    safe, phi = sets["safe"], sets["phi"]
    safe_affixes = _affixes(safe)
    safe_tokens = sorted({t for d in training_docs for t in tokenize(d.text).tokens if norm_token(t) in safe})
    report = ShareableReport(version=str(info.get("name") or src.name), training_documents=len(training_docs),
                             safe_words=len(safe), phi_words=len(phi),
                             phi_words_seen_outside_phi=len(phi & sets["outside"]),
                             public_words_kept=len(sets["inside"] & PUBLIC_WORDS))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".shareable-", dir=out.parent))
    try:
        stage = tmp / "copy"
        shutil.copytree(src, stage)
        for member_dir in sorted((stage / "members").iterdir()) if (stage / "members").is_dir() else []:
            meta = json.loads((member_dir / "member.json").read_text(encoding="utf-8"))
            kind = meta.get("kind")
            if kind == "crf":
                report.members[member_dir.name] = _clean_crf(member_dir, safe, safe_affixes)
            elif (member_dir / "tokenizer" / "tokenizer.json").is_file():
                report.members[member_dir.name] = _clean_encoder(member_dir, safe, safe_tokens)
            else:
                raise NotShareable(f"member {member_dir.name} ({kind}) cannot be cleaned; leave it out of the "
                                   "version or share nothing")
        (stage / REPORT_FILE).write_text(json.dumps(report.to_json(), indent=1), encoding="utf-8")
        make_private(stage)
        stage.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report
