"""Risk decisions gate a run's export (issue 32, item 1): withheld documents never leave by any
path, sent-back documents become an annotator's work with the reviewer's reasons and are
re-de-identified alone once their gold is fixed, and a lead can require red documents decided."""
from __future__ import annotations

import io
import json
import zipfile

import pytest

import store
from cli import main as cli_main
from pipeline.layers import GOLD
from services import release, rework, worker
from services import risk as rs
from services.demo import create_demo_project
from services.settings import ProjectSettings


@pytest.fixture
def run(tmp_path):
    path = tmp_path / "wb.db"
    with store.connect(path) as db:
        pid = create_demo_project(db, n_docs=12, seed=7)
        store.create_user(db, "lea", "a long test password", "lead")
        gold = sorted(store.read_project_layer(db, pid, GOLD))
    res = worker.run_inline(path, "deidentify", {"project_id": pid, "doc_ids": gold, "profile": "replace",
                                                 "risk": True, "risk_params": {"embedder": "lexical"}, "user": "lea"})
    with store.connect(path) as db:
        queue = store.risk_queue(db, res["run_id"])
    return path, pid, res["run_id"], queue


def _names(db, run_id, doc_ids):
    return {o.output_name for o in store.list_deid_outputs(db, run_id) if o.doc_id in doc_ids}


def _zip_names(data: bytes) -> set[str]:
    return {n.rsplit("/", 1)[-1].split(".")[0] for n in zipfile.ZipFile(io.BytesIO(data)).namelist()}


def test_a_withheld_document_is_absent_from_the_zip_the_folder_and_the_command_line(run, tmp_path, capsys):
    path, pid, run_id, queue = run
    withheld, other = queue[0].doc_id, queue[1].doc_id
    with store.connect(path) as db:
        lead = store.get_user(db, "lea")
        rita = store.get_user(db, "rita")
        rs.decide(db, rita, run_id, withheld, "withheld")
        [gone] = _names(db, run_id, {withheld})
        kept = _names(db, run_id, {other})
        data, plan = release.export_run_zip(db, lead, run_id, "brat")
        assert gone not in _zip_names(data) and kept <= _zip_names(data)
        assert plan.withheld == (withheld,) and "1 withheld" in plan.line()
        folder = tmp_path / "folder"
        release.export_run_folder(db, "cli:lea", run_id, folder, "jsonl")
        written = (folder / "documents.jsonl").read_text() if (folder / "documents.jsonl").exists() else \
            "".join(p.read_text() for p in folder.rglob("*") if p.is_file())
        assert gone not in written and next(iter(kept)) in written
    out = tmp_path / "cli"
    rc = cli_main(["export", "--db", str(path), "--project", store.connect(path).execute(
        "SELECT name FROM projects WHERE id = ?", [pid]).fetchone()[0], "--run", str(run_id), "--format", "text",
        "--out", str(out)])
    assert rc == 0
    assert not any(gone in p.name for p in out.rglob("*")) and any(out.rglob("*.txt"))
    assert "1 withheld" in capsys.readouterr().out
    with store.connect(path) as db:
        rows = [e for e in store.list_audit(db, action="export") if e.target == f"deid_run:{run_id}"]
        assert len(rows) == 3 and all(e.detail["withheld"] == 1 and withheld in e.detail["left_out_ids"]
                                      for e in rows)
        assert store.list_audit(db, action="risk.decide")


def test_sent_back_goes_to_an_annotators_queue_with_its_reasons_and_is_redone_alone(run):
    path, pid, run_id, queue = run
    red = next(r for r in queue if r.reasons)
    with store.connect(path) as db:
        rita = store.get_user(db, "rita")
        before = {o.doc_id: o.text for o in store.list_deid_outputs(db, run_id, with_text=True)}
        rs.decide(db, rita, run_id, red.doc_id, "sent_back", annotator="ben", note="street address kept")
        from services.queues import load_queue
        first = load_queue(db, "ben", pid)[0]
        assert first.doc_id == red.doc_id and first.status == "assigned"     # first in the annotator's queue
        mine = rework.my_send_backs(db, "ben", pid)
        assert mine[red.doc_id].note == "street address kept" and mine[red.doc_id].reasons == red.reasons
        _, plan = release.export_run_zip(db, store.get_user(db, "lea"), run_id, "text")
        assert red.doc_id in plan.sent_back and red.doc_id not in plan.release
        lead = store.get_user(db, "lea")
        with pytest.raises(Exception, match="gold has not been saved"):
            rework.redeidentify_document(db, lead, run_id, red.doc_id)
        # the gold is fixed: a name the annotator missed is now a span
        ls = store.read_layer(db, red.doc_id, GOLD)
        text = store.get_document(db, red.doc_id).text
        import re
        from pipeline.locales.shared_words import FIELD_LABELS
        from pipeline.spans import Span
        start, end = next(m.span() for m in re.finditer(r"\b[A-Z][a-z]{4,}\b", text)
                          if m.group().lower() not in FIELD_LABELS
                          and not any(s.start < m.end() and m.start() < s.end for s in ls.spans))
        new = ls.spans + [Span(str(red.doc_id), start, end, "NAME", "PATIENT", source="manual")]
        store.save_layer(db, red.doc_id, GOLD, new, expected_version=ls.version, user="rita")
    rc = cli_main(["deidentify-project", "--db", str(path), "--redo", str(run_id), "--docs", str(red.doc_id),
                   "--user", "cli:lea"])
    assert rc == 0
    with store.connect(path) as db:
        after = {o.doc_id: o.text for o in store.list_deid_outputs(db, run_id, with_text=True)}
        assert after[red.doc_id] != before[red.doc_id]
        assert {d: t for d, t in after.items() if d != red.doc_id} == \
            {d: t for d, t in before.items() if d != red.doc_id}
        assert rework.my_send_backs(db, "ben", pid) == {}
        assert next(r for r in store.risk_queue(db, run_id) if r.doc_id == red.doc_id).decision is None
        assert store.list_audit(db, action="risk.send_back") and store.list_audit(db, action="risk.redo")


def test_required_red_decisions_block_the_export_with_one_line(run):
    path, pid, run_id, queue = run
    reds = [r.doc_id for r in queue if r.colour == "red"]
    if not reds:    # a run over gold spans is mostly green: one document red, as the scorer writes it
        with store.connect(path) as db:
            store.save_risk_scores(db, run_id, [{"doc_id": queue[0].doc_id, "score": 90.0, "colour": "red",
                                                 "reasons": [{"kind": "possible_missed_phi", "level": "red",
                                                              "message": "Text at characters 0-4 was left as "
                                                                         "written."}]}], method="document-share")
        reds = [queue[0].doc_id]
    with store.connect(path) as db:
        lead = store.get_user(db, "lea")
        project = store.get_project(db, pid)
        settings = ProjectSettings.of(project).with_(require_red_decided=True).to_settings()
        from services import projects
        projects.update_settings(db, lead, pid, ProjectSettings.from_settings(settings),
                                 expected_version=project.version)
        with pytest.raises(release.ReleaseBlocked) as e:
            release.export_run_zip(db, lead, run_id, "text")
        assert "\n" not in str(e.value) and f"{len(reds)} red document(s) have no risk decision" in str(e.value)
        assert store.list_audit(db, action="export.refused")
        for d in reds:
            rs.decide(db, store.get_user(db, "rita"), run_id, d, "accepted")
        data, plan = release.export_run_zip(db, lead, run_id, "text")
        assert len(plan.release) == len(queue) and data
