"""Home: the project at a glance, and what the signed-in user should do next."""
from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard import state
from pipeline.annotation.queue import QUEUE_ORDER_WORDS
from pipeline.metrics.summaries import FEW_NOTES, headline_f1
from services import access, jobs, queues, review, worklists

ctx = state.page_context("view_project")
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings

st.title(project.name)
st.caption(f"Label schema: {project.schema.name} · signed in as {user.username} ({user.role})")

ov = C.project_overview(str(state.db_path()), project.id, state.data_version(db))
# agreement is a quality metric: with blind double annotation annotators do not see it
show_agreement = access.can(user, "view_metrics")
cols = st.columns(4 if show_agreement else 3)
cols[0].metric("Documents", ov["documents"])
cols[1].metric("Gold documents", ov["gold_finished"], help=f"{ov['gold_spans']} gold spans")
dev_docs = ov.get("active_dev_docs")
on_notes = f" on {dev_docs} held-out note{'s' if dev_docs != 1 else ''}" if dev_docs is not None else ""
model_value = "none" if not ov["active_model"] else (
    f"F1 {ov['active_f1']:.2f}" if ov["active_f1"] is not None else "active")
cols[2].metric("Active model", model_value,
               help=None if not ov["active_model"] else f"version {ov['active_model']}: strict micro F1{on_notes} "
                                                          "(gold the version was not trained on)")
if show_agreement:
    cols[3].metric("Agreement (strict F1)", "-" if ov["agreement_f1"] is None else f"{ov['agreement_f1']:.2f}",
                   help=f"mean pairwise entity F1 over {ov['agreement_docs']} double-annotated documents")
if ov["active_f1"] is not None:
    st.caption(f"Active model {ov['active_model']}: strict micro F1 {ov['active_f1']:.3f}"
               + (on_notes or " (how many held-out notes it rests on was not recorded)") + ".")
    if dev_docs is not None and dev_docs < FEW_NOTES:
        st.warning(f"This F1 rests on {dev_docs} held-out note{'s' if dev_docs != 1 else ''}: fewer than {FEW_NOTES}, "
                   "so one note more or less can move it by several points. Adjudicate more gold on the Review "
                   "page and retrain before trusting it.", icon=":material/info:")

st.subheader("Documents by status")
status_cols = st.columns(len(ov["by_status"]))
for col, (status, n) in zip(status_cols, ov["by_status"].items()):
    col.metric(status.replace("_", " "), n)

if ov["risk"] is not None:
    st.subheader(f"Re-identification risk (run {ov['risk_run']})")
    rc = st.columns(3)
    for col, colour in zip(rc, ("red", "amber", "green")):
        col.metric(colour, ov["risk"].get(colour, 0))

st.subheader("What to do next")
did_something = False

if access.can(user, "annotate"):
    queue = queues.load_queue(db, user.username, project.id, settings.queue_order, settings.queue_seed)
    todo = [a for a in queue if a.status != "finished"]
    if queue:
        did_something = True
        st.markdown(f"**Your queue:** {len(todo)} to do, {len(queue) - len(todo)} finished "
                    f"(order: {QUEUE_ORDER_WORDS.get(settings.queue_order, settings.queue_order)}).")
        for a in todo[:8]:
            c1, c2 = st.columns([4, 1])
            c1.write(f"{a.doc_name} · {a.status.replace('_', ' ')}")
            if c2.button("Open", key=f"home.open.{a.doc_id}"):
                st.session_state["annotate.doc_id"] = a.doc_id
                st.switch_page(state.page_spec("annotate").path, query_params={"doc": str(a.doc_id)})

if access.can(user, "review"):
    did_something = True
    waiting = review.review_queue(db, project.id)
    st.markdown(f"**Awaiting adjudication:** {len(waiting)} document(s).")
    for item in waiting[:8]:
        c1, c2 = st.columns([4, 1])
        c1.write(f"{item.name} · finished by {', '.join(item.annotators)}")
        if c2.button("Review", key=f"home.review.{item.doc_id}"):
            st.session_state["review.doc_id"] = item.doc_id
            st.switch_page(state.page_spec("review").path, query_params={"doc": str(item.doc_id)})
    red = worklists.red_documents(db, project.id)
    if red:
        st.markdown(f"**Red risk, undecided:** {len(red)} document(s): "
                    + ", ".join(r.doc_name for r in red[:10]) + (" ..." if len(red) > 10 else ""))

if access.can(user, "admin"):
    did_something = True
    todo = worklists.lead_todo(db, user, project.id)
    st.markdown(f"**Unassigned documents:** {len(todo['unassigned'])}.")
    failed = todo["failed_jobs"]
    if failed:
        st.markdown("**Failed jobs:** " + "; ".join(f"job {j.id} ({jobs.KIND_WORDS.get(j.kind, j.kind)}): "
                                                     f"{j.error or 'failed'}" for j in failed))
    candidates = todo["to_activate"]
    if candidates:
        st.markdown("**Models to look at and activate:** " + ", ".join(
            f"{v.name}" + (f" (F1 {f1:.3f})" if (f1 := headline_f1(v.metrics)) is not None else "")
            for v in candidates[:5]))

if not did_something:
    st.info("Nothing is waiting for you in this project.")
