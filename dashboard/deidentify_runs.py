"""De-identify page, project documents: choose which ones, start the run as a job, follow it,
and look through a stored run (summary, each document beside its output, download, resume)."""
from __future__ import annotations

from collections import Counter

import streamlit as st

from dashboard import components as C
from dashboard import state
from dashboard.deidentify_summary import render_summary
from dashboard.deidentify_views import POS_KEY, navigator, run_download, side_by_side
from dashboard.state import PageContext
from dashboard.when import local_time
from pipeline.deid import Profile
from pipeline.layers import DETECTED, parse_output_layer
from services import access, jobs, projects
from services import deid_runs
from services.residual import residual_estimate
from services.risk import risk_words

#: A stored run's status in words (the store's ``running``, ``done``, ``failed``; anything else is
#: shown with its underscores as spaces).
RUN_STATUS_WORDS = {"running": "still running or interrupted", "done": "finished", "failed": "failed",
                    "in_progress": "in progress"}
JOB_KEY = "deid.job_id"
RUN_KEY = "deid.run_id"


def project_documents(ctx: PageContext, profile: Profile) -> None:
    """Which documents, with spans from which layer; the run button; the job; the stored runs."""
    db, project = ctx.db, ctx.project
    records = projects.documents(db, project.id)
    names = {r.id: r.name for r in records}
    how, ids = _which_documents(ctx, names)
    c1, c2 = st.columns(2)
    layer = c1.selectbox("Spans from layer", ["gold", "pre"], key="deid.layer")
    missing = c2.radio("Documents without that layer", ["detect", "skip"], horizontal=True, key="deid.missing",
                       format_func=lambda m: "detect their PHI (active model, else rules and dictionaries)"
                       if m == "detect" else "leave them out")
    running = not jobs.job_finished(db, st.session_state.get(JOB_KEY))
    if st.button(f"De-identify {len(ids)} document(s)", key="deid.run", type="primary", disabled=not ids or running,
                 icon=":material/play_arrow:"):
        st.session_state[JOB_KEY] = deid_runs.start_run(state.db_path(), ctx.user, project.id,
                                                        doc_ids=ids if how != "All" else "all", layer=layer,
                                                        missing=missing, profile=profile)
        st.rerun()
    _job_panel(ctx)
    runs = deid_runs.runs(db, ctx.user, project.id)
    if runs:
        _stored_run(ctx, runs, names, running)


def _which_documents(ctx: PageContext, names: dict) -> tuple[str, list]:
    """All documents, a selection, or those of chosen statuses: (how, their ids)."""
    how = st.radio("Which documents", ["All", "Selection", "By status"], horizontal=True, key="deid.which")
    if how == "Selection":
        ids = st.multiselect("Documents", list(names), format_func=lambda i: names[i], key="deid.docs")
    elif how == "By status":
        statuses = projects.document_statuses(ctx.db, ctx.project.id)
        have = Counter(statuses.values())
        chosen = st.multiselect("Status", sorted(have), default=["gold"] if "gold" in have else None,
                                format_func=lambda s: f"{s} ({have[s]})", key="deid.status")
        ids = [i for i, s in statuses.items() if s in chosen]
    else:
        ids = list(names)
    return how, ids


def _job_panel(ctx: PageContext) -> None:
    job = C.job_progress(st.session_state.get(JOB_KEY), user=ctx.user, key="deid", counts=True)
    if job is None:
        return
    if job.status == "failed":
        st.error(f"Job #{job.id} failed: {job.error or 'no reason recorded'}")
        if isinstance(job.params, dict) and job.params.get("run_id") is None:
            runs = [r for r in deid_runs.runs(ctx.db, ctx.user, ctx.project.id) if r.job_id == job.id]
            if runs:
                st.caption(f"Run {runs[0].id} kept its finished outputs; resume it below.")
    elif isinstance(job.result, dict) and job.result.get("run_id") and st.session_state.get("deid.job_seen") != job.id:
        st.session_state["deid.job_seen"] = job.id
        st.session_state[RUN_KEY] = int(job.result["run_id"])
        st.session_state[POS_KEY + ".run"] = 0
        risk = job.result.get("risk") or {}
        if job.result.get("failure"):
            st.error(f"Run {job.result['run_id']} failed the leak check: {job.result.get('leaks', 0)} piece(s) of "
                     "input PHI are in its outputs; it is not scored for risk and cannot be downloaded.")
        else:
            st.success(f"Run {job.result['run_id']} finished: {job.result.get('documents', 0)} documents, "
                       f"{job.result.get('leaks', 0)} leaks" + (f"; risk: {risk_words(risk)}" if risk else ""))


def status_words(run) -> str:
    """A run's status as a reader says it (a run failed by its leak check says so)."""
    if run.failed_leak_check:
        return "failed its leak check"
    return RUN_STATUS_WORDS.get(run.status, str(run.status).replace("_", " "))


def run_label(run) -> str:
    """One line naming a stored run: number, profile, status in words, local start time, who."""
    return (f"Run {run.id} · {run.profile_name} · {status_words(run)} · started {local_time(run.created_at)} · "
            f"by {run.created_by or '-'}")


def _stored_run(ctx: PageContext, runs: list, names: dict, running: bool) -> None:
    """Pick a stored run: its state (failed, incomplete: resume), summary and outputs."""
    st.divider()
    by_id = {r.id: r for r in runs}
    if st.session_state.get(RUN_KEY) not in by_id:
        st.session_state[RUN_KEY] = runs[0].id
    run_id = st.selectbox("Run", list(by_id), key=RUN_KEY, format_func=lambda i: run_label(by_id[i]))
    run = by_id[run_id]
    if run.failed_leak_check:
        st.error(f"Run {run.id} failed: its leak check found input PHI in the outputs. It cannot be resumed, "
                 "scored or downloaded; fix the spans and start a new run.")
    elif run.status != "done":
        st.warning(f"Run {run.id} is {status_words(run)}: its outputs may be incomplete.")
        if deid_runs.resumable(ctx.db, run) and st.button("Resume this run", key="deid.resume", disabled=running,
                                                          help="writes only the documents the run lacks"):
            st.session_state[JOB_KEY] = deid_runs.resume_run(state.db_path(), ctx.user, ctx.project.id, run.id)
            st.rerun()
    render_summary(run.counts or {}, run.quality or {}, int(run.leaks or 0), {str(k): v for k, v in names.items()},
                   estimate=residual_estimate(ctx.db, ctx.project.id, run.counts or {},
                                              model_version=run.model_version))
    outputs = deid_runs.run_outputs(ctx.db, ctx.user, run.id)
    if outputs:
        _run_output(ctx, run, outputs)


def _run_output(ctx: PageContext, run, outputs: list) -> None:
    """One output of a stored run beside its document (spans of the input layer as stored now)."""
    db, user, project = ctx.db, ctx.user, ctx.project
    pos = navigator(len(outputs), POS_KEY + ".run")
    out = deid_runs.run_output(db, user, run.id, outputs[pos].doc_id)
    opened: set = st.session_state.setdefault("deid.opened", set())
    doc = access.open_document(db, user, out.doc_id, project_id=project.id, record=out.doc_id not in opened)
    opened.add(out.doc_id)
    st.subheader(doc.name + (f" · {out.n_leaks} leak(s)" if out.n_leaks else ""))
    if out.output_name:
        st.caption(f"exported as {out.output_name}")
    in_layer = next((parse_output_layer(s.layer)[1] for s in out.spans), "")
    in_spans, note = [], ""
    if in_layer and in_layer != DETECTED:
        in_spans = access.read_layer_for(db, user, out.doc_id, in_layer).spans
        note = f"spans of the {in_layer} layer as stored now"
    elif in_layer == DETECTED and out.input_spans is not None:
        in_spans, note = out.input_spans, "spans detected when the run was made, stored with it"
    elif in_layer == DETECTED:
        note = "spans were detected when the run was made (a run made before they were stored with it)"
    side_by_side(list(project.schema.categories), doc.text or "", in_spans, out.text or "", out.spans, note=note)
    run_download(user, run.id, "deid.run_dl", leaked=run.failed_leak_check)
