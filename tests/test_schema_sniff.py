"""``deidentify --schema auto`` on a streamed input: the preset is chosen from the first notes and
checked by the first pass, so the input is parsed twice (the two passes) plus a bounded prefix,
not once more per preset tried; the chosen schema and the output bytes are those of the preset
a whole read chooses (pipeline/formats/stream.py: ``open_collection(provisional=True)``)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli import main
from pipeline.formats import _sources, jsonl, read_collection_auto, stream, write_collection
from pipeline.formats.stream import AutoRead, SchemaGuessError, open_collection
from pipeline.spans import Document, Span
from pipeline.synthetic import generate_corpus

SNIFF = 4      # the prefix, small so that a short input reaches past it
N = 30


@pytest.fixture(autouse=True)
def small_prefix(monkeypatch):
    monkeypatch.setattr(stream, "SNIFF_DOCS", SNIFF)


@pytest.fixture
def secret_file(tmp_path) -> Path:
    p = tmp_path / "secret.key"
    p.write_text("sniff-test-secret-0123456789abcdef0123\n", encoding="ascii")
    p.chmod(0o600)
    return p


def _english(tmp_path: Path, fmt: str) -> Path:
    """N generated English notes (i2b2-2014 labels: the second preset tried)."""
    src = tmp_path / f"in-{fmt}"
    write_collection(generate_corpus(N, 5, variety="wide"), src, fmt)
    return src


def _late_label(tmp_path: Path, late: tuple[str, str]) -> Path:
    """Notes whose spans are all HOSPITAL (a type of meddocan and of i2b2-2014) except one span of
    ``late`` in a note past the prefix: only a read past the prefix sees that meddocan cannot be it."""
    docs = []
    for i in range(N):
        text = f"Seen at Mercy General Hospital on day {i}. Patient John Smith."
        spans = [Span(f"n{i}", 8, 29, "LOCATION", "HOSPITAL")]
        if i == N - 3:
            spans.append(Span(f"n{i}", 51, 61, *late))
        docs.append(Document(f"n{i}", text, spans, {}, f"P{i % 4}"))
    src = tmp_path / "late"
    write_collection(docs, src, "jsonl")
    return src


@pytest.fixture(params=["whole-file prefix", "head of a large file"])
def head(request, monkeypatch):
    """The late-label inputs (about 4 KB) read by each preset's prefix, or from their first bytes."""
    if request.param == "head of a large file":
        monkeypatch.setattr(stream, "SNIFF_BYTES", 1_000)


def _run(src: Path, out: Path, secret: Path, fmt: str = "jsonl", *extra: str) -> int:
    return main(["deidentify", "--input", str(src), "--format", fmt, "--output", str(out),
                 "--secret-file", str(secret), *extra])


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_jsonl_is_parsed_twice_plus_a_prefix(tmp_path, secret_file, monkeypatch):
    src = _english(tmp_path, "jsonl")
    parsed = []
    real = jsonl.parse_line
    monkeypatch.setattr(jsonl, "parse_line", lambda *a, **k: (parsed.append(1), real(*a, **k))[1])
    assert _run(src, tmp_path / "auto", secret_file) == 0
    # meddocan fails on note 1, i2b2-2014 reads SNIFF + 1 notes, then the two passes read N each;
    # choosing by whole reads parsed 3 N + 1 (the i2b2-2014 read before the passes)
    assert len(parsed) <= 2 * N + 1 + (SNIFF + 1)
    assert len(parsed) >= 2 * N


@pytest.mark.parametrize("head_bytes", [8_000, 1 << 30])
def test_a_large_jsonl_file_is_read_whole_twice(tmp_path, secret_file, monkeypatch, head_bytes):
    """A JSONL file is read whole by its reader: past SNIFF_BYTES the presets are tried on its first
    bytes, read once; a file within it is small, read whole by each preset's prefix."""
    monkeypatch.setattr(stream, "SNIFF_BYTES", head_bytes)
    src = _english(tmp_path, "jsonl")
    size = (src / "documents.jsonl").stat().st_size
    got: list[int] = []
    read, head = _sources.Entry.read, _sources.Entry.head
    monkeypatch.setattr(_sources.Entry, "read", lambda e: (lambda b: (got.append(len(b)), b)[1])(read(e)))
    monkeypatch.setattr(_sources.Entry, "head", lambda e, n: (lambda b: (got.append(len(b)), b)[1])(head(e, n)))
    assert _run(src, tmp_path / "auto", secret_file) == 0
    if head_bytes < size:
        assert sorted(got) == [head_bytes, size, size]       # the head once, then the two passes
    else:                                                    # meddocan's prefix, i2b2-2014's, the passes
        assert got == [size] * 4


def test_brat_files_past_the_prefix_are_opened_twice(tmp_path, secret_file, monkeypatch):
    src = _english(tmp_path, "brat")
    opened: dict[str, int] = {}
    real = os.open

    def counting(path, *a, **k):
        if str(path).startswith(str(src)):
            opened[Path(path).name] = opened.get(Path(path).name, 0) + 1
        return real(path, *a, **k)

    monkeypatch.setattr(_sources.os, "open", counting)
    assert _run(src, tmp_path / "auto", secret_file, "brat") == 0
    texts = sorted(n for n in opened if n.endswith(".txt"))
    assert len(texts) == N
    past = texts[SNIFF + 1:]
    assert {opened[n] for n in past} == {2}          # the two passes; a whole read to choose made it 3
    assert sum(opened.values()) <= 2 * 2 * N + 2 * (SNIFF + 2)


@pytest.mark.parametrize("fmt", ["jsonl", "brat"])
def test_auto_writes_the_bytes_of_the_named_preset(tmp_path, secret_file, fmt):
    src = _english(tmp_path, fmt)
    assert read_collection_auto(src, fmt)[0].name == "i2b2-2014"
    assert _run(src, tmp_path / "auto", secret_file, fmt) == 0
    assert _run(src, tmp_path / "named", secret_file, fmt, "--schema", "i2b2-2014") == 0
    assert _files(tmp_path / "auto") == _files(tmp_path / "named")      # fingerprint and manifest too


def test_a_label_past_the_prefix_chooses_the_later_preset(tmp_path, secret_file, head):
    src = _late_label(tmp_path, ("NAME", "PATIENT"))
    schema, docs = open_collection(src, "jsonl", "auto", provisional=True)
    assert schema.name == "meddocan" and isinstance(docs, AutoRead)     # from the first notes
    with pytest.raises(SchemaGuessError) as caught:
        list(docs)
    assert caught.value.retry()[0].name == "i2b2-2014"
    assert read_collection_auto(src, "jsonl")[0].name == "i2b2-2014"   # what a whole read chooses
    assert _run(src, tmp_path / "auto", secret_file) == 0
    assert _run(src, tmp_path / "named", secret_file, "jsonl", "--schema", "i2b2-2014") == 0
    assert _files(tmp_path / "auto") == _files(tmp_path / "named")


def test_labels_fitting_the_first_preset_only_keep_it(tmp_path, secret_file, head):
    src = _late_label(tmp_path, ("NAME", "NOMBRE_SUJETO_ASISTENCIA"))
    assert _run(src, tmp_path / "auto", secret_file) == 0
    assert _run(src, tmp_path / "named", secret_file, "jsonl", "--schema", "meddocan") == 0
    assert _files(tmp_path / "auto") == _files(tmp_path / "named")


@pytest.mark.parametrize("extra", [(), ("--model", "no-such-model-folder")])
def test_a_late_label_no_preset_knows_is_refused_before_writing(tmp_path, secret_file, capsys, extra, head):
    """The refusal a whole read gave first (labels fit no preset) comes before any other, even one
    the run meets before its first pass (a missing --model folder)."""
    src = _late_label(tmp_path, ("NAME", "NOT_A_LABEL"))
    out = tmp_path / "out"
    assert _run(src, out, secret_file, "jsonl", *extra) == 1
    assert "labels fit none of the preset schemas" in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


def test_a_whole_input_inside_the_prefix_is_settled_at_once(tmp_path):
    src = tmp_path / "few"
    write_collection(generate_corpus(SNIFF, 3, variety="wide"), src, "jsonl")
    schema, docs = open_collection(src, "jsonl", "auto", provisional=True)
    assert schema.name == "i2b2-2014" and not isinstance(docs, AutoRead)


def test_the_first_full_pass_settles_the_preset_then_reads_as_asked(tmp_path):
    """With --model the spans are not read once the preset is settled; the checking pass reads them."""
    src = _english(tmp_path, "brat")
    schema, docs = open_collection(src, "brat", "auto", spans=False, provisional=True)
    assert isinstance(docs, AutoRead) and not docs.verified
    first = list(docs)
    assert docs.verified and len(first) == N and any(d.spans for d in first)
    again = list(docs)
    assert [d.doc_id for d in again] == [d.doc_id for d in first] and not any(d.spans for d in again)
