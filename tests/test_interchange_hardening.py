"""The annotation tools' formats get the old formats' hardening: one-line errors naming the file
and the line (or task, row, doc), nothing stored on failure, size limits, no value from the
input echoed; a Label Studio export's layers stored in one transaction; the same leak check on
de-identified output written in these formats.
"""
from __future__ import annotations

import io
import json
import re
import zlib
from pathlib import Path

import pytest

import store
from pipeline.errors import FormatError, LabelNotInSchemaError, is_user_error
from pipeline.formats import Limits, read_collection, write_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span
from services.imports import import_path, import_upload

MARKER = "ZQXPATIENTNAME"
TEXT = f"Paciente: {MARKER} Pérez, 53 años.\nIngresa el 12/03/2019 en Madrid.\n"
NAME = (TEXT.index(MARKER), TEXT.index(MARKER) + len(MARKER))
DATE = (TEXT.index("12/03/2019"), TEXT.index("12/03/2019") + 10)
TABLES = ("projects", "documents", "layers", "spans")


def counts(db) -> dict[str, int]:
    return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def region(start: int, end: int, label: str, **extra) -> dict:
    return {"type": "labels", "from_name": "label", "to_name": "text",
            "value": {"start": start, "end": end, "text": TEXT[start:end], "labels": [label]}, **extra}


def ls_task(**over) -> dict:
    task = {"id": 7, "data": {"text": TEXT},
            "annotations": [{"completed_by": 1, "result": [region(*NAME, "NOMBRE_SUJETO_ASISTENCIA")]}]}
    task.update(over)
    return task


@pytest.fixture
def db(tmp_path: Path):
    with store.connect(tmp_path / "wb.db") as conn:
        pid = store.create_project(conn, "p", MEDDOCAN)
        store.add_documents(conn, pid, [Document("seed", TEXT, [Span("", *DATE, *MEDDOCAN.resolve("FECHAS"))])])
        yield conn


def refused(db, tmp_path: Path, name: str, data: bytes, fmt: str, *, line: int | None = None,
            match: str | None = None, limits: Limits | None = None) -> str:
    """Importing ``data`` as ``fmt`` fails with a one-line user error quoting no value from the
    input, naming the file (and ``line``), and writes nothing."""
    path = tmp_path / name
    path.write_bytes(data)
    before = counts(db)
    with pytest.raises(FormatError) as info:
        import_path(db, path, fmt, project_name="p", schema=MEDDOCAN, user="t", limits=limits)
    e = info.value
    msg = str(e)
    assert is_user_error(e) and "\n" not in msg
    assert MARKER not in msg and MARKER.lower() not in msg, "the message quotes the input"
    assert e.path == str(path), (e.path, str(path))
    assert e.line == line, (e.line, line)
    if match:
        assert re.search(match, msg), msg
    assert counts(db) == before, "a refused import wrote rows"
    return msg


# --------------------------------------------------------------------------- Label Studio layers

def test_label_studio_export_is_stored_as_layers_in_one_import(db, tmp_path: Path) -> None:
    task = ls_task(annotations=[
        {"completed_by": 1, "ground_truth": True, "result": [region(*NAME, "NOMBRE_SUJETO_ASISTENCIA"),
                                                             region(*DATE, "FECHAS")]},
        {"completed_by": {"id": 2, "email": "ana@example.org"}, "result": [region(*DATE, "FECHAS")]},
        {"completed_by": 3, "was_cancelled": True, "result": [region(0, 8, "FECHAS")]},
        {"completed_by": 4, "result": [{"type": "choices", "value": {"choices": ["urgent"]}}]}],
        predictions=[{"model_version": "old", "result": []},
                     {"model_version": "v9", "score": 0.8,
                      "result": [region(*NAME, "NOMBRE_SUJETO_ASISTENCIA", score=0.97), region(*DATE, "FECHAS")]}])
    path = tmp_path / "export.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    s = import_path(db, path, "label-studio", project_name="p", schema=MEDDOCAN, user="t")
    assert s.documents == 1 and s.spans == 2
    # annotator 4 submitted no span (a choice only): an empty layer; annotator 3's cancelled work is not read
    assert s.other_layers == {"annotator:labelstudio-1": 2, "annotator:labelstudio-2": 1, "pre": 2}
    [doc_id] = s.doc_ids
    layers = store.layers_of(db, doc_id)
    assert set(layers) == {"gold", "annotator:labelstudio-1", "annotator:labelstudio-2", "annotator:labelstudio-4",
                           "pre"}
    assert store.read_layer(db, doc_id, "annotator:labelstudio-4").spans == []
    assert "_empty_layers" not in store.get_document(db, doc_id).meta
    assert "annotator:labelstudio-3" not in layers               # cancelled
    pre = store.read_layer(db, doc_id, "pre").spans
    assert sorted((s.start, s.score, s.source) for s in pre) == [(NAME[0], 0.97, "model:v9"), (DATE[0], 0.8, "model:v9")]
    assert [(s.start, s.end) for s in store.read_layer(db, doc_id, "annotator:labelstudio-2").spans] == [DATE]
    assert not any("example.org" in json.dumps(e.detail) for e in store.list_audit(db))


def test_label_studio_task_without_annotation_gets_no_gold_layer(db, tmp_path: Path) -> None:
    """A task nobody annotated is not a note found free of PHI: no gold layer; a submitted
    annotation with no region is one, and keeps its empty gold layer."""
    tasks = [ls_task(id=1, annotations=[], predictions=[{"model_version": "v1", "result": [region(*DATE, "FECHAS")]}]),
             ls_task(id=2, annotations=[{"completed_by": 1, "result": []}])]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    s = import_path(db, path, "label-studio", project_name="p", schema=MEDDOCAN, user="t")
    first, second = s.doc_ids
    assert set(store.layers_of(db, first)) == {"pre"}
    assert set(store.layers_of(db, second)) == {"gold"} and store.read_layer(db, second, "gold").spans == []
    assert all("_unannotated" not in store.get_document(db, i).meta for i in s.doc_ids)
    out = tmp_path / "again"
    docs = read_collection(path, "label-studio", MEDDOCAN)
    write_collection(docs, out, "label-studio")
    again = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
    assert ["annotations" in t for t in again] == [False, True] and "_unannotated" not in json.dumps(again)


def test_a_file_cannot_set_the_readers_marks(db, tmp_path: Path) -> None:
    """``_unannotated``/``_empty_layers`` in a file's own metadata are dropped, not obeyed."""
    task = ls_task(data={"text": TEXT, "meta": {"_unannotated": True, "_empty_layers": ["gold", "annotator:x"],
                                                "ward": 7}})
    path = tmp_path / "m.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    [doc_id] = import_path(db, path, "label-studio", project_name="p", schema=MEDDOCAN, user="t").doc_ids
    assert set(store.layers_of(db, doc_id)) == {"gold"} and len(store.read_layer(db, doc_id, "gold").spans) == 1
    assert store.get_document(db, doc_id).meta == {"ward": 7}


def test_label_studio_unknown_label_names_file_and_task(db, tmp_path: Path) -> None:
    data = json.dumps([ls_task(), ls_task(id=8, annotations=[{"result": [region(*NAME, MARKER)]}])]).encode()
    msg = refused(db, tmp_path, "x.json", data, "label-studio", match=r"task 1, annotation 0, result 0's label")
    assert "schema 'meddocan'" in msg


@pytest.mark.parametrize("task, match", [
    ({"data": {"text": TEXT}, "annotations": [{"result": [dict(region(*NAME, "FECHAS"),
                                                               value={"start": 0, "end": 5, "text": MARKER,
                                                                      "labels": ["FECHAS"]})]}]},
     r"task 0: annotation 0, result 0 \(0-5, FECHAS\): its text does not match"),
    ({"data": {"text": TEXT}, "annotations": [{"result": [region(0, 10 ** 6, "FECHAS")]}]}, r"outside the text"),
    ({"data": {"text": TEXT}, "annotations": [{"result": [dict(region(*NAME, "FECHAS"), type="hypertextlabels")]}]},
     r"'hypertextlabels'"),
    ({"data": {"body": TEXT}}, r'task 0: missing or empty "data.text"'),
    ({"data": {"text": "a\x00b"}}, r"NUL"),
    ({"data": {"text": TEXT, "doc_id": "../x"}}, r"cannot be used as a file name"),
    ({"data": {"text": TEXT}, "predictions": [{"result": [region(*NAME, "FECHAS", score=7)]}]}, r"score"),
])
def test_label_studio_refusals(db, tmp_path: Path, task: dict, match: str) -> None:
    refused(db, tmp_path, "x.json", json.dumps([task]).encode(), "label-studio", match=match)


def test_label_studio_file_level_refusals(db, tmp_path: Path) -> None:
    refused(db, tmp_path, "a.json", b'[{"data": {"text": "x"}},\n {oops}]', "label-studio", line=2,
            match="not valid JSON")
    refused(db, tmp_path, "b.json", json.dumps({"tasks": []}).encode(), "label-studio", match="list of tasks")
    refused(db, tmp_path, "c.json", json.dumps([ls_task(), ls_task()]).encode(), "label-studio",
            match=r"task 1: the document id repeats the one at .*task 0")
    refused(db, tmp_path, "d.json", b"[" * 100 + b"]" * 100, "label-studio", match="nested")


# --------------------------------------------------------------------------- doccano and Prodigy

def _lines(*objs: dict) -> bytes:
    return "".join(json.dumps(o) + "\n" for o in objs).encode()


def test_doccano_refusals_name_the_line(db, tmp_path: Path) -> None:
    good = {"text": TEXT, "label": [[*NAME, "NOMBRE_SUJETO_ASISTENCIA"]]}
    refused(db, tmp_path, "a.jsonl", _lines(good, {"text": TEXT, "label": [[*NAME, MARKER]]}), "doccano", line=2,
            match="span 0's label is not in schema")
    refused(db, tmp_path, "b.jsonl", _lines({"text": TEXT, "label": [MARKER]}), "doccano", line=1,
            match="text-classification")
    refused(db, tmp_path, "c.jsonl", _lines({"text": TEXT, "entities": [{"start_offset": 5, "end_offset": 2,
                                                                         "label": "FECHAS"}]}), "doccano", line=1)
    refused(db, tmp_path, "d.jsonl", _lines(good) + b"{not json\n", "doccano", line=2, match="not valid JSON")


def test_doccano_reads_the_entities_form(tmp_path: Path) -> None:
    (tmp_path / "e.jsonl").write_text(json.dumps({"id": 3, "text": TEXT, "entities": [
        {"id": 1, "label": "FECHAS", "start_offset": DATE[0], "end_offset": DATE[1]}], "relations": []}) + "\n")
    [doc] = read_collection(tmp_path, "doccano", MEDDOCAN)
    assert [(s.start, s.end, s.type) for s in doc.spans] == [(*DATE, "FECHAS")] and doc.doc_id == "e-1"


def test_prodigy_only_accepted_examples_become_gold(db, tmp_path: Path) -> None:
    span = {"start": NAME[0], "end": NAME[1], "label": "NOMBRE_SUJETO_ASISTENCIA", "token_start": 1, "token_end": 1}
    path = tmp_path / "p.jsonl"
    path.write_bytes(_lines({"text": TEXT, "spans": [span], "answer": "accept", "meta": {"id": "a"}},
                            {"text": TEXT, "spans": [span], "answer": "reject", "meta": {"id": "b"}},
                            {"text": TEXT, "spans": [span], "answer": "ignore", "meta": {"id": "c"}}))
    s = import_path(db, path, "prodigy", project_name="p", schema=MEDDOCAN, user="t")
    assert s.documents == 1 and s.spans == 1
    refused(db, tmp_path, "q.jsonl", _lines({"text": TEXT, "spans": [], "answer": MARKER}), "prodigy", line=1,
            match='"answer" must be one of')
    refused(db, tmp_path, "r.jsonl", _lines({"text": TEXT, "spans": [span], "answer": "reject"}), "prodigy",
            match="no accepted")
    twice = {"text": TEXT, "spans": [span], "answer": "accept", "_input_hash": -42}
    refused(db, tmp_path, "s.jsonl", _lines(twice, {**twice, "spans": []}), "prodigy", line=2,
            match=r"repeats the one at .*s.jsonl:1")


# --------------------------------------------------------------------------- binary formats

def _spacy_bytes(tmp_path: Path, label: str) -> bytes:
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("es")
    d = nlp.make_doc(TEXT)
    d.ents = [d.char_span(*NAME, label=label)]
    return DocBin(docs=[d]).to_bytes()


def test_spacy_refusals(db, tmp_path: Path) -> None:
    refused(db, tmp_path, "a.spacy", b"\x00garbage" * 10, "spacy", match="not zlib")
    refused(db, tmp_path, "b.spacy", zlib.compress(b"\x81\xa1x\xc1"), "spacy", match="not a readable spaCy DocBin")
    refused(db, tmp_path, "c.spacy", zlib.compress(b"\x00" * 3_000_000), "spacy",
            limits=Limits(max_total_bytes=1_000_000), match="inflates to more than")
    refused(db, tmp_path, "d.spacy", zlib.compress(b"\x00" * 900_000), "spacy", match="possible bomb")
    refused(db, tmp_path, "e.spacy", _spacy_bytes(tmp_path, MARKER), "spacy", match=r"doc 0, span 0's label")
    path = tmp_path / "ok.spacy"
    path.write_bytes(_spacy_bytes(tmp_path, "NOMBRE_SUJETO_ASISTENCIA"))
    assert import_path(db, path, "spacy", project_name="p", schema=MEDDOCAN, user="t").spans == 1


def _parquet(rows: list[dict], compression: str = "snappy") -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buf, compression=compression)
    return buf.getvalue()


def test_hf_dataset_refusals(db, tmp_path: Path) -> None:
    refused(db, tmp_path, "a.parquet", b"PAR1 not really", "hf-dataset", match="not a readable Parquet")
    refused(db, tmp_path, "b.parquet", _parquet([{"text": TEXT}]), "hf-dataset", match="missing column")
    bad = [{"id": "a", "text": TEXT, "spans": [{"start": NAME[0], "end": NAME[1], "label": "FECHAS"}]},
           {"id": "b", "text": TEXT, "spans": [{"start": NAME[0], "end": NAME[1], "label": MARKER}]}]
    refused(db, tmp_path, "c.parquet", _parquet(bad), "hf-dataset", match=r"row 1, span 0's label")
    zeros = [{"id": "z", "text": TEXT + " " * 2_000_000, "spans": []}]
    refused(db, tmp_path, "d.parquet", _parquet(zeros, "gzip"), "hf-dataset", match="possible bomb")


def test_binary_uploads_are_read_not_sniffed_as_text(db, tmp_path: Path) -> None:
    pid = store.get_project_by_name(db, "p").id
    s = import_upload(db, pid, "notes.spacy", _spacy_bytes(tmp_path, "NOMBRE_SUJETO_ASISTENCIA"), "spacy", user="t")
    assert s.documents == 1
    with pytest.raises(LabelNotInSchemaError) as info:
        import_upload(db, pid, "more.spacy", _spacy_bytes(tmp_path, MARKER), "spacy", user="t")
    assert str(info.value).startswith("more.spacy: doc 0") and MARKER not in str(info.value)


def test_offset_errors_name_the_task_too(db, tmp_path: Path) -> None:
    bad = ls_task(annotations=[{"result": [dict(region(*NAME, "FECHAS"), value={"start": "x", "end": 3,
                                                                                "labels": ["FECHAS"]})]}])
    refused(db, tmp_path, "o.json", json.dumps([bad]).encode(), "label-studio",
            match=r"task 0, annotation 0, result 0 start offset is not")


def test_written_files_are_owner_only(tmp_path: Path) -> None:
    doc = Document("a/b", TEXT, [Span("", *DATE, "DATE", "FECHAS")], meta={"split": "dev"})
    for fmt in ("label-studio", "doccano", "prodigy", "spacy", "hf-dataset"):
        for p in write_collection([doc], tmp_path / fmt, fmt):
            assert p.stat().st_mode & 0o777 == 0o600 and p.parent.stat().st_mode & 0o777 == 0o700, (fmt, p.name)
