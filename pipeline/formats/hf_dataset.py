"""Hugging Face ``datasets``: Parquet files a ``load_dataset("parquet", ...)`` call (or
``load_dataset(folder)``) reads with their features, written and read with pyarrow alone.

Why not the ``datasets`` package: it would pull ``dill``, ``multiprocess``, ``xxhash``, ``fsspec``,
``aiohttp`` and the hub client into the workbench for what is, on disk, a Parquet file whose
schema metadata (key ``huggingface``) holds the features. pyarrow is already installed (pandas and
Ray's data extra use it), Parquet is what the Hub itself stores, and pandas, polars and Spark
read the same files. ``save_to_disk``'s Arrow layout is internal to ``datasets`` and has changed
between its versions; Parquet with features has not.

Layout: ``data/<split>-00000-of-00001.parquet`` for the splits present (a document's ``train``,
``dev`` -> ``validation``, ``test``; none -> ``train``), the names ``load_dataset`` maps to
splits. Columns, one row per document:

* ``id``, ``text``, ``patient_id`` and ``meta`` (the metadata as a JSON string);
* ``tokens`` and ``ner_tags``: the CoNLL tokenizer's tokens (:mod:`pipeline.formats.conll`) and
  their BIO tags, a ``ClassLabel`` whose names are ``O`` then ``B-``/``I-`` of every label used;
* ``spans``: ``[{start, end, label}]``, the character spans. Tags are derived from them (a span
  inside a token tags the whole token), so importing reads the spans, which are exact.

Reading checks the file's declared sizes before decompressing (the zip-bomb rule of
:mod:`pipeline.formats._sources`); errors name the file and the row, never a value.
"""
from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Sequence

from pipeline.formats._interchange import (MAIN, Place, check_for_writing, collect, document_id, file_items,
                                           file_meta, json_safe_meta, layer_spans, load_json, make_span, new_document,
                                           require_text)
from pipeline.formats._output import write_bytes
from pipeline.formats._sources import Entry, Limits, PathLike, Progress
from pipeline.formats.conll import bio_tags
from pipeline.schemas import LabelSchema
from pipeline.spans import Document

SOURCE = "import:hf"
SPLITS = {"train": "train", "dev": "validation", "validation": "validation", "test": "test"}
REQUIRED = ("text", "spans")
COLUMNS = ("id", "text", "patient_id", "meta", "spans")


def _value(dtype: str) -> dict:
    return {"dtype": dtype, "_type": "Value"}


def features(tag_names: Sequence[str]) -> dict:
    """The ``datasets`` features of the columns, as ``Features.to_dict()`` writes them."""
    return {"id": _value("string"), "text": _value("string"),
            "tokens": {"feature": _value("string"), "_type": "Sequence"},
            "ner_tags": {"feature": {"names": list(tag_names), "_type": "ClassLabel"}, "_type": "Sequence"},
            "spans": [{"start": _value("int64"), "end": _value("int64"), "label": _value("string")}],
            "patient_id": _value("string"), "meta": _value("string")}


def tag_names(docs: Sequence[Document]) -> list[str]:
    labels = sorted({s.label.replace(" ", "_") for d in docs for s in layer_spans(d).get(MAIN, [])})
    return ["O", *(f"{p}-{x}" for x in labels for p in ("B", "I"))]


def _row(doc: Document, index: dict[str, int]) -> dict:
    main = layer_spans(doc).get(MAIN, [])
    tagged = bio_tags(doc.text, main)
    return {"id": doc.doc_id, "text": doc.text, "tokens": [t for t, _, _, _ in tagged],
            "ner_tags": [index[tag] for _, _, _, tag in tagged],
            "spans": [{"start": s.start, "end": s.end, "label": s.label} for s in main],
            "patient_id": doc.patient_id,
            "meta": json.dumps(json_safe_meta(doc.meta), ensure_ascii=False, sort_keys=True)}


def write_hf(docs: Sequence[Document], out_dir: str | os.PathLike) -> list[Path]:
    """One Parquet file per split under ``out_dir/data/``, with the ``datasets`` features."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(out_dir)
    check_for_writing(docs, str(out))
    names = tag_names(docs)
    index = {n: i for i, n in enumerate(names)}
    schema = pa.schema([("id", pa.string()), ("text", pa.string()), ("tokens", pa.list_(pa.string())),
                        ("ner_tags", pa.list_(pa.int64())),
                        ("spans", pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                                      ("label", pa.string())]))),
                        ("patient_id", pa.string()), ("meta", pa.string())],
                       metadata={"huggingface": json.dumps({"info": {"features": features(names)}})})
    by_split: dict[str, list[dict]] = {}
    for d in docs:
        by_split.setdefault(SPLITS.get(str(d.meta.get("split")), "train"), []).append(_row(d, index))
    written = []
    for split in sorted(by_split):
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(by_split[split], schema=schema), buf)
        path = out / "data" / f"{split}-00000-of-00001.parquet"
        write_bytes(path, buf.getvalue())
        written.append(path)
    return written


# --------------------------------------------------------------------------- reading

def _rows(e: Entry, limits: Limits) -> list[dict]:
    """The rows of one Parquet file, its declared sizes checked before anything is decompressed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    place = Place(e.display)
    data = e.read()
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        meta = pf.metadata
        inflated = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    except (pa.ArrowException, OSError, ValueError) as err:
        raise place.error(f"not a readable Parquet file ({type(err).__name__})") from None
    if inflated > limits.max_total_bytes:
        raise place.error(f"expands to more than {limits.max_total_bytes} bytes: refused")
    ratio = inflated / max(len(data), 1)
    if inflated > limits.ratio_check_above and ratio > limits.max_zip_ratio:
        raise place.error(f"expands {ratio:.0f}x (limit {limits.max_zip_ratio:.0f}x): refused as a possible bomb")
    names = set(pf.schema_arrow.names)
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise place.error(f"missing column(s) {', '.join(missing)}: a dataset written by the workbench has "
                          f"{', '.join(COLUMNS)}")
    try:
        return pf.read(columns=[c for c in COLUMNS if c in names]).to_pylist()
    except (pa.ArrowException, OSError, ValueError) as err:
        raise place.error(f"not a readable Parquet file ({type(err).__name__})") from None


def from_row(row: dict, schema: LabelSchema, default_id: str, place: Place, *, allow_overlap: bool) -> Document:
    text = require_text(row.get("text"), place, '"text"')
    doc_id = document_id(row.get("id"), default_id, place, '"id"')
    raw_meta = row.get("meta")
    meta = file_meta(load_json(raw_meta, place) if raw_meta else None, place)
    raw = row.get("spans") or []
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        raise place.error('"spans" must be a list of {start, end, label}')
    spans = [make_span(schema, text, doc_id, place, f"span {k}", start=x.get("start"), end=x.get("end"),
                       label=x.get("label"), source=SOURCE) for k, x in enumerate(raw)]
    return new_document(doc_id, text, spans, place, meta=meta, patient=row.get("patient_id"),
                        patient_field='"patient_id"', allow_overlap=allow_overlap)


def read_hf(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
            progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """Every row of every ``.parquet`` file under ``paths`` (a dataset folder, a file or a zip)."""
    limits = limits or Limits()
    return collect(file_items(paths, (".parquet",), limits, progress, lambda e: _rows(e, limits), "row"),
                   lambda row, default_id, place: from_row(row, schema, default_id, place, allow_overlap=allow_overlap))
