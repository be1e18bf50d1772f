"""Issue 29 item 5: the names the tool itself makes (``doc-<hex>.ann``, ``pat-<hex>``) are not PHI.

A patient called "Ann" (or "Doc", "Txt", "Pat") or a document whose id is "doc" matched the
pseudonym file names and ids, so runs exited 3 on notes without any leak. A real value in a file
name or an id (the pseudonyms broken) must still be found: see
``tests/test_deid_leaks.py::test_planted_leak_in_ids_and_file_names_is_found`` and the last test
here. The names are invented; assertions compare counts and locations only.
"""
from __future__ import annotations

import pytest

from cli import main
from pipeline.deid import DeidContext, builtin_profiles, deidentify
from pipeline.deid import engine as deid_engine
from pipeline.deid.pseudonyms import blank_generated
from pipeline.formats import write_collection
from pipeline.spans import Document, Span

SECRET = b"generated-names-secret-0123456789"


def _note(doc_id: str, name: str, patient: str | None = None) -> Document:
    text = f"Patient {name} was seen today. {name} reports knee pain.\n"
    a = text.index(name)
    b = text.index(name, a + 1)
    return Document(doc_id, text, [Span(doc_id, a, a + len(name), "NAME", "PATIENT"),
                                   Span(doc_id, b, b + len(name), "NAME", "PATIENT")], patient_id=patient)


@pytest.mark.parametrize("name", ["Ann", "Doc", "Txt", "Xml", "Pat", "Ann Doc"])
@pytest.mark.parametrize("profile", ["redact", "replace"])
def test_a_person_named_like_the_tools_file_names_is_no_leak(name, profile):
    r = deidentify(_note("note-7", name, patient="Pat"), None, builtin_profiles()[profile],
                   DeidContext(secret=SECRET, locale="en"))
    assert [(lk.location, lk.kind) for lk in r.leaks] == []


@pytest.mark.parametrize("doc_id", ["doc", "ann", "txt", "pat"])
def test_a_document_id_like_the_tools_prefix_is_no_leak(doc_id):
    r = deidentify(_note(doc_id, "Pedro Garcia", patient=doc_id), None, builtin_profiles()["replace"],
                   DeidContext(secret=SECRET, locale="en"))
    assert [(lk.location, lk.kind) for lk in r.leaks] == []


def test_the_folder_command_exits_0_for_ann_with_doc_id_doc(tmp_path, capsys):
    key = tmp_path / "secret.key"
    key.write_text(SECRET.hex() + "\n", encoding="ascii")
    key.chmod(0o600)
    write_collection([_note("doc", "Ann"), _note("txt", "Doc Txt")], tmp_path / "in", "brat")
    rc = main(["deidentify", "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"),
               "--secret-file", str(key)])
    cap = capsys.readouterr()
    assert rc == 0 and "leaks=0" in cap.out


def test_blanking_keeps_offsets_and_leaves_the_rest_scanned():
    names = "doc-0123456789ab.txt\ndoc-0123456789ab.ann\nAnn_Smith.ann"
    out = blank_generated("name", names)
    assert len(out) == len(names)
    assert out.split("\n") == ["    0123456789ab    ", "    0123456789ab    ", "Ann_Smith    "]
    assert blank_generated("id", "doc-0123456789ab\npat-ffffffffffff") == "    0123456789ab\n    ffffffffffff"
    assert blank_generated("id", "doc-Ann") == "doc-Ann"            # not the pseudonym shape: scanned as is
    assert blank_generated("meta", "doc-0123456789ab") == "doc-0123456789ab"


def test_a_real_name_in_a_file_name_still_fails(monkeypatch):
    """Were the pseudonyms broken, "Ann" in ``Ann_Smith.ann`` is found (its own ``.ann`` is not)."""
    monkeypatch.setattr(deid_engine, "document_pseudonym", lambda secret, doc_id: doc_id)
    r = deidentify(_note("Ann_Smith", "Ann Smith"), None, builtin_profiles()["replace"],
                   DeidContext(secret=SECRET, locale="en"))
    names = sorted({(lk.start, lk.end) for lk in r.leaks if lk.location == "name"})
    assert names and all(b <= len("Ann_Smith") or a > len("Ann_Smith") for a, b in names)
    assert {lk.location for lk in r.leaks} >= {"id", "name"}
