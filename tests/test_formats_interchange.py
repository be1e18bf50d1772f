"""The annotation tools' formats (Label Studio, doccano, Prodigy, spaCy DocBin, Hugging Face
Parquet): exact round trips on the MEDDOCAN fixture, layers, and what each file holds.

Assertions compare offsets, labels, ids and counts; nothing here prints document text.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.formats import READERS, WRITERS, read_collection, write_collection
from pipeline.layers import PRE
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span

NEW_FORMATS = ("label-studio", "doccano", "prodigy", "spacy", "hf-dataset")


def _key(doc: Document) -> list[tuple[int, int, str, str, str]]:
    return sorted((s.start, s.end, s.category, s.type, s.layer) for s in doc.spans)


@pytest.fixture(scope="module")
def meddocan_docs() -> list[Document]:
    docs = read_collection(Path(__file__).parent / "fixtures" / "meddocan" / "brat", "brat", MEDDOCAN)
    for i, d in enumerate(docs):  # metadata and patients travel too
        d.meta["split"] = ("train", "dev", "test")[i % 3]
        d.patient_id = f"p{i % 5}"
    return docs


def test_registered_both_ways() -> None:
    assert set(NEW_FORMATS) <= set(READERS) and set(NEW_FORMATS) <= set(WRITERS)


@pytest.mark.parametrize("fmt", NEW_FORMATS)
def test_round_trip_is_exact_on_the_fixture(fmt: str, meddocan_docs: list[Document], tmp_path: Path) -> None:
    write_collection(meddocan_docs, tmp_path, fmt)
    back = read_collection(tmp_path, fmt, MEDDOCAN)
    assert [d.doc_id for d in back] == [d.doc_id for d in meddocan_docs] or fmt == "hf-dataset"
    by_id = {d.doc_id: d for d in back}
    assert set(by_id) == {d.doc_id for d in meddocan_docs}
    assert sum(len(d.spans) for d in back) == sum(len(d.spans) for d in meddocan_docs) == 363
    for d in meddocan_docs:
        b = by_id[d.doc_id]
        assert b.text == d.text, f"text differs for {d.doc_id}"
        assert _key(b) == _key(d), f"spans differ for {d.doc_id}"
        assert b.patient_id == d.patient_id and b.meta == d.meta


def _layered() -> Document:
    text = "Paciente Juan García, 53 años, vive en 28001Madrid.\r\nTel 600 123 456. 💩 Alta el 2019-03-12."
    def sp(sub: str, typ: str, layer: str = "", score: float = 1.0, src: str = "import:x") -> Span:
        i = text.index(sub)
        return Span("n1", i, i + len(sub), MEDDOCAN.category_of(typ), typ, src, score, layer)
    return Document("ward/n1", text, [
        sp("Juan García", "NOMBRE_SUJETO_ASISTENCIA"), sp("53 años", "EDAD_SUJETO_ASISTENCIA"),
        sp("28001", "TERRITORIO"), sp("Madrid", "TERRITORIO"), sp("2019-03-12", "FECHAS"),
        sp("Juan García", "NOMBRE_SUJETO_ASISTENCIA", PRE, 0.91, "model:v7"),
        sp("600 123 456", "NUMERO_TELEFONO", PRE, 0.5, "model:v7"),
        sp("Juan", "NOMBRE_SUJETO_ASISTENCIA", "annotator:labelstudio-3"),
    ], meta={"split": "dev"}, patient_id="p1")


def test_label_studio_keeps_every_layer_and_the_scores(tmp_path: Path) -> None:
    doc = _layered()
    write_collection([doc], tmp_path, "label-studio")
    [task] = json.loads((tmp_path / "tasks.json").read_text(encoding="utf-8"))
    assert [p["model_version"] for p in task["predictions"]] == ["v7"]
    assert sorted(r["score"] for r in task["predictions"][0]["result"]) == [0.5, 0.91]
    assert [a.get("ground_truth", False) for a in task["annotations"]] == [True, False]
    assert task["annotations"][1]["completed_by"] == 3
    for r in task["annotations"][0]["result"]:
        v = r["value"]
        assert doc.text[v["start"]:v["end"]] == v["text"] and r["from_name"] == "label" and r["to_name"] == "text"
    config = (tmp_path / "label_config.xml").read_text(encoding="utf-8")
    assert '<Labels name="label" toName="text">' in config and 'value="NUMERO_TELEFONO"' in config
    [back] = read_collection(tmp_path / "tasks.json", "label-studio", MEDDOCAN)
    assert _key(back) == _key(doc) and back.doc_id == doc.doc_id
    assert {s.score for s in back.spans if s.layer == PRE} == {0.5, 0.91}
    assert {s.source for s in back.spans if s.layer == PRE} == {"model:v7"}


@pytest.mark.parametrize("fmt", ("doccano", "prodigy", "spacy", "hf-dataset"))
def test_exported_layer_round_trips_with_awkward_boundaries(fmt: str, tmp_path: Path) -> None:
    """A span inside a token ("28001Madrid"), after a CRLF, beside an emoji: offsets stay exact."""
    doc = _layered()
    write_collection([doc], tmp_path, fmt)
    [back] = read_collection(tmp_path, fmt, MEDDOCAN)
    # doccano, Prodigy and Hugging Face carry the exported layer; spaCy its suggestions too
    want = [k for k in _key(doc) if k[4] == "" or (fmt == "spacy" and k[4] == PRE)]
    assert back.text == doc.text and _key(back) == want


def test_prodigy_unanswered_examples_are_suggestions(tmp_path: Path) -> None:
    doc = _layered()
    write_collection([doc], tmp_path, "prodigy", without_annotations=[doc.doc_id])
    line = json.loads((tmp_path / "prodigy.jsonl").read_text(encoding="utf-8"))
    assert "answer" not in line and line["meta"]["id"] == doc.doc_id
    [back] = read_collection(tmp_path, "prodigy", MEDDOCAN)
    assert {s.layer for s in back.spans} == {PRE} and len(back.spans) == 2


def test_spacy_tokens_are_cut_at_span_boundaries_and_ents_are_strict(tmp_path: Path,
                                                                     meddocan_docs: list[Document]) -> None:
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("es")
    # the fixture has spans the blank tokenizer does not align with: expand/contract would move them
    misaligned = sum(nlp.make_doc(d.text).char_span(s.start, s.end, alignment_mode="strict") is None
                     for d in meddocan_docs for s in d.spans)
    assert misaligned > 0
    write_collection(meddocan_docs, tmp_path, "spacy", lang="es")
    sdocs = list(DocBin().from_disk(tmp_path / "documents.spacy").get_docs(nlp.vocab))
    for d, sd in zip(meddocan_docs, sdocs):
        assert sd.text == d.text
        assert sorted((e.start_char, e.end_char, e.label_) for e in sd.ents) == \
            sorted((s.start, s.end, s.label) for s in d.spans)
        assert set(sd.user_data) == {"id", "patient_id", "meta"}


def test_spacy_keeps_overlapping_spans_in_the_span_group(tmp_path: Path) -> None:
    text = "Hospital Clínico San Carlos de Madrid"
    spans = [Span("h", 0, len(text), "LOCATION", "HOSPITAL"), Span("h", 31, 37, "LOCATION", "TERRITORIO")]
    write_collection([Document("h", text, spans)], tmp_path, "spacy")
    [back] = read_collection(tmp_path, "spacy", MEDDOCAN)
    assert [(s.start, s.end, s.type) for s in back.spans] == [(0, 37, "HOSPITAL"), (31, 37, "TERRITORIO")]


def test_hf_dataset_has_features_tokens_and_bio_tags(tmp_path: Path, meddocan_docs: list[Document]) -> None:
    import pyarrow.parquet as pq

    files = write_collection(meddocan_docs, tmp_path, "hf-dataset")
    assert sorted(p.name for p in files) == ["test-00000-of-00001.parquet", "train-00000-of-00001.parquet",
                                            "validation-00000-of-00001.parquet"]
    table = pq.read_table(tmp_path / "data" / "train-00000-of-00001.parquet")
    features = json.loads(table.schema.metadata[b"huggingface"])["info"]["features"]
    names = features["ner_tags"]["feature"]["names"]
    assert names[0] == "O" and "B-FECHAS" in names and "I-FECHAS" in names
    assert features["spans"] == [{"start": {"dtype": "int64", "_type": "Value"},
                                  "end": {"dtype": "int64", "_type": "Value"},
                                  "label": {"dtype": "string", "_type": "Value"}}]
    for row in table.to_pylist():
        assert len(row["tokens"]) == len(row["ner_tags"]) > 0
        tags = [names[i] for i in row["ner_tags"]]
        assert sum(t.startswith("B-") for t in tags) >= 1
        for sp in row["spans"]:
            assert names.index("B-" + sp["label"]) in row["ner_tags"]


@pytest.mark.parametrize("fmt", NEW_FORMATS)
def test_collection_writer_in_chunks_gives_the_whole_file(fmt: str, meddocan_docs: list[Document],
                                                          tmp_path: Path) -> None:
    from pipeline.formats.stream import CollectionWriter

    with CollectionWriter(tmp_path / "chunks", fmt) as out:
        for i in range(0, len(meddocan_docs), 5):
            out.write(meddocan_docs[i:i + 5])
    back = read_collection(tmp_path / "chunks", fmt, MEDDOCAN)
    assert sorted(d.doc_id for d in back) == sorted(d.doc_id for d in meddocan_docs)
