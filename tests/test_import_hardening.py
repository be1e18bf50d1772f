"""Import hardening after the security review: defects 6, 7, 10, 11, 13, 14, 15 and the writers'
part of defect 3. Each test is named after its defect and failed on the code before the fix.

The rules every refusal here must follow: a user error (``is_user_error``), one line, naming the
file (and line where there is one), quoting no text, label or id read from the input (inputs
carry the marker ``ZQXPATIENTNAME``), and writing nothing. Assertion messages name documents,
offsets and counts only; nothing here prints document text.
"""
from __future__ import annotations

import io
import json
import os
import re
import stat
import warnings
import zipfile
from pathlib import Path

import pytest

import store
from pipeline.errors import FormatError, SpanOverlapError, is_user_error, one_line
from pipeline.formats import read_collection, read_i2b2_xml, write_collection
from pipeline.formats._common import safe_label
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span, SpanError
from services.imports import import_upload
from store.errors import DuplicateError

MARKER = "ZQXPATIENTNAME"
TEXT = (f"Paciente: {MARKER} Pérez, 53 años.\n"
        f"Ingresa el 12/03/2019 en el Hospital {MARKER} de Madrid.\n")
NAME_SPAN = (TEXT.index(MARKER), TEXT.index(MARKER) + len(MARKER))
DATE_SPAN = (TEXT.index("12/03/2019"), TEXT.index("12/03/2019") + 10)
TABLES = ("projects", "documents", "layers", "spans", "audit_log")


# --------------------------------------------------------------------------- helpers

def counts(db) -> dict[str, int]:
    return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def make_zip(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of ``members`` in order; a name may repeat (zip files allow it)."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names, which we want here
        with zipfile.ZipFile(buf, "w", method) as zf:
            for name, data in members:
                zf.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data, compress_type=method)
    return buf.getvalue()


def ann(lines: list[tuple[str, int, int]]) -> bytes:
    return "".join(f"T{i}\t{lab} {s} {e}\t{TEXT[s:e]}\n" for i, (lab, s, e) in enumerate(lines, 1)).encode()


def good_ann() -> bytes:
    return ann([("NOMBRE_SUJETO_ASISTENCIA", *NAME_SPAN), ("FECHAS", *DATE_SPAN)])


def assert_safe(e: BaseException, *, path: str | None = None, line: int | None = None) -> str:
    """A documented error, one line, quoting no marker; naming ``path`` and ``line`` when given."""
    assert is_user_error(e), f"{type(e).__name__} is not a user error"
    msg = str(e)
    assert "\n" not in msg and "\r" not in msg and len(msg.splitlines()) == 1, "message is not one line"
    assert MARKER not in msg and MARKER.lower() not in msg, "message quotes a value from the input"
    assert "wb-upload-" not in msg, "message names the temporary copy"
    if path is not None:
        assert isinstance(e, FormatError) and e.path == path, (getattr(e, "path", None), path)
    if line is not None:
        assert e.line == line, (e.line, line)
    return msg


@pytest.fixture
def env(tmp_path: Path):
    """A store with one project holding one document, so 'nothing written' is checked against
    non-zero counts."""
    db = store.connect(tmp_path / "wb.db")
    pid = store.create_project(db, "p", MEDDOCAN)
    import_upload(db, pid, "seed.zip", make_zip([("doc0.txt", TEXT.encode()), ("doc0.ann", good_ann())]), "brat",
                  user="seed")
    yield db, pid
    db.close()


def refused(db, fn, *, kind=FormatError, path: str | None = None, line: int | None = None,
            match: str | None = None) -> BaseException:
    before = counts(db)
    with pytest.raises(kind) as info:
        fn()
    msg = assert_safe(info.value, path=path, line=line)
    if match:
        assert re.search(match, msg), msg
    assert counts(db) == before, "a refused import wrote rows"
    return info.value


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    from cli import main
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


# --------------------------------------------------------------------------- defect 6: CRLF i2b2 XML

def _crlf_copy(xml: str, *, keep_text_attr: bool) -> str:
    """The LF file as a CRLF file: every line break becomes CRLF, inside the CDATA too, and the
    offsets are moved to count the new ``\\r`` characters (what a CRLF tool would have written)."""
    body_start = xml.index("<![CDATA[") + len("<![CDATA[")
    text = xml[body_start:xml.index("]]>", body_start)]

    def moved(m: re.Match) -> str:
        offset = int(m.group(2))
        return f'{m.group(1)}="{offset + text.count(chr(10), 0, offset)}"'

    tags = xml[xml.index("<TAGS>"):]
    tags = re.sub(r'\b(start|end)="(\d+)"', moved, tags)
    if not keep_text_attr:
        tags = re.sub(r' text="[^"]*"', "", tags)
    return (xml[:xml.index("<TAGS>")] + tags).replace("\n", "\r\n")


@pytest.mark.parametrize("keep_text_attr", [False, True], ids=["no-text-attr", "with-text-attr"])
def test_defect_6_crlf_i2b2_xml_keeps_carriage_returns_and_offsets(meddocan_sample: Path, tmp_path: Path,
                                                                   keep_text_attr: bool) -> None:
    """Defect 6: expat turns CRLF into LF, so a CRLF file's offsets (which count ``\\r``) landed one
    character further per line, silently without a ``text=`` attribute. Every span must cover the
    same characters as in the LF file, and the text keeps its ``\\r`` as the file holds them."""
    lf_docs = read_i2b2_xml(meddocan_sample / "xml", MEDDOCAN)
    crlf_dir = tmp_path / "crlf"
    crlf_dir.mkdir()
    for src in sorted((meddocan_sample / "xml").glob("*.xml")):
        (crlf_dir / src.name).write_bytes(_crlf_copy(src.read_text(encoding="utf-8"),
                                                     keep_text_attr=keep_text_attr).encode("utf-8"))
    crlf_docs = read_i2b2_xml(crlf_dir, MEDDOCAN)
    assert [d.doc_id for d in crlf_docs] == [d.doc_id for d in lf_docs]
    n_spans = 0
    for lf, crlf in zip(lf_docs, crlf_docs):
        assert crlf.text == lf.text.replace("\n", "\r\n"), f"{crlf.doc_id}: the text lost its carriage returns"
        assert len(crlf.spans) == len(lf.spans), crlf.doc_id
        for a, b in zip(lf.spans, crlf.spans):
            same = crlf.text[b.start:b.end].replace("\r\n", "\n") == lf.text[a.start:a.end]
            assert same and (a.category, a.type) == (b.category, b.type), \
                f"{crlf.doc_id}: span {b.start}-{b.end} does not cover what {a.start}-{a.end} covers in the LF file"
            n_spans += 1
    assert n_spans > 100


def test_defect_6_lone_cr_and_char_references_in_xml_text(tmp_path: Path) -> None:
    """Old Mac line ends (a lone ``\\r``) count one character too; outside CDATA a raw CRLF is kept
    as well, and ``&#13;`` / ``&#10;`` are the characters they name (what our writer emits)."""
    text = "Paciente Ana\rvive en Madrid\r\nFecha 12/03/2019\n"
    tags = '<DATE id="T1" start="{}" end="{}" TYPE="FECHAS"/>'.format(text.index("12/"), text.index("12/") + 10)
    body = f"<?xml version='1.0' encoding='UTF-8'?>\r\n<MEDDOCAN><TEXT><![CDATA[{text}]]>" \
           f"x&#13;&#10;y\r\nz</TEXT><TAGS>{tags}</TAGS></MEDDOCAN>\r\n"
    (tmp_path / "d.xml").write_bytes(body.encode())
    [doc] = read_i2b2_xml(tmp_path, MEDDOCAN)
    assert doc.text == text + "x\r\ny\r\nz", "carriage returns were not kept as the file holds them"
    [s] = doc.spans
    assert doc.text[s.start:s.end] == "12/03/2019"


def test_defect_6_jsonl_span_text_must_match_the_document(env) -> None:
    """Defect 6: a JSONL span whose ``"text"`` disagrees with the document at its offsets (offsets
    made for another text) is refused with file and line, quoting neither string."""
    db, pid = env
    good = {"text": TEXT, "meta": {"id": "j1"},
            "spans": [{"start": NAME_SPAN[0], "end": NAME_SPAN[1], "label": "NOMBRE_SUJETO_ASISTENCIA",
                       "text": MARKER}]}
    bad = {"text": TEXT, "meta": {"id": "j2"},
           "spans": [{"start": NAME_SPAN[0] + 1, "end": NAME_SPAN[1] + 1, "label": "NOMBRE_SUJETO_ASISTENCIA",
                      "text": MARKER}]}
    data = (json.dumps(good) + "\n" + json.dumps(bad) + "\n").encode()
    refused(db, lambda: import_upload(db, pid, "b.jsonl", data, "jsonl", user="ana"), path="b.jsonl", line=2,
            match=r'"text" does not match the document')
    # a matching "text" (whitespace folded, as brat and XML allow) is accepted
    assert import_upload(db, pid, "ok.jsonl", (json.dumps(good) + "\n").encode(), "jsonl", user="ana").spans == 1
    not_a_string = {**good, "meta": {"id": "j3"}, "spans": [{**good["spans"][0], "text": 5}]}
    refused(db, lambda: import_upload(db, pid, "c.jsonl", json.dumps(not_a_string).encode(), "jsonl", user="ana"),
            path="c.jsonl", line=1)


# --------------------------------------------------------------------------- defect 7: zip bombs of small members

def test_defect_7_many_small_compressible_members_are_refused(env, tmp_path: Path) -> None:
    """Defect 7: members under 1 MB were never ratio-checked, so a ~100 KB zip of hundreds of 60 KB
    runs of one letter inflated to tens of MB. The archive as a whole is now ratio-checked."""
    db, pid = env
    members = [(f"n/{i:04d}.txt", b"a" * 60_000) for i in range(400)]
    bomb = make_zip(members)
    assert len(bomb) < 200_000 and sum(len(d) for _, d in members) == 24_000_000
    refused(db, lambda: import_upload(db, pid, "bomb.zip", bomb, "text", user="ana"), path="bomb.zip",
            match=r"expands \d+x in all .*zip bomb")
    path = tmp_path / "bomb.zip"
    path.write_bytes(bomb)
    with pytest.raises(FormatError, match=r"zip bomb"):
        read_collection(path, "text", MEDDOCAN)  # the command line's reader, default limits


def test_defect_7_every_member_above_a_small_size_is_ratio_checked(env) -> None:
    """One 100 KB member of zeros (ratio ~1000) was let through by the 1 MB threshold."""
    db, pid = env
    bomb = make_zip([("a.txt", TEXT.encode()), ("b.txt", b"0" * 100_000)])
    refused(db, lambda: import_upload(db, pid, "one.zip", bomb, "text", user="ana"), path="one.zip",
            match=r"archive member 'b.txt' expands \d+x")


def test_defect_7_tiny_compressible_members_and_real_notes_still_pass(env, meddocan_sample: Path) -> None:
    """What the rule must not refuse: many tiny members (empty .ann files, short repetitive notes)
    and a real corpus zipped."""
    db, pid = env
    tiny = []
    for i in range(300):
        tiny += [(f"t/n{i}.txt", f"Nota {i}: sin datos. ".encode() * 20), (f"t/n{i}.ann", b"")]
    summary = import_upload(db, pid, "tiny.zip", make_zip(tiny), "brat", user="ana")
    assert summary.documents == 300
    real = make_zip([(f"m/{p.name}", p.read_bytes()) for p in sorted((meddocan_sample / "brat").iterdir())])
    assert import_upload(db, pid, "real.zip", real, "brat", user="ana").documents == 16


# --------------------------------------------------------------------------- defect 10: symlinks in folders

def _folder_with_link(tmp_path: Path, *, to_folder: bool) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{MARKER} lives here\n", encoding="utf-8")
    notes = tmp_path / "notes"
    (notes / "ward").mkdir(parents=True)
    (notes / "a.txt").write_text(TEXT, encoding="utf-8")
    if to_folder:
        (notes / "ward" / "linked").symlink_to(outside, target_is_directory=True)
    else:
        (notes / "ward" / "linked.txt").symlink_to(outside / "secret.txt")
    return notes, outside


@pytest.mark.parametrize("to_folder", [False, True], ids=["file-link", "folder-link"])
def test_defect_10_symlinks_inside_an_imported_folder_are_refused(tmp_path: Path, to_folder: bool, capsys) -> None:
    """Defect 10: a folder import followed a file link to a file outside the folder (and skipped a
    linked folder silently). Both are refused, naming the link by its relative name only."""
    notes, outside = _folder_with_link(tmp_path, to_folder=to_folder)
    rel = "ward/linked" if to_folder else "ward/linked.txt"
    for fmt in ("text", "brat"):
        with pytest.raises(FormatError) as info:
            read_collection(notes, fmt, MEDDOCAN)
        msg = assert_safe(info.value, path=str(notes))
        assert repr(rel) in msg and "symbolic link" in msg, msg
        assert str(outside) not in msg, "the message names where the link points"
    db = tmp_path / "wb.db"
    rc, out, err = cli(["import", str(notes), "--format", "text", "--db", str(db), "--project", "p"], capsys)
    assert rc == 1 and len(err.strip().splitlines()) == 1 and rel in err, err
    assert MARKER not in out + err and str(outside) not in err
    assert store.list_projects(store.connect(db)) == []


# --------------------------------------------------------------------------- defect 11: duplicate members

def test_defect_11_duplicate_member_names_are_refused_in_every_archive(env) -> None:
    """Defect 11: two members with one path (zip allows it): the second text silently replaced the first."""
    db, pid = env
    other = TEXT.replace("Pérez", "Gómez").encode()
    brat = make_zip([("b/d1.txt", TEXT.encode()), ("b/d1.txt", other), ("b/d1.ann", good_ann())])
    refused(db, lambda: import_upload(db, pid, "dup.zip", brat, "brat", user="ana"), path="dup.zip",
            match=r"member 'b/d1.txt' appears more than once")
    text = make_zip([("x.txt", TEXT.encode()), ("y.txt", other), ("x.txt", other)])
    refused(db, lambda: import_upload(db, pid, "dup.zip", text, "text", user="ana"), path="dup.zip",
            match=r"appears more than once")
    jsonl = json.dumps({"text": TEXT, "meta": {"id": "j"}}).encode()
    refused(db, lambda: import_upload(db, pid, "dup.zip", make_zip([("a.jsonl", jsonl), ("a.jsonl", jsonl)]),
                                      "jsonl", user="ana"), path="dup.zip", match=r"appears more than once")
    # also when the two spellings differ only by a backslash for a slash (read as the same path)
    mixed = make_zip([("b/d1.txt", TEXT.encode()), ("b\\d1.txt", other), ("b/d1.ann", good_ann())])
    refused(db, lambda: import_upload(db, pid, "dup.zip", mixed, "brat", user="ana"), path="dup.zip")


# --------------------------------------------------------------------------- defect 13: one line with file and line

def test_defect_13_a_5000_digit_json_number_is_a_format_error_with_file_and_line(env, tmp_path: Path,
                                                                                capsys) -> None:
    """Defect 13: ``json`` raises a bare ValueError past Python's 4300-digit limit, which the
    command line reported as 'unexpected ValueError' (exit 2)."""
    db, pid = env
    ok = json.dumps({"text": TEXT, "meta": {"id": "ok"}})
    for bad in ['{"text": "' + MARKER + '", "meta": {"n": ' + "9" * 5000 + "}}",
                '{"text": "' + MARKER + '", "spans": [{"start": 0, "end": ' + "1" * 5000 + ', "label": "FECHAS"}]}',
                '{"text": "' + MARKER + '", "spans": [{"start": 0, "end": 1' + "0" * 40 + ', "label": "FECHAS"}]}']:
        data = (ok + "\n" + bad + "\n").encode()
        refused(db, lambda: import_upload(db, pid, "n.jsonl", data, "jsonl", user="ana"), path="n.jsonl", line=2)
        p = tmp_path / "n.jsonl"
        p.write_bytes(data)
        rc, out, err = cli(["import", str(p), "--format", "jsonl", "--db", str(tmp_path / "c.db"),
                            "--project", "c", "--schema", "meddocan"], capsys)
        assert rc == 1, err
        assert err.count("\n") == 1 and err.startswith(f"error: {p}:2: "), err
        assert MARKER not in out + err
    # the same in brat's offset column: a 5,000-digit offset is refused, not a ValueError
    zipped = make_zip([("d.txt", TEXT.encode()), ("d.ann", f"T1\tFECHAS 0 {'7' * 5000}\tx\n".encode())])
    refused(db, lambda: import_upload(db, pid, "d.zip", zipped, "brat", user="ana"), path="d.zip!d.ann", line=1,
            match="too large")


def _overlapping_inputs() -> dict[str, tuple[str, bytes, str, int]]:
    """fmt -> (upload name, bytes, the path the error must name, the line)."""
    s, e = NAME_SPAN
    brat_ann = ann([("FECHAS", *DATE_SPAN), ("NOMBRE_SUJETO_ASISTENCIA", s, e),
                    ("NOMBRE_SUJETO_ASISTENCIA", s, s + 3)])
    brat = make_zip([("o/d1.txt", TEXT.encode()), ("o/d1.ann", b""), ("o/d2.txt", TEXT.encode()),
                     ("o/d2.ann", brat_ann)])
    tags = (f'<NAME id="T1" start="{s}" end="{e}" TYPE="NOMBRE_SUJETO_ASISTENCIA"/>\n'
            f'<NAME id="T2" start="{s + 2}" end="{e + 2}" TYPE="NOMBRE_SUJETO_ASISTENCIA"/>\n')
    xml = (f"<?xml version='1.0' encoding='UTF-8'?>\n<MEDDOCAN>\n<TEXT><![CDATA[{TEXT}]]></TEXT>\n<TAGS>\n{tags}"
           "</TAGS>\n</MEDDOCAN>\n").encode()
    spans = [{"start": s, "end": e, "label": "NOMBRE_SUJETO_ASISTENCIA"}, {"start": s, "end": s + 2, "label": "FECHAS"}]
    jsonl = (json.dumps({"text": TEXT, "meta": {"id": "o1"}}) + "\n\n"
             + json.dumps({"text": TEXT, "meta": {"id": "o2"}, "spans": spans}) + "\n").encode()
    xml_lines = xml.decode().split("\n")
    return {
        "brat": ("ov.zip", brat, "ov.zip!o/d2.ann", 3),
        "xml": ("ov.xml", xml, "ov.xml", next(i for i, ln in enumerate(xml_lines, 1) if 'id="T2"' in ln)),
        "jsonl": ("ov.jsonl", jsonl, "ov.jsonl", 3),
    }


@pytest.mark.parametrize("fmt", ["brat", "xml", "jsonl"])
def test_defect_13_overlap_errors_name_the_file_and_line(env, tmp_path: Path, fmt: str, capsys) -> None:
    """Defect 13: overlapping spans were refused by the store, naming a document but no file or
    line. The reader now refuses them (still a SpanError), naming the file and the line."""
    db, pid = env
    name, data, where, line = _overlapping_inputs()[fmt]
    e = refused(db, lambda: import_upload(db, pid, name, data, fmt, user="ana"), kind=SpanOverlapError,
                path=where, line=line, match=r"span \d+-\d+ .* overlaps span \d+-\d+")
    assert isinstance(e, SpanError)
    # the command line: one line on stderr with the file (on disk) and line
    src = tmp_path / name
    src.write_bytes(data)
    rc, out, err = cli(["import", str(src), "--format", fmt, "--db", str(tmp_path / "c.db"), "--project", "c",
                        "--schema", "meddocan"], capsys)
    assert rc == 1 and err.count("\n") == 1 and f":{line}: span " in err and str(src) in err, err
    assert MARKER not in out + err
    # allowed on request: nothing refused
    assert import_upload(db, pid, name, data, fmt, user="ana", allow_overlap=True).spans >= 2


def test_defect_13_control_characters_in_member_and_upload_names_stay_on_one_line(env, tmp_path: Path,
                                                                                  capsys) -> None:
    """Defect 13: a newline in a zip member's or an upload's name split the message over lines
    (and could forge a second 'error:' line)."""
    db, pid = env
    forged = "a\nerror: all good\r\x1b[2J.txt"
    bad_ann = f"T1\tFECHAS 0 {len(TEXT) + 9}\tx\n".encode()
    data = make_zip([(forged, TEXT.encode()), (forged[:-4] + ".ann", bad_ann)])
    e = refused(db, lambda: import_upload(db, pid, "notes.zip", data, "brat", user="ana"))
    assert "\\n" in str(e) and "\\x1b" in str(e), "the control characters should be shown escaped"
    # the upload's own name
    e = refused(db, lambda: import_upload(db, pid, "scan\nerror: fine.txt", b"\x00\x01junk", "text", user="ana"),
                path="scanerror: fine.txt")
    # a member name in the nested-archive check
    nested = make_zip([("x\n.zip", b"PK\x05\x06" + b"\x00" * 18), ("a.txt", TEXT.encode())])
    refused(db, lambda: import_upload(db, pid, "n.zip", nested, "text", user="ana"), path="n.zip!x\\n.zip")
    # and on the command line: exactly one line on stderr
    z = tmp_path / "notes.zip"
    z.write_bytes(data)
    rc, out, err = cli(["import", str(z), "--format", "brat", "--db", str(tmp_path / "c.db"), "--project", "c",
                        "--schema", "meddocan"], capsys)
    assert rc == 1 and err.count("\n") == 1 and "\r" not in err and "\x1b" not in err, repr(err)
    assert one_line("a\u2028b\x85c") == "a\\u2028b\\x85c"


# --------------------------------------------------------------------------- defect 14: label and id columns

def test_defect_14_brat_label_and_id_columns_are_never_echoed(env, tmp_path: Path, capsys) -> None:
    """Defect 14: a patient's name typed into brat's label or id column came back on stderr (it
    looked like a label to ``safe_label``). The error names the column and the line instead."""
    db, pid = env
    s, e = NAME_SPAN
    cases = {
        "label": (f"T1\tFECHAS {DATE_SPAN[0]} {DATE_SPAN[1]}\t12/03/2019\nT2\t{MARKER} {s} {e}\t{MARKER}\n", 2,
                  r"label \(second column\) is not in schema 'meddocan'"),
        "id-discontinuous": (f"T{MARKER}\tNOMBRE_SUJETO_ASISTENCIA {s} {s + 2};{s + 3} {e}\t{MARKER}\n", 1,
                             r"discontinuous"),
        "id-malformed": (f"T{MARKER}\tNOMBRE_SUJETO_ASISTENCIA {s}\t{MARKER}\n", 1, r"second column"),
    }
    for case, (ann_text, line, match) in cases.items():
        data = make_zip([("d.txt", TEXT.encode()), ("d.ann", ann_text.encode())])
        refused(db, lambda: import_upload(db, pid, f"{case}.zip", data, "brat", user="ana"),
                path=f"{case}.zip!d.ann", line=line, match=match)
        folder = tmp_path / case
        folder.mkdir()
        (folder / "d.txt").write_text(TEXT, encoding="utf-8")
        (folder / "d.ann").write_text(ann_text, encoding="utf-8")
        rc, out, err = cli(["import", str(folder), "--format", "brat", "--db", str(tmp_path / "c.db"),
                            "--project", "c", "--schema", "meddocan"], capsys)
        assert rc == 1 and f"d.ann:{line}:" in err and MARKER not in out + err, case


def test_defect_14_xml_and_jsonl_label_fields_are_never_echoed(env) -> None:
    db, pid = env
    s, e = NAME_SPAN
    for tag in (f'<NAME id="T1" start="{s}" end="{e}" TYPE="{MARKER}"/>',
                f'<{MARKER} id="T1" start="{s}" end="{e}" TYPE="NOMBRE_SUJETO_ASISTENCIA"/>',
                f'<{MARKER} id="T1" start="{s}" end="{e}"/>'):
        xml = (f"<?xml version='1.0' encoding='UTF-8'?>\n<MEDDOCAN>\n<TEXT><![CDATA[{TEXT}]]></TEXT>\n<TAGS>\n"
               f"{tag}\n</TAGS>\n</MEDDOCAN>\n").encode()
        refused(db, lambda: import_upload(db, pid, "x.xml", xml, "xml", user="ana"), path="x.xml", line=7)
    for span in ({"label": MARKER}, {"type": MARKER}, {"category": MARKER, "type": "NOMBRE_SUJETO_ASISTENCIA"}):
        data = json.dumps({"text": TEXT, "spans": [{"start": s, "end": e, **span}]}).encode()
        refused(db, lambda: import_upload(db, pid, "j.jsonl", data, "jsonl", user="ana"), path="j.jsonl", line=1)
    # a repeated meta.id is named by the line it was first used on, not by its value
    rows = [json.dumps({"text": TEXT, "meta": {"id": MARKER}}), json.dumps({"text": TEXT, "meta": {"id": MARKER}})]
    refused(db, lambda: import_upload(db, pid, "r.jsonl", "\n".join(rows).encode(), "jsonl", user="ana"),
            path="r.jsonl", line=2, match=r"repeats the one at r\.jsonl:1")


def test_defect_14_safe_label_quotes_only_known_values() -> None:
    assert safe_label(MARKER) == "(a value that is not a known label)"
    assert MARKER not in safe_label(MARKER, MEDDOCAN.types)
    assert safe_label("FECHAS", MEDDOCAN.types) == "'FECHAS'"


# --------------------------------------------------------------------------- defect 15: unwritable names

BAD_IDS = ["../../x", "/etc/x", "a/../b", "a//b", "./a", "a/", "a\nb", "tab\there", "a\\b", "C:x", "x" * 300]


def test_defect_15_jsonl_ids_the_writers_cannot_write_are_refused_at_import(env) -> None:
    """Defect 15: such ids were imported, and then every export of the project failed."""
    db, pid = env
    for bad in BAD_IDS:
        rows = [json.dumps({"text": TEXT, "meta": {"id": "fine"}}), json.dumps({"text": TEXT, "meta": {"id": bad}})]
        e = refused(db, lambda: import_upload(db, pid, "ids.jsonl", "\n".join(rows).encode(), "jsonl", user="ana"),
                    path="ids.jsonl", line=2, match=r"cannot be used as a file name")
        if len(bad) > 3:
            assert bad not in str(e), "the id is quoted"


def test_defect_15_names_differing_only_in_case_are_refused(env, tmp_path: Path) -> None:
    db, pid = env
    # in one zip (file names): the second file is named, with the first
    data = make_zip([("n/Note.txt", TEXT.encode()), ("n/note.txt", TEXT.encode())])
    refused(db, lambda: import_upload(db, pid, "c.zip", data, "text", user="ana"), path="c.zip!n/note.txt",
            match=r"differs only in letter case")
    # in one JSONL file
    rows = [json.dumps({"text": TEXT, "meta": {"id": "N1"}}), json.dumps({"text": TEXT, "meta": {"id": "n1"}})]
    refused(db, lambda: import_upload(db, pid, "c.jsonl", "\n".join(rows).encode(), "jsonl", user="ana"),
            path="c.jsonl", line=2)
    # a new name against one already in the project (the seed stored doc0): the store refuses, in one transaction
    refused(db, lambda: import_upload(db, pid, "DOC0.txt", TEXT.encode(), "text", user="ana"), kind=DuplicateError,
            match=r"differ only in letter case")
    # and in one batch handed to the store directly
    before = counts(db)
    with pytest.raises(DuplicateError, match="differ only in letter case"):
        store.add_documents(db, pid, [Document("Ñu", TEXT), Document("ñu", TEXT)], user="ana")
    assert counts(db) == before


def test_defect_15_zip_member_names_the_writers_cannot_write_are_refused(env) -> None:
    db, pid = env
    for member in ["a\nb.txt", "dir\x07/a.txt", "x" * 300 + ".txt"]:
        data = make_zip([(member, TEXT.encode()), ("fine.txt", TEXT.encode())])
        refused(db, lambda: import_upload(db, pid, "m.zip", data, "text", user="ana"),
                match=r"cannot be used as a document name")


def test_defect_15_what_is_accepted_can_be_exported(env, tmp_path: Path) -> None:
    """The other side: nested names, spaces, accents and dots import and export (brat and XML)."""
    db, pid = env
    rows = [json.dumps({"text": TEXT, "meta": {"id": i}, "spans": [{"start": DATE_SPAN[0], "end": DATE_SPAN[1],
                                                                     "label": "FECHAS"}]})
            for i in ("ward 7/nota.1", "ward 7/Señal", "x.y.z", "UPPER")]
    summary = import_upload(db, pid, "ok.jsonl", "\n".join(rows).encode(), "jsonl", user="ana")
    assert summary.documents == 4
    from services.exports import export_layer
    project = store.get_project(db, pid)
    for fmt in ("brat", "xml", "text"):
        assert export_layer(db, "ana", project, tmp_path / fmt, fmt).documents == 5


# --------------------------------------------------------------------------- defect 3: private files

def _modes(root: Path) -> tuple[dict[str, int], dict[str, int]]:
    files: dict[str, int] = {}
    dirs: dict[str, int] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for names, into in ((dirnames, dirs), (filenames, files)):
            for name in names:
                p = Path(dirpath) / name
                into[p.relative_to(root).as_posix()] = stat.S_IMODE(p.stat().st_mode)
    return files, dirs


@pytest.mark.parametrize("fmt", ["brat", "xml", "jsonl", "text", "conll"])
def test_defect_3_writers_create_owner_only_files_whatever_the_umask(tmp_path: Path, fmt: str) -> None:
    """Defect 3 (the writers' part): with the usual umask 022, exported notes were world-readable."""
    docs = [Document("ward/sub/n1", TEXT, [Span("ward/sub/n1", *DATE_SPAN, "DATE", "FECHAS")]),
            Document("n2", TEXT, [])]
    out = tmp_path / "export" / "deeper"
    old = os.umask(0o022)
    try:
        written = write_collection(docs, out, fmt)
        # an existing file is rewritten owner-only too (O_CREAT's mode applies to new files only)
        victim = written[0]
        os.chmod(victim, 0o644)
        write_collection(docs, out, fmt)
    finally:
        os.umask(old)
    files, dirs = _modes(tmp_path / "export")
    assert files and all(m == 0o600 for m in files.values()), {k: oct(v) for k, v in files.items()}
    assert all(m == 0o700 for m in dirs.values()), {k: oct(v) for k, v in dirs.items()}
    assert stat.S_IMODE((tmp_path / "export").stat().st_mode) == 0o700


def test_defect_3_writers_leave_existing_folders_alone_and_refuse_links(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir(mode=0o755)
    os.chmod(out, 0o755)
    (tmp_path / "target.txt").write_text("x", encoding="utf-8")
    (out / "n2.txt").symlink_to(tmp_path / "target.txt")
    old = os.umask(0o022)
    try:
        with pytest.raises(OSError):
            write_collection([Document("n2", TEXT)], out, "text")
    finally:
        os.umask(old)
    assert (tmp_path / "target.txt").read_text(encoding="utf-8") == "x", "the link was followed"
    assert stat.S_IMODE(out.stat().st_mode) == 0o755, "a folder the caller made was changed"
