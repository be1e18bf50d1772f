"""Annotate: the signed-in user's queue; correct the machine suggestions and save your layer.

Blind double annotation: this page reads only the ``pre`` layer and the user's own
``annotator:<username>`` layer, through :mod:`services.access` (which refuses anything else).
The note is edited in the span editor (:mod:`dashboard.editor`), which holds the working spans in
the browser and sends them back as a draft and with each action (save, finish and next, next,
previous); every span is checked (:func:`pipeline.annotation.edits.from_editor`) before it is kept.
"""
from __future__ import annotations

import time

import streamlit as st

from dashboard import address
from dashboard import components as C
from dashboard import editor as E
from dashboard import state
from pipeline.annotation import edits as ops
from pipeline.annotation.work import WorkState, spans_from_json
from pipeline.annotation.queue import keep_order, neighbours, next_open
from pipeline.errors import StaleSaveError, WorkbenchError
from services import access, preannotation, queues, rework

DOC_KEY = "annotate.doc_id"
PICK_KEY = "annotate.pick"
SHOWN_KEY = "annotate.shown"
OPENED_KEY = "annotate.opened"
ORDER_KEY = "annotate.order"
MESSAGE_KEY = "annotate.message"
EDITOR_KEY = "annotate.editor"   # the editor's test injection point
QUERY_KEY = "annotate.query"     # the ?doc= value last read or written

ctx = state.page_context("annotate")
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings
schema = project.schema
own_layer = access.annotator_layer(user.username)

E.compact_page()
head, pick, about = st.columns([1.3, 2.4, 3], vertical_alignment="center")
head.title("Annotate")
queue = queues.load_queue(db, user.username, project.id, settings.queue_order, settings.queue_seed)
by_id = {a.doc_id: a for a in queue}
# the queue as the annotator has been seeing it: finishing a document does not move it
order = keep_order(st.session_state.get(f"{ORDER_KEY}.{project.id}", []), [a.doc_id for a in queue])
st.session_state[f"{ORDER_KEY}.{project.id}"] = order

if st.session_state.get("annotate.project") != project.id:  # switched project: start from its queue
    if st.session_state.get("annotate.project") is not None:
        st.session_state.pop(DOC_KEY, None)
    st.session_state["annotate.project"] = project.id
requested = address.requested_doc(QUERY_KEY)   # ?doc=<id> after a reload or from a link
if requested is not None:
    st.session_state[DOC_KEY] = requested
doc_id = st.session_state.get(DOC_KEY)
if doc_id is None:
    if not order:
        st.info("No documents are assigned to you in this project.")
        st.stop()
    doc_id = order[0]
    st.session_state[DOC_KEY] = doc_id
doc_id = int(doc_id)
address.show_doc(QUERY_KEY, doc_id)   # the address names the open note: a reload stays on it


def _notify(text: str, kind: str = "info") -> None:
    E.notify(MESSAGE_KEY, text, kind)


def _picked() -> None:
    st.session_state[DOC_KEY] = st.session_state[PICK_KEY]


def _time_words(seconds: float) -> str:
    return f"time recorded {seconds / 60:.1f} min" if seconds >= 60 else f"time recorded {seconds:.0f} s"


def _status_words(status: str) -> str:
    return {"assigned": "to do", "in_progress": "in progress", "finished": "finished"}.get(status, status)


# --- the queue ------------------------------------------------------------------------------
if order:
    if doc_id in by_id:
        st.session_state[PICK_KEY] = doc_id
    else:
        st.session_state.pop(PICK_KEY, None)
    pick.selectbox("Your queue", order, key=PICK_KEY, on_change=_picked, label_visibility="collapsed",
                   index=None, placeholder="Choose a document from your queue",
                   format_func=lambda i: f"{by_id[i].doc_name} · {_status_words(by_id[i].status)}")

# --- open the document (server-side check: assigned to this user) --------------------------
opened: set = st.session_state.setdefault(OPENED_KEY, set())
doc = access.open_document(db, user, doc_id, project_id=project.id, record=doc_id not in opened)
opened.add(doc_id)
text = doc.text or ""

work_key = f"annotate.work.{user.username}.{doc_id}"
work: WorkState | None = st.session_state.get(work_key)
if work is None:
    own = access.read_layer_for(db, user, doc_id, own_layer)
    if own.version > 0:
        start, note = own.spans, f"your saved layer (version {own.version})"
    else:
        pre = access.read_layer_for(db, user, doc_id, access.PRE).spans
        origin = preannotation.came_from(pre)
        start, note = [s.with_(layer=own_layer) for s in pre], "the machine suggestions" + (
            f" (from {origin})" if origin else "")
    work = WorkState(doc_id=doc_id, layer=own_layer, base=list(start), base_version=own.version,
                         opened_at=time.time(), current=list(start), saved=list(start) if own.version else [])
    _notify(f"Opened from {note}: open suggestions are dashed, with their score. Select text and press a "
            "label's key; ? lists the keys.")
    st.session_state[work_key] = work
elif st.session_state.get(SHOWN_KEY) != doc_id:
    work.restart_from(work.current)  # coming back: the editor restarts from the unsaved spans
st.session_state[SHOWN_KEY] = doc_id

assignment = by_id.get(doc_id)
sent_back = rework.my_send_backs(db, user.username, project.id).get(doc_id)
if sent_back is not None:
    reasons = "; ".join(r.get("message") or r.get("kind", "") if isinstance(r, dict) else str(r)
                        for r in sent_back.reasons[:6])
    st.warning(f"Sent back from risk review by {sent_back.sent_by or 'a reviewer'}"
               + (f": {sent_back.note}" if sent_back.note else "") + (f". Reasons: {reasons}" if reasons else "")
               + ". Fix the spans and finish the document; the run re-de-identifies it once its gold is saved.",
               icon=":material/undo:")
about.caption(" · ".join(filter(None, [
    None if doc_id in by_id else f"**{doc.name}**",
    _status_words(assignment.status) if assignment else "not in your queue",
    f"your layer: version {work.base_version}" if work.base_version else "your layer: not saved yet",
    _time_words(assignment.seconds_spent) if assignment and assignment.seconds_spent else None])))

# --- a refused (stale) save: said above the editor, the spans stay -------------------------
if C.stale_panel(work, key="annotate", file_name=f"{doc.name}.{user.username}.unsaved.json",
                 latest_version=lambda: access.read_layer_for(db, user, doc_id, own_layer).version):
    st.session_state.pop(work_key, None)
    st.rerun()
if work.notice:  # e.g. "your spans now build on version 3" from the panel: said in the editor
    _notify(work.notice)
    work.notice = None

# --- the editor -----------------------------------------------------------------------------
# "next" and "finish & next": the next unfinished note in the queue's order (never a finished one
# while unfinished ones wait); "previous" steps back through the queue as shown, finished or not
before = neighbours(order, doc_id)[0]


def _next_unfinished() -> int | None:
    """Read when the action comes (a note may have been finished in another tab meanwhile); this
    thread's connection, as an action can run in the editor fragment's own thread."""
    return next_open(order, doc_id, done=queues.finished_doc_ids(state.get_db(), user.username, project.id))


after = next_open(order, doc_id, done={d for d, a in by_id.items() if a.status == "finished"})


def _save(status: str | None) -> int | None:
    now = time.time()
    try:  # this thread's connection: a fragment rerun runs in a thread of its own
        version = access.save_layer_as(state.get_db(), user, doc_id, own_layer, work.current, work.base_version,
                                       seconds=now - work.opened_at, status=status)
    except StaleSaveError as e:
        work.stale = str(e)  # the spans stay in work.current
        _notify("Not saved: someone saved this document since you opened it (see above).", "error")
        return None
    except WorkbenchError as e:
        _notify(f"Not saved: {e}", "error")
        return None
    work.saved_as(version, now)
    return version


def _take(value: E.EditorValue) -> None:
    """What the browser sent: a draft is kept (unless older than what we have); an action saves,
    finishes and moves on, or moves; every span is checked first."""
    checked, _ = E.take_value(value, work, text=text, schema=schema, doc_id=doc_id, layer=own_layer,
                              user=user.username)
    if checked.changed:  # the browser sent something the note or the schema does not allow
        _notify(" ".join(checked.messages(text)), "warn")
    refused = ops.finish_refusal(work.current, require_decided=settings.require_decided) \
        if value.name == "finish" else None
    target = _next_unfinished() if value.name in ("finish", "next") else None
    left_open = ops.open_suggestions(work.current)
    left_words = (f" {left_open} suggestion{'s were' if left_open != 1 else ' was'} left open: not counted as "
                  "yours.") if left_open else ""
    if refused:
        _notify(refused, "error")
    elif value.name in ("save", "finish"):
        version = _save("finished" if value.name == "finish" else None)
        if version is not None and value.name == "save":
            _notify(f"Saved (version {version}).", "success")
        elif version is not None and target is not None:
            st.session_state[DOC_KEY] = target
            _notify(f"Finished {doc.name} (version {version}); this is the next unfinished document of your queue."
                    + left_words, "success")
        elif version is not None:
            _notify(f"Saved as finished (version {version}). No other document of your queue is unfinished."
                    + left_words, "success")
    else:
        E.follow(value, before=before, after=target, doc_key=DOC_KEY)
    if value.name is not None or checked.changed:
        st.rerun()


@st.fragment
def _editor() -> None:
    """The editor. A draft from the browser reruns only this fragment; actions rerun the page."""
    token = f"{doc_id}.{work.generation}"
    message = st.session_state.pop(MESSAGE_KEY, None) or {}
    data = E.editor_data(
        token=token, mode="annotate", text=text, spans=work.base, schema=schema,
        saved=work.saved if work.base_version else None,
        position=f"{order.index(doc_id) + 1} of {len(order)}" if doc_id in order else "not in your queue",
        has_prev=before is not None, has_next=after is not None,
        threshold=settings.low_confidence, low_confidence=settings.low_confidence,
        message=message.get("text"), message_kind=message.get("kind", "info"), message_id=message.get("id", 0),
        local_key=f"wb-draft:{project.id}:{user.username}:{doc_id}:{own_layer}", version=work.base_version,
        require_decided=settings.require_decided)
    value = E.span_editor(data, key=f"annotate.editor.{token}", test_key=EDITOR_KEY)
    if value is not None:
        with C.guard():
            _take(value)


_editor()

with st.expander("Load spans from a JSON file"):
    upload = st.file_uploader("Spans file (downloaded from this page)", type=["json"], key="annotate.upload")
    if upload is not None and st.button("Load into the editor", key="annotate.load"):
        with C.guard():
            work.restart_from(spans_from_json(upload.getvalue(), doc_id, text, schema, layer=own_layer))
            _notify("Loaded spans from the file (not saved yet).")
            st.rerun()
