"""``deidentify`` streamed in two passes on every core (pipeline/engines/streamed.py) writes the
bytes of the whole batch in one process, holds a bounded number of notes, and leaves only whole
files when it fails."""
from __future__ import annotations

import json
import multiprocessing as mp
import weakref
from pathlib import Path

import pytest

from cli import main
from models.trainer import train_ensemble
from pipeline.detection import parallel
from pipeline.formats import read_collection, write_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document

REPO = Path(__file__).resolve().parents[1]
BRAT = REPO / "tests" / "fixtures" / "meddocan" / "brat"

pytestmark = pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")


@pytest.fixture(scope="module")
def docs():
    return read_collection(BRAT, "brat", MEDDOCAN)


@pytest.fixture(scope="module")
def version(tmp_path_factory, docs):
    cfg = dict(members=["crf"], seed=5, threads=1, refit_crf=False, crf_workers=1,
               crf={"max_iterations": 10, "clusters": False})
    return train_ensemble(docs[:12], docs[12:], MEDDOCAN, cfg, tmp_path_factory.mktemp("models")).path


@pytest.fixture
def secret_file(tmp_path) -> Path:
    p = tmp_path / "secret.key"
    p.write_text("streamed-test-secret-0123456789abcdef\n", encoding="ascii")
    p.chmod(0o600)
    return p


@pytest.fixture
def fork_small(monkeypatch):
    """The fixtures (16 notes) are spread over two workers too (real runs fork from 48 notes)."""
    monkeypatch.setattr(parallel, "MIN_FORK_DOCS", 4)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)


@pytest.fixture
def jsonl_patients(tmp_path, docs) -> Path:
    """The fixtures as JSONL, three patients whose notes interleave (P0, P1, P2, P0, ...)."""
    src = tmp_path / "in"
    write_collection([Document(d.doc_id, d.text, d.spans, {}, f"P{i % 3}") for i, d in enumerate(docs)], src, "jsonl")
    return src


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def one_process(monkeypatch, args: list[str]) -> int:
    """The command as it ran before streaming: every note read, detected and de-identified in one
    process (one core, the whole batch at once), then written."""
    from cli.commands import deidentify as cmd
    from pipeline.engines.local import LocalEngine

    with monkeypatch.context() as m:
        m.setattr(cmd, "_streamed", lambda *a: False)
        m.setattr(LocalEngine, "deidentify", LocalEngine._deidentify_at_once)
        m.setattr(parallel, "usable_cores", lambda: 1)
        return main(args)


@pytest.mark.parametrize("case", ["brat-model", "jsonl-patients-model", "jsonl-patients-paraphrase"])
def test_streamed_run_writes_the_bytes_of_one_process(case, version, tmp_path, secret_file, jsonl_patients,
                                                      fork_small, monkeypatch, capsys):
    fmt = "brat" if case.startswith("brat") else "jsonl"
    src = BRAT if fmt == "brat" else jsonl_patients
    extra = ["--model", str(version)] if case.endswith("model") else ["--profile", "paraphrase"]
    base = ["deidentify", "--input", str(src), "--format", fmt, "--secret-file", str(secret_file),
            "--schema", "meddocan", "--json", *extra]
    assert one_process(monkeypatch, [*base, "--output", str(tmp_path / "ref")]) == 0
    ref_summary = json.loads(capsys.readouterr().out)
    seen = []
    real = parallel.spread_stream

    def spy(fn, tasks, **kw):
        for r in real(fn, tasks, **kw):
            seen.append(len(mp.active_children()))
            yield r

    monkeypatch.setattr(parallel, "spread_stream", spy)
    assert main([*base, "--output", str(tmp_path / "new")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert max(seen) == 2                              # really on two forked workers
    new, ref = files(tmp_path / "new"), files(tmp_path / "ref")
    assert new == ref and len(ref) == (2 * 16 + 2 if fmt == "brat" else 3)   # documents, fingerprint, manifest
    summary.pop("output"), ref_summary.pop("output")
    assert summary == ref_summary and summary["documents"] == 16
    if case.endswith("paraphrase"):
        assert summary["paraphrase_fallbacks"].get("no_model")        # counted as the one-process run counts them
    assert not mp.active_children()


class Many:
    """``n`` notes made anew each time the input is read (the fixtures with fresh ids and patients
    of two notes); counts how many of them are alive at once."""

    def __init__(self, docs, n: int):
        self.docs, self.n, self.alive, self.most = docs, n, 0, 0

    def _gone(self) -> None:
        self.alive -= 1

    def __iter__(self):
        for i in range(self.n):
            d = self.docs[i % len(self.docs)]
            doc = Document(f"n{i:04d}", d.text, list(d.spans), {}, f"p{i // 2}")
            self.alive += 1
            self.most = max(self.most, self.alive)
            weakref.finalize(doc, self._gone)
            yield doc
            del doc


@pytest.mark.parametrize("cores", [1, 2])
def test_a_run_holds_a_bounded_number_of_notes(version, docs, tmp_path, cores, monkeypatch):
    from pipeline.deid import DeidContext, load_profile
    from pipeline.engines import DeidJob
    from pipeline.engines.local import LocalEngine

    monkeypatch.setattr(parallel, "MIN_FORK_DOCS", 12)
    monkeypatch.setattr(parallel, "usable_cores", lambda: cores)
    many = Many(docs, 400)
    s = LocalEngine().deidentify(DeidJob(many, load_profile("replace"), DeidContext(secret=b"k" * 32, locale="es"),
                                         tmp_path / "out", "brat", model_dir=str(version)))
    assert s.documents == 400 and len(list((tmp_path / "out").glob("*.txt"))) == 400
    # a few tasks of whole patients per worker in flight (one process: a detection batch), never the 400
    assert many.most <= 100, many.most


def test_a_failed_run_leaves_whole_files_only_and_resume_finishes_it(version, tmp_path, secret_file, fork_small,
                                                                     monkeypatch, capsys):
    from pipeline.deid import batch
    from pipeline.spans import SpanError

    base = ["deidentify", "--input", str(BRAT), "--secret-file", str(secret_file), "--schema", "meddocan",
            "--model", str(version)]
    assert main([*base, "--output", str(tmp_path / "ref")]) == 0
    real = batch.deidentify
    bad = sorted(p.stem for p in BRAT.glob("*.txt"))[9]

    def failing(doc, *a, **kw):
        if doc.doc_id == bad:
            raise SpanError("a span lies outside the text")
        return real(doc, *a, **kw)

    out = tmp_path / "out"
    with monkeypatch.context() as m:
        m.setattr(batch, "deidentify", failing)             # inherited by the forked workers
        assert main([*base, "--output", str(out)]) == 1
    capsys.readouterr()
    ref, got = files(tmp_path / "ref"), files(out)
    written = {k: v for k, v in got.items() if not k.startswith(".")}
    assert 0 < len(written) < 32 and all(ref[k] == v for k, v in written.items())     # whole files, no others
    assert not [p for p in out.iterdir() if p.is_dir()]                                # no private folder left
    assert main([*base, "--output", str(out), "--resume"]) == 0
    assert files(out) == ref


def test_input_refused_before_anything_is_written(tmp_path, docs):
    from pipeline.deid import DeidContext, load_profile
    from pipeline.engines import DeidJob, EngineError
    from pipeline.engines.local import LocalEngine

    ctx, profile = DeidContext(secret=b"k" * 32, locale="es"), load_profile("replace")
    twice = [docs[0], docs[1], docs[0]]
    with pytest.raises(EngineError, match="input documents 1 and 3 share an id"):
        LocalEngine().deidentify(DeidJob(twice, profile, ctx, tmp_path / "a", "brat"))
    assert not (tmp_path / "a").exists()

    class Shrinking:                # the input loses a note between the two passes
        reads = 0

        def __iter__(self):
            self.reads += 1
            return iter(docs if self.reads == 1 else docs[:-1])

    with pytest.raises(EngineError, match="input changed"):
        LocalEngine().deidentify(DeidJob(Shrinking(), profile, ctx, tmp_path / "b", "jsonl"))
    assert not (tmp_path / "b" / "documents.jsonl").exists()


def test_spread_stream_reads_tasks_as_the_workers_need_them(monkeypatch):
    import os

    monkeypatch.setattr(parallel, "MIN_FORK_DOCS", 4)
    read = [0]

    def tasks():
        for k in range(60):
            read[0] += 1
            yield [k, k + 1]

    here, ahead = os.getpid(), []
    out = []
    for k, (total, pid) in enumerate(parallel.spread_stream(lambda t: (sum(t), os.getpid()), tasks(), workers=2)):
        out.append(total)
        ahead.append(read[0] - k)
        assert pid != here
    assert out == [2 * k + 1 for k in range(60)]
    assert max(ahead) <= parallel.IN_FLIGHT * 2 + 1 and not mp.active_children()
    # too few items to fork: here, in order
    small = parallel.spread_stream(lambda t: (sum(t), os.getpid()), [[1], [2]], workers=2)
    assert list(small) == [(1, here), (2, here)]
