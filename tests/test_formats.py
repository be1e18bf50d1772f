"""Import/export formats: MEDDOCAN brat vs its XML copy, round trips, and refused inputs.

Assertions compare offsets, labels, counts and ids; nothing here prints document text.
"""
from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from pipeline.errors import FormatError
from pipeline.formats import (Limits, read_brat, read_collection, read_conll, read_i2b2_xml, read_jsonl,
                              read_text, tokens_with_offsets, write_collection)
from pipeline.formats.conll import bio_tags
from pipeline.schemas import I2B2_2014, MEDDOCAN
from pipeline.spans import Document, Span

FORMATS_WITH_SPANS = ("brat", "xml", "jsonl")


def _key(doc: Document) -> list[tuple[int, int, str, str]]:
    return [(s.start, s.end, s.category, s.type) for s in doc.spans]


def _assert_same_docs(a: list[Document], b: list[Document], *, spans: bool = True) -> None:
    assert [d.doc_id for d in a] == [d.doc_id for d in b]
    for x, y in zip(a, b):
        assert x.text == y.text, f"text differs for {x.doc_id}"
        if spans:
            assert _key(x) == _key(y), f"spans differ for {x.doc_id}"


def _assert_no_text_leak(err: FormatError, docs_text: str) -> None:
    """The message must not quote the document: no 12-character stretch of it appears in the message."""
    msg = str(err)
    words = [w for w in docs_text.split() if len(w) >= 6]
    assert not any(w in msg for w in words[:200]), "error message quotes document text"


@pytest.fixture
def brat_copy(meddocan_sample: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "brat"
    shutil.copytree(meddocan_sample / "brat", dst)
    return dst


def _first_pair(folder: Path) -> tuple[Path, Path]:
    txt = sorted(folder.glob("*.txt"))[0]
    return txt, txt.with_suffix(".ann")


# --------------------------------------------------------------------------- MEDDOCAN: brat == XML

def _compare_brat_xml(brat_dir: Path, xml_dir: Path, expected_docs: int) -> None:
    a = read_collection(brat_dir, "brat", MEDDOCAN)
    b = read_collection(xml_dir, "xml", MEDDOCAN)
    assert len(a) == len(b) == expected_docs
    _assert_same_docs(a, b)
    assert all(d.spans for d in a)
    assert {s.source for d in a for s in d.spans} == {"import:brat"}
    assert {s.source for d in b for s in d.spans} == {"import:xml"}
    assert all(s.layer == "" for d in a for s in d.spans)
    assert {d.meta["xml_root"] for d in b} == {"MEDDOCAN"}
    # every span's category is the one MEDDOCAN's schema gives its type
    assert all(MEDDOCAN.category_of(s.type) == s.category for d in a for s in d.spans)


def test_meddocan_sample_brat_and_xml_agree(meddocan_sample: Path) -> None:
    _compare_brat_xml(meddocan_sample / "brat", meddocan_sample / "xml", 16)


def test_meddocan_full_dev_brat_and_xml_agree(meddocan_full: Path) -> None:
    _compare_brat_xml(meddocan_full / "dev", meddocan_full / "dev-i2b2-xml", 250)


def test_bom_counts_as_character_zero(meddocan_sample: Path) -> None:
    """MEDDOCAN offsets count the BOM (the XML copy agrees): the text keeps it, spans match the .ann."""
    docs = read_brat(meddocan_sample / "brat", MEDDOCAN)
    with_bom = [d for d in docs if d.text.startswith("\ufeff")]
    assert with_bom, "the sample should hold documents with a BOM"
    for d in with_bom:
        raw = (meddocan_sample / "brat" / f"{d.doc_id}.txt").read_bytes()
        assert raw.startswith(b"\xef\xbb\xbf") and d.text == raw.decode("utf-8")
        ann_texts = [ln.split("\t")[2] for ln in (meddocan_sample / "brat" / f"{d.doc_id}.ann")
                     .read_text(encoding="utf-8").splitlines() if ln.startswith("T")]
        assert sorted(ann_texts) == sorted(d.text[s.start:s.end] for s in d.spans)


def test_bom_stripped_offsets_are_shifted(brat_copy: Path) -> None:
    """A tool that did not count the BOM wrote offsets one lower: every span fits at +1, so shift."""
    bom_txt = next(p for p in sorted(brat_copy.glob("*.txt")) if p.read_bytes().startswith(b"\xef\xbb\xbf"))
    ann = bom_txt.with_suffix(".ann")
    want = read_brat([bom_txt], MEDDOCAN)[0]
    lines = []
    for ln in ann.read_text(encoding="utf-8").splitlines():
        tid, mid, frag = ln.split("\t")
        lab, s, e = mid.split()
        lines.append(f"{tid}\t{lab} {int(s) - 1} {int(e) - 1}\t{frag}")
    ann.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = read_brat([bom_txt], MEDDOCAN)[0]
    assert _key(got) == _key(want)


# --------------------------------------------------------------------------- round trips

@pytest.mark.parametrize("fmt", FORMATS_WITH_SPANS)
def test_round_trip_meddocan(fmt: str, meddocan_sample: Path, tmp_path: Path) -> None:
    docs = read_brat(meddocan_sample / "brat", MEDDOCAN)
    out = tmp_path / fmt
    written = write_collection(docs, out, fmt, **({"root": "MEDDOCAN"} if fmt == "xml" else {}))
    assert written and all(p.is_file() for p in written)
    back = read_collection(out, fmt, MEDDOCAN)
    _assert_same_docs(docs, back)


def test_xml_export_keeps_meddocan_shape(meddocan_sample: Path, tmp_path: Path) -> None:
    docs = read_i2b2_xml(meddocan_sample / "xml", MEDDOCAN)
    write_collection(docs, tmp_path, "xml")  # root taken from meta["xml_root"]
    name = f"{docs[0].doc_id}.xml"
    ours = (tmp_path / name).read_text(encoding="utf-8")
    assert ours.splitlines()[1] == "<MEDDOCAN>"
    assert "<TEXT><![CDATA[" in ours and "</TAGS>" in ours


def test_round_trip_text_folder_and_zip(meddocan_sample: Path, tmp_path: Path) -> None:
    docs = read_brat(meddocan_sample / "brat", MEDDOCAN)
    out = tmp_path / "txt"
    write_collection(docs, out, "text")
    back = read_collection(out, "text", MEDDOCAN)
    _assert_same_docs(docs, back, spans=False)
    assert all(d.spans == [] for d in back)
    # the same folder zipped under a wrapper folder reads the same (ids without the wrapper)
    zpath = tmp_path / "notes.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(out.glob("*.txt")):
            z.write(p, f"notes/{p.name}")
    from_zip = read_text(zpath)
    _assert_same_docs(docs, from_zip, spans=False)
    assert all(d.source_file.startswith(str(zpath)) for d in from_zip)


def test_round_trip_brat_from_zip(meddocan_sample: Path, tmp_path: Path) -> None:
    zpath = tmp_path / "brat.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted((meddocan_sample / "brat").iterdir()):
            z.write(p, f"batch1/{p.name}")
    _assert_same_docs(read_brat(meddocan_sample / "brat", MEDDOCAN), read_collection(zpath, "brat", MEDDOCAN))


def _tricky_doc() -> Document:
    """Text that stresses writers: ']]>' in CDATA, CRLF, a tab and a newline inside a span, quotes, a BOM."""
    text = '\ufeffPaciente: Ana\tRuiz\r\nDr. "Pérez" ]]> <b>&amp;</b>\r\nEdad: 45 años\nCalle Mayor\n3'
    spans = [
        Span("tricky", text.index("Ana"), text.index("Ruiz") + 4, "NAME", "PATIENT", "import:test"),
        Span("tricky", text.index('"Pérez"') + 1, text.index('"Pérez"') + 6, "NAME", "DOCTOR"),
        Span("tricky", text.index("45"), text.index("45") + 2, "AGE", "AGE"),
        Span("tricky", text.index("Calle"), len(text), "LOCATION", "STREET"),
    ]
    return Document("sub/tricky", text, spans, meta={"note": "x"}, patient_id="p1")


@pytest.mark.parametrize("fmt", FORMATS_WITH_SPANS + ("text",))
def test_round_trip_tricky_text(fmt: str, tmp_path: Path) -> None:
    doc = _tricky_doc()
    write_collection([doc], tmp_path, fmt)
    back = read_collection(tmp_path, fmt, I2B2_2014)
    assert len(back) == 1 and back[0].doc_id == "sub/tricky" and back[0].text == doc.text
    if fmt != "text":
        assert _key(back[0]) == _key(doc)
    if fmt == "jsonl":
        assert back[0].patient_id == "p1" and back[0].meta["note"] == "x"


def test_conll_export_tokens_and_bio(meddocan_sample: Path, tmp_path: Path) -> None:
    docs = read_brat(meddocan_sample / "brat", MEDDOCAN)
    [path] = write_collection(docs, tmp_path, "conll")
    back = read_conll(path)
    assert len(back) == len(docs)
    for doc, rows in zip(docs, back):
        toks = tokens_with_offsets(doc.text)
        assert [t for t, _ in rows] == [t for t, _, _ in toks]
        # spans recovered from BIO tags cover exactly the tokens each gold span touches
        recovered, cur = [], None
        for (tok, tag), (_, ts, te) in zip(rows, toks):
            if tag.startswith("B-") or (tag == "O" and cur) or (tag.startswith("I-") and cur is None):
                if cur:
                    recovered.append(tuple(cur))
                cur = [ts, te, tag[2:]] if tag != "O" else None
            elif tag.startswith("I-"):
                cur[1] = te
        if cur:
            recovered.append(tuple(cur))
        expected = []
        for s in doc.spans:
            covered = [(ts, te) for _, ts, te in toks if ts < s.end and te > s.start]
            expected.append((covered[0][0], covered[-1][1], s.type))
        assert recovered == expected, doc.doc_id


def test_tokens_with_offsets() -> None:
    text = "\ufeffDr. Ruiz-Pérez, 28/10/2016; c/ Mayor nº3."
    toks = tokens_with_offsets(text)
    assert all(text[s:e] == t for t, s, e in toks)
    assert [t for t, _, _ in toks][:6] == ["Dr", ".", "Ruiz", "-", "Pérez", ","]
    assert "\ufeff" not in "".join(t for t, _, _ in toks)
    tags = bio_tags(text, [Span("d", text.index("Ruiz"), text.index(","), "NAME", "DOCTOR")])
    assert [t[3] for t in tags][:6] == ["O", "O", "B-DOCTOR", "I-DOCTOR", "I-DOCTOR", "O"]


def test_i2b2_2014_shape(tmp_path: Path) -> None:
    """An i2b2 2014 style file (root deIdi2b2, LOCATION with TYPE="OTHER", a 2006-style PHI tag)."""
    text = "Record date: 2067-05-03\nSeen at Oakwood Clinic, Smalltown by Dr. Kim.\n"
    xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<deIdi2b2>\n<TEXT><![CDATA[" + text + "]]></TEXT>\n<TAGS>\n"
           '<DATE id="P0" start="13" end="23" text="2067-05-03" TYPE="DATE" comment="" />\n'
           '<LOCATION id="P1" start="32" end="46" text="Oakwood Clinic" TYPE="OTHER" comment="" />\n'
           '<PHI id="P2" start="48" end="57" text="Smalltown" TYPE="CITY" />\n'
           '<NAME id="P3" start="65" end="68" text="Kim" TYPE="DOCTOR" comment="" />\n'
           "</TAGS>\n</deIdi2b2>\n")
    (tmp_path / "note-01.xml").write_text(xml, encoding="utf-8")
    [doc] = read_i2b2_xml(tmp_path, I2B2_2014)
    assert doc.doc_id == "note-01" and doc.text == text and doc.meta["xml_root"] == "deIdi2b2"
    assert _key(doc) == [(13, 23, "DATE", "DATE"), (32, 46, "LOCATION", "LOCATION-OTHER"),
                         (48, 57, "LOCATION", "CITY"), (65, 68, "NAME", "DOCTOR")]
    (tmp_path / "note-01.xml").write_text(xml.replace('<NAME id="P3"', '<DATE id="P3"'), encoding="utf-8")
    _raises(tmp_path, "xml", I2B2_2014, names="note-01.xml", line=10)  # DOCTOR is not a DATE type


# --------------------------------------------------------------------------- ids, duplicates, jsonl

def test_duplicate_spans_removed_overlaps_kept(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("Ana Ruiz vino", encoding="utf-8")
    (tmp_path / "d.ann").write_text(
        "T1\tPATIENT 0 8\tAna Ruiz\nT2\tPATIENT 0 8\tAna Ruiz\nT3\tDOCTOR 4 8\tRuiz\n#1\tAnnotatorNotes T1\tnote\n"
        "A1\tNegated T1\nR1\tRel Arg1:T1 Arg2:T3\n", encoding="utf-8")
    [doc] = read_brat(tmp_path, I2B2_2014)
    assert _key(doc) == [(0, 8, "NAME", "PATIENT"), (4, 8, "NAME", "DOCTOR")]


def test_empty_ann_is_a_document_without_phi(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("Sin datos.", encoding="utf-8")
    (tmp_path / "d.ann").write_bytes(b"")
    [doc] = read_brat(tmp_path / "d.txt", I2B2_2014)
    assert doc.doc_id == "d" and doc.spans == []


def test_nested_folder_ids(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.txt").write_text("uno", encoding="utf-8")
    (tmp_path / "b" / "x.txt").write_text("dos", encoding="utf-8")
    (tmp_path / ".hidden.txt").write_text("tres", encoding="utf-8")
    assert [d.doc_id for d in read_text(tmp_path)] == ["a/x", "b/x"]


def test_jsonl_ids_and_labels(tmp_path: Path) -> None:
    p = tmp_path / "batch.jsonl"
    rows = [
        {"text": "Ana tiene 45 años", "meta": {"id": "n1"}, "spans": [{"start": 0, "end": 3, "label": "PATIENT"}]},
        {"text": "Edad 45", "spans": [{"start": 5, "end": 7, "label": "AGE", "id": "s1"},
                                      {"start": 0, "end": 4, "category": "NAME", "type": "DOCTOR"}]},
    ]
    p.write_text("\ufeff" + json.dumps(rows[0]) + "\n\n" + json.dumps(rows[1]) + "\n", encoding="utf-8")
    docs = read_jsonl(p, I2B2_2014)
    assert [d.doc_id for d in docs] == ["n1", "batch-3"]
    assert _key(docs[0]) == [(0, 3, "NAME", "PATIENT")]
    assert _key(docs[1]) == [(0, 4, "NAME", "DOCTOR"), (5, 7, "AGE", "AGE")]
    assert {s.source for d in docs for s in d.spans} == {"import:jsonl"}


# --------------------------------------------------------------------------- refused inputs

def _raises(path, fmt: str, schema=MEDDOCAN, *, names: str, line: int | None, text: str = "", **kw) -> FormatError:
    with pytest.raises(FormatError) as ei:
        read_collection(path, fmt, schema, **kw)
    err = ei.value
    assert names in err.path, (err.path, names)
    assert err.line == line
    assert str(err).startswith(f"{err.path}:{line}:" if line is not None else f"{err.path}:")
    if text:
        _assert_no_text_leak(err, text)
    return err


def _replace_ann_line(ann: Path, k: int, new: str) -> str:
    lines = ann.read_text(encoding="utf-8").splitlines()
    lines[k] = new
    ann.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines[k]


def test_discontinuous_span_refused(brat_copy: Path) -> None:
    txt, ann = _first_pair(brat_copy)
    tid, mid, frag = ann.read_text(encoding="utf-8").splitlines()[2].split("\t")
    lab, s, e = mid.split()
    _replace_ann_line(ann, 2, f"{tid}\t{lab} {s} {int(s) + 2};{int(s) + 3} {e}\t{frag}")
    err = _raises(brat_copy, "brat", names=ann.name, line=3, text=txt.read_text(encoding="utf-8"))
    assert "discontinuous" in str(err)


def test_offsets_beyond_text_refused(brat_copy: Path) -> None:
    txt, ann = _first_pair(brat_copy)
    n = len(txt.read_text(encoding="utf-8"))
    tid, mid, frag = ann.read_text(encoding="utf-8").splitlines()[0].split("\t")
    _replace_ann_line(ann, 0, f"{tid}\t{mid.split()[0]} {n - 2} {n + 5}\t{frag}")
    err = _raises(brat_copy, "brat", names=ann.name, line=1, text=txt.read_text(encoding="utf-8"))
    assert "outside the text" in str(err)


def test_mismatched_span_text_refused(brat_copy: Path) -> None:
    txt, ann = _first_pair(brat_copy)
    tid, mid, frag = ann.read_text(encoding="utf-8").splitlines()[1].split("\t")
    lab, s, e = mid.split()
    _replace_ann_line(ann, 1, f"{tid}\t{lab} {int(s) + 1} {int(e) + 1}\t{frag}")
    err = _raises(brat_copy, "brat", names=ann.name, line=2, text=txt.read_text(encoding="utf-8"))
    assert "does not match" in str(err) and frag not in str(err)


def test_unknown_label_refused(brat_copy: Path) -> None:
    _, ann = _first_pair(brat_copy)
    err = _raises(brat_copy, "brat", I2B2_2014, names=ann.name, line=1)
    assert "not in schema 'i2b2-2014'" in str(err)


def test_missing_ann_refused(brat_copy: Path) -> None:
    txt, ann = _first_pair(brat_copy)
    ann.unlink()
    _raises(brat_copy, "brat", names=txt.name, line=None)


def test_non_utf8_refused_with_line(brat_copy: Path) -> None:
    txt, _ = _first_pair(brat_copy)
    text = txt.read_text(encoding="utf-8")
    data = txt.read_bytes()
    cut = data.index(b"\n", data.index(b"\n") + 1) + 1  # start of line 3
    txt.write_bytes(data[:cut] + b"\xff\xfe" + data[cut:])
    err = _raises(brat_copy, "brat", names=txt.name, line=3, text=text)
    assert "UTF-8" in str(err)


def test_empty_file_refused(brat_copy: Path, tmp_path: Path) -> None:
    txt, _ = _first_pair(brat_copy)
    txt.write_bytes(b"")
    _raises(brat_copy, "brat", names=txt.name, line=None)
    (tmp_path / "e.xml").write_bytes(b"  \n")
    _raises(tmp_path / "e.xml", "xml", names="e.xml", line=None)
    (tmp_path / "e.jsonl").write_bytes(b"\n\n")
    _raises(tmp_path / "e.jsonl", "jsonl", names="e.jsonl", line=None)


def test_oversized_file_refused(meddocan_sample: Path) -> None:
    err = _raises(meddocan_sample / "brat", "brat", names=".txt", line=None, max_file_bytes=1000)
    assert "too large" in str(err)


def test_too_many_files_refused(meddocan_sample: Path) -> None:
    err = _raises(meddocan_sample / "xml", "xml", names="xml", line=None, max_files=3)
    assert "more than 3 files" in str(err)


def test_zip_bomb_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("ok.txt", "Paciente sin datos.")
        z.writestr("big.txt", b"0" * 3_000_000)  # ~1000x compression
    err = _raises(bomb, "text", names="bomb.zip", line=None)
    assert "zip bomb" in str(err)
    # a lying or huge declared size is refused before inflating: per-file and total limits
    _raises(bomb, "text", names="big.txt", line=None, max_file_bytes=100_000)
    with pytest.raises(FormatError, match="expands to more than"):
        read_collection(bomb, "text", MEDDOCAN, limits=Limits(max_total_bytes=1_000_000, max_zip_ratio=1e9))


def test_zip_path_traversal_refused(tmp_path: Path) -> None:
    z = tmp_path / "evil.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("notes/../../escape.txt", "texto")
    err = _raises(z, "text", names="evil.zip", line=None)
    assert "parent-relative" in str(err)
    z2 = tmp_path / "abs.zip"
    with zipfile.ZipFile(z2, "w") as zf:
        zf.writestr(zipfile.ZipInfo("/etc/x.txt"), "texto")
    _raises(z2, "text", names="abs.zip", line=None)


@pytest.mark.parametrize("decl", [
    '<!DOCTYPE MEDDOCAN [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>',
    '<!DOCTYPE MEDDOCAN SYSTEM "file:///etc/passwd">',
])
def test_xml_dtd_refused(decl: str, meddocan_sample: Path, tmp_path: Path) -> None:
    src = sorted((meddocan_sample / "xml").glob("*.xml"))[0]
    lines = src.read_text(encoding="utf-8").split("\n")
    (tmp_path / src.name).write_text("\n".join([lines[0], decl] + lines[1:]), encoding="utf-8")
    err = _raises(tmp_path, "xml", names=src.name, line=None)
    assert "refused" in str(err)


def test_xml_malformed_refused(meddocan_sample: Path, tmp_path: Path) -> None:
    src = sorted((meddocan_sample / "xml").glob("*.xml"))[0]
    lines = src.read_text(encoding="utf-8").split("\n")
    tag_line = next(i for i, ln in enumerate(lines) if ln.strip().startswith("<NAME"))
    lines[tag_line] = lines[tag_line].replace("/>", ">")  # unclosed element
    (tmp_path / src.name).write_text("\n".join(lines), encoding="utf-8")
    shutil.copy(sorted((meddocan_sample / "xml").glob("*.xml"))[1], tmp_path)  # a good file beside it
    closing = next(i for i, ln in enumerate(lines) if ln.strip() == "</TAGS>") + 1  # where expat notices
    err = _raises(tmp_path, "xml", names=src.name, line=closing,
                  text=read_i2b2_xml(src, MEDDOCAN)[0].text)
    assert "malformed XML" in str(err)


def test_xml_bad_offsets_name_the_line(meddocan_sample: Path, tmp_path: Path) -> None:
    src = sorted((meddocan_sample / "xml").glob("*.xml"))[0]
    lines = src.read_text(encoding="utf-8").split("\n")
    i = next(i for i, ln in enumerate(lines) if ln.strip().startswith("<NAME"))
    lines[i] = lines[i].replace(' start="', ' start="1')
    (tmp_path / src.name).write_text("\n".join(lines), encoding="utf-8")
    _raises(tmp_path, "xml", names=src.name, line=i + 1)


def test_jsonl_malformed_line_refused(tmp_path: Path) -> None:
    p = tmp_path / "b.jsonl"
    good = json.dumps({"text": "Ana Ruiz", "spans": [{"start": 0, "end": 3, "label": "PATIENT"}]})
    p.write_text(good + "\n" + '{"text": "Ana Ruiz", "spans": [}\n' + good + "\n", encoding="utf-8")
    err = _raises(p, "jsonl", I2B2_2014, names="b.jsonl", line=2, text="Ana Ruiz")
    assert "not valid JSON" in str(err)
    p.write_text(good + "\n" + json.dumps({"text": "Ana", "spans": [{"start": 0, "end": 9, "label": "PATIENT"}]}))
    _raises(p, "jsonl", I2B2_2014, names="b.jsonl", line=2)
    p.write_text(good + "\n" + json.dumps({"text": "Ana", "meta": {"id": "b-1"}}))
    _raises(p, "jsonl", I2B2_2014, names="b.jsonl", line=2)  # repeats the first line's default id


def test_one_bad_file_fails_the_whole_collection(brat_copy: Path) -> None:
    """All or nothing: 15 good documents and one bad one give an error, not 15 documents."""
    txt = sorted(brat_copy.glob("*.txt"))[-1]
    txt.write_bytes(txt.read_bytes() + b"\x80")
    with pytest.raises(FormatError):
        read_brat(brat_copy, MEDDOCAN)


def test_writers_refuse_unsafe_ids_and_bad_spans(tmp_path: Path) -> None:
    for bad_id in ("../x", "/abs", "a/../../b", ""):
        with pytest.raises(FormatError):
            write_collection([Document(bad_id, "texto")], tmp_path / "o", "text")
    with pytest.raises(FormatError):
        write_collection([Document("d", "abc", [Span("d", 1, 9, "NAME", "PATIENT")])], tmp_path / "o2", "brat")
    assert not (tmp_path / "o2" / "d.txt").exists()
    with pytest.raises(FormatError, match="XML 1.0"):
        write_collection([Document("d", "a\x01b")], tmp_path / "o3", "xml")


# --------------------------------------------------------------------------- CLI: import, export, stats

def _phi_strings(docs: list[Document]) -> list[str]:
    return sorted({d.text[s.start:s.end] for d in docs for s in d.spans if s.end - s.start >= 5})


def _cli(argv: list[str]) -> int:
    from cli import main
    return main(argv)


def test_cli_import_export_stats(meddocan_sample: Path, tmp_path: Path, capsys) -> None:
    store = pytest.importorskip("store")
    db = str(tmp_path / "w.db")
    src = read_brat(meddocan_sample / "brat", MEDDOCAN)
    phi = _phi_strings(src)

    assert _cli(["import", str(meddocan_sample / "brat"), "--format", "brat", "--schema", "meddocan",
                 "--db", db, "--project", "med", "--split", "dev"]) == 0
    out = capsys.readouterr()
    assert "imported 16 documents" in out.out and f"with {sum(len(d.spans) for d in src)} spans" in out.out
    assert not any(p in out.out + out.err for p in phi), "the summary must not quote document text"

    # brat export gives back the same texts and spans under the original names
    assert _cli(["export", "--project", "med", "--format", "brat", "--out", str(tmp_path / "brat"),
                 "--db", db]) == 0
    _assert_same_docs(src, read_brat(tmp_path / "brat", MEDDOCAN))
    assert _cli(["export", "--project", "med", "--format", "xml", "--out", str(tmp_path / "xml"), "--db", db]) == 0
    back = read_i2b2_xml(tmp_path / "xml", MEDDOCAN)
    _assert_same_docs(src, back)
    assert {d.meta["xml_root"] for d in back} == {"MEDDOCAN"}
    assert _cli(["export", "--project", "med", "--format", "conll", "--out", str(tmp_path / "conll"),
                 "--db", db]) == 0
    assert len(read_conll(tmp_path / "conll" / "documents.conll")) == 16
    capsys.readouterr()
    # a second export into a non-empty folder is refused
    assert _cli(["export", "--project", "med", "--format", "brat", "--out", str(tmp_path / "brat"),
                 "--db", db]) == 1
    assert "not empty" in capsys.readouterr().err

    conn = store.connect(db)
    exports = store.list_audit(conn, action="export")
    assert len(exports) == 3 and {e.detail["format"] for e in exports} == {"brat", "xml", "conll"}

    assert _cli(["stats", "--db", db, "--project", "med", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["documents"] == 16 and figures["gold_documents"] == 16
    assert figures["gold_spans"] == sum(len(d.spans) for d in src)
    assert figures["documents_by_split"] == {"dev": 16}
    assert _cli(["stats", "--db", db, "--project", "med"]) == 0
    table = capsys.readouterr().out
    assert "NAME" in table and "gold" in table and not any(p in table for p in phi)
    assert _cli(["stats", "--db", db]) == 0
    assert "med" in capsys.readouterr().out


def test_cli_import_is_all_or_nothing(brat_copy: Path, tmp_path: Path, capsys) -> None:
    store = pytest.importorskip("store")
    db = str(tmp_path / "w.db")
    txt, ann = _first_pair(brat_copy)
    tid, mid, frag = ann.read_text(encoding="utf-8").splitlines()[0].split("\t")
    lab, s, e = mid.split()
    _replace_ann_line(ann, 0, f"{tid}\t{lab} {s} {e}\tnot the text")
    assert _cli(["import", str(brat_copy), "--format", "brat", "--schema", "meddocan", "--db", db,
                 "--project", "p"]) == 1
    err = capsys.readouterr().err
    assert f"{ann.name}:1:" in err and frag not in err
    conn = store.connect(db)
    assert store.list_projects(conn) == []  # not even the project was created

    # a failure inside the store (names already imported) also leaves nothing behind
    good = tmp_path / "good"
    shutil.copytree(Path(__file__).parent / "fixtures" / "meddocan" / "brat", good)
    assert _cli(["import", str(good), "--format", "brat", "--schema", "meddocan", "--db", db, "--project", "p"]) == 0
    n_before = store.stats(conn, store.get_project_by_name(conn, "p").id)["documents"]
    assert _cli(["import", str(good), "--format", "brat", "--db", db, "--project", "p"]) == 1
    assert "already has documents" in capsys.readouterr().err
    assert store.stats(conn, store.get_project_by_name(conn, "p").id)["documents"] == n_before == 16


def test_cli_import_text_and_schema_mismatch(meddocan_sample: Path, tmp_path: Path, capsys) -> None:
    store = pytest.importorskip("store")
    db = str(tmp_path / "w.db")
    assert _cli(["import", str(meddocan_sample / "brat"), "--format", "text", "--schema", "meddocan",
                 "--db", db, "--project", "raw"]) == 0
    conn = store.connect(db)
    figures = store.stats(conn, store.get_project_by_name(conn, "raw").id)
    assert figures["documents"] == 16 and figures["gold_documents"] == 0 and figures["spans_by_layer"] == {}
    capsys.readouterr()
    assert _cli(["import", str(meddocan_sample / "xml"), "--format", "xml", "--schema", "i2b2-2014",
                 "--db", db, "--project", "raw"]) == 1
    assert "uses schema 'meddocan'" in capsys.readouterr().err
    # plain-text export writes every document, even those without the layer
    assert _cli(["export", "--project", "raw", "--format", "text", "--out", str(tmp_path / "t"), "--db", db]) == 0
    assert len(read_text(tmp_path / "t")) == 16
    assert _cli(["export", "--project", "raw", "--format", "brat", "--out", str(tmp_path / "b"), "--db", db]) == 1


def test_read_collection_auto_picks_the_preset_by_label_and_stops_on_broken_files(tmp_path):
    from pipeline.errors import LabelNotInSchemaError
    from pipeline.formats import read_collection_auto

    es, en, odd, broken = (tmp_path / n for n in ("es", "en", "odd", "broken"))
    for folder, label in ((es, "FECHAS"), (en, "MEDICALRECORD"), (odd, "NOT_A_LABEL"), (broken, "FECHAS")):
        folder.mkdir()
        (folder / "a.txt").write_text("Ingreso 10/10/2016.", encoding="utf-8")
        (folder / "a.ann").write_text(f"T1\t{label} 8 18\t10/10/2016\n", encoding="utf-8")
    (broken / "a.ann").write_text("T1\tFECHAS 8 80\t10/10/2016\n", encoding="utf-8")  # beyond the text
    assert read_collection_auto(es, "brat")[0].name == "meddocan"
    schema, docs = read_collection_auto(en, "brat")
    assert schema.name == "i2b2-2014" and docs[0].spans[0].label == "MEDICALRECORD"
    with pytest.raises(FormatError, match="fit none of the preset schemas"):
        read_collection_auto(odd, "brat")
    with pytest.raises(FormatError) as err:
        read_collection_auto(broken, "brat")
    assert not isinstance(err.value, LabelNotInSchemaError) and "fit none" not in str(err.value)


def test_cli_import_refuses_nested_archives_and_binary_text_like_the_upload(tmp_path: Path, capsys) -> None:
    store = pytest.importorskip("store")
    db = str(tmp_path / "w.db")
    nested = tmp_path / "nested.zip"
    with zipfile.ZipFile(nested, "w") as zf:
        zf.writestr("a.txt", "Paciente de 45 años.")
        zf.writestr("inner.zip", b"PK\x05\x06" + b"\x00" * 18)
    assert _cli(["import", str(nested), "--format", "text", "--db", db, "--project", "p"]) == 1
    assert "archives inside an archive are refused" in capsys.readouterr().err
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "a.txt").write_text("Paciente\x00 de 45 años.", encoding="utf-8")
    assert _cli(["import", str(junk), "--format", "text", "--db", db, "--project", "p"]) == 1
    err = capsys.readouterr().err
    assert "binary data (a NUL character)" in err and "Paciente" not in err
    assert store.list_projects(store.connect(db)) == []
