"""Tables de-identified in a stream (services.table_deid, the deidentify-table command): the same
table back with its text de-identified, ids pseudonymised with the installation's key, dates
shifted by the patient's offset, nothing written on failure, and the leak check on every row.
Tests compare pseudonyms, counts and offsets; they never print a cell."""
from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from cli import main
from pipeline.deid import DeidContext, builtin_profiles, deidentify, document_pseudonym, patient_pseudonym
from pipeline.deid.table_rows import ColumnPlan, ColumnPlanError
from pipeline.detection.detector import Detector
from pipeline.errors import FormatError
from pipeline.spans import Document
from pipeline.synthetic.generator import generate_corpus
from services.table_deid import TableDeidError, TableJob, deidentify_table

SECRET = b"table-tests-key-0123456789"
REPLACE = builtin_profiles()["replace"]


@pytest.fixture(scope="module")
def detector():
    return Detector.without_model("i2b2-2014")


class Notes(list):
    """Synthetic notes whose repr (in a failing test's traceback) shows a count, never a text."""

    def __repr__(self) -> str:
        return f"<{len(self)} synthetic notes>"


@pytest.fixture(scope="module")
def notes():
    return Notes(generate_corpus(8, 11))


def _rows(notes, **extra):
    return [{"note_id": d.doc_id, "mrn": d.patient_id, "seen": "03/14/2070", "ward": "7B", "secret_col": "x",
             "note": f"Admitted 03/14/2070.\n{d.text}", **extra} for d in notes]


def _job(src: Path, out: Path, fmt: str = "csv", **plan) -> TableJob:
    spec = dict(text=("note",), id="note_id", patient="mrn", keep=("ward",), dates=("seen",))
    spec.update(plan)
    return TableJob(src, out, ColumnPlan(**spec), REPLACE, SECRET, "en", fmt, chunk_rows=3)


def test_csv_comes_back_as_the_same_table_with_pseudonyms_and_no_original_id(tmp_path, notes, detector):
    src = tmp_path / "in.csv"
    pd.DataFrame(_rows(notes)).to_csv(src, index=False)
    ticks = []
    s = deidentify_table(_job(src, tmp_path / "out.csv"), detector, workers=1,
                         progress=lambda done, total: ticks.append(done))
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(out.columns) == ["note_id", "mrn", "seen", "ward", "note"]       # secret_col dropped
    assert s.dropped_columns == ["secret_col"] and s.rows == len(notes) and ticks[-1] == len(notes)
    assert list(out["note_id"]) == [document_pseudonym(SECRET, d.doc_id) for d in notes]
    assert list(out["mrn"]) == [patient_pseudonym(SECRET, d.patient_id) for d in notes]
    assert out["mrn"].nunique() == len({d.patient_id for d in notes})
    assert set(out["ward"]) == {"7B"} and all(a != b.text for a, b in zip(out["note"], notes))
    raw = (tmp_path / "out.csv").read_text(encoding="utf-8")
    assert not any(d.doc_id in raw or d.patient_id in raw for d in notes)      # no original id anywhere
    assert s.leaks == 0 and s.uncovered_chars == 0 and s.spans


def test_patient_pseudonym_is_the_one_a_jsonl_deidentification_writes(tmp_path, notes, detector):
    src = tmp_path / "in.csv"
    pd.DataFrame(_rows(notes[:1])).to_csv(src, index=False)
    deidentify_table(_job(src, tmp_path / "out.csv"), detector, workers=1)
    doc = Document(notes[0].doc_id, "No PHI.", [], patient_id=notes[0].patient_id)
    res = deidentify(doc, [], REPLACE, DeidContext(secret=SECRET, locale="en"))
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert out["mrn"][0] == res.output_patient_id and out["note_id"][0] == res.output_id


def test_date_column_shifts_with_the_patients_offset_in_text_and_across_chunks(tmp_path, notes, detector):
    src = tmp_path / "in.csv"
    one = [n for n in notes if n.patient_id == notes[0].patient_id]
    rows = _rows(one) + _rows(one)          # the same patient again, in later chunks (chunk_rows=1)
    for k, r in enumerate(rows):
        r["note_id"] = f"n{k}"
    pd.DataFrame(rows).to_csv(src, index=False)
    job = dataclasses.replace(_job(src, tmp_path / "out.csv"), chunk_rows=1)
    s = deidentify_table(job, detector, workers=1)
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    shifted = set(out["seen"])
    assert len(shifted) == 1 and "03/14/2070" not in shifted and s.shifted_date_cells == len(rows)
    assert all(t.startswith(f"Admitted {next(iter(shifted))}.") for t in out["note"])   # text and column agree


def test_parquet_keeps_types_nulls_and_shifts_date_columns(tmp_path, notes, detector):
    src = tmp_path / "in.parquet"
    df = pd.DataFrame(_rows(notes[:4]))
    df["seen"] = [dt.date(2070, 3, 14), None, dt.date(2070, 1, 2), dt.date(2069, 12, 31)]
    df["ward"] = [7, 8, 9, 10]
    df.loc[1, "note"] = None
    df.to_parquet(src, index=False)
    s = deidentify_table(_job(src, tmp_path / "out.parquet", "parquet"), detector, workers=1)
    table = pq.read_table(tmp_path / "out.parquet")
    assert str(table.schema.field("seen").type) == "date32[day]" and str(table.schema.field("ward").type) == "int64"
    out = table.to_pandas()
    assert table.column("seen")[1].as_py() is None and table.column("note")[1].as_py() is None      # nulls stay null
    assert list(out["ward"]) == [7, 8, 9, 10]
    assert all(out["seen"][i] != df["seen"][i] for i in (0, 2, 3)) and s.documents == 3


def test_tsv_in_tsv_out(tmp_path, notes, detector):
    src = tmp_path / "in.tsv"
    pd.DataFrame(_rows(notes[:3])).to_csv(src, sep="\t", index=False)
    deidentify_table(_job(src, tmp_path / "out.tsv", "tsv"), detector, workers=1)
    out = pd.read_csv(tmp_path / "out.tsv", sep="\t", dtype=str)
    assert len(out) == 3 and out["mrn"][0].startswith("pat-")


def _fails(job, detector) -> str:
    with pytest.raises((FormatError, TableDeidError)) as e:
        deidentify_table(job, detector, workers=1)
    return str(e.value)


def test_hardening_one_line_errors_name_row_and_column_and_write_nothing(tmp_path, notes, detector):
    name = notes[0].patient_id
    src = tmp_path / "in.csv"
    pd.DataFrame(_rows(notes)).to_csv(src, index=False)
    msg = _fails(_job(src, tmp_path / "out.csv", text=("body",)), detector)
    assert "'body'" in msg and "\n" not in msg
    big = _rows(notes)
    big[6]["note"] = "Pedro Garcia " * 2000                 # row 7, in the third chunk of three rows
    pd.DataFrame(big).to_csv(src, index=False)
    job = dataclasses.replace(_job(src, tmp_path / "out.csv"), max_cell_chars=20_000)
    msg = _fails(job, detector)
    assert "row 7" in msg and "'note'" in msg and "Garcia" not in msg and name not in msg
    assert list(tmp_path.iterdir()) == [src]              # no output, no temporary file left
    src.write_bytes(b"note_id,note\nn1,fine\nn2,caf\xe9 au lait\n")
    msg = _fails(_job(src, tmp_path / "out.csv", patient=None, keep=(), dates=()), detector)
    assert src.name in msg and ":3:" in msg and "UTF-8" in msg and "lait" not in msg
    src.write_text("note_id,note\nn1,fine\nn2,a,b\n", encoding="utf-8")
    msg = _fails(_job(src, tmp_path / "out.csv", patient=None, keep=(), dates=()), detector)
    assert "more cells than the header" in msg and ":3:" in msg
    assert list(tmp_path.iterdir()) == [src]


def test_output_must_differ_from_input_and_plans_are_checked(tmp_path, notes, detector):
    src = tmp_path / "in.csv"
    pd.DataFrame(_rows(notes[:1])).to_csv(src, index=False)
    assert "differ" in _fails(_job(src, src), detector)
    with pytest.raises(ColumnPlanError):
        ColumnPlan(text=("note",), keep=("note",))
    with pytest.raises(ColumnPlanError):
        ColumnPlan(text=("note",), pseudonymise={"mrn": "Not A Kind"})


def test_leak_check_counts_kept_phi_columns_and_ids_left_in_the_text(tmp_path, notes, detector):
    src = tmp_path / "in.csv"
    rows = _rows(notes[:2])
    rows[0]["ward"] = "Admitted 03/14/2070."        # a kept column repeating PHI of the row's text
    rows[1]["note"] = f"Record {rows[1]['note_id']} reviewed.\n" + rows[1]["note"]
    pd.DataFrame(rows).to_csv(src, index=False)
    no_prop = dataclasses.replace(REPLACE, propagate=False)
    job = dataclasses.replace(_job(src, tmp_path / "out.csv"), profile=no_prop)
    s = deidentify_table(job, detector, workers=1)
    where = {(d["row"], d["location"]) for d in s.leak_details}
    assert (1, "meta") in where and (2, "text") in where and s.leaks >= 2
    s2 = deidentify_table(dataclasses.replace(job, output=tmp_path / "out2.csv", profile=REPLACE), detector,
                          workers=1)
    assert (2, "text") not in {(d["row"], d["location"]) for d in s2.leak_details}   # propagation rewrote the id


def test_pseudonymise_kinds_share_the_patient_pseudonym(tmp_path, notes, detector):
    src = tmp_path / "in.csv"
    rows = _rows(notes[:2])
    for r in rows:
        r["subject"], r["encounter"] = r["mrn"], r["note_id"] + "-e"
    pd.DataFrame(rows).to_csv(src, index=False)
    job = _job(src, tmp_path / "out.csv", pseudonymise={"subject": "pat", "encounter": "enc"})
    deidentify_table(job, detector, workers=1)
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert list(out["subject"]) == list(out["mrn"]) and all(v.startswith("enc-") for v in out["encounter"])


def test_cli_writes_the_table_and_refuses_with_one_line(tmp_path, notes, capsys):
    src = tmp_path / "in.csv"
    pd.DataFrame(_rows(notes[:3])).to_csv(src, index=False)
    key = tmp_path / "key"
    key.write_text(SECRET.hex())
    key.chmod(0o600)
    base = ["deidentify-table", str(src), str(tmp_path / "out.csv"), "--text-column", "note", "--id-column",
            "note_id", "--patient-column", "mrn", "--date-column", "seen", "--keep", "ward", "--secret-file",
            str(key), "--workers", "1"]
    assert main(base) == 0
    assert "rows=3" in capsys.readouterr().out and (tmp_path / "out.csv").is_file()
    assert main(base) == 1                                      # exists: --force needed
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err
    assert main(base[:3] + ["--text-column", "nope", "--secret-file", str(key), "--force"]) == 1
    assert "'nope'" in capsys.readouterr().err


def test_import_a_table_into_a_project_names_documents_by_id(tmp_path, notes, capsys):
    import store

    src = tmp_path / "in.csv"
    pd.DataFrame(_rows(notes[:4])).to_csv(src, index=False)
    db = tmp_path / "w.db"
    args = ["import", str(src), "--format", "csv", "--db", str(db), "--project", "ward", "--text-column", "note",
            "--id-column", "note_id", "--patient-column", "mrn", "--keep-column", "ward"]
    assert main(args) == 0
    with store.connect(db) as conn:
        p = store.get_project_by_name(conn, "ward")
        docs = store.load_documents(conn, p.id)
    assert sorted(d.doc_id for d in docs) != [] and {d.patient_id for d in docs} == {n.patient_id for n in notes[:4]}
    assert all(d.meta.get("ward") == "7B" and "secret_col" not in d.meta for d in docs)
    assert main(args[:-6] + ["--project", "ward2", "--text-column", "note", "--id-column", "ward"]) == 1
    assert "repeats" in capsys.readouterr().err                 # duplicate ids: nothing stored
    with store.connect(db) as conn:
        assert store.get_project_by_name(conn, "ward2") is None
