"""The De-identify page through AppTest: a lead de-identifies the gold documents as a job and an
uploaded JSONL file in-process, sees original and output side by side and the run summary;
annotators and reviewers cannot reach the page, and only leads may download."""
from __future__ import annotations

import time

import pytest

import store
from apptest_helpers import demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from services import deid_files
from pipeline.errors import PermissionDenied
from pipeline.formats import write_collection
from services import access


def _wait_job(app, job_id: int, timeout: float = 90.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with app.db() as db:
            job = store.get_job(db, job_id)
        if job.finished:
            return job
        time.sleep(0.25)
    raise AssertionError(f"job {job_id} did not finish")


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_lead_runs_project_documents_as_a_job(demo_app):
    with demo_app.db() as db:
        gold = sorted(store.read_project_layer(db, demo_app.project_id, "gold"))
    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    assert not errors(at)
    at.radio(key="deid.which").set_value("By status").run()
    assert at.multiselect(key="deid.status").value == ["gold"]
    run_button = at.button(key="deid.run")
    assert run_button.label == f"De-identify {len(gold)} document(s)"
    run_button.click().run()
    assert not errors(at)
    job_id = at.session_state["deid.job_id"]
    job = _wait_job(demo_app, job_id)
    assert job.status == "done", job.error
    at.run()
    assert not errors(at)
    assert [s.value for s in at.success if "Run" in s.value]
    assert _metric(at, "Documents") == str(len(gold)) and _metric(at, "Leaks") == "0"
    # the banner says what the check can see, and what may remain beside it (issue 32)
    assert any("no detected or annotated PHI remains" in s.value for s in at.success)
    assert not any("no original PHI" in s.value for s in at.success)
    assert any("annotators missed" in w.value for w in at.warning)
    assert len(at.html) >= 2                        # original and de-identified, side by side
    assert [m.value for m in at.markdown if m.value in ("**Original**", "**De-identified**")] == \
        ["**Original**", "**De-identified**"]
    first = at.subheader[0].value
    at.button(key="deid.pos.run.next").click().run()
    assert not errors(at) and at.subheader[0].value != first
    assert at.get("download_button")                 # a lead may download
    with demo_app.db() as db:
        run = store.list_deid_runs(db, demo_app.project_id)[0]
        assert run.status == "done" and len(store.list_deid_outputs(db, run.id)) == len(gold)
        assert len(store.risk_queue(db, run.id)) == len(gold)


def test_lead_deidentifies_an_uploaded_jsonl_file(demo_app, tmp_path):
    with demo_app.db() as db:
        docs = store.load_documents(db, demo_app.project_id, layer="gold")[:3]
    for d in docs:
        d.spans = [s.with_(doc_id=d.doc_id) for s in d.spans]
    write_collection(docs, tmp_path / "up", "jsonl")
    data = (tmp_path / "up" / "documents.jsonl").read_bytes()

    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    at.radio(key="deid.source").set_value("Upload files").run()
    at.selectbox(key="deid.upload_fmt").set_value("jsonl").run()
    at.file_uploader(key="deid.upload").set_value(("notes.jsonl", data, "application/jsonl")).run()
    at.button(key="deid.upload_run_btn").click().run()
    assert not errors(at)
    assert _metric(at, "Documents") == "3" and _metric(at, "Leaks") == "0"
    assert len(at.html) >= 2 and at.get("download_button")
    at.button(key="deid.pos.upload.next").click().run()
    assert not errors(at) and "2** of **3" in " ".join(m.value for m in at.markdown)
    with demo_app.db() as db:
        assert store.list_deid_runs(db, demo_app.project_id) == []       # nothing stored for an upload
        assert store.list_audit(db, limit=1)[0].action == "deid.upload"


def test_plain_text_upload_is_detected_then_deidentified(demo_app):
    with demo_app.db() as db:
        text = store.load_documents(db, demo_app.project_id)[0].text
    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    at.radio(key="deid.source").set_value("Upload files").run()
    at.file_uploader(key="deid.upload").set_value(("note.txt", text.encode("utf-8"), "text/plain")).run()
    at.button(key="deid.upload_run_btn").click().run()
    assert not errors(at)
    assert any("detector: rules+dictionaries" in c.value for c in at.caption)


def test_annotators_and_reviewers_are_refused(demo_app):
    with demo_app.db() as db:
        for name in ("ana", "rita"):
            with pytest.raises(PermissionDenied):
                access.require(store.get_user(db, name), "deidentify")
            with pytest.raises(PermissionDenied):      # and cannot download outputs either
                deid_files.export_outputs(db, store.get_user(db, name), [], "brat", target="t")
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.run()
    with pytest.raises(ValueError):  # the page is not in an annotator's navigation
        at.switch_page("pages/deidentify.py")


def test_lead_edits_and_saves_a_profile(demo_app):
    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    at.selectbox(key="deid.profile").set_value("redact").run()
    at.selectbox(key="deid.action.redact.DATE").set_value("shift").run()
    at.text_input(key="deid.placeholder.redact").set_value("{Oops}").run()
    assert any("placeholder template" in e for e in errors(at))          # refused, base profile kept
    at.text_input(key="deid.placeholder.redact").set_value("<{TYPE}>").run()
    assert not errors(at)
    at.text_input(key="deid.save_as").set_value("dates shifted").run()
    at.button(key="deid.save_profile").click().run()
    assert not errors(at)
    with demo_app.db() as db:
        saved = store.get_deid_profile(db, demo_app.project_id, "dates shifted").profile
    assert saved["actions"]["DATE"] == "shift" and saved["actions"]["NAME"] == "redact"
    assert saved["placeholder"] == "<{TYPE}>"
    assert "dates shifted" in at.selectbox(key="deid.profile").options[-1]


def test_defect_16_a_profile_saved_by_someone_else_meanwhile_is_not_overwritten(demo_app):
    with demo_app.db() as db:
        store.save_deid_profile(db, demo_app.project_id, "release", {"name": "release", "actions": {"NAME": "replace"}})
        at = new_app(demo_app)
        sign_in(at, demo_app, "lea", "lead")
        open_page(at, "deidentify")                                       # shows "release" at version 1
        store.save_deid_profile(db, demo_app.project_id, "release", {"name": "release", "actions": {"NAME": "keep"}},
                                expected_version=1, user="rita")        # someone else saves it meanwhile
        at.selectbox(key="deid.profile").set_value("redact").run()
        at.text_input(key="deid.save_as").set_value("release").run()
        at.button(key="deid.save_profile").click().run()
        assert any("version" in e for e in errors(at)), errors(at)       # refused in words, nothing written
        kept = store.get_deid_profile(db, demo_app.project_id, "release")
    assert kept.version == 2 and kept.profile["actions"] == {"NAME": "keep"}


def test_a_leak_shows_as_a_red_alert(demo_app):
    from services import worker
    from pipeline.deid import builtin_profiles
    from pipeline.spans import Document, Span

    text = "Patient Johanna Smithers seen today.\nSmithers reports pain in the left knee.\n"
    with demo_app.db() as db:
        [did] = store.add_documents(db, demo_app.project_id,
                                    [Document("leaky-note", text, [Span("leaky-note", 8, 24, "NAME", "PATIENT")])],
                                    layer="gold", user="lea")
    profile = {**builtin_profiles()["redact"].to_dict(), "name": "no propagation", "propagate": False}
    res = worker.run_inline(demo_app.db_path, "deidentify", {"project_id": demo_app.project_id, "doc_ids": [did],
                                                           "profile": profile, "risk": False})
    assert res["leaks"] == 1
    with demo_app.db() as db:
        run = store.get_deid_run(db, res["run_id"])
    assert run.leaks == 1 and "Smithers" not in str(run.counts)       # offsets and labels only
    assert run.counts["leak_details"][0]["start"] == text.index("Smithers", 30) - (24 - 8) + len("[NAME]")

    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    alerts = [e.value for e in at.error if "Leak check" in e.value]
    assert alerts and "1 original PHI string" in alerts[0] and "NAME 1" in alerts[0]
    assert "leaky-note" in list(at.dataframe[0].value["document"])
    assert at.subheader[0].value.endswith("1 leak(s)")
