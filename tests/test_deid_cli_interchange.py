"""``deidentify --format`` reads and writes the annotation tools' formats (issue 33): a Label
Studio, doccano, Prodigy, spaCy or Hugging Face collection comes out in the same format with its
PHI replaced and spans on the surrogates; ``--resume`` redoes such a whole-file output."""
from __future__ import annotations

import pytest

from cli import main
from pipeline.formats import read_collection, write_collection
from pipeline.schemas import get_schema
from pipeline.spans import Document, Span
from test_deid_cli import secret_file  # noqa: F401 - a key file for the command

TEXT = "Seen by Dr. John Smith on 12/03/2020 in clinic.\nFollow-up in two weeks."


def _doc() -> Document:
    return Document(doc_id="note-7", text=TEXT, meta={}, spans=[
        Span(doc_id="note-7", start=12, end=22, category="NAME", type="DOCTOR", source="gold"),
        Span(doc_id="note-7", start=26, end=36, category="DATE", type="DATE", source="gold")])


@pytest.mark.parametrize("fmt", ["label-studio", "doccano", "prodigy", "spacy", "hf-dataset"])
def test_an_interchange_collection_is_deidentified_in_its_own_format(fmt, tmp_path, secret_file, capsys):
    write_collection([_doc()], tmp_path / "in", fmt)
    inp = tmp_path / "in"
    if fmt == "hf-dataset":
        inp = next(inp.rglob("*.parquet"))
    out = tmp_path / "out"
    args = ["deidentify", "--input", str(inp), "--format", fmt, "--output", str(out), "--schema", "i2b2-2014",
            "--secret-file", str(secret_file)]
    assert main(args) == 0
    target = out if fmt != "hf-dataset" else next(out.rglob("*.parquet"))
    [doc] = read_collection(target, fmt, get_schema("i2b2-2014"))
    assert "John Smith" not in doc.text and "12/03/2020" not in doc.text and doc.doc_id != "note-7"
    assert doc.text.count("\n") == 1 and {s.category for s in doc.spans} == {"NAME", "DATE"}
    for s in doc.spans:
        assert doc.text[s.start:s.end].strip()
    assert "John" not in capsys.readouterr().out
    assert main([*args, "--resume"]) == 0                     # a whole-file output is written again
    [again] = read_collection(target, fmt, get_schema("i2b2-2014"))
    assert again.text == doc.text
