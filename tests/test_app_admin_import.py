"""The Admin page's import through AppTest (issue 33): a table upload asks for its text, id,
patient and kept columns from select boxes filled with its header, and imports with the same
columns the command line's ``--*-column`` options give; the annotation tools' formats are in the
format list."""
from __future__ import annotations

import io

import pandas as pd

import store
from apptest_helpers import demo_app, errors  # noqa: F401
from test_app_admin import _admin
from dashboard.admin_import import FORMAT_WORDS
from pipeline.formats import READERS
from services import imports


def _table() -> pd.DataFrame:
    return pd.DataFrame({"note_id": ["n-101", "n-102"], "mrn": ["P7", "P8"], "ward": ["B", "C"],
                         "secret": ["x", "y"], "body": ["Patient seen in clinic.", "Follow-up in two weeks."]})


def test_every_registered_format_is_offered(demo_app):
    at = _admin(demo_app)
    box = at.selectbox(key="admin.import_format")
    assert set(READERS) >= {"label-studio", "doccano", "prodigy", "spacy", "hf-dataset", "csv", "tsv", "parquet"}
    assert box.options == [FORMAT_WORDS[f] for f in READERS]          # every one, shown in words
    assert "Label Studio project export (JSON)" in box.options


def test_a_csv_upload_asks_for_its_columns_and_imports_with_them(demo_app):
    at = _admin(demo_app)
    at.selectbox(key="admin.import_format").set_value("csv").run()
    at.file_uploader(key="admin.import_file").upload("extract.csv", _table().to_csv(index=False).encode(), "text/csv")
    at.run()
    assert not errors(at)
    assert at.selectbox(key="admin.import_id_col").options == ["(none)", "note_id", "mrn", "ward", "secret", "body"]
    assert any("Choose the text column" in w.value for w in at.warning)        # no "text" column: none chosen yet
    assert not any(b.key == "admin.import" for b in at.button)                 # nothing to import yet
    at.multiselect(key="admin.import_text_cols").set_value(["body"])
    at.selectbox(key="admin.import_id_col").set_value("note_id")
    at.selectbox(key="admin.import_patient_col").set_value("mrn").run()
    keep = at.multiselect(key="admin.import_keep_cols")
    assert set(keep.options) == {"ward", "secret"} and set(keep.value) == {"ward", "secret"}
    keep.set_value(["ward"]).run()
    at.button(key="admin.import").click().run()
    assert not errors(at)
    assert any("Imported 2 document(s)" in s.value for s in at.success)
    db = demo_app.db()
    try:
        doc = store.find_document(db, demo_app.project_id, "n-101")
        assert doc is not None and doc.patient_id == "P7"
        full = store.get_document(db, doc.id)
        assert full.meta.get("ward") == "B" and "secret" not in full.meta and "body" not in full.meta
        assert store.find_document(db, demo_app.project_id, "n-102") is not None
    finally:
        db.close()


def test_a_parquet_header_is_read_from_its_schema_and_a_bad_table_imports_nothing(demo_app):
    buf = io.BytesIO()
    _table().to_parquet(buf, index=False)
    assert imports.upload_table_header("x.parquet", buf.getvalue(), "parquet") == list(_table().columns)
    with demo_app.db() as db:
        before = store.count_documents(db, demo_app.project_id)
    at = _admin(demo_app)
    at.selectbox(key="admin.import_format").set_value("parquet").run()
    at.file_uploader(key="admin.import_file").upload("bad.parquet", b"not parquet at all", "application/octet-stream")
    at.run()
    assert any("bad.parquet" in e and "Parquet" in e for e in errors(at))
    assert not any(b.key == "admin.import" for b in at.button)
    with demo_app.db() as db:
        assert store.count_documents(db, demo_app.project_id) == before
