"""CSV, TSV and Parquet as registered formats: exact round trips of text, offsets and labels
through ``write_collection``/``read_collection``, the column options, and the importers' checks
(file and row named, no value quoted)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from pipeline.errors import FormatError
from pipeline.formats import READERS, WRITERS, Limits, read_collection, write_collection
from pipeline.formats.table import TableColumns, read_table_documents
from pipeline.schemas import get_schema
from pipeline.synthetic.generator import generate_corpus

SCHEMA = get_schema("i2b2-2014")


def _key(doc):
    return (doc.doc_id, doc.text, doc.patient_id, [(s.start, s.end, s.category, s.type) for s in doc.spans])


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_round_trip_is_exact(tmp_path, fmt):
    docs = generate_corpus(6, 4)
    assert fmt in READERS and fmt in WRITERS
    files = write_collection(docs, tmp_path, fmt)
    back = read_collection(files[0], fmt, SCHEMA)
    assert [_key(d) for d in back] == [_key(d) for d in docs]
    assert back[0].meta["kind"] == docs[0].meta["kind"]
    assert oct(files[0].stat().st_mode & 0o777) == "0o600"


def test_columns_name_text_id_patient_and_metadata(tmp_path):
    src = tmp_path / "t.csv"
    pd.DataFrame({"nid": ["a", "b"], "pid": ["P1", "P1"], "body": ["Seen today.", "Seen again."],
                  "summary": ["x", "y"], "ward": ["7", "8"], "name": ["N1", "N2"]}).to_csv(src, index=False)
    cols = TableColumns(text=("body", "summary"), id="nid", patient="pid", keep=("ward",))
    docs = read_table_documents(src, SCHEMA, columns=cols)
    assert [d.doc_id for d in docs] == ["a/body", "a/summary", "b/body", "b/summary"]
    assert {d.patient_id for d in docs} == {"P1"} and all(d.meta == {"ward": d.meta["ward"]} for d in docs)
    docs = read_table_documents(src, SCHEMA, columns=TableColumns(text=("body",), drop=("name",)))
    assert [d.doc_id for d in docs] == ["row-1", "row-2"] and "name" not in docs[0].meta and "ward" in docs[0].meta


def test_errors_name_the_file_and_row_never_a_value(tmp_path):
    src = tmp_path / "t.csv"
    spans = json.dumps([{"start": 0, "end": 5, "label": "Garcia"}])
    pd.DataFrame({"id": ["a", "b"], "text": ["Pedro Garcia", "Pedro Garcia"], "spans": ["[]", spans]}).to_csv(
        src, index=False)
    with pytest.raises(FormatError) as e:
        read_collection(src, "csv", SCHEMA)
    assert "row 2" in str(e.value) and "Garcia" not in str(e.value) and "\n" not in str(e.value)
    pd.DataFrame({"id": ["a", "a"], "text": ["one", "two"]}).to_csv(src, index=False)
    with pytest.raises(FormatError, match="row 2: the document id repeats the one of row 1"):
        read_collection(src, "csv", SCHEMA)
    pd.DataFrame({"id": ["a", "b"], "text": ["one", " "]}).to_csv(src, index=False)
    with pytest.raises(FormatError, match="row 2: the text column 'text' is empty"):
        read_collection(src, "csv", SCHEMA)
    pd.DataFrame({"id": [str(i) for i in range(5)], "text": ["x"] * 5}).to_csv(src, index=False)
    with pytest.raises(FormatError, match="more than 3 documents"):
        read_collection(src, "csv", SCHEMA, limits=Limits(max_files=3))
    with pytest.raises(FormatError, match="too large to import"):
        read_collection(src, "csv", SCHEMA, limits=Limits(max_total_bytes=10))
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(FormatError, match="not a readable Parquet file"):
        read_collection(tmp_path / "bad.parquet", "parquet", SCHEMA)
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    with pytest.raises(FormatError, match="empty"):
        read_collection(tmp_path / "empty.csv", "csv", SCHEMA)


def test_a_parquet_upload_is_read_by_its_reader_not_refused_as_binary(tmp_path):
    from pipeline.formats.uploads import read_upload

    docs = generate_corpus(3, 9)
    path = write_collection(docs, tmp_path, "parquet")[0]
    back = read_upload("ward notes.parquet", path.read_bytes(), "parquet", SCHEMA)
    assert [_key(d) for d in back] == [_key(d) for d in docs]
    assert {d.source_file for d in back} == {"ward notes.parquet"}          # the user's name, no temp path
    with pytest.raises(FormatError, match="not a table file"):
        read_collection(tmp_path, "csv", SCHEMA)
