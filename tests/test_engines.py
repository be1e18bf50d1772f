"""Engines: the ``ray`` engine must write exactly what the ``local`` engine writes.

One local Ray runtime (2 CPUs, no dashboard) serves the whole module and is shut down at the
end; no other test module starts Ray. Compared byte for byte: the same 200 synthetic notes
de-identified through both engines (brat via the CLI; JSONL with patients' notes interleaved
and cut into small units through the API), a run interrupted and resumed, detection with a tiny
trained model (MEDDOCAN fixture) and with rules alone (synthetic notes). Worker errors must name
the document id and the exception type, never text. No document text is printed.
"""
from __future__ import annotations

import filecmp
import json
import logging
import os
import random
from pathlib import Path

import pytest

from cli import main
from pipeline.deid import DeidContext, deidentify_batch, document_pseudonym, load_profile
from pipeline.deid.batch import summarize
from pipeline.engines import DeidJob, DetectJob, DetectSpec, EngineError, RayOptions, get_engine
from pipeline.engines._sink import TMP_PREFIX
from pipeline.engines._summary import SummaryAccumulator
from pipeline.engines.local import LocalEngine
from pipeline.engines.ray_engine import RayEngine, runtime_env
from pipeline.formats import read_collection, write_collection
from pipeline.offline import OFFLINE_ENV
from pipeline.schemas import MEDDOCAN, get_schema
from pipeline.spans import Document
from pipeline.synthetic import generate_corpus

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "tests" / "fixtures" / "meddocan" / "brat"
SECRET = b"engine-test-secret-0123456789abcdef"


@pytest.fixture(scope="module")
def ray_runtime():
    ray = pytest.importorskip("ray")
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def notes() -> list[Document]:
    return generate_corpus(200, 11)


@pytest.fixture
def secret_file(tmp_path) -> Path:
    p = tmp_path / "secret.key"
    p.write_bytes(SECRET)
    p.chmod(0o600)
    return p


def same_tree(a: Path, b: Path) -> bool:
    """Same relative file names and byte-identical contents (no leftovers on either side)."""
    fa = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    fb = sorted(p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file())
    return fa == fb and all(filecmp.cmp(a / f, b / f, shallow=False) for f in fa)


def summary_of(capsys) -> dict:
    out = json.loads(capsys.readouterr().out)
    out.pop("output")
    return out


# ------------------------------------------------------------------------------- no Ray needed
def test_engine_flags_default_to_local():
    from cli import build_parser

    for cmd in (["deidentify"], ["detect", "--model", "m"]):
        args = build_parser().parse_args(cmd + ["--input", "i", "--output", "o"])
        assert args.engine == "local" and args.ray_address is None
    args = build_parser().parse_args(["deidentify", "--input", "i", "--output", "o", "--engine", "ray",
                                      "--ray-address", "ray://head:10001"])
    assert args.engine == "ray" and args.ray_address == "ray://head:10001"
    with pytest.raises(EngineError):
        get_engine("spark")


def test_remote_clusters_get_the_code_uploaded_local_runtimes_the_path():
    local = runtime_env(None, 1)
    assert str(REPO) in local["env_vars"]["PYTHONPATH"].split(os.pathsep) and "py_modules" not in local
    remote = runtime_env("ray://head:10001", 2)
    assert {Path(m).name for m in remote["py_modules"]} >= {"pipeline"}
    assert remote["env_vars"]["OMP_NUM_THREADS"] == "2" and remote["env_vars"]["HF_HUB_OFFLINE"] == "1"
    # a Ray worker is a process of its own: it goes offline through its runtime env, both ways
    assert local["env_vars"].items() >= OFFLINE_ENV.items() and remote["env_vars"].items() >= OFFLINE_ENV.items()


def test_streamed_summary_equals_batch_summary(notes):
    """The driver's running summary is the local summarize(), floats included."""
    batch = deidentify_batch(notes[:120], load_profile("replace"), DeidContext(secret=SECRET, locale="en"))
    acc = SummaryAccumulator()
    for r in batch.results:
        acc.add(r)
    assert acc.summary(skipped=3).to_dict() == summarize(batch.results, skipped=3).to_dict()
    assert acc.summary().surrogates > 500


# ------------------------------------------------------------------------------- de-identification
def test_deidentify_cli_ray_equals_local_byte_for_byte(ray_runtime, notes, tmp_path, secret_file, capsys):
    src = tmp_path / "in"
    write_collection(notes, src, "brat")
    common = ["deidentify", "--input", str(src), "--format", "brat", "--secret-file", str(secret_file), "--json"]
    assert main(common + ["--output", str(tmp_path / "local")]) == 0
    local = summary_of(capsys)
    assert main(common + ["--output", str(tmp_path / "ray"), "--engine", "ray"]) == 0
    ray = summary_of(capsys)
    assert local == ray and ray["documents"] == 200 and ray["surrogates"] > 1000
    assert same_tree(tmp_path / "local", tmp_path / "ray")
    assert len(list((tmp_path / "ray").glob("*.ann"))) == 200


def test_jsonl_interleaved_patients_small_units_equal_local(ray_runtime, notes, tmp_path):
    """Patients' notes scattered through the input and cut into 8-document units: each patient
    still goes whole to one worker, and the JSONL comes back in input order."""
    docs = list(notes)
    random.Random(5).shuffle(docs)
    profile = load_profile("replace")
    progress: list[tuple[int, int]] = []

    def job(out: Path, progress_cb=None) -> DeidJob:
        return DeidJob(docs, profile, DeidContext(secret=SECRET, locale="en"), out, "jsonl", progress=progress_cb)

    s_local = LocalEngine().deidentify(job(tmp_path / "local"))
    s_ray = RayEngine(RayOptions(docs_per_batch=8)).deidentify(
        job(tmp_path / "ray", lambda d, t: progress.append((d, t))))
    assert s_local.to_dict() == s_ray.to_dict()
    assert same_tree(tmp_path / "local", tmp_path / "ray")
    assert progress[-1] == (200, 200) and all(a[0] < b[0] for a, b in zip(progress, progress[1:]))
    assert len(progress) > 10          # reported unit by unit, not once at the end


def test_what_ray_prints_during_a_session_goes_to_stderr_not_the_commands_stdout(ray_runtime, capsys):
    """Ray's threads print to ``sys.stdout`` under load ("(raylet) Task ... submit failed"); a
    ``--json`` summary on stdout must stay parseable, so a session sends such output to stderr."""
    import threading

    from pipeline.engines.ray_engine import ray_session

    with ray_session(RayOptions()) as workers:
        t = threading.Thread(target=print, args=("(raylet) Task MapWorker submit failed",))
        t.start()
        t.join()
    print("{}")
    out, err = capsys.readouterr()
    assert workers >= 1 and out == "{}\n" and "(raylet)" in err


def test_interrupted_run_resumes_to_the_same_files(ray_runtime, notes, tmp_path, secret_file, capsys):
    src = tmp_path / "in"
    docs = notes[:96]
    write_collection(docs, src, "brat")
    assert main(["deidentify", "--input", str(src), "--output", str(tmp_path / "local"),
                 "--secret-file", str(secret_file)]) == 0
    calls = []

    def stop(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    out = tmp_path / "ray"
    from pipeline.deid import run_fingerprint
    from pipeline.deid.fingerprint import schema_id
    schema, profile = get_schema("i2b2-2014"), load_profile("replace")
    job = DeidJob(read_collection(src, "brat", schema), profile, DeidContext(secret=SECRET, locale="en"), out,
                  "brat", progress=stop,    # the fingerprint the command writes: its schema included
                  fingerprint=run_fingerprint(profile, SECRET, "en", schema=schema_id(schema)))
    with pytest.raises(KeyboardInterrupt):
        RayEngine(RayOptions(docs_per_batch=16)).deidentify(job)
    partial = sorted(p.name for p in out.iterdir())
    assert 0 < len(partial) < 2 * len(docs) and not any(n.startswith(TMP_PREFIX) for n in partial)
    capsys.readouterr()
    rerun = ["deidentify", "--input", str(src), "--output", str(out), "--secret-file", str(secret_file),
             "--engine", "ray", "--json"]
    assert main(rerun + ["--resume"]) == 0
    s = summary_of(capsys)
    assert s["documents"] + s["skipped"] == len(docs) and s["skipped"] > 0
    assert same_tree(tmp_path / "local", out)
    assert main(rerun + ["--force"]) == 0       # a full rerun over it: same files, nothing added
    assert same_tree(tmp_path / "local", out)


def test_worker_error_names_the_output_pseudonym_not_the_input_or_its_text(ray_runtime, notes, tmp_path):
    docs = [Document(d.doc_id, d.text, list(d.spans), dict(d.meta), d.patient_id) for d in notes[:24]]
    bad = docs[7]
    good = bad.spans[0]
    bad.spans.append(good.with_(start=len(bad.text) - 2, end=len(bad.text) + 40))   # past the end
    job = DeidJob(docs, load_profile("replace"), DeidContext(secret=SECRET, locale="en"), tmp_path / "o", "brat")
    with pytest.raises(EngineError) as info:
        RayEngine(RayOptions(docs_per_batch=8)).deidentify(job)
    msg = str(info.value)
    assert document_pseudonym(SECRET, bad.doc_id) in msg and "SpanError" in msg and "1 document(s)" in msg
    assert bad.doc_id not in msg          # input ids are file names, which may hold a patient's name
    phi = {bad.text[s.start:s.end] for s in bad.spans[:-1] if s.end - s.start >= 4}
    assert phi and not any(v in msg for v in phi)
    written = {p.stem for p in (tmp_path / "o").glob("*.ann")}
    assert written == {document_pseudonym(SECRET, d.doc_id) for d in docs if d is not bad}   # output names
    from pipeline.spans import SpanError
    with pytest.raises(SpanError):
        LocalEngine().deidentify(DeidJob(docs, job.profile, DeidContext(secret=SECRET, locale="en"),
                                         tmp_path / "l", "brat"))


@pytest.mark.parametrize("fmt", ["jsonl", "brat"])
def test_pseudonymised_names_and_metadata_ray_equals_local(ray_runtime, notes, tmp_path, fmt):
    """Defects 1 and 2 on Ray: ids that are patients' names, PHI in ``meta``, patient ids and an
    overlapping annotation give the local engine's bytes and file names (keyed pseudonyms, no
    metadata, union-rewritten overlaps) and the same summary."""
    docs = []
    for k, d in enumerate(notes[:24]):
        spans = list(d.spans)
        name = next(s for s in spans if s.category == "NAME" and s.end - s.start > 6)
        spans.append(name.with_(start=name.start + 2, end=min(len(d.text), name.end + 3)))   # an overlap
        docs.append(Document(f"Garcia_Lopez_{k:03d}", d.text, spans,
                             {"patient_name": d.text[name.start:name.end], "mrn": f"MRN{k:05d}", "ward": "7"},
                             d.patient_id))
    profile = load_profile("replace")

    def job(out: Path) -> DeidJob:
        return DeidJob(docs, profile, DeidContext(secret=SECRET, locale="en"), out, fmt)

    s_local = LocalEngine().deidentify(job(tmp_path / "local"))
    s_ray = RayEngine(RayOptions(docs_per_batch=8)).deidentify(job(tmp_path / "ray"))
    assert s_local.to_dict() == s_ray.to_dict()
    assert same_tree(tmp_path / "local", tmp_path / "ray")
    assert s_ray.leaks == 0 and s_ray.merged_overlaps >= 24 and s_ray.renamed_documents == 24
    assert s_ray.dropped_meta_keys == 72 and s_ray.renamed_patients == 24
    names = {p.name for p in (tmp_path / "ray").iterdir()}
    assert not any("Garcia" in n for n in names) and any(n.startswith("doc-") for n in names) == (fmt == "brat")
    body = b"".join(p.read_bytes() for p in (tmp_path / "ray").iterdir())
    assert b"Garcia_Lopez" not in body and b"patient_name" not in body and b"MRN0" not in body


# ------------------------------------------------------------------------------------ detection
def test_rules_only_detection_equals_local(ray_runtime, notes, tmp_path):
    docs = [Document(d.doc_id, d.text, [], dict(d.meta), d.patient_id) for d in notes[:150]]
    spec = DetectSpec(schema="i2b2-2014", locale="en")
    s_local = LocalEngine().detect(DetectJob(docs, spec, tmp_path / "local", "jsonl"))
    s_ray = RayEngine().detect(DetectJob(docs, spec, tmp_path / "ray", "jsonl"))
    assert (s_local.documents, s_local.spans, s_local.parts) == (s_ray.documents, s_ray.spans, s_ray.parts)
    assert s_ray.spans > 1000
    assert same_tree(tmp_path / "local", tmp_path / "ray")


def test_detect_and_deidentify_with_a_tiny_model_equal_local(ray_runtime, tmp_path, secret_file, capsys):
    torch = pytest.importorskip("torch")
    from models.trainer import train_ensemble

    torch.set_num_threads(1)
    docs = read_collection(SAMPLE, "brat", MEDDOCAN)
    tiny = dict(hidden=32, layers=1, heads=2, intermediate=64, embedding_size=16, vocab_size=600, max_len=48,
                overlap=12, epochs=1, batch_size=8, lr=3e-3)
    info = train_ensemble(docs[:12], docs[12:], MEDDOCAN, dict(members=["crf", "bert"], seed=7, threads=1,
                          encoders={"bert": tiny}, crf={"max_iterations": 15}, name="tiny-engines"),
                          tmp_path / "models")
    common = ["detect", "--model", str(info.path), "--input", str(SAMPLE), "--format", "brat", "--threads", "1"]
    assert main(common + ["--output", str(tmp_path / "local")]) == 0
    line_local = capsys.readouterr().out
    assert main(common + ["--output", str(tmp_path / "ray"), "--engine", "ray"]) == 0
    line_ray = capsys.readouterr().out
    assert same_tree(tmp_path / "local", tmp_path / "ray")
    assert line_local.split(" in ")[0] == line_ray.split(" in ")[0]        # counts and parts; not the time
    assert "model:" in line_ray and int(line_ray.split(" documents, ")[1].split(" spans")[0]) > 20

    # deidentify --model: each worker loads the model once and detects a patient's notes first
    deid = ["deidentify", "--model", str(info.path), "--input", str(SAMPLE), "--format", "brat",
            "--secret-file", str(secret_file), "--json"]
    assert main(deid + ["--output", str(tmp_path / "dl")]) == 0
    s_local = summary_of(capsys)
    assert main(deid + ["--output", str(tmp_path / "dr"), "--engine", "ray"]) == 0
    assert summary_of(capsys) == s_local and s_local["surrogates"] > 20
    assert same_tree(tmp_path / "dl", tmp_path / "dr")
