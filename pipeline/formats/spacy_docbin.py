"""spaCy ``DocBin`` (``.spacy``): the training data ``spacy train`` reads, and back.

Exactness first. A spaCy span is a run of whole tokens, and the blank tokenizer of a language
does not split where PHI starts or ends ("28001Madrid", a BOM glued to the first word, a span
that takes the space after a name): ``doc.char_span(..., alignment_mode="expand")`` would move
such a span and "contract" would shrink it or drop it. So each document's words are the
language's blank tokenizer's (``spacy.blank(lang)``, nothing downloaded), cut further at every
span boundary, and a trailing space becomes a token of its own where a span starts or ends on
it. The text is unchanged (``doc.text`` equals the note, checked) and every span is placed with
``alignment_mode="strict"``, so offsets and labels come back exactly.

What goes in each ``Doc``:

* ``doc.spans["phi"]``: every span of the exported layer (a span group allows overlaps);
* ``doc.ents``: the same spans where they do not overlap (the longest kept), for the ``ner``
  component; ``doc.spans["pre"]`` the suggestions, their scores in ``attrs["scores"]``;
* ``doc.user_data``: ``id``, ``patient_id`` and ``meta`` (what the JSONL writer writes).

Reading takes ``spans["phi"]`` (else ``doc.ents``) as the import's layer and ``spans["pre"]`` as
suggestions. A ``.spacy`` file is zlib-compressed: it is inflated under the zip-bomb rule of
:mod:`pipeline.formats._sources` before spaCy sees it, and anything spaCy cannot read is one
line naming the file, never a traceback.
"""
from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Sequence

from pipeline.formats._interchange import (MAIN, Place, check_for_writing, collect, document_id, file_items,
                                           file_meta, json_safe_meta, layer_spans, make_span, new_document, require_text)
from pipeline.formats._output import write_bytes
from pipeline.formats._sources import Entry, Limits, PathLike, Progress
from pipeline.layers import PRE
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

SOURCE = "import:spacy"
PHI_KEY, PRE_KEY = "phi", "pre"


def _blank(lang: str):
    """A blank pipeline of ``lang`` (``es-ES`` counts as ``es``); spaCy's multi-language one
    for a language it has no tokenizer rules for. Only the tokenizer is used."""
    import spacy

    try:
        return spacy.blank(lang.split("-")[0].lower() or "xx")
    except ImportError:
        return spacy.blank("xx")


def words_and_spaces(tokens: Sequence[tuple[int, int, bool]], text: str, spans: Sequence[Span]
                     ) -> tuple[list[str], list[bool]]:
    """The tokenizer's ``(start, end, followed by a space)`` cut at every span boundary, as
    ``Doc(words=..., spaces=...)`` takes them; joined they give ``text`` back.

    >>> words_and_spaces([(0, 11, False)], "28001Madrid", [Span("d", 5, 11, "LOCATION")])
    (['28001', 'Madrid'], [False, False])
    >>> words_and_spaces([(0, 3, True), (4, 6, False)], "Ana Ok", [Span("d", 0, 4, "NAME")])  # the space too
    (['Ana', ' ', 'Ok'], [False, False, False])
    """
    starts = {s.start for s in spans}
    ends = {s.end for s in spans}
    cuts = sorted(starts | ends)
    words: list[str] = []
    spaces: list[bool] = []
    for a, b, space in tokens:
        points = [a, *(c for c in cuts if a < c < b), b]
        for x, y in zip(points, points[1:]):
            words.append(text[x:y])
            spaces.append(False)
        if space:
            if b in starts or b + 1 in ends:   # the space is part of a span's edge: a token of its own
                words.append(text[b])
                spaces.append(False)
            else:
                spaces[-1] = True
    return words, spaces


def to_spacy_doc(doc: Document, nlp):
    """The spaCy ``Doc`` of one document (see the module's docstring)."""
    from spacy.tokens import Doc
    from spacy.util import filter_spans

    layers = layer_spans(doc)
    main, pre = layers.get(MAIN, []), layers.get(PRE, [])
    tokens = [(t.idx, t.idx + len(t.text), bool(t.whitespace_)) for t in nlp.make_doc(doc.text)]
    words, spaces = words_and_spaces(tokens, doc.text, main + pre)
    sdoc = Doc(nlp.vocab, words=words, spaces=spaces)
    if sdoc.text != doc.text:
        raise ValueError(f"document {doc.doc_id!r}: spaCy tokens do not give the text back")

    def place(spans: Sequence[Span]):
        out = [sdoc.char_span(s.start, s.end, label=s.label, alignment_mode="strict") for s in spans]
        if any(x is None for x in out):
            raise ValueError(f"document {doc.doc_id!r}: a span does not fall on token boundaries")
        return out

    placed = place(main)
    sdoc.spans[PHI_KEY] = placed
    sdoc.ents = filter_spans(placed)
    if pre:
        sdoc.spans[PRE_KEY] = place(pre)
        sdoc.spans[PRE_KEY].attrs["scores"] = [float(s.score) for s in pre]
    sdoc.user_data.update({"id": doc.doc_id, "patient_id": doc.patient_id, "meta": json_safe_meta(doc.meta)})
    return sdoc


def write_spacy(docs: Sequence[Document], out_dir: str | os.PathLike, *, filename: str = "documents.spacy",
                lang: str = "xx") -> list[Path]:
    """All documents into one ``DocBin`` file, ``out_dir/<filename>`` (``lang``: the blank
    tokenizer's language; ``xx`` is spaCy's multi-language one)."""
    from spacy.tokens import DocBin

    out = Path(out_dir)
    check_for_writing(docs, str(out))
    nlp = _blank(lang)
    bin_ = DocBin(store_user_data=True)
    for d in docs:
        bin_.add(to_spacy_doc(d, nlp))
    path = out / filename
    write_bytes(path, bin_.to_bytes())
    return [path]


# --------------------------------------------------------------------------- reading

def inflate_checked(data: bytes, place: Place, limits: Limits) -> None:
    """Refuse a ``.spacy`` file that would inflate beyond the limits (as a zip member would),
    without holding more than the limit in memory."""
    bound = limits.max_total_bytes
    d = zlib.decompressobj()
    size, rest = 0, data
    try:
        while rest:  # a megabyte at a time, counted and dropped: nothing large is held here
            size += len(d.decompress(rest, 1 << 20))
            rest = d.unconsumed_tail
            if size > bound:
                raise place.error(f"inflates to more than {bound} bytes: refused")
        size += len(d.flush())
    except zlib.error:
        raise place.error("not a spaCy DocBin (not zlib-compressed data)") from None
    if size > bound:
        raise place.error(f"inflates to more than {bound} bytes: refused")
    ratio = size / max(len(data), 1)
    if size > limits.ratio_check_above and ratio > limits.max_zip_ratio:
        raise place.error(f"inflates {ratio:.0f}x (limit {limits.max_zip_ratio:.0f}x): refused as a possible bomb")


def _spacy_docs(e: Entry, limits: Limits, vocab) -> list:
    from spacy.tokens import DocBin

    place = Place(e.display)
    data = e.read()
    inflate_checked(data, place, limits)
    try:
        return list(DocBin().from_bytes(data).get_docs(vocab))
    except Exception as err:  # noqa: BLE001 - hostile bytes fail in many ways inside spaCy and msgpack
        raise place.error(f"not a readable spaCy DocBin ({type(err).__name__})") from None


def from_spacy_doc(sdoc, schema: LabelSchema, default_id: str, place: Place, *, allow_overlap: bool) -> Document:
    user = sdoc.user_data if isinstance(sdoc.user_data, dict) else {}
    text = require_text(sdoc.text, place, "the text")
    doc_id = document_id(user.get("id"), default_id, place, 'user_data "id"')
    meta = file_meta(user.get("meta"), place, 'user_data "meta"')
    main = list(sdoc.spans[PHI_KEY]) if PHI_KEY in sdoc.spans else list(sdoc.ents)
    spans = [make_span(schema, text, doc_id, place, f"span {k}", start=s.start_char, end=s.end_char, label=s.label_,
                       source=SOURCE) for k, s in enumerate(main)]
    if PRE_KEY in sdoc.spans:
        group = sdoc.spans[PRE_KEY]
        scores = group.attrs.get("scores") or [None] * len(group)
        if not isinstance(scores, list) or len(scores) != len(group):
            raise place.error('spans["pre"]: "scores" must hold one score per span')
        spans += [make_span(schema, text, doc_id, place, f"suggestion {k}", start=s.start_char, end=s.end_char,
                            label=s.label_, source=SOURCE, layer=PRE, score=sc)
                  for k, (s, sc) in enumerate(zip(group, scores))]
    return new_document(doc_id, text, spans, place, meta=meta, patient=user.get("patient_id"),
                        patient_field='user_data "patient_id"', allow_overlap=allow_overlap)


def read_spacy(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
               progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """Every document of every ``.spacy`` file under ``paths``; all checked before returning."""
    limits = limits or Limits()
    vocab = _blank("xx").vocab
    return collect(file_items(paths, (".spacy",), limits, progress, lambda e: _spacy_docs(e, limits, vocab), "doc"),
                   lambda sdoc, default_id, place: from_spacy_doc(sdoc, schema, default_id, place,
                                                                  allow_overlap=allow_overlap))
