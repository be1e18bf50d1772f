"""Batch de-identification and risk jobs on the demo project: outputs for every document, no
leaks, resumable runs with identical outputs, risk rows and decisions kept across re-scoring,
the upload path, exports refused to annotators, and the two commands."""
from __future__ import annotations

import io
import json
import re
import zipfile

import pytest

import store
from services import jobs
from services import worker
from services import deid_batch, deid_files, deid_runs
from services import detectors
from services import risk as rs
from pipeline import layers
from pipeline.risk.marks import reason_marks
from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch
from services.demo import create_demo_project
from pipeline.errors import PermissionDenied
from services.jobs import JobCancelled, JobContext
from pipeline.schemas import GERMAN


@pytest.fixture
def demo(tmp_path):
    path = tmp_path / "wb.db"
    db = store.connect(path)
    pid = create_demo_project(db, n_docs=30, seed=7)
    store.create_user(db, "lea", "a long test password", "lead")
    gold = sorted(store.read_project_layer(db, pid, "gold"))
    db.close()
    return path, pid, gold


def _texts(db, run_id):
    return {o.doc_id: o.text for o in store.list_deid_outputs(db, run_id, with_text=True)}


def _word_in(value: str, text: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", text) is not None


def test_gold_run_has_one_output_per_document_and_no_leaks(demo):
    path, pid, gold = demo
    assert len(gold) >= 3
    res = worker.run_inline(path, "deidentify", {"project_id": pid, "doc_ids": gold, "profile": "replace",
                                               "user": "lea"}, user="lea")
    db = store.connect(path)
    run = store.get_deid_run(db, res["run_id"])
    assert run.status == "done" and run.leaks == 0 and res["leaks"] == 0
    assert run.model_version is None            # every span came from gold, no detector ran
    outputs = store.list_deid_outputs(db, run.id, with_text=True)
    assert sorted(o.doc_id for o in outputs) == gold
    assert all(o.n_leaks == 0 for o in outputs)
    assert run.counts["inputs"] == {"gold": len(gold)} and run.counts["documents"] == len(gold)
    n_out = sum(len(o.spans) for o in outputs)
    assert sum(sum(a.values()) for a in run.counts["spans"].values()) == n_out
    gold_spans = store.read_project_layer(db, pid, "gold")
    assert n_out >= sum(len(v) for v in gold_spans.values())       # plus propagated copies
    originals = {d.doc_id: d.text for d in store.load_documents(db, pid, ids=gold)}
    for o in outputs:
        assert o.text != originals[str(o.doc_id)]
        assert all(s.layer.startswith("deid:") and s.layer.endswith(":gold") for s in o.spans)
        # an independent check of the leak scan: no direct identifier of gold survives as a word
        for s in gold_spans[o.doc_id]:
            surface = originals[str(o.doc_id)][s.start:s.end]
            if s.category in ("NAME", "ID", "CONTACT") and len(surface) >= 5:
                assert not _word_in(surface, o.text), (o.doc_id, s.start, s.end, s.label)
    assert run.quality["same_rate"] == 0.0 and run.quality["surrogates"] > 0
    # risk was scored in the same job: one row per document, red first
    queue = store.risk_queue(db, run.id)
    assert sorted(r.doc_id for r in queue) == gold
    rank = {"red": 0, "amber": 1, "green": 2}
    assert [rank[r.colour] for r in queue] == sorted(rank[r.colour] for r in queue)
    assert res["risk"]["documents"] == len(gold) and "character trigrams" in res["risk"]["embedder"]
    assert rs.latest_risk_result(db, run.id)["documents"] == len(gold)
    db.close()


def test_documents_without_the_layer_are_detected_or_left_out(demo):
    path, pid, gold = demo
    res = worker.run_inline(path, "deidentify", {"project_id": pid, "doc_ids": "all", "profile": "redact",
                                               "risk": False})
    db = store.connect(path)
    run = store.get_deid_run(db, res["run_id"])
    assert len(store.list_deid_outputs(db, run.id)) == 30
    assert run.counts["inputs"] == {"detected": 30 - len(gold), "gold": len(gold)}
    assert run.model_version == "rules+dictionaries" and run.leaks == 0
    assert store.risk_queue(db, run.id) == []
    out = store.get_deid_output(db, run.id, next(i for i in store.read_project_layer(db, pid, "pre")
                                                 if i not in gold))
    assert out.spans and all(s.layer.endswith(":detected") for s in out.spans)
    assert all(out.text[s.start:s.end] == f"[{s.category}]" for s in out.spans)   # redact placeholders

    res = worker.run_inline(path, "deidentify", {"project_id": pid, "doc_ids": "all", "missing": "skip",
                                               "risk": False})
    assert sorted(o.doc_id for o in store.list_deid_outputs(db, res["run_id"])) == gold
    assert res["not_deidentified"] == 30 - len(gold)
    db.close()


class StopAfter(JobContext):
    """A job context whose cancel request arrives after ``n`` documents."""

    def __init__(self, *a, n: int, **kw):
        super().__init__(*a, **kw)
        self.n, self.calls = n, 0

    def should_stop(self) -> bool:
        self.calls += 1
        return self.calls > self.n


def test_interrupted_run_resumes_with_identical_outputs(demo):
    path, pid, _ = demo
    params = {"project_id": pid, "doc_ids": "all", "profile": "replace", "risk": False, "user": "lea"}
    with pytest.raises(JobCancelled):
        deid_runs.deidentify_job(StopAfter(str(path), None, dict(params), n=7))
    db = store.connect(path)
    run = store.list_deid_runs(db, pid)[0]
    assert run.status == "failed"
    before = _texts(db, run.id)
    assert len(before) == 7

    res = worker.run_inline(path, "deidentify", {"run_id": run.id, "risk": False, "user": "lea"})
    assert res["run_id"] == run.id and res["already_saved"] == 7 and res["saved"] == 23
    assert res["resume_mismatches"] == 0
    after = _texts(db, run.id)
    assert len(after) == 30 and len(store.list_deid_outputs(db, run.id)) == 30
    assert {d: after[d] for d in before} == before
    assert store.get_deid_run(db, run.id).status == "done"

    # an uninterrupted run writes exactly the same texts; rerunning a done run duplicates nothing
    full = worker.run_inline(path, "deidentify", params)
    assert _texts(db, full["run_id"]) == after
    again = worker.run_inline(path, "deidentify", {"run_id": run.id, "risk": False})
    assert again["saved"] == 0 and again["already_saved"] == 30
    assert _texts(db, run.id) == after
    db.close()


def test_a_run_still_being_written_is_not_resumed_until_its_worker_is_gone(demo):
    path, pid, gold = demo
    db = store.connect(path)
    job_id = store.create_job(db, "deidentify", {"project_id": pid, "doc_ids": gold}, project_id=pid)
    store.update_job(db, job_id, status="running", pid=999999)
    run_id = store.create_deid_run(db, pid, "replace", builtin_profiles()["replace"].to_dict(), job_id=job_id)
    assert not deid_runs.resumable(db, store.get_deid_run(db, run_id))
    with pytest.raises(deid_batch.DeidentificationError, match="still being written"):
        worker.run_inline(path, "deidentify", {"run_id": run_id, "risk": False})
    assert store.list_deid_outputs(db, run_id) == []
    store.mark_stale_jobs_failed(db, older_than_s=0)      # the worker was killed: its heartbeat stopped
    assert deid_runs.resumable(db, store.get_deid_run(db, run_id))
    res = worker.run_inline(path, "deidentify", {"run_id": run_id, "risk": False})
    assert res["saved"] == len(gold) and sorted(o.doc_id for o in store.list_deid_outputs(db, run_id)) == gold
    db.close()


def test_run_deidentifier_matches_deidentify_batch(demo):
    path, pid, _ = demo
    db = store.connect(path)
    project = store.get_project(db, pid)
    ids = [r.id for r in store.list_documents(db, pid)]
    inputs = deid_batch.gather_inputs(db, project, ids, "pre", "skip")
    db.close()
    profile = builtin_profiles()["replace"]
    ctx = DeidContext(secret=b"k" * 32, locale="en")
    batch = deidentify_batch(inputs.docs, profile, ctx)
    mine = deid_batch.RunDeidentifier(inputs.docs, profile, ctx)
    assert [mine(d).text for d in inputs.docs] == [r.text for r in batch.results]


def test_risk_rows_and_decisions_survive_rescoring(demo):
    path, pid, gold = demo
    res = worker.run_inline(path, "deidentify", {"project_id": pid, "doc_ids": "all", "risk": True})
    db = store.connect(path)
    run_id = res["run_id"]
    queue = store.risk_queue(db, run_id)
    assert len(queue) == 30 and len({r.doc_id for r in queue}) == 30
    order = ["red", "amber", "green"]
    assert [r.colour for r in queue] == sorted((r.colour for r in queue), key=order.index)
    # a red or amber document says why at its level; a replaced span is never the reason
    for r in queue:
        if r.colour != "green":
            assert any(x.get("level") == r.colour for x in r.reasons)
        assert "machine_only_direct_identifier" not in {x["kind"] for x in r.reasons}

    store.decide_risk(db, run_id, queue[0].doc_id, "withheld", "rita")
    store.decide_risk(db, run_id, queue[-1].doc_id, "accepted", "rita")
    again = worker.run_inline(path, "risk", {"run_id": run_id, "project_id": pid, "threshold": 0.9, "k": 2,
                                           "embedder": "lexical"})
    assert again["documents"] == 30 and again["threshold"] == 0.9
    after = {r.doc_id: r for r in store.risk_queue(db, run_id)}
    assert len(after) == 30
    assert after[queue[0].doc_id].decision == "withheld" and after[queue[0].doc_id].decided_by == "rita"
    assert after[queue[-1].doc_id].decision == "accepted"
    assert rs.latest_risk_result(db, run_id)["threshold"] == 0.9
    db.close()


def test_kept_spans_are_reported(demo):
    path, pid, gold = demo
    keep_names = builtin_profiles()["replace"].to_dict()
    keep_names["name"] = "keep-names"
    keep_names["actions"]["NAME"] = "keep"
    res = worker.run_inline(path, "deidentify", {"project_id": pid, "doc_ids": gold, "profile": keep_names})
    db = store.connect(path)
    docs = rs.risk_documents(db, res["run_id"])
    assert all(s.reviewed for d in docs for s in d.spans if s.source.startswith("human:"))
    assert any(s.action == "keep" for d in docs for s in d.spans)
    kept = [r for r in store.risk_queue(db, res["run_id"])
            if any(x["kind"] == "keep" and x.get("category") == "NAME" for x in r.reasons)]
    assert kept and all(r.colour == "red" for r in kept)     # a kept direct identifier is red outright
    db.close()


def test_upload_path_detects_plain_text_and_refuses_without_detector(demo):
    path, pid, _ = demo
    db = store.connect(path)
    project = store.get_project(db, pid)
    docs = store.load_documents(db, pid, ids=[r.id for r in store.list_documents(db, pid)][:3])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for d in docs:
            zf.writestr(f"note{d.doc_id}.txt", d.text)
    from pipeline.formats.uploads import read_upload
    uploaded = read_upload("notes.zip", buf.getvalue(), "text", project.schema)
    assert len(uploaded) == 3 and not any(d.spans for d in uploaded)
    with pytest.raises(deid_batch.DeidentificationError):
        deid_files.deidentify_documents(uploaded, builtin_profiles()["redact"], b"s" * 32, "en")
    up = deid_files.deidentify_documents(uploaded, builtin_profiles()["redact"], b"s" * 32, "en",
                                         detector=lambda: detectors.detector_for(db, project))
    assert sorted(up.detected) == sorted(d.doc_id for d in uploaded) and up.detector == "rules+dictionaries"
    assert all(r.spans for r in up.batch.results) and up.batch.summary.leaks == 0

    german = store.create_project(db, "de", GERMAN)
    with pytest.raises(detectors.DetectorUnavailable, match="no model is active"):
        detectors.detector_for(db, store.get_project(db, german))
    db.close()


def test_export_needs_the_export_right(demo):
    path, pid, gold = demo
    res = worker.run_inline(path, "deidentify", {"project_id": pid, "doc_ids": gold, "risk": False})
    db = store.connect(path)
    items = deid_files.stored_outputs_as_documents(db, res["run_id"])
    with pytest.raises(PermissionDenied):
        deid_files.export_outputs(db, store.get_user(db, "ana"), items, "brat", target="x")
    with pytest.raises(PermissionDenied):
        deid_files.export_outputs(db, store.get_user(db, "rita"), items, "brat", target="x")
    data = deid_files.export_outputs(db, store.get_user(db, "lea"), items, "jsonl", target=f"deid_run:{res['run_id']}")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.namelist()
    entry = store.list_audit(db, limit=1)[0]
    assert entry.action == "export" and entry.user == "lea"
    db.close()


def test_reason_marks_clip_and_sort():
    reasons = [{"kind": "unique_context", "start": 5, "end": 9, "context_start": 0, "context_end": 30},
               {"kind": "keep", "start": 12, "end": 15}, {"kind": "quasi_identifier"},
               {"kind": "unique_context", "start": 5, "end": 9, "context_start": 0, "context_end": 30}]
    assert reason_marks(reasons, 20) == [(0, 20, "context"), (5, 9, "entity"), (12, 15, "entity")]


def test_output_layer_round_trip():
    assert layers.parse_output_layer(layers.output_layer("keep", "annotator:ana")) == ("keep", "annotator:ana")
    assert layers.parse_output_layer(layers.output_layer("redact", "")) == ("redact", "detected")
    assert layers.reviewed_layer("gold") and layers.reviewed_layer("annotator:ben") and not layers.reviewed_layer("detected")


def test_commands_print_counts_only(demo, capsys):
    from cli import main

    path, pid, gold = demo
    db = store.connect(path)
    name = store.get_project(db, pid).name
    texts = [d.text for d in store.load_documents(db, pid, ids=gold)]
    db.close()
    assert main(["deidentify-project", "--db", str(path), "--project", name, "--docs",
                 ",".join(map(str, gold)), "--profile", "redact"]) == 0
    out = capsys.readouterr().out
    assert "leaks=0" in out and f"documents={len(gold)}" in out and "risk[" in out
    run_id = int(re.search(r"run=(\d+)", out).group(1))
    assert main(["risk-project", "--db", str(path), "--run", str(run_id), "--method", "corpus-share"]) == 0
    out2 = capsys.readouterr().out
    assert "method=corpus-share" in out2
    for t in texts:     # no document text on stdout (check a few long lines of each)
        for line in [x for x in t.splitlines() if len(x) > 25][:5]:
            assert line not in out + out2
    assert main(["deidentify-project", "--db", str(path), "--project", "no such project"]) == 1
    prof = builtin_profiles()["redact"].to_dict()
    prof.update(name="keep-ages", actions={**prof["actions"], "AGE": "keep"})
    (path.parent / "p.json").write_text(json.dumps(prof), encoding="utf-8")
    assert main(["deidentify-project", "--db", str(path), "--project", name, "--docs", str(gold[0]),
                 "--profile", str(path.parent / "p.json"), "--no-risk"]) == 0
    out3 = capsys.readouterr().out
    assert "redact=" in out3 and "risk[" not in out3
    db = store.connect(path)
    run = store.list_deid_runs(db, pid)[0]
    assert run.profile_name == "keep-ages" and run.profile["actions"]["AGE"] == "keep"
    db.close()


def test_an_active_model_without_an_encoder_falls_back_to_lexical(demo, tmp_path):
    path, pid, _ = demo
    folder = tmp_path / "models" / "v1"
    folder.mkdir(parents=True)
    db = store.connect(path)
    mv = store.add_model_version(db, pid, "v1", str(folder), metrics={"f1": 0.9})
    store.activate_model(db, mv)
    emb, note = rs.choose_embedder(db, pid)
    assert emb.name.startswith("lexical") and "v1 cannot be read from its folder" in note
    assert rs.choose_embedder(db, pid, "lexical")[1].endswith("as asked")
    with pytest.raises(detectors.DetectorUnavailable, match="v1 cannot be loaded"):
        detectors.detector_for(db, store.get_project(db, pid))
    db.close()
