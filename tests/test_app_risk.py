"""The Risk triage page through AppTest: documents red first with their reasons marked in the
de-identified text, a reviewer's decision recorded (and kept by a re-score), annotators refused."""
from __future__ import annotations

import html
import time

import pytest

import store
from apptest_helpers import demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from services import jobs
from services import worker
from pipeline.errors import PermissionDenied
from services import access


def _scored_run(app) -> int:
    return worker.run_inline(app.db_path, "deidentify", {"project_id": app.project_id, "doc_ids": "all",
                                                       "profile": "replace", "user": "lea"})["run_id"]


def test_reviewer_sees_red_first_and_records_a_decision(demo_app):
    run_id = _scored_run(demo_app)
    with demo_app.db() as db:
        queue = store.risk_queue(db, run_id)
    order = ["red", "amber", "green"]
    assert [r.colour for r in queue] == sorted((r.colour for r in queue), key=order.index)
    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    open_page(at, "risk")
    assert not errors(at)
    counts = {m.label: m.value for m in at.metric}
    assert counts[":red[●] red"] == str(sum(r.colour == "red" for r in queue))
    assert counts["Undecided"] == str(len(queue))
    doc_box = at.selectbox(key="risk.doc_id")
    assert doc_box.value == queue[0].doc_id and doc_box.options[0].startswith(f"[{queue[0].colour.upper()}]")
    table = at.dataframe[0].value
    assert list(table["document"])[: len(queue)] == [r.doc_name for r in queue]
    # the de-identified text is shown with a box for each reason's entity
    marked = [h for h in at.html if "wb-risk" in h.proto.body]
    assert len(marked) == 1
    n_entities = len({(r["start"], r["end"]) for r in queue[0].reasons
                      if r.get("start") is not None and r.get("level") != "info"})
    assert marked[0].proto.body.count("border:2px solid #c62828") >= min(1, n_entities)
    with demo_app.db() as db:
        out = store.get_deid_output(db, run_id, queue[0].doc_id)
    first_line = next(x for x in out.text.splitlines() if x.strip())
    assert html.escape(first_line.split()[0]) in marked[0].proto.body

    at.button(key="risk.decide.withheld").click().run()
    assert not errors(at)
    with demo_app.db() as db:
        row = next(r for r in store.risk_queue(db, run_id) if r.doc_id == queue[0].doc_id)
        assert row.decision == "withheld" and row.decided_by == "rita" and row.decided_at
    assert at.selectbox(key="risk.doc_id").value != queue[0].doc_id      # moved on to the next undecided
    assert {m.label: m.value for m in at.metric}["Undecided"] == str(len(queue) - 1)

    # a re-score from the page keeps the decision
    at.button(key="risk.rescore").click().run()
    job_id = at.session_state["risk.job_id"]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        with demo_app.db() as db:
            job = store.get_job(db, job_id)
        if job.finished:
            break
        time.sleep(0.25)
    assert job.status == "done", job.error
    at.run()
    assert not errors(at)
    with demo_app.db() as db:
        row = next(r for r in store.risk_queue(db, run_id) if r.doc_id == queue[0].doc_id)
        assert row.decision == "withheld"


def test_page_without_runs_says_so(demo_app):
    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    open_page(at, "risk")
    assert not errors(at)
    assert any("No de-identification run" in i.value for i in at.info)


def test_annotator_is_refused(demo_app):
    with demo_app.db() as db:
        ana = store.get_user(db, "ana")
        for action in ("view_risk", "decide_risk"):
            with pytest.raises(PermissionDenied):
                access.require(ana, action)
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.run()
    with pytest.raises(ValueError):
        at.switch_page("pages/risk.py")


def test_send_back_from_the_page_reaches_the_annotators_queue_and_the_export_says_so(demo_app):
    """Issue 32: "Send back (fix annotation)" created no work and the export held everything."""
    run_id = _scored_run(demo_app)
    with demo_app.db() as db:
        first = store.risk_queue(db, run_id)[0]
    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    open_page(at, "risk")
    assert any("exports" in c.value and "0 withheld" in c.value for c in at.caption)
    assert at.selectbox(key="risk.doc_id").value == first.doc_id
    at.selectbox(key="risk.send_to").set_value("ana")
    at.text_input(key="risk.note").set_value("street address kept")
    at.button(key="risk.decide.sent_back").click().run()
    assert not errors(at)
    with demo_app.db() as db:
        [sent] = store.list_send_backs(db, annotator="ana")
        assert sent.doc_id == first.doc_id and sent.note == "street address kept" and sent.reasons == first.reasons
        assert any(a.doc_id == first.doc_id and a.status == "assigned" for a in store.list_assignments(db, user="ana"))
    assert any("1 sent back for fixing" in c.value for c in at.caption)


def test_switching_runs_resets_the_document_and_reasons_are_shown_in_full(demo_app):
    everything = _scored_run(demo_app)
    with demo_app.db() as db:
        gold_ids = sorted(store.read_project_layer(db, demo_app.project_id, "gold"))
    gold_run = worker.run_inline(demo_app.db_path, "deidentify", {
        "project_id": demo_app.project_id, "doc_ids": gold_ids, "layer": "gold", "missing": "skip",
        "profile": "replace", "user": "lea"})["run_id"]
    with demo_app.db() as db:
        queue_all, queue_gold = store.risk_queue(db, everything), store.risk_queue(db, gold_run)
    assert len(queue_gold) == len(gold_ids) >= 2
    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    open_page(at, "risk")
    at.selectbox(key="risk.run_id").select(everything).run()
    assert at.selectbox(key="risk.doc_id").value == queue_all[0].doc_id
    # a document both runs hold that is not the gold run's first: switching must not keep it
    shared = next(r.doc_id for r in queue_gold[1:] if r.doc_id != queue_all[0].doc_id)
    at.selectbox(key="risk.doc_id").select(shared).run()
    assert at.selectbox(key="risk.doc_id").value == shared
    at.selectbox(key="risk.run_id").select(gold_run).run()
    assert not errors(at)
    box = at.selectbox(key="risk.doc_id")
    assert box.value == queue_gold[0].doc_id and set(box.options) and len(box.options) == len(queue_gold)
    # every reason that sets the colour is written out whole (no table cell cutting it)
    flagged = [r for r in queue_all if any(x.get("level") in ("red", "amber") for x in r.reasons)]
    if not flagged:     # detection on the small demo may leave nothing to flag: one red score, as the scorer writes it
        message = ("Text at characters 120-131 was left as written, and the project's model reads it as PHI "
                   "with probability 0.91: a reviewer should look at it before release.")
        with demo_app.db() as db:
            store.save_risk_scores(db, everything, [{"doc_id": queue_all[-1].doc_id, "score": 90.0, "colour": "red",
                                                     "reasons": [{"kind": "possible_missed_phi", "level": "red",
                                                                  "message": message}]}], method="document-share")
            flagged = [r for r in store.risk_queue(db, everything) if r.colour == "red"]
    assert flagged, "the demo run has no red or amber document to read"
    at.selectbox(key="risk.run_id").select(everything).run()
    at.selectbox(key="risk.doc_id").select(flagged[0].doc_id).run()
    shown = " ".join(m.value for m in at.markdown)
    for reason in flagged[0].reasons:
        if reason.get("level") in ("red", "amber"):
            assert reason["message"] in shown
