"""Detection on every core (pipeline/detection/parallel.py) gives exactly the spans of one process."""
from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from models.trainer import train_ensemble
from pipeline.detection.detector import Detector
from pipeline.detection import parallel
from pipeline.detection.parallel import BatchDetector, detect_many_parallel, fork_safe
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def docs():
    return read_collection(REPO / "tests" / "fixtures" / "meddocan" / "brat", "brat", MEDDOCAN)


@pytest.fixture(scope="module")
def version(tmp_path_factory, docs):
    out = tmp_path_factory.mktemp("models")
    cfg = dict(members=["crf", "crf-rules"], seed=5, threads=1, refit_crf=False, crf_workers=1,
               crf={"max_iterations": 10, "clusters": False})
    return train_ensemble(docs[:12], docs[12:], MEDDOCAN, cfg, out).path


@pytest.fixture
def fork_small(monkeypatch):
    """The fixtures (16 notes) are spread over workers too (real batches fork from 48 notes)."""
    monkeypatch.setattr(parallel, "MIN_FORK_DOCS", 4)


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")
@pytest.mark.parametrize("batch_docs", [2, 32])
def test_forked_workers_give_the_spans_of_one_process_in_order(version, docs, fork_small, batch_docs):
    det = Detector.load(version)
    assert fork_safe(det)
    alone = det.detect_many(docs)
    with BatchDetector(det, workers=2, batch_docs=batch_docs) as spread:
        together = spread.detect_many(docs)
        assert spread._pool is not None and len(mp.active_children()) == 2     # really forked
    assert together == alone and sum(map(len, alone)) > 0
    assert not mp.active_children()


def test_a_small_batch_is_detected_here(version, docs):
    det = Detector.load(version)
    with BatchDetector(det, workers=2) as spread:
        assert spread.detect_many(docs) == det.detect_many(docs)
        assert spread._pool is None and not mp.active_children()


def test_rules_only_and_small_inputs_run_here(docs):
    det = Detector.without_model(MEDDOCAN, "es")
    assert fork_safe(det)
    assert detect_many_parallel(det, docs[:3], workers=4) == det.detect_many(docs[:3])
    assert detect_many_parallel(det, [], workers=2) == []


def test_a_detector_with_an_active_encoder_is_not_forked(version):
    det = Detector.load(version)

    class Encoder:
        kind = "encoder"

    det.ensemble.members = {**det.ensemble.members, "bert": Encoder()}
    det.ensemble.info.weights = {**det.ensemble.info.weights, "bert": 1.0}
    assert not fork_safe(det)

    class Other:             # a detector of another kind (no ensemble attribute)
        def detect_many(self, docs, batch_docs=32):
            return [[] for _ in docs]

    assert not fork_safe(Other())


def _many(docs, n):
    """``n`` documents: the fixtures again and again with fresh ids, made when asked for."""
    for i in range(n):
        d = docs[i % len(docs)]
        yield Document(f"copy{i:04d}", d.text, list(d.spans), dict(d.meta))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stream_holds_a_bounded_number_of_documents(version, docs, workers, monkeypatch):
    import weakref

    det = Detector.load(version)
    alive = [0]
    most = 0

    def gone():
        alive[0] -= 1

    def counted():
        for d in _many(docs, 240):
            alive[0] += 1
            weakref.finalize(d, gone)
            yield d

    monkeypatch.setattr(parallel, "MIN_FORK_DOCS", 12)
    n = 0
    with BatchDetector(det, workers=workers, batch_docs=4) as spread:
        for d, spans in spread.stream(counted()):
            n += 1
            most = max(most, alive[0])
            del d, spans
    assert n == 240
    # the first documents (to decide whether to fork), then a few chunks in flight per worker (and
    # the last ones the pool's feeder thread sent): never the 240
    assert most <= max(parallel.MIN_FORK_DOCS, (parallel.IN_FLIGHT * spread.workers + 4) * 4) < 240, most


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")
@pytest.mark.parametrize("fmt", ["brat", "jsonl"])
def test_detect_command_writes_the_same_files_on_every_core_as_in_one_process(version, tmp_path, fmt, fork_small):
    from cli import main

    src = REPO / "tests" / "fixtures" / "meddocan" / "brat"
    outs = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        assert main(["detect", "--model", str(version), "--input", str(src), "--format", "brat",
                     "--output-format", fmt, "--output", str(out), "--workers", str(workers)]) == 0
        outs[workers] = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert outs[1] == outs[2]
    assert len(outs[1]) == (32 if fmt == "brat" else 1)
    assert any(v.startswith(b"T1\t") or b'"label"' in v for v in outs[1].values())   # spans were found
    assert not mp.active_children()


def test_writer_refuses_an_id_seen_in_an_earlier_chunk(tmp_path, docs):
    from pipeline.errors import FormatError
    from pipeline.formats.stream import CollectionWriter

    with CollectionWriter(tmp_path / "out", "brat") as w:
        w.write(docs[:2])
        with pytest.raises(FormatError):
            w.write([docs[1]])


def test_streamed_reading_gives_what_read_collection_gives(docs):
    from pipeline.formats.stream import iter_collection

    src = REPO / "tests" / "fixtures" / "meddocan" / "brat"
    assert list(iter_collection(src, "brat", MEDDOCAN)) == docs


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")
def test_spread_map_runs_tasks_on_workers_in_order():
    import os

    from pipeline.detection.parallel import spread_map

    here = os.getpid()
    tasks = [[k * 10 + i for i in range(6)] for k in range(12)]
    got = list(spread_map(lambda x: (x * x, os.getpid()), tasks, workers=2))     # a closure: inherited, not pickled
    assert [[v for v, _ in t] for t in got] == [[x * x for x in t] for t in tasks]
    assert {pid for t in got for _, pid in t} - {here} and here not in {pid for t in got for _, pid in t}
    assert [v for t in spread_map(lambda x: -x, tasks[:2], workers=2) for v in t] == [-x for t in tasks[:2] for x in t]
    assert not mp.active_children()


@pytest.mark.parametrize("fmt", ["jsonl", "xml"])
def test_jsonl_and_xml_are_streamed_as_read_collection_reads_them(docs, tmp_path, fmt):
    """JSONL and i2b2 XML are handed out one document at a time (not read into a list first),
    the documents :func:`read_collection` gives, in its order; a broken line is met at its turn."""
    import types

    from pipeline.errors import FormatError
    from pipeline.formats import write_collection
    from pipeline.formats.stream import iter_collection

    write_collection(docs, tmp_path / "in", fmt)
    src = tmp_path / "in"
    stream = iter_collection(src, fmt, MEDDOCAN)
    assert isinstance(stream, types.GeneratorType)
    first = next(stream)
    assert [first, *stream] == read_collection(src, fmt, MEDDOCAN)
    if fmt == "jsonl":
        path = src / "documents.jsonl"
        path.write_text(path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
        got = []
        with pytest.raises(FormatError):
            for d in iter_collection(src, fmt, MEDDOCAN):
                got.append(d.doc_id)
        assert len(got) == len(docs)          # every good line was handed out before the broken one
