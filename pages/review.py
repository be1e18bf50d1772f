"""Review: adjudicate documents two or more annotators finished into the gold layer, then check
the model's suggestions that gold lacks ("possible misses").

Gold is made in the span editor (:mod:`dashboard.editor`), the same one Annotate uses: it starts
from the spans every annotator agrees on (or from the saved gold), each disagreement is marked in
place and settled with one key (``1``/``2``/... for an annotator's version, ``0`` for neither);
the choices live in the browser until the reviewer saves.
"""
from __future__ import annotations

import time

import streamlit as st

from dashboard import address
from dashboard import components as C
from dashboard import editor as E
from dashboard import state
from pipeline.annotation import adjudication as adj
from pipeline.annotation import edits as ops
from pipeline.annotation.work import WorkState
from pipeline.annotation.queue import keep_order, neighbours, next_open
from pipeline.errors import StaleSaveError, WorkbenchError
from services import access, review

DOC_KEY = "review.doc_id"
PICK_KEY = "review.pick"
SHOWN_KEY = "review.shown"
OPENED_KEY = "review.opened"
ORDER_KEY = "review.order"
MESSAGE_KEY = "review.message"
DISAGREEMENT_WORDS = {"missing": "one marked nothing", "label": "different labels", "boundary": "different extents",
                      "unreviewed": "unreviewed (accepted in bulk)"}
EDITOR_KEY = "review.editor"   # the editor's test injection point
QUERY_KEY = "review.query"     # the ?doc= value last read or written

ctx = state.page_context("review")
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings
access.require(user, "view_all_layers")
schema = project.schema

E.compact_page()
st.title("Review")
if st.session_state.get("review.project") != project.id:  # switched project: start from its queue
    if st.session_state.get("review.project") is not None:
        st.session_state.pop(DOC_KEY, None)
    st.session_state["review.project"] = project.id


def _notify(text: str, kind: str = "info") -> None:
    E.notify(MESSAGE_KEY, text, kind)


def _picked() -> None:
    st.session_state[DOC_KEY] = st.session_state[PICK_KEY]


c1, c2, c3 = st.columns([3, 2, 1.4], vertical_alignment="bottom")
show_all = c3.toggle("Settled too", key="review.show_all",
                     help="Also list the double-annotated documents whose gold is finished (settled), to look "
                          "at them again or reopen a disagreement.")
everything = review.review_queue(db, project.id, awaiting_only=False)
by_id = {item.doc_id: item for item in everything}
settled = {d for d, item in by_id.items() if item.gold_status == "finished"}
order_key = f"{ORDER_KEY}.{project.id}.{int(show_all)}"
shown_before = st.session_state.get(order_key, [])
# awaiting documents (all of them with the toggle on); one settled here keeps its place, so
# "previous" goes back to it
fresh = list(by_id) if show_all else [d for d in by_id if d not in settled or d in shown_before]
order = keep_order(shown_before, fresh)
st.session_state[order_key] = order

requested = address.requested_doc(QUERY_KEY)   # ?doc=<id> after a reload or from a link
if requested is not None:
    st.session_state[DOC_KEY] = requested
if order and st.session_state.get(DOC_KEY) is None:
    st.session_state[DOC_KEY] = next_open(order, None, settled) or order[0]
if order:
    if st.session_state.get(DOC_KEY) not in order:
        st.session_state.pop(PICK_KEY, None)
    else:
        st.session_state[PICK_KEY] = st.session_state[DOC_KEY]
    waiting = sum(d not in settled for d in order)
    c1.selectbox(f"Awaiting adjudication ({waiting})" if not show_all
                 else f"Double-annotated ({len(order)}, {len(order) - waiting} settled)",
                 order, key=PICK_KEY, on_change=_picked, index=None, placeholder="Choose a document",
                 format_func=lambda i: f"{by_id[i].name} · {', '.join(by_id[i].annotators)}"
                 + (f" · gold {by_id[i].gold_status.replace('_', ' ')}" if by_id[i].gold_status else ""))
else:
    c1.info("No document is waiting for adjudication.")
name = c2.text_input("Or open any document by name", key="review.by_name")
if name and st.session_state.get("review.by_name_done") != name:
    st.session_state["review.by_name_done"] = name
    found_doc = review.find_document(db, user, project.id, name)
    if found_doc is None:
        st.warning("No document of that name in this project.")
    else:
        st.session_state[DOC_KEY] = found_doc.id

doc_id = st.session_state.get(DOC_KEY)
if doc_id is None:
    if not order:
        st.stop()
    doc_id = order[0]
    st.session_state[DOC_KEY] = doc_id
doc_id = int(doc_id)
address.show_doc(QUERY_KEY, doc_id)   # the address names the open note: a reload stays on it

opened: set = st.session_state.setdefault(OPENED_KEY, set())
doc = access.open_document(db, user, doc_id, project_id=project.id, record=doc_id not in opened)
opened.add(doc_id)
text = doc.text or ""

layers = review.annotator_layers_for(db, user, doc_id)
gold = access.read_layer_for(db, user, doc_id, access.GOLD)
found = adj.document_disagreements(doc_id, layers)
agr = adj.document_agreement(doc_id, layers, text)

# --- the gold being made --------------------------------------------------------------------
work_key = f"review.work.{user.username}.{doc_id}"
decided_key = f"review.decided.{user.username}.{doc_id}"
work: WorkState | None = st.session_state.get(work_key)
if work is None:
    start = gold.spans if gold.version else adj.agreed_gold(doc_id, layers, found, user.username)
    work = WorkState(doc_id=doc_id, layer=access.GOLD, base=list(start), base_version=gold.version,
                         opened_at=time.time(), current=list(start), saved=list(gold.spans))
    st.session_state[work_key] = work
    # saved gold settles every disagreement, except those reopened since that version was saved
    again = review.reopened(db, user, doc_id, gold.version) if gold.version else set()
    st.session_state[decided_key] = [i for i, d in enumerate(found)
                                     if gold.version and (d.start, d.end) not in again]
elif st.session_state.get(SHOWN_KEY) != doc_id:
    work.restart_from(work.current)  # coming back: the editor restarts from the unsaved gold
st.session_state[SHOWN_KEY] = doc_id

st.subheader(doc.name)
st.caption(" · ".join(filter(None, [
    f"{len(layers)} finished annotator{'s' if len(layers) != 1 else ''} ({', '.join(sorted(layers))})" if layers
    else "no finished annotator layers",
    f"{len(found)} disagreement{'s' if len(found) != 1 else ''}",
    None if agr is None else f"agreement: strict F1 {agr.strict_f1:.2f}, relaxed F1 {agr.relaxed_f1:.2f}",
    f"gold: version {gold.version}, {str(gold.status).replace('_', ' ')}" if gold.version else "gold: not made yet"])))
if len(layers) < 2:
    st.info("Fewer than two annotators finished this document: there is nothing to compare; you can "
            "still edit its gold.")

if C.stale_panel(work, key="review", file_name=f"{doc.name}.gold.unsaved.json",
                 latest_version=lambda: access.read_layer_for(db, user, doc_id, access.GOLD).version):
    st.session_state.pop(work_key, None)
    st.rerun()
if work.notice:  # e.g. "your spans now build on version 3" from the panel: said in the editor
    _notify(work.notice)
    work.notice = None

# "next" and "save gold & next": the next document of the queue whose gold is not settled;
# "previous" steps back through the queue as shown, settled or not
before = neighbours(order, doc_id)[0]
after = next_open(order, doc_id, settled)


def _next_unsettled() -> int | None:
    """Read when the action comes (another reviewer may have settled one meanwhile), on this
    thread's connection (an action can run in the editor fragment's own thread)."""
    fresh = review.review_queue(state.get_db(), project.id, awaiting_only=False)
    return next_open(order, doc_id, {i.doc_id for i in fresh if i.gold_status == "finished"})


per_disagreement = [adj.disagreement_spans(d, layers) for d in found]


def _save_gold(decided: list[int]) -> int | None:
    try:
        adj.check_all_decided(found, decided)
        # this thread's connection: a fragment rerun runs in a thread of its own
        version = review.save_gold(state.get_db(), user, doc_id, work.current, work.base_version)
    except StaleSaveError as e:
        work.stale = str(e)
        _notify("Not saved: someone saved this document's gold since you opened it (see above).", "error")
        return None
    except WorkbenchError as e:
        _notify(f"Not saved: {e}.", "error")
        return None
    work.current = adj.as_gold(work.current, doc_id, user.username)
    work.saved_as(version, time.time())
    return version


def _take(value: E.EditorValue) -> None:
    """What the browser sent: a draft is kept (unless older than what we have), with the
    disagreements it settled; an action saves gold (and moves on) or moves; spans are checked."""
    checked, taken = E.take_value(value, work, text=text, schema=schema, doc_id=doc_id, layer=access.GOLD,
                                  user=user.username)
    if taken:
        st.session_state[decided_key] = sorted({i for i in value.decided if 0 <= i < len(found)})
    if checked.changed:
        _notify(" ".join(checked.messages(text)), "warn")
    if value.name in ("save", "save_next", "finish"):
        version = _save_gold(st.session_state.get(decided_key, []))
        target = _next_unsettled() if version is not None and value.name != "save" else None
        if version is not None and value.name == "save":
            _notify(f"Gold saved (version {version}).", "success")
        elif version is not None and target is not None:
            st.session_state[DOC_KEY] = target
            _notify(f"Gold of {doc.name} saved (version {version}); this is the next document awaiting "
                    "adjudication.", "success")
        elif version is not None:
            _notify(f"Gold saved (version {version}). No other document awaits adjudication.", "success")
    else:
        E.follow(value, before=before, after=_next_unsettled() if value.name == "next" else None, doc_key=DOC_KEY)
    if value.name is not None or checked.changed:
        st.rerun()


@st.fragment
def _editor() -> None:
    """The editor. A draft from the browser (choices included) reruns only this fragment; saving
    and moving rerun the page."""
    token = f"{doc_id}.{work.generation}"
    message = st.session_state.pop(MESSAGE_KEY, None) or {}
    inferred = adj.infer_choices(work.base, found)
    decided = st.session_state.get(decided_key, [])
    data = E.editor_data(
        token=token, mode="review", text=text, spans=work.base, schema=schema,
        saved=work.saved if work.base_version else None,
        position=f"{order.index(doc_id) + 1} of {len(order)}" if doc_id in order else "not in the queue",
        has_prev=before is not None, has_next=after is not None,
        threshold=settings.low_confidence, low_confidence=settings.low_confidence,
        message=message.get("text"), message_kind=message.get("kind", "info"), message_id=message.get("id", 0),
        local_key=f"wb-draft:{project.id}:{user.username}:{doc_id}:{access.GOLD}", version=work.base_version,
        disagreements=E.disagreements_data(text, found, per_disagreement, schema,
                                           {i: inferred[i] for i in decided if i in inferred}))
    value = E.span_editor(data, key=f"review.editor.{token}", test_key=EDITOR_KEY)
    if value is not None:
        with C.guard():
            _take(value)


_editor()

settled_here = [i for i in st.session_state.get(decided_key, []) if 0 <= i < len(found)]
if settled_here:
    with st.expander(f"Settled disagreements ({len(settled_here)} of {len(found)}): reopen one to decide it again"):
        choices = adj.infer_choices(work.current, found)
        for i in settled_here:
            d = found[i]
            took = choices.get(i)
            r1, r2 = st.columns([5, 1], vertical_alignment="center")
            r1.write(f"#{i + 1} · {DISAGREEMENT_WORDS.get(d.kind, d.kind)} · "
                     + ("took neither version" if took == adj.NEITHER else "edited by hand" if took == adj.EDITED
                        else f"took {took}'s version" if took else "settled"))
            if r2.button("Reopen", key=f"review.reopen.{doc_id}.{i}", icon=":material/undo:"):
                with C.guard():
                    review.reopen(db, user, doc_id, d)
                    st.session_state[decided_key] = [j for j in settled_here if j != i]
                    work.restart_from(work.current)   # the editor shows it open again
                    _notify(f"Disagreement {i + 1} is open again: decide it (1, 2, ... or 0), then save gold.")
                    st.rerun()

if gold.version and st.button("Start again from the spans the annotators agree on", key="review.rebuild"):
    work.restart_from(adj.agreed_gold(doc_id, layers, found, user.username))
    st.session_state[decided_key] = []
    st.rerun()

# --- possible misses ------------------------------------------------------------------------
if gold.version:
    pre = access.read_layer_for(db, user, doc_id, access.PRE).spans
    misses = adj.possible_misses(pre, gold.spans, review.dismissed_misses(db, user, doc_id))
    st.markdown(f"**Possible misses** ({len(misses)}): model suggestions with no overlapping gold span.")
    if misses and work.unsaved:
        st.caption("Save or reload your gold edits before confirming or dismissing.")
    for s in misses:
        r1, r2, r3 = st.columns([4, 1, 1])
        r1.write(f"{ops.describe(text, s)} · score {s.score:.2f}")
        key = f"{doc_id}.{s.start}.{s.end}.{s.label}"
        if r2.button("Confirm", key=f"review.confirm.{key}", disabled=work.unsaved):
            with C.guard():
                new, version = review.confirm(db, user, doc_id, gold.spans, s, gold.version)
                work.restart_from(new)
                work.saved_as(version, time.time())
                _notify(f"Added {ops.describe(text, s)} to gold (version {version}).", "success")
                st.rerun()
        if r3.button("Dismiss", key=f"review.dismiss.{key}", disabled=work.unsaved):
            with C.guard():
                review.dismiss(db, user, doc_id, s)
                st.rerun()
