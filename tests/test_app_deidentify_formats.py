"""The De-identify page and the new formats through AppTest (issue 33): a run downloads as Label
Studio, doccano, Prodigy, spaCy, Hugging Face or a table (through the release gate,
``test_release_formats``); an uploaded CSV is de-identified with its text, id and patient columns
chosen from its header and offered back as CSV; runs are named in words and local times."""
from __future__ import annotations

import pandas as pd

import store
from apptest_helpers import demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from dashboard.deidentify_runs import run_label, status_words
from dashboard.deidentify_views import FORMAT_WORDS
from services import deid_files, worker
from pipeline.layers import GOLD


def test_every_export_format_has_words_on_the_page():
    assert set(FORMAT_WORDS) == set(deid_files.EXPORT_FORMATS)


def test_a_run_is_named_in_words_and_local_time(demo_app):
    db = demo_app.db()
    try:
        gold = sorted(store.read_project_layer(db, demo_app.project_id, GOLD))[:3]
    finally:
        db.close()
    worker.run_inline(demo_app.db_path, "deidentify", {"project_id": demo_app.project_id, "doc_ids": gold,
                                                       "profile": "replace", "user": "lea"})
    db = demo_app.db()
    try:
        run = store.list_deid_runs(db, demo_app.project_id)[0]
    finally:
        db.close()
    label = run_label(run)
    assert status_words(run) == "finished" and "· finished ·" in label
    assert "T" not in label.split("started ", 1)[1].split(" · ")[0]            # not ISO: "26 Nov 2026, 07:10"
    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    assert not errors(at)
    assert at.selectbox(key="deid.run_id").options[0] == label
    box = at.selectbox(key="deid.run_dl.fmt")
    assert "Label Studio tasks (JSON)" in box.options and "table: Parquet (id, text, spans)" in box.options
    box.set_value("label-studio").run()
    assert not errors(at) and at.get("download_button")
    assert not any("in_progress" in t or "risk[" in t for t in (c.value for c in at.caption))


def test_an_uploaded_csv_is_deidentified_with_its_chosen_columns(demo_app):
    table = pd.DataFrame({"note_id": ["n-1", "n-2"], "mrn": ["P7", "P7"],
                          "body": ["Seen by Dr. John Smith on 12/03/2020.", "John Smith called back."]})
    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    at.radio(key="deid.source").set_value("Upload files").run()
    at.selectbox(key="deid.upload_fmt").set_value("csv").run()
    at.file_uploader(key="deid.upload").set_value(("notes.csv", table.to_csv(index=False).encode(), "text/csv")).run()
    assert not errors(at)
    assert not any(b.key == "deid.upload_run_btn" for b in at.button)        # no text column chosen yet
    assert at.selectbox(key="deid.table_id_col").options == ["(none)", "note_id", "mrn", "body"]
    assert not any(m.key == "deid.table_keep_cols" for m in at.multiselect)  # other columns never leave
    at.multiselect(key="deid.table_text_cols").set_value(["body"])
    at.selectbox(key="deid.table_id_col").set_value("note_id")
    at.selectbox(key="deid.table_patient_col").set_value("mrn").run()
    at.button(key="deid.upload_run_btn").click().run()
    assert not errors(at)
    result = at.session_state["deid.upload_run"]
    assert sorted(d.doc_id for d in result.originals) == ["n-1", "n-2"]
    assert {d.patient_id for d in result.originals} == {"P7"}
    assert all("John Smith" not in r.text for r in result.batch.results)
    assert at.selectbox(key="deid.upload_dl.fmt").value == "csv"              # back in the upload's format
