"""Case- and Unicode-twins on import (issue 29, item 7).

``doc1.txt`` + ``doc1.TXT`` (with their ``.ann``) imported silently and one note, with its only
NAME span, was dropped; ``José`` in NFC and NFD, ``note`` + ``note.``, and ids holding a bidi
override or a zero-width character were accepted. Each is now refused with one line, naming the
file the user gave (as the other duplicate refusals do), and nothing is stored.
"""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

import store
from pipeline.formats._output import name_key, name_problem
from services.imports import import_path, import_upload
from store.errors import DuplicateError
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document
from test_import_hardening import TEXT, counts, env, good_ann, make_zip, refused  # noqa: F401 - env is a fixture

NFC, NFD = unicodedata.normalize("NFC", "José"), unicodedata.normalize("NFD", "José")
OTHER = TEXT.replace("Pérez", "Gómez")


def test_case_twins_in_a_zip_are_refused_not_silently_dropped(env) -> None:
    db, pid = env
    data = make_zip([("b/doc1.txt", TEXT.encode()), ("b/doc1.ann", good_ann()),
                     ("b/doc1.TXT", OTHER.encode()), ("b/doc1.ANN", good_ann())])
    refused(db, lambda: import_upload(db, pid, "twins.zip", data, "brat", user="ana"),
            match=r"document id 'doc1' is also used by")


def test_case_twins_in_a_folder_are_refused(env, tmp_path: Path) -> None:
    db, pid = env
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "doc1.txt").write_text(TEXT, encoding="utf-8")
    (folder / "doc1.ann").write_bytes(good_ann())
    (folder / "doc1.TXT").write_text(OTHER, encoding="utf-8")
    (folder / "doc1.ANN").write_bytes(good_ann())
    refused(db, lambda: import_path(db, folder, "brat", project_name="p", schema=MEDDOCAN, user="ana"),
            match=r"is also used by")


@pytest.mark.parametrize("first,second", [(NFC, NFD), ("note", "note."), ("Note", "note..")],
                         ids=["nfc-nfd", "trailing-dot", "case-and-dots"])
def test_unicode_and_dot_twins_are_refused_in_zips_and_jsonl(env, first: str, second: str) -> None:
    db, pid = env
    data = make_zip([(f"{first}.txt", TEXT.encode()), (f"{first}.ann", good_ann()),
                     (f"{second}.txt", OTHER.encode()), (f"{second}.ann", good_ann())])
    refused(db, lambda: import_upload(db, pid, "twins.zip", data, "brat", user="ana"),
            match=r"differs only in letter case, Unicode form or trailing dots")
    rows = [json.dumps({"text": TEXT, "meta": {"id": first}}), json.dumps({"text": OTHER, "meta": {"id": second}})]
    refused(db, lambda: import_upload(db, pid, "t.jsonl", "\n".join(rows).encode(), "jsonl", user="ana"),
            path="t.jsonl", line=2, match=r"repeats the one at")


def test_a_twin_of_a_stored_name_is_refused_by_the_store(env) -> None:
    db, pid = env
    store.add_documents(db, pid, [Document(NFC, TEXT)], user="ana")
    before = counts(db)
    for twin in (NFD, "JOSÉ", NFC + "."):
        with pytest.raises(DuplicateError, match="differ only in letter case, Unicode form or trailing dots"):
            store.add_documents(db, pid, [Document(twin, TEXT)], user="ana")
    with pytest.raises(DuplicateError, match="differ only in letter case"):
        store.add_documents(db, pid, [Document("a" + NFC, TEXT), Document("a" + NFD, TEXT)], user="ana")
    assert counts(db) == before


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200f", "\u200b", "\u200d", "\u2060", "\ufeff"],
                         ids=["rlo", "lri", "rlm", "zwsp", "zwj", "word-joiner", "bom"])
def test_bidi_and_zero_width_characters_in_ids_are_refused(env, char: str) -> None:
    db, pid = env
    name = f"note{char}1"
    assert name_problem(name) is not None
    data = make_zip([(f"{name}.txt", TEXT.encode()), ("fine.txt", TEXT.encode())])
    e = refused(db, lambda: import_upload(db, pid, "m.zip", data, "text", user="ana"),
                match=r"cannot be used as a document name: .*(zero-width|bidirectional)")
    assert char not in str(e)                                    # the invisible character is not echoed
    rows = [json.dumps({"text": TEXT, "meta": {"id": name}})]
    refused(db, lambda: import_upload(db, pid, "b.jsonl", "\n".join(rows).encode(), "jsonl", user="ana"),
            path="b.jsonl", line=1, match=r"cannot be used as a file name")


def test_ordinary_names_still_import_and_differ(env, tmp_path: Path) -> None:
    """Accents (in one form), dots inside a name, nested folders and case-distinct stems of
    different names still pass; ``name_key`` only joins what a file system would join."""
    db, pid = env
    data = make_zip([(f"w/{NFC}.v2.txt", TEXT.encode()), (f"w/{NFC}.v2.ann", good_ann()),
                     ("w/sub/Ana.txt", OTHER.encode()), ("w/sub/Ana.ann", good_ann())])
    s = import_upload(db, pid, "ok.zip", data, "brat", user="ana")
    assert s.documents == 2
    assert name_key("a.b") != name_key("ab") and name_key("x/note.") == name_key("X/NOTE")
    assert name_key(NFD) == name_key(NFC.upper())
