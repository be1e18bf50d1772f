"""Faults and attacks on the write paths: racing saves, hostile uploads, a locked database file.

Every refusal must be a user error (``is_user_error``), name the file (and line where there is
one), quote no document text (inputs carry the marker ``ZQXPATIENTNAME``, which must never
show up in a message or on stdout/stderr) and leave the store's row counts exactly as they
were. Nothing here prints document text.
"""
from __future__ import annotations

import io
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

import store
from pipeline.errors import FormatError, PermissionDenied, StoreBusyError, is_user_error
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Span, SpanError
from pipeline.formats.uploads import MiB, UploadLimits, read_upload
from services.imports import import_upload
from store.errors import DuplicateError, NotFoundError

REPO = Path(__file__).resolve().parents[1]
MARKER = "ZQXPATIENTNAME"
TEXT = (f"Paciente: {MARKER} Pérez, 53 años.\n"
        f"Ingresa el 12/03/2019 en el Hospital {MARKER} de Madrid.\n"
        "Teléfono 915 555 123.\n")
TABLES = ("projects", "documents", "layers", "spans", "audit_log")


def marker_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, label) of every marker occurrence plus the date: real, valid spans."""
    out = [(m.start(), m.end(), "NOMBRE_SUJETO_ASISTENCIA") for m in re.finditer(MARKER, text)]
    d = text.index("12/03/2019")
    out.append((d, d + 10, "FECHAS"))
    return sorted(out)


def ann_for(text: str, spans: list[tuple[int, int, str]]) -> str:
    return "".join(f"T{i}\t{lab} {s} {e}\t{text[s:e]}\n" for i, (s, e, lab) in enumerate(spans, 1))


def make_zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def brat_zip(n: int = 3, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    members = {}
    for i in range(n):
        members[f"notes/doc{i}.txt"] = TEXT.encode()
        members[f"notes/doc{i}.ann"] = ann_for(TEXT, marker_spans(TEXT)).encode()
    return make_zip(members, method)


def xml_doc(text: str = TEXT) -> bytes:
    tags = "".join(f'<NAME id="T{i}" start="{s}" end="{e}" text="{text[s:e]}" TYPE="{lab}"/>\n'
                   for i, (s, e, lab) in enumerate(marker_spans(text)) if lab.startswith("NOMBRE"))
    return (f"<?xml version='1.0' encoding='UTF-8'?>\n<MEDDOCAN>\n<TEXT><![CDATA[{text}]]></TEXT>\n"
            f"<TAGS>\n{tags}</TAGS>\n</MEDDOCAN>\n").encode()


def counts(db) -> dict[str, int]:
    return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


@pytest.fixture
def env(tmp_path: Path):
    """A store with one project holding one document, so 'nothing written' is checked against
    non-zero counts."""
    path = tmp_path / "wb.db"
    db = store.connect(path)
    pid = store.create_project(db, "p", MEDDOCAN)
    import_upload(db, pid, "seed.zip", brat_zip(1), "brat", user="seed")
    yield db, pid, path
    db.close()


def refused(db, fn, *, kind=FormatError, match: str, path: str | None = None, line: int | None = None):
    """Run ``fn``; it must raise ``kind`` (a user error) matching ``match``, naming ``path`` and
    ``line``, quoting no text, and writing nothing."""
    before = counts(db)
    with pytest.raises(kind) as info:
        fn()
    e = info.value
    msg = str(e)
    assert is_user_error(e), type(e).__name__
    assert re.search(match, msg), msg
    assert MARKER not in msg and "Pérez" not in msg
    assert "wb-upload-" not in msg and "/tmp/" not in msg, msg  # the temporary copy is never named
    if path is not None:
        assert isinstance(e, FormatError) and e.path == path, msg
    if line is not None:
        assert e.line == line, msg
    assert counts(db) == before
    return e


# --------------------------------------------------------------------------- two annotators, one document

SAVER = r"""
import json, sys, time
from pathlib import Path
import store
from pipeline.errors import StaleSaveError
from pipeline.spans import Span
path, doc, user, go, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5])
spans = [Span(str(doc), s, e, "NAME", "NOMBRE_SUJETO_ASISTENCIA", "human:" + user) for s, e in json.loads(sys.argv[6])]
db = store.connect(path)
layer = "annotator:shared"
version = store.read_layer(db, doc, layer).version
ready.write_text("1")
deadline = time.monotonic() + 60
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.005)
try:
    new = store.save_layer(db, doc, layer, spans, expected_version=version, user=user)
    print(json.dumps({"result": "saved", "version": new}))
except StaleSaveError as e:
    print(json.dumps({"result": "stale", "message": str(e), "started_from": version,
                      "in_hand": [[s.start, s.end, s.source] for s in spans]}))
"""


def test_two_annotators_in_two_processes_saving_one_document_one_wins_nothing_lost(env, tmp_path):
    db, pid, path = env
    doc = store.list_documents(db, pid)[0].id
    go = tmp_path / "go"
    wanted = {"ana": [[10, 24], [96, 106]], "bob": [[10, 24], [85, 95]]}
    procs = {}
    for user, spans in wanted.items():
        procs[user] = subprocess.Popen(
            [sys.executable, "-c", SAVER, str(path), str(doc), user, str(go), str(tmp_path / f"ready-{user}"),
             json.dumps(spans)],
            cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready-{u}").exists() for u in wanted) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.write_text("go")  # both hold version 0 in hand; release them together
    out = {}
    for user, p in procs.items():
        stdout, stderr = p.communicate(timeout=60)
        assert p.returncode == 0, stderr[-2000:]
        assert MARKER not in stdout and MARKER not in stderr
        out[user] = json.loads(stdout.strip().splitlines()[-1])
    results = sorted(r["result"] for r in out.values())
    assert results == ["saved", "stale"], out
    winner = next(u for u, r in out.items() if r["result"] == "saved")
    loser = next(u for u, r in out.items() if r["result"] == "stale")
    assert out[winner]["version"] == 1
    # the winner's spans are stored intact
    state = store.read_layer(db, doc, "annotator:shared")
    assert state.version == 1
    assert [[s.start, s.end, s.source] for s in state.spans] == [[s, e, f"human:{winner}"] for s, e in wanted[winner]]
    # the loser was told who saved, in words, and still holds every span it meant to save
    msg = out[loser]["message"]
    assert f"saved by {winner}" in msg and "not saved" in msg and MARKER not in msg
    assert out[loser]["in_hand"] == [[s, e, f"human:{loser}"] for s, e in wanted[loser]]
    # ... so reloading and saving the merge on top of version 1 loses nothing
    merged = {(s.start, s.end): s for s in state.spans}
    for s, e, src in out[loser]["in_hand"]:
        merged.setdefault((s, e), Span(str(doc), s, e, "NAME", "NOMBRE_SUJETO_ASISTENCIA", src))
    assert store.save_layer(db, doc, "annotator:shared", list(merged.values()), expected_version=1, user=loser) == 2
    final = store.read_layer(db, doc, "annotator:shared")
    assert {(s.start, s.end) for s in final.spans} == {tuple(x) for v in wanted.values() for x in v}


# --------------------------------------------------------------------------- corrupt and truncated uploads

def test_truncated_zip_is_refused_naming_the_upload(env):
    db, pid, _ = env
    data = brat_zip()
    refused(db, lambda: import_upload(db, pid, "notes.zip", data[: len(data) // 2], "brat", user="ana"),
            match=r"not a readable zip archive.*truncated", path="notes.zip")


def _corrupt_member(data: bytes, member: str) -> bytes:
    """Overwrite the middle of one member's compressed bytes, keeping the archive's directory."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo(member)
    header = 30 + len(info.filename.encode()) + len(info.extra)
    start = info.header_offset + header + info.compress_size // 3
    rng = random.Random(7)
    junk = bytes(rng.randrange(256) for _ in range(max(8, info.compress_size // 3)))
    return data[:start] + junk + data[start + len(junk):]


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED], ids=["deflated", "stored"])
def test_zip_with_a_damaged_member_is_refused_naming_the_member(env, method):
    """A damaged deflate stream used to escape as a raw ``zlib.error`` (fixed in _sources)."""
    db, pid, _ = env
    data = _corrupt_member(brat_zip(method=method), "notes/doc1.txt")
    refused(db, lambda: import_upload(db, pid, "notes.zip", data, "brat", user="ana"),
            match=r"cannot be read from the archive \((corrupt compressed data|BadZipFile)\)",
            path="notes.zip!notes/doc1.txt")


def test_truncated_xml_is_refused_with_file_and_line(env):
    db, pid, _ = env
    data = xml_doc()
    cut = data[: data.index(b"<TAGS>") + 40]
    e = refused(db, lambda: import_upload(db, pid, "note.xml", cut, "xml", user="ana"),
                match=r"malformed XML", path="note.xml")
    assert e.line is not None and e.line >= 5


# --------------------------------------------------------------------------- zip bombs

def test_zip_bomb_high_ratio_member_is_refused_before_inflating(env):
    db, pid, _ = env
    bomb = make_zip({"a.txt": b"a" * (30 * MiB)})
    assert len(bomb) < 100_000
    refused(db, lambda: import_upload(db, pid, "bomb.zip", bomb, "text", user="ana"),
            match=r"expands \d+x .*zip bomb", path="bomb.zip")


def test_zip_bomb_many_files_is_refused(env):
    db, pid, _ = env
    many = make_zip({f"n/{i}.txt": f"nota {i} {MARKER}".encode() for i in range(51)})
    refused(db, lambda: import_upload(db, pid, "many.zip", many, "text", user="ana",
                                      limits=UploadLimits(max_files=50)),
            match=r"more than 50 files", path="many.zip")


def test_zip_bomb_total_expansion_is_refused(env):
    """Members each under the ratio check, together far beyond the total bound."""
    db, pid, _ = env
    members = {f"{i}.txt": (TEXT * 20_000)[:900_000].encode() for i in range(6)}
    refused(db, lambda: import_upload(db, pid, "big.zip", make_zip(members), "text", user="ana",
                                      limits=UploadLimits(max_total_bytes=4_000_000)),
            match=r"expands to more than 4000000 bytes", path="big.zip")


def test_nested_zip_is_refused_not_silently_skipped(env):
    db, pid, _ = env
    inner = brat_zip(1)
    outer = make_zip({"outer/inner.zip": inner, "outer/doc9.txt": TEXT.encode(), "outer/doc9.ann": b""})
    refused(db, lambda: import_upload(db, pid, "outer.zip", outer, "brat", user="ana"),
            match=r"archives inside an archive are refused", path="outer.zip!outer/inner.zip")


# --------------------------------------------------------------------------- size limit

def test_upload_over_50_mib_is_refused_before_parsing(env):
    db, pid, _ = env
    data = b"a" * (50 * MiB + 1)
    refused(db, lambda: import_upload(db, pid, "huge.txt", data, "text", user="ana"),
            match=r"upload is too large \(52428801 bytes; the limit is 52428800 bytes\)", path="huge.txt")


def test_upload_of_exactly_50_mib_is_accepted(env):
    db, pid, _ = env
    line = f"Paciente {MARKER} con dolor abdominal de tres días.\n".encode()
    data = (line * (50 * MiB // len(line) + 1))[: 50 * MiB]
    data = data[: data.rindex(b"\n") + 1]  # whole characters
    before = counts(db)
    summary = import_upload(db, pid, "big.txt", data, "text", user="ana")
    assert summary.documents == 1 and summary.spans == 0 and summary.layer is None
    stored = db.execute("SELECT length(CAST(text AS BLOB)), name, source_file FROM documents WHERE id = ?",
                        [summary.doc_ids[0]]).fetchone()
    assert stored == (len(data), "big", "big.txt")
    after = counts(db)
    assert (after["documents"], after["layers"], after["spans"]) == (
        before["documents"] + 1, before["layers"], before["spans"])


def test_size_limit_is_configurable(env):
    db, pid, _ = env
    refused(db, lambda: import_upload(db, pid, "a.txt", TEXT.encode(), "text", user="ana",
                                      limits=UploadLimits(max_upload_bytes=50)),
            match=r"too large .*limit is 50 bytes", path="a.txt")


# --------------------------------------------------------------------------- binary junk

def test_binary_junk_is_refused_with_file_and_line(env):
    db, pid, _ = env
    rng = random.Random(3)
    junk = b"%PDF-1.4\n" + bytes(rng.randrange(256) for _ in range(4096))
    nul_line = junk[: junk.index(b"\x00")].count(b"\n") + 1
    for fmt in ("text", "xml", "jsonl"):
        refused(db, lambda: import_upload(db, pid, "scan.txt", junk, fmt, user="ana"),
                match=r"binary data \(a NUL byte", path="scan.txt", line=nul_line)


def test_invalid_utf8_is_refused_with_its_line(env):
    db, pid, _ = env
    latin1 = f"línea uno\n{MARKER} línea dos\n".encode("latin-1")
    refused(db, lambda: import_upload(db, pid, "latin1.txt", latin1, "text", user="ana"),
            match=r"not valid UTF-8", path="latin1.txt", line=1)


def test_binary_member_of_a_zip_is_refused_naming_member_and_line(env):
    db, pid, _ = env
    data = make_zip({"a.txt": TEXT.encode(), "b.txt": f"{MARKER}\nok\n\x00\x01\x02".encode()})
    refused(db, lambda: import_upload(db, pid, "mixed.zip", data, "text", user="ana"),
            match=r"binary data \(a NUL character\)", path="mixed.zip!b.txt", line=3)


def test_jsonl_nul_escape_is_refused_naming_the_document(env):
    """Named by file and line, not by its ``meta.id`` (defect 14: ids read from a file are never echoed)."""
    db, pid, _ = env
    data = (json.dumps({"text": TEXT, "meta": {"id": "n1"}}) + "\n"
            + json.dumps({"text": MARKER + "\u0000", "meta": {"id": "n2"}}) + "\n").encode()
    e = refused(db, lambda: import_upload(db, pid, "n.jsonl", data, "jsonl", user="ana"),
                match=r"holds binary data \(a NUL character\)", path="n.jsonl", line=2)
    assert "n2" not in str(e)


def test_jsonl_lone_surrogate_and_deep_nesting_are_refused_not_crashing_the_store(env):
    """Both used to pass the reader and fail later: a UnicodeEncodeError inside the store (an
    unsurrogated ``\\ud800`` escape) or a RecursionError (``[[[[...``); now FormatErrors with lines."""
    db, pid, _ = env
    ok = json.dumps({"text": TEXT, "meta": {"id": "ok1"}})
    surrogate = '{"text": "' + MARKER + ' \\ud800", "meta": {"id": "s1"}}'
    deep = '{"text": "' + MARKER + '", "meta": {"x": ' + "[" * 50_000 + "]" * 50_000 + "}}"
    deepish = '{"text": "' + MARKER + '", "meta": {"x": ' + "[" * 900 + "]" * 900 + "}}"
    for bad, match in [(surrogate, r"unpaired surrogate"), (deep, r"nested more than 64 levels"),
                       (deepish, r"nested more than 64 levels")]:
        data = "\n".join([ok, bad]).encode()
        refused(db, lambda: import_upload(db, pid, "s.jsonl", data, "jsonl", user="ana"),
                match=match, path="s.jsonl", line=2)


# --------------------------------------------------------------------------- bad spans: no partial write

def test_brat_offsets_beyond_the_text_refused_with_ann_file_and_line(env):
    db, pid, _ = env
    spans = marker_spans(TEXT)
    bad = "".join([f"T1\t{spans[0][2]} {spans[0][0]} {spans[0][1]}\t{MARKER}\n",
                   f"T2\tFECHAS 40 {len(TEXT) + 500}\t12/03/2019\n"])
    members = {}
    for i in range(3):  # doc0 and doc2 are fine: none of them may be stored
        members[f"doc{i}.txt"] = TEXT.encode()
        members[f"doc{i}.ann"] = (bad if i == 1 else ann_for(TEXT, spans)).encode()
    refused(db, lambda: import_upload(db, pid, "batch.zip", make_zip(members), "brat", user="ana"),
            match=rf"span 40-{len(TEXT) + 500} lies outside the text \(length {len(TEXT)}\)",
            path="batch.zip!doc1.ann", line=2)


def test_jsonl_bad_last_line_writes_nothing(env):
    db, pid, _ = env
    good = {"text": TEXT, "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in marker_spans(TEXT)]}
    lines = [json.dumps({**good, "meta": {"id": f"j{i}"}}) for i in range(2)]
    lines.append(json.dumps({"text": TEXT, "meta": {"id": "j2"}, "spans": [{"start": 5, "end": 3, "label": "FECHAS"}]}))
    refused(db, lambda: import_upload(db, pid, "b.jsonl", "\n".join(lines).encode(), "jsonl", user="ana"),
            match=r"span 5-3 lies outside the text .*or is empty", path="b.jsonl", line=3)


def test_store_stage_refusals_write_nothing(env):
    db, pid, _ = env
    # a name already in the project (the seed imported doc0)
    refused(db, lambda: import_upload(db, pid, "again.zip", brat_zip(2), "brat", user="ana"),
            kind=DuplicateError, match=r"already has documents named doc0")
    # overlapping spans are refused by the reader, naming the file and line (defect 13), and the
    # error is still a SpanError for callers that catch the store's
    s = marker_spans(TEXT)[0]
    ann = f"T1\tNOMBRE_SUJETO_ASISTENCIA {s[0]} {s[1]}\t{MARKER}\nT2\tNOMBRE_SUJETO_ASISTENCIA {s[0]} {s[0] + 3}\tZQX\n"
    zipped = make_zip({"o1.txt": TEXT.encode(), "o1.ann": b"", "o2.txt": TEXT.encode(), "o2.ann": ann.encode()})
    refused(db, lambda: import_upload(db, pid, "ov.zip", zipped, "brat", user="ana"), kind=SpanError,
            match=rf"span {s[0]}-{s[0] + 3} .* overlaps span {s[0]}-{s[1]} .* on line 1", path="ov.zip!o2.ann",
            line=2)
    assert import_upload(db, pid, "ov.zip", zipped, "brat", user="ana", allow_overlap=True).spans == 2
    refused(db, lambda: import_upload(db, 999, "a.txt", TEXT.encode(), "text", user="ana"), kind=NotFoundError,
            match=r"project 999")


def test_only_a_lead_may_import(env):
    db, pid, _ = env
    annotator = store.User(id=5, username="ana", role="annotator", created_at="")
    refused(db, lambda: import_upload(db, pid, "a.txt", TEXT.encode(), "text", user=annotator),
            kind=PermissionDenied, match=r"ana \(annotator\) may not import")
    lead = store.User(id=6, username="lea", role="lead", created_at="")
    summary = import_upload(db, pid, "a.txt", TEXT.encode(), "text", user=lead)
    assert summary.documents == 1
    assert store.list_audit(db, doc_id=summary.doc_ids[0])[0].user == "lea"


def test_brat_needs_a_zip_and_paths_in_names_are_dropped(env):
    db, pid, _ = env
    refused(db, lambda: import_upload(db, pid, "doc.txt", TEXT.encode(), "brat", user="ana"),
            match=r"upload a \.zip", path="doc.txt")
    summary = import_upload(db, pid, "../../etc/notes.txt", TEXT.encode(), "text", user="ana")
    rec = store.get_document(db, summary.doc_ids[0])
    assert (rec.name, rec.source_file) == ("notes", "notes.txt")


@pytest.mark.parametrize("filename,stored", [
    ("../../etc/notes.txt", "notes.txt"), ("C:\\Users\\x\\n.txt", "n.txt"), ("", "upload"), ("..", "upload"),
    ("a" * 1000 + ".txt", "a" * 146 + ".txt"), ("ñ" * 300 + ".txt", "ñ" * 73 + ".txt"), ("x\ud800.txt", "x?.txt"),
    ("nul\x00.txt", "nul.txt"),
], ids=["parent", "windows", "empty", "dotdot", "long", "long-multibyte", "surrogate", "nul"])
def test_odd_upload_names_are_reduced_to_a_safe_base_name(env, filename, stored):
    db, pid, _ = env
    summary = import_upload(db, pid, filename, TEXT.encode(), "text", user="ana")
    rec = store.get_document(db, summary.doc_ids[0])
    assert rec.source_file == stored and summary.filename == stored


def test_read_upload_returns_documents_without_storing(env):
    db, _, _ = env
    before = counts(db)
    docs = read_upload("notes.zip", brat_zip(2), "brat", MEDDOCAN)
    assert [d.doc_id for d in docs] == ["doc0", "doc1"]
    assert [(s.start, s.end, s.type) for s in docs[0].spans] == marker_spans(TEXT)
    assert docs[0].source_file == "notes.zip!notes/doc0.txt"
    assert counts(db) == before


# --------------------------------------------------------------------------- a locked database file

HOLDER = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()          # hold the lock until told (or until stdin closes)
conn.execute("ROLLBACK")
print("released", flush=True)
"""


def _hold_lock(path: Path) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder


def _release(holder: subprocess.Popen) -> None:
    try:
        holder.stdin.write("go\n")
        holder.stdin.flush()
        holder.communicate(timeout=30)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def _cli(args: list[str], retry_s: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO), "WORKBENCH_BUSY_RETRY_S": retry_s, "WORKBENCH_USER": "t"}
    return subprocess.Popen([sys.executable, "-m", "pipeline", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def cli_env(env, tmp_path):
    db, pid, path = env
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(3):
        (notes / f"n{i}.txt").write_text(TEXT, encoding="utf-8")
    return db, path, notes


def test_cli_import_waits_out_a_short_lock_and_says_so(cli_env):
    db, path, notes = cli_env
    before = counts(db)
    holder = _hold_lock(path)
    cli = _cli(["import", str(notes), "--format", "text", "--db", str(path), "--project", "p"], "60")
    stderr_lines: list[str] = []
    retrying = threading.Event()

    def read_stderr() -> None:
        for line in cli.stderr:
            stderr_lines.append(line)
            if "retrying" in line:
                retrying.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert retrying.wait(timeout=60), "".join(stderr_lines)[-2000:]
    finally:
        _release(holder)  # the lock goes away while the CLI is retrying
    stdout = cli.stdout.read()
    assert cli.wait(timeout=60) == 0, "".join(stderr_lines)[-2000:]
    reader.join(timeout=10)
    stderr = "".join(stderr_lines)
    assert re.search(r"the database wb\.db is locked by another connection; retrying for up to [\d.]+ s", stderr)
    assert "Traceback" not in stderr and MARKER not in stderr and MARKER not in stdout
    assert "imported 3 documents" in stdout
    after = counts(db)
    assert after["documents"] == before["documents"] + 3 and after["spans"] == before["spans"]


def test_cli_import_gives_up_after_the_retry_window_with_exit_1_and_writes_nothing(cli_env):
    db, path, notes = cli_env
    before = counts(db)
    holder = _hold_lock(path)
    try:
        cli = _cli(["import", str(notes), "--format", "text", "--db", str(path), "--project", "p"], "0.5")
        stdout, stderr = cli.communicate(timeout=120)
    finally:
        _release(holder)
    assert cli.returncode == 1, stderr[-2000:]
    assert "Traceback" not in stderr and MARKER not in stderr and MARKER not in stdout
    last = stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"error: the database wb\.db is busy: another connection kept it locked for [\d.]+ s; "
                        r"nothing was changed; .*", last), stderr[-2000:]
    assert counts(db) == before


def test_busy_retry_env_var_must_be_a_number(cli_env):
    _, path, notes = cli_env
    cli = _cli(["import", str(notes), "--format", "text", "--db", str(path), "--project", "p"], "soon")
    stdout, stderr = cli.communicate(timeout=60)
    assert cli.returncode == 1 and "Traceback" not in stderr
    assert "WORKBENCH_BUSY_RETRY_S must be a number of seconds" in stderr


def test_in_process_store_busy_error_from_import_upload(env):
    """The app's path: import_upload on a connection with a short retry window, file held by
    another connection -> StoreBusyError, nothing written."""
    db, pid, path = env
    mine = store.connect(path, busy_timeout_ms=50, retry_seconds=0.3)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        refused(mine, lambda: import_upload(mine, pid, "a.txt", TEXT.encode(), "text", user="ana"),
                kind=StoreBusyError, match=r"busy.*nothing was changed")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert import_upload(mine, pid, "a.txt", TEXT.encode(), "text", user="ana").documents == 1
    mine.close()
