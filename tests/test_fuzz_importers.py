"""Fuzzing every importer (text, brat, xml, jsonl), alone and through ``import_upload`` into a real
SQLite store: random bytes, mutated valid files, and random span sets (valid, overlapping, out of
range, empty, negative, mislabelled, with the wrong text).

``hypothesis`` is not installed here, so these are seeded random loops: deterministic, a few
hundred cases each, bounded in time. The properties:

* nothing but documented errors escapes (``is_user_error(e)``);
* a refused import writes nothing (row counts of projects/documents/layers/spans/audit_log are
  unchanged); an accepted one adds exactly its documents and spans;
* for generated span sets an oracle says whether the import must succeed, and the stored spans
  must equal the expected ones;
* no message, and nothing on stdout/stderr, contains the marker ``ZQXPATIENTNAME`` that the
  inputs' texts carry.
"""
from __future__ import annotations

import io
import json
import random
import tempfile
import zipfile
from collections import Counter
from pathlib import Path

import pytest

import store
from pipeline.errors import is_user_error
from pipeline.formats import READERS, read_collection, write_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span
from pipeline.formats.uploads import UploadLimits, read_upload
from services.imports import import_upload

MARKER = "ZQXPATIENTNAME"
TEXTS = [
    f"Paciente: {MARKER} Pérez, 53 años.\nIngresa el 12/03/2019 en el Hospital {MARKER}.\n",
    f"{MARKER}\n",
    f"Informe 🙂 de {MARKER}: teléfono 915 555 123;\ncorreo {MARKER.lower()}@example.org\n\n",
]
TABLES = ("projects", "documents", "layers", "spans", "audit_log")
SMALL = UploadLimits(max_upload_bytes=200_000, max_file_bytes=200_000, max_total_bytes=2_000_000, max_files=200)
VALID_LABELS = {  # label as written -> (category, type) it resolves to in MEDDOCAN
    "NOMBRE_SUJETO_ASISTENCIA": ("NAME", "NOMBRE_SUJETO_ASISTENCIA"),
    "FECHAS": ("DATE", "FECHAS"),
    "HOSPITAL": ("LOCATION", "HOSPITAL"),
    "AGE": ("AGE", "EDAD_SUJETO_ASISTENCIA"),
    "NAME": ("NAME", ""),
}
INVALID_LABELS = ["PATIENT", "FOO", "nombre", "", "NOMBRE SUJETO", "T1"]


def counts(db) -> dict[str, int]:
    return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def check_error(e: BaseException) -> str:
    if not is_user_error(e):  # name the type and the place, not the message (it may quote text)
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb else "?"
        raise AssertionError(f"{type(e).__name__} escaped at {where}") from None
    msg = str(e)
    assert MARKER not in msg and MARKER.lower() not in msg, "an error message quotes document text"
    assert "wb-upload-" not in msg
    return type(e).__name__


def make_zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


@pytest.fixture
def db(tmp_path: Path):
    d = store.connect(tmp_path / "wb.db")
    yield d
    d.close()


@pytest.fixture
def no_phi_output(capfd):
    """Nothing any case prints may contain the marker."""
    yield
    out, err = capfd.readouterr()
    assert MARKER not in out and MARKER not in err


# --------------------------------------------------------------------------- random span sets

def random_span(rng: random.Random, n: int) -> dict:
    """A span description: mostly plausible, sometimes broken in one way."""
    kind = rng.choices(["valid", "overlap_prone", "out_of_range", "empty", "negative", "reversed", "bad_label",
                        "wrong_text", "string_offsets"], weights=[10, 4, 2, 1, 1, 1, 2, 2, 1])[0]
    s = rng.randrange(max(n, 1))
    e = min(n, s + rng.randint(1, 12))
    label = rng.choice(list(VALID_LABELS))
    span = {"start": s, "end": e, "label": label, "wrong_text": False}
    if kind == "overlap_prone":
        span["start"], span["end"] = rng.choice([(0, min(n, 5)), (2, min(n, 9)), (0, n)])
    elif kind == "out_of_range":
        span["end"] = n + rng.randint(1, 50)
        span["start"] = rng.choice([s, n, n + 3])
    elif kind == "empty":
        span["end"] = span["start"]
    elif kind == "negative":
        span["start"] = -rng.randint(1, 5)
    elif kind == "reversed":
        span["start"], span["end"] = e, s
    elif kind == "bad_label":
        span["label"] = rng.choice(INVALID_LABELS)
    elif kind == "wrong_text":
        span["wrong_text"] = True
    elif kind == "string_offsets":
        span["start"] = rng.choice([str(s), f" {s} ", "1e3", "x", "3.0"])
    return span


def as_int(v) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    s = str(v).strip()
    return int(s) if s.isdigit() and s.isascii() else None


def expected(text: str, spans: list[dict], fmt: str) -> list[tuple[int, int, str, str]] | None:
    """The (start, end, category, type) the store must hold after importing, or None if the
    import must be refused."""
    out = set()
    for sp in spans:
        s, e = as_int(sp["start"]), as_int(sp["end"])
        if s is None or e is None or not (0 <= s < e <= len(text)) or sp["label"] not in VALID_LABELS:
            return None
        if sp["wrong_text"] and fmt in ("brat", "xml", "label-studio"):
            return None
        out.add((s, e, *VALID_LABELS[sp["label"]]))
    ordered = sorted(out)
    for a, b in zip(ordered, ordered[1:]):
        if b[0] < a[1]:
            return None  # the store refuses overlaps (allow_overlap is off)
    return ordered


def fragment(text: str, sp: dict) -> str:
    s, e = as_int(sp["start"]), as_int(sp["end"])
    frag = text[s:e] if s is not None and e is not None and 0 <= s <= e else "?"
    if sp["wrong_text"]:
        frag = "#" * max(len(frag), 1)
    return frag.replace("\n", " ")


def render(fmt: str, name: str, text: str, spans: list[dict]) -> tuple[str, bytes]:
    """One document with those spans as an upload (filename, bytes) in ``fmt``."""
    if fmt == "jsonl":
        rec = {"text": text, "meta": {"id": name},
               "spans": [{"start": sp["start"], "end": sp["end"], "label": sp["label"]} for sp in spans]}
        return f"{name}.jsonl", (json.dumps(rec, ensure_ascii=False) + "\n").encode()
    if fmt == "brat":
        ann = "".join(f"T{i}\t{sp['label'] or '_'} {sp['start']} {sp['end']}\t{fragment(text, sp)}\n"
                      for i, sp in enumerate(spans, 1))
        if any(sp["label"] == "" for sp in spans):  # an empty label leaves 'START END': malformed line
            ann = ann.replace("\t_ ", "\t ")
        return f"{name}.zip", make_zip({f"{name}.txt": text.encode(), f"{name}.ann": ann.encode()})
    if fmt == "xml":
        def attr(v: str) -> str:
            return (v.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
                    .replace("\n", "&#10;"))
        tags = "".join(f'<PHI id="T{i}" start="{attr(str(sp["start"]))}" end="{attr(str(sp["end"]))}" '
                       f'text="{attr(fragment(text, sp))}" TYPE="{attr(sp["label"])}"/>\n'
                       for i, sp in enumerate(spans, 1))
        body = (f"<?xml version='1.0' encoding='UTF-8'?>\n<MEDDOCAN><TEXT><![CDATA[{text}]]></TEXT>\n"
                f"<TAGS>\n{tags}</TAGS></MEDDOCAN>\n")
        return f"{name}.xml", body.encode()
    return render_interchange(fmt, name, text, spans)


def render_interchange(fmt: str, name: str, text: str, spans: list[dict]) -> tuple[str, bytes]:
    """The annotation tools' formats (Label Studio quotes each span's text, as brat and XML do)."""
    if fmt == "label-studio":
        result = [{"type": "labels", "value": {"start": sp["start"], "end": sp["end"], "text": fragment(text, sp),
                                               "labels": [sp["label"]]}} for sp in spans]
        task = {"data": {"text": text, "doc_id": name}, "annotations": [{"completed_by": 1, "result": result}]}
        return f"{name}.json", json.dumps([task], ensure_ascii=False).encode()
    if fmt == "doccano":
        rec = {"text": text, "doc_id": name, "label": [[sp["start"], sp["end"], sp["label"]] for sp in spans]}
        return f"{name}.jsonl", (json.dumps(rec, ensure_ascii=False) + "\n").encode()
    if fmt == "prodigy":
        rec = {"text": text, "meta": {"id": name}, "answer": "accept",
               "spans": [{"start": sp["start"], "end": sp["end"], "label": sp["label"]} for sp in spans]}
        return f"{name}.jsonl", (json.dumps(rec, ensure_ascii=False) + "\n").encode()
    docs = [Document(f"{name}-{i}", t, [Span("", 0, 3, "DATE", "FECHAS")]) for i, t in enumerate(TEXTS)]
    with tempfile.TemporaryDirectory() as tmp:
        [path] = write_collection(docs, tmp, fmt)   # spacy, hf-dataset: binary files from the writers
        return f"{name}{path.suffix}", path.read_bytes()


def _xml_label_ok(sp: dict) -> bool:
    # in XML an empty TYPE means "the tag is the label"; PHI is not a MEDDOCAN label either way
    return sp["label"] != ""


@pytest.mark.parametrize("fmt", ["jsonl", "brat", "xml", "label-studio", "doccano", "prodigy"])
def test_random_span_sets_through_import_upload_into_sqlite(db, fmt, no_phi_output):
    rng = random.Random(f"spans-{fmt}")
    pid = store.create_project(db, f"fuzz-{fmt}", MEDDOCAN)
    outcomes: Counter = Counter()
    for case in range(150):
        text = rng.choice(TEXTS)
        spans = [random_span(rng, len(text)) for _ in range(rng.randint(0, 6))]
        want = expected(text, spans, fmt)
        if fmt == "xml" and not all(_xml_label_ok(sp) for sp in spans):
            want = None
        filename, data = render(fmt, f"d{case}", text, spans)
        before = counts(db)
        try:
            summary = import_upload(db, pid, filename, data, fmt, user="fuzz", limits=SMALL)
        except Exception as e:  # noqa: BLE001 - every exception is checked
            outcomes[check_error(e)] += 1
            assert want is None, f"case {case}: a valid span set was refused ({type(e).__name__})"
            assert counts(db) == before, f"case {case}: a refused import wrote rows"
            continue
        outcomes["ok"] += 1
        assert want is not None, f"case {case}: an invalid span set was accepted: {spans}"
        (doc_id,) = summary.doc_ids
        stored = store.read_layer(db, doc_id, "gold")
        assert [(s.start, s.end, s.category, s.type) for s in stored.spans] == want, f"case {case}"
        after = counts(db)
        assert after["documents"] == before["documents"] + 1
        assert after["layers"] == before["layers"] + 1
        assert after["spans"] == before["spans"] + len(want)
    # the generator must exercise both sides
    assert outcomes["ok"] >= 20 and sum(v for k, v in outcomes.items() if k != "ok") >= 40, outcomes


# --------------------------------------------------------------------------- random and mutated bytes

def _seeds(meddocan_sample: Path) -> dict[str, list[tuple[str, bytes]]]:
    brat_files = sorted((meddocan_sample / "brat").iterdir())[:4]
    xml_file = sorted((meddocan_sample / "xml").iterdir())[0]
    brat = {p.name: p.read_bytes() for p in brat_files}
    text = f"Paciente {MARKER} ingresa.\r\nSegunda línea 🙂.\n".encode()
    jsonl = b"".join(render("jsonl", f"j{i}", TEXTS[i], [{"start": 0, "end": 3, "label": "FECHAS",
                                                          "wrong_text": False}])[1] for i in range(3))
    return {
        "text": [("a.txt", text), ("t.zip", make_zip({"x/a.txt": text, "x/b.txt": text}))],
        "brat": [("b.zip", make_zip(brat)), ("s.zip", make_zip(brat, zipfile.ZIP_STORED)),
                 ("m.zip", make_zip(brat, zipfile.ZIP_BZIP2)), ("l.zip", make_zip(brat, zipfile.ZIP_LZMA))],
        "xml": [("a.xml", xml_file.read_bytes()), ("x.zip", make_zip({"a.xml": xml_file.read_bytes()}))],
        "jsonl": [("a.jsonl", jsonl), ("j.zip", make_zip({"a.jsonl": jsonl}))],
        **{fmt: _interchange_seeds(fmt) for fmt in INTERCHANGE},
        **{fmt: [(f"a.{fmt}", table_seed(fmt))] for fmt in ("csv", "tsv", "parquet")},
    }


INTERCHANGE = ("label-studio", "doccano", "prodigy", "spacy", "hf-dataset")


def _interchange_seeds(fmt: str) -> list[tuple[str, bytes]]:
    span = [{"start": 0, "end": 3, "label": "FECHAS", "wrong_text": False}]
    name, data = render_interchange(fmt, "s", TEXTS[0], span)
    if fmt in ("doccano", "prodigy"):
        data = b"".join(render_interchange(fmt, f"s{i}", TEXTS[i], span)[1] for i in range(3))
    return [(name, data), ("z.zip", make_zip({name: data}))]


def table_seed(fmt: str) -> bytes:
    """A small table (id, patient, text, spans) in ``fmt``, as bytes."""
    import pandas as pd

    spans = json.dumps([{"start": 0, "end": 3, "label": "FECHAS"}])
    frame = pd.DataFrame({"id": ["t0", "t1", "t2"], "patient_id": ["p1", "p1", "p2"], "text": TEXTS,
                          "spans": [spans] * 3, "ward": ["7", "8", "9"]})
    buf = io.BytesIO()
    if fmt == "parquet":
        frame.to_parquet(buf, index=False)
    else:
        frame.to_csv(buf, sep="\t" if fmt == "tsv" else ",", index=False)
    return buf.getvalue()


def mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    op = rng.randrange(6)
    if op == 0:      # flip bytes
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif op == 1:    # truncate
        b = b[: rng.randrange(len(b))]
    elif op == 2:    # insert junk
        k = rng.randrange(len(b) + 1)
        b[k:k] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
    elif op == 3:    # delete a stretch
        k = rng.randrange(len(b))
        del b[k:k + rng.randint(1, 64)]
    elif op == 4:    # duplicate a stretch (repeated tags, lines, headers)
        k = rng.randrange(len(b))
        b[k:k] = b[k:k + rng.randint(1, 200)]
    else:            # insert structure characters
        k = rng.randrange(len(b) + 1)
        b[k:k] = rng.choice([b"\t", b"\n", b"<", b"]]>", b'"', b"{", b"\x00", b"\xef\xbb\xbf", b"\r", b";",
                             b"\\ud800", b"\\u0000", b"[" * 5000, b"&#0;", b"<!DOCTYPE x>"])
    return bytes(b)


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_mutated_uploads_only_raise_documented_errors(db, meddocan_sample, fmt, no_phi_output):
    """Mutated valid uploads through ``import_upload`` into the store: refused without a write,
    or accepted whole (documents consistent and stored)."""
    rng = random.Random(f"mutate-{fmt}")
    outcomes: Counter = Counter()
    projects = iter(range(10_000))
    pid = store.create_project(db, f"m{next(projects)}", MEDDOCAN)
    for filename, seed in _seeds(meddocan_sample)[fmt]:
        for _ in range(100):
            data = mutate(rng, seed)
            before = counts(db)
            try:
                summary = import_upload(db, pid, filename, data, fmt, user="fuzz", limits=SMALL)
            except Exception as e:  # noqa: BLE001
                outcomes[check_error(e)] += 1
                assert counts(db) == before, "a refused upload wrote rows"
                continue
            outcomes["ok"] += 1
            after = counts(db)
            assert after["documents"] == before["documents"] + summary.documents
            # spans of other layers a format names (Prodigy's unanswered examples: suggestions) too
            assert after["spans"] == before["spans"] + summary.spans + sum(summary.other_layers.values())
            docs = read_upload(filename, data, fmt, MEDDOCAN, SMALL)
            for d, doc_id in zip(docs, summary.doc_ids):  # what is accepted is consistent and stored
                assert "\x00" not in d.text
                assert all(0 <= s.start < s.end <= len(d.text) for s in d.spans)
                assert d.source_file and d.source_file.startswith(filename)
                assert store.get_document(db, doc_id).sha256 == store.documents.sha256_text(d.text)
            pid = store.create_project(db, f"m{next(projects)}", MEDDOCAN)  # names may repeat next time
    assert outcomes["FormatError"] > 0, outcomes


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_random_bytes_only_raise_documented_errors(fmt, no_phi_output):
    rng = random.Random(f"bytes-{fmt}")
    for case in range(150):
        n = rng.choice([1, 2, 16, 300, 3000])
        data = bytes(rng.randrange(256) for _ in range(n))
        if case % 3 == 0:  # mostly-text junk gets past the binary sniffing into the parsers
            data = bytes(rng.choice(b"T\t 0123456789<>/=\"{}[]:,\nabcXYZ") for _ in range(n))
        name = rng.choice(["a.txt", "a.xml", "a.jsonl", "a.zip", "noext"])
        try:
            read_upload(name, data, fmt, MEDDOCAN, SMALL)
        except Exception as e:  # noqa: BLE001
            check_error(e)


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_readers_on_files_and_folders(tmp_path, fmt, no_phi_output):
    """The readers themselves (as the CLI calls them, on paths), fed mutated files in a folder."""
    rng = random.Random(f"files-{fmt}")
    suffix = {"text": ".txt", "brat": ".txt", "xml": ".xml", "jsonl": ".jsonl", "label-studio": ".json",
              "doccano": ".jsonl", "prodigy": ".jsonl", "spacy": ".spacy", "hf-dataset": ".parquet",
              "csv": ".csv", "tsv": ".tsv", "parquet": ".parquet"}[fmt]
    base = TEXTS[0].encode()
    for case in range(60):
        folder = tmp_path / f"c{case}"
        folder.mkdir()
        if fmt == "brat":
            (folder / "d.txt").write_bytes(mutate(rng, base))
            (folder / "d.ann").write_bytes(mutate(rng, f"T1\tFECHAS 0 8\t{TEXTS[0][:8]}\n".encode()))
        elif fmt == "xml":
            (folder / f"d{suffix}").write_bytes(mutate(rng, render("xml", "d", TEXTS[0], [])[1]))
        elif fmt == "jsonl":
            (folder / f"d{suffix}").write_bytes(mutate(rng, render("jsonl", "d", TEXTS[0], [])[1]))
        elif fmt in INTERCHANGE:
            (folder / f"d{suffix}").write_bytes(mutate(rng, _interchange_seeds(fmt)[0][1]))
        elif fmt in ("csv", "tsv", "parquet"):      # a table is one file, not a folder
            (folder / f"d{suffix}").write_bytes(mutate(rng, table_seed(fmt)))
            folder = folder / f"d{suffix}"
        else:
            (folder / f"d{suffix}").write_bytes(mutate(rng, base))
        try:
            read_collection(folder, fmt, MEDDOCAN)
        except Exception as e:  # noqa: BLE001
            check_error(e)
