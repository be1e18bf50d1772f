"""Annotate: the signed-in user's queue; correct the machine suggestions and save your layer.

Blind double annotation: this page reads only the ``pre`` layer and the user's own
``annotator:<username>`` layer, through :mod:`services.access` (which refuses anything else).
"""
from __future__ import annotations

import time

import streamlit as st

from dashboard import components as C
from dashboard import state
from pipeline.annotation import edits as ops
from pipeline.errors import StaleSaveError
from services import access, queues

DOC_KEY = "annotate.doc_id"
PICK_KEY = "annotate.pick"
SHOWN_KEY = "annotate.shown"
OPENED_KEY = "annotate.opened"
LABELER_KEY = "annotate.labeler"

ctx = state.page_context("annotate")
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings
schema = project.schema
own_layer = access.annotator_layer(user.username)

st.title("Annotate")
queue = queues.load_queue(db, user.username, project.id, settings.queue_order, settings.queue_seed)
ids = [a.doc_id for a in queue]
by_id = {a.doc_id: a for a in queue}

if st.session_state.get("annotate.project") != project.id:  # switched project: start from its queue
    if st.session_state.get("annotate.project") is not None:
        st.session_state.pop(DOC_KEY, None)
    st.session_state["annotate.project"] = project.id
requested = st.query_params.get("doc")
if requested and str(requested).isdigit() and st.session_state.get("annotate.query") != requested:
    st.session_state["annotate.query"] = requested
    st.session_state[DOC_KEY] = int(requested)
doc_id = st.session_state.get(DOC_KEY)
if doc_id is None:
    if not ids:
        st.info("No documents are assigned to you in this project.")
        st.stop()
    doc_id = ids[0]
    st.session_state[DOC_KEY] = doc_id
doc_id = int(doc_id)


def _go(target: int) -> None:
    st.session_state[DOC_KEY] = target
    st.session_state[PICK_KEY] = target


def _picked() -> None:
    st.session_state[DOC_KEY] = st.session_state[PICK_KEY]


if ids:
    if doc_id in by_id:
        st.session_state[PICK_KEY] = doc_id
    else:
        st.session_state.pop(PICK_KEY, None)
    pos = ids.index(doc_id) if doc_id in by_id else -1
    nav = st.columns([1, 6, 1])
    nav[0].button("Previous", key="annotate.prev", icon=":material/arrow_back:", disabled=pos <= 0,
                  on_click=_go, args=(ids[max(0, pos - 1)],))
    nav[1].selectbox("Your queue", ids, key=PICK_KEY, on_change=_picked, label_visibility="collapsed",
                     index=None, placeholder="Choose a document from your queue",
                     format_func=lambda i: f"{by_id[i].doc_name} · {by_id[i].status.replace('_', ' ')}")
    nav[2].button("Next", key="annotate.next", icon=":material/arrow_forward:",
                  disabled=pos >= len(ids) - 1 and pos != -1,
                  on_click=_go, args=(ids[min(len(ids) - 1, pos + 1)],))

# --- open the document (server-side check: assigned to this user) --------------------------
opened: set = st.session_state.setdefault(OPENED_KEY, set())
doc = access.open_document(db, user, doc_id, project_id=project.id, record=doc_id not in opened)
opened.add(doc_id)
text = doc.text or ""

work_key = f"annotate.work.{user.username}.{doc_id}"
work: ops.WorkState | None = st.session_state.get(work_key)
if work is None:
    own = access.read_layer_for(db, user, doc_id, own_layer)
    if own.version > 0:
        start, note = own.spans, f"your saved layer (version {own.version})"
    else:
        pre = access.read_layer_for(db, user, doc_id, access.PRE).spans
        start, note = [s.with_(layer=own_layer) for s in pre], "the machine suggestions"
    work = ops.WorkState(doc_id=doc_id, layer=own_layer, base=list(start), base_version=own.version,
                         opened_at=time.time(), current=list(start), saved=list(start) if own.version else [])
    work.notice = f"Opened from {note}."
    st.session_state[work_key] = work
elif st.session_state.get(SHOWN_KEY) != doc_id:
    work.base = list(work.current)  # coming back: the labeler restarts from the unsaved spans
st.session_state[SHOWN_KEY] = doc_id

assignment = by_id.get(doc_id)
st.subheader(doc.name)
st.caption(" · ".join(filter(None, [
    f"status: {assignment.status.replace('_', ' ')}" if assignment else None,
    f"layer {own_layer}, version {work.base_version}",
    work.notice,
    f"time recorded: {assignment.seconds_spent / 60:.1f} min" if assignment else None])))

# --- edit -----------------------------------------------------------------------------------
left, right = st.columns(2)
with left:
    st.markdown("**Edit** (choose a label, then select text; select a marked span again to remove it)")
    value = C.labeler(text, ops.to_labeler(text, work.base, schema), key=LABELER_KEY)
    if value is not None:
        result = ops.from_labeler(value, text, schema, str(doc_id), previous=work.base,
                                  source=f"human:{user.username}", layer=own_layer)
        work.current = result.spans
        for message in result.warnings():
            st.warning(message)
with right:
    st.markdown("**All spans** (dashed red: low confidence, with its score)")
    C.render_spans(text, work.current, schema.categories, low_confidence=settings.low_confidence)

overlaps = ops.find_overlaps(work.current)
if overlaps:
    st.warning("Overlapping spans cannot be saved: " + "; ".join(
        f"{a.start}-{a.end} {a.label} / {b.start}-{b.end} {b.label}" for a, b in overlaps[:5]))

# --- mark all occurrences / remove ----------------------------------------------------------
if work.current:
    with st.expander("Mark all occurrences / remove spans"):
        choice = st.selectbox("Span", range(len(work.current)), key="annotate.span",
                              format_func=lambda i: C.span_choice_label(text, work.current[i]))
        ignore_case = st.checkbox("Ignore case", key="annotate.ignore_case")
        b1, b2, b3 = st.columns(3)
        if choice is not None and choice < len(work.current):
            picked = work.current[choice]
            if b1.button("Mark all occurrences", key="annotate.mark_all"):
                new, added = ops.mark_all_occurrences(text, work.current, picked, ignore_case=ignore_case,
                                                      source=f"human:{user.username}")
                work.restart_from(new)
                work.notice = f"Marked {added} more occurrence(s)."
                st.rerun()
            if b2.button("Remove this one", key="annotate.remove_one"):
                work.restart_from(ops.remove_span(work.current, picked))
                work.notice = "Removed 1 span."
                st.rerun()
            if b3.button("Remove all with this text", key="annotate.remove_all"):
                new, removed = ops.remove_same_text(text, work.current, picked, ignore_case=ignore_case)
                work.restart_from(new)
                work.notice = f"Removed {removed} span(s)."
                st.rerun()

# --- save -----------------------------------------------------------------------------------


def _save(status: str | None) -> None:
    now = time.time()
    try:
        version = access.save_layer_as(db, user, doc_id, own_layer, work.current, work.base_version,
                                       seconds=now - work.opened_at, status=status)
    except StaleSaveError as e:
        work.stale = str(e)  # the spans stay in work.current
        return
    work.saved_as(version, now)
    work.notice = ("Saved and marked finished" if status == "finished" else "Saved") + f" (version {version})."


if C.stale_panel(work, key="annotate", file_name=f"{doc.name}.{user.username}.unsaved.json",
                 latest_version=lambda: access.read_layer_for(db, user, doc_id, own_layer).version):
    st.session_state.pop(work_key, None)
    st.rerun()

c1, c2, c3 = st.columns([1, 1, 3])
if c1.button("Save", key="annotate.save", type="primary", icon=":material/save:"):
    with C.guard():  # e.g. overlapping spans: the message is shown, the spans stay
        _save(None)
        st.rerun()
if c2.button("Mark finished", key="annotate.finish", icon=":material/done_all:"):
    with C.guard():
        _save("finished")
        st.rerun()
c3.caption(work.status_line())

with st.expander("Load spans from a JSON file"):
    upload = st.file_uploader("Spans file (downloaded from this page)", type=["json"], key="annotate.upload")
    if upload is not None and st.button("Load into the editor", key="annotate.load"):
        with C.guard():
            work.restart_from(ops.spans_from_json(upload.getvalue(), doc_id, text, schema, layer=own_layer))
            work.notice = "Loaded spans from the file (not saved yet)."
            st.rerun()
