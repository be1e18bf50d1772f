"""Every download format of a run goes through the release gate (issue 33 with issue 32, item 1):
a withheld document is absent from the Label Studio, doccano, Prodigy, spaCy, Hugging Face and
table exports as from brat, and what each export holds, read back with the format's own reader,
is exactly the leak-checked stored outputs under their pseudonyms (no document name, no
metadata, no withheld or sent-back text)."""
from __future__ import annotations

import io
import zipfile

import pytest

import store
from pipeline.formats import read_collection
from services import deid_files, release
from services import risk as rs
from test_release_gate import run  # noqa: F401 - the demo run, scored for risk

NEW_FORMATS = ("label-studio", "doccano", "prodigy", "spacy", "hf-dataset", "csv", "tsv", "parquet")


@pytest.fixture
def decided(run):
    """The release gate's demo run with its first scored document withheld."""
    path, pid, run_id, queue = run
    with store.connect(path) as db:
        rs.decide(db, store.get_user(db, "rita"), run_id, queue[0].doc_id, "withheld")
    return path, pid, run_id, queue[0].doc_id


def _read_back(data: bytes, fmt: str, schema, tmp_path):
    folder = tmp_path / fmt
    zipfile.ZipFile(io.BytesIO(data)).extractall(folder)
    target = folder if fmt not in ("csv", "tsv", "parquet") else next(folder.rglob(f"*.{fmt}"))
    if fmt == "hf-dataset":
        target = next(folder.rglob("*.parquet"))
    return read_collection(target, fmt, schema)


def test_the_page_offers_every_format_the_gate_accepts():
    assert set(NEW_FORMATS) <= set(deid_files.EXPORT_FORMATS)
    assert "conll" not in deid_files.EXPORT_FORMATS        # tokens lose the note's line structure


@pytest.mark.parametrize("fmt", NEW_FORMATS)
def test_a_withheld_document_is_absent_and_the_rest_is_the_leak_checked_output(decided, fmt, tmp_path):
    path, pid, run_id, withheld = decided
    with store.connect(path) as db:
        lead = store.get_user(db, "lea")
        outputs = {o.output_name: o for o in store.list_deid_outputs(db, run_id, with_text=True)}
        names = {d.name for d in store.list_documents(db, pid)}
        schema = store.get_project(db, pid).schema
        data, plan = release.export_run_zip(db, lead, run_id, fmt)
        gone = next(n for n, o in outputs.items() if o.doc_id == withheld)
        docs = _read_back(data, fmt, schema, tmp_path)
        got = {d.doc_id: d for d in docs}
        assert gone not in got and plan.withheld == (withheld,)
        assert set(got) == {n for n, o in outputs.items() if o.doc_id != withheld}
        for name, d in got.items():
            assert d.text == outputs[name].text                   # the leak-checked text, nothing added
            assert not ({str(v) for v in d.meta.values()} & names)  # no document name in metadata
        assert outputs[gone].text not in {d.text for d in docs}
        rows = [e for e in store.list_audit(db, action="export")
                if e.target == f"deid_run:{run_id}" and e.detail["format"] == fmt]
        assert len(rows) == 1 and withheld in rows[0].detail["left_out_ids"]


def test_a_run_that_failed_its_leak_check_is_refused_in_every_format(decided):
    path, pid, run_id, _ = decided
    with store.connect(path) as db:
        lead = store.get_user(db, "lea")
        before = store.get_deid_run(db, run_id)
        store.finish_deid_run(db, run_id, counts={**(before.counts or {}), "failure": "leaks"}, leaks=1,
                              status="failed")
        for fmt in NEW_FORMATS:
            with pytest.raises(deid_files.DeidentificationError, match="leak check"):
                release.export_run_zip(db, lead, run_id, fmt)
