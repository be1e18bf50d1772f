"""Review: adjudicate documents two or more annotators finished into the gold layer, then check
the model's suggestions that gold lacks ("possible misses")."""
from __future__ import annotations

import time

import streamlit as st

from dashboard import components as C
from dashboard import state
from pipeline.annotation import adjudication as adj
from pipeline.annotation import edits as ops
from pipeline.errors import StaleSaveError
from services import access, review

DOC_KEY = "review.doc_id"
PICK_KEY = "review.pick"
OPENED_KEY = "review.opened"

ctx = state.page_context("review")
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings
access.require(user, "view_all_layers")
schema = project.schema

st.title("Review")
if st.session_state.get("review.project") != project.id:  # switched project: start from its queue
    if st.session_state.get("review.project") is not None:
        st.session_state.pop(DOC_KEY, None)
    st.session_state["review.project"] = project.id
show_all = st.toggle("Include documents that already have gold", key="review.show_all")
queue = review.review_queue(db, project.id, awaiting_only=not show_all)
by_id = {item.doc_id: item for item in queue}
ids = list(by_id)


def _picked() -> None:
    st.session_state[DOC_KEY] = st.session_state[PICK_KEY]


c1, c2 = st.columns([3, 2])
if ids:
    if st.session_state.get(DOC_KEY) not in by_id:
        st.session_state.pop(PICK_KEY, None)
    else:
        st.session_state[PICK_KEY] = st.session_state[DOC_KEY]
    c1.selectbox(f"Awaiting adjudication ({len(ids)})" if not show_all else f"Double-annotated ({len(ids)})",
                 ids, key=PICK_KEY, on_change=_picked, index=None, placeholder="Choose a document",
                 format_func=lambda i: f"{by_id[i].name} · {', '.join(by_id[i].annotators)}"
                 + (f" · gold {by_id[i].gold_status}" if by_id[i].gold_status else ""))
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
    if not ids:
        st.stop()
    doc_id = ids[0]
    st.session_state[DOC_KEY] = doc_id
doc_id = int(doc_id)

opened: set = st.session_state.setdefault(OPENED_KEY, set())
doc = access.open_document(db, user, doc_id, project_id=project.id, record=doc_id not in opened)
opened.add(doc_id)
text = doc.text or ""

layers = review.annotator_layers_for(db, user, doc_id)
gold = access.read_layer_for(db, user, doc_id, access.GOLD)
found = adj.document_disagreements(doc_id, layers)
agr = adj.document_agreement(doc_id, layers, text)

st.subheader(doc.name)
m = st.columns(4)
m[0].metric("Finished annotators", len(layers), help=", ".join(sorted(layers)) or None)
m[1].metric("Disagreements", len(found))
m[2].metric("Agreement (strict F1)", "-" if agr is None else f"{agr.strict_f1:.2f}")
m[3].metric("Agreement (relaxed F1)", "-" if agr is None else f"{agr.relaxed_f1:.2f}")
st.caption(f"gold: {'version ' + str(gold.version) + ', ' + str(gold.status) if gold.version else 'not yet made'}")
if len(layers) < 2:
    st.info("Fewer than two annotators finished this document: there is nothing to compare; you can "
            "still edit its gold below.")

# --- disagreements side by side -------------------------------------------------------------
choices: dict[int, str | None] = {}
if found:
    st.markdown("**Disagreements**: take one annotator's version, or neither.")
for i, d in enumerate(found):
    with st.container(border=True):
        st.markdown(f"**{i + 1}.** {d.kind} · offsets {d.start}-{d.end}")
        per = adj.disagreement_spans(d, layers)
        lo, hi = max(0, d.start - 80), min(len(text), d.end + 80)
        snippet = text[lo:hi]
        cols = st.columns(len(per))
        for col, who in zip(cols, sorted(per)):
            shifted = [s.with_(start=s.start - lo, end=s.end - lo) for s in per[who]]
            col.markdown(f"**{who}**: " + (", ".join(s.label for s in per[who]) or "nothing"))
            col.html(C.spans_html(snippet, shifted, low_confidence=0.0))
        options = adj.choice_options(d)
        choices[i] = st.radio("Take", options, index=None, horizontal=True, key=f"review.choice.{doc_id}.{i}",
                              format_func=lambda o: "neither" if o == adj.NEITHER else f"{o}'s")

# --- the gold being made --------------------------------------------------------------------
work_key = f"review.work.{user.username}.{doc_id}"
work: ops.WorkState | None = st.session_state.get(work_key)
if work is None:
    start = gold.spans if gold.version else adj.draft_gold(doc_id, layers, found, choices, user.username)
    work = ops.WorkState(doc_id=doc_id, layer=access.GOLD, base=list(start), base_version=gold.version,
                         opened_at=time.time(), current=list(start), saved=list(gold.spans))
    st.session_state[work_key] = work
if work.base_version == 0 and not work.stale:
    draft = adj.draft_gold(doc_id, layers, found, choices, user.username)
    if not ops.same_spans(draft, work.base):
        work.restart_from(draft)  # a changed choice starts the editor afresh from the new draft

st.markdown("**Gold** (agreed spans plus your choices; edit below. Changing a choice restarts the editor "
            "from the draft.)")
left, right = st.columns(2)
with left:
    value = C.labeler(text, ops.to_labeler(text, work.base, schema), key="review.labeler")
    if value is not None:
        result = ops.from_labeler(value, text, schema, str(doc_id), previous=work.base,
                                  source=f"human:{user.username}", layer=access.GOLD)
        work.current = result.spans
        for message in result.warnings():
            st.warning(message)
with right:
    C.render_spans(text, work.current, schema.categories, low_confidence=0.0)

if C.stale_panel(work, key="review", file_name=f"{doc.name}.gold.unsaved.json",
                 latest_version=lambda: access.read_layer_for(db, user, doc_id, access.GOLD).version):
    st.session_state.pop(work_key, None)
    st.rerun()

b1, b2, b3 = st.columns([1, 2, 2])
if b1.button("Save gold", key="review.save", type="primary", icon=":material/save:"):
    with C.guard():
        if work.base_version == 0:
            adj.check_decided(found, choices)
        try:
            version = review.save_gold(db, user, doc_id, work.current, work.base_version)
        except StaleSaveError as e:
            work.stale = str(e)
        else:
            work.current = adj.as_gold(work.current, doc_id, user.username)
            work.saved_as(version, time.time())
            work.notice = f"Gold saved (version {version})."
        st.rerun()
if gold.version and b2.button("Rebuild the draft from the choices", key="review.rebuild"):
    work.restart_from(adj.draft_gold(doc_id, layers, found, choices, user.username))
    st.rerun()
b3.caption(" · ".join(filter(None, [work.notice, "Unsaved changes." if work.unsaved else "No unsaved changes."])))

# --- possible misses ------------------------------------------------------------------------
if gold.version:
    pre = access.read_layer_for(db, user, doc_id, access.PRE).spans
    misses = adj.possible_misses(pre, gold.spans, review.dismissed_misses(db, user, doc_id))
    st.markdown(f"**Possible misses** ({len(misses)}): model suggestions with no overlapping gold span.")
    if misses and work.unsaved:
        st.caption("Save or reload your gold edits before confirming or dismissing.")
    for s in misses:
        r1, r2, r3 = st.columns([4, 1, 1])
        r1.write(f"{C.span_choice_label(text, s)} · score {s.score:.2f} · {s.source}")
        key = f"{doc_id}.{s.start}.{s.end}.{s.label}"
        if r2.button("Confirm", key=f"review.confirm.{key}", disabled=work.unsaved):
            with C.guard():
                new, version = review.confirm(db, user, doc_id, gold.spans, s, gold.version)
                work.restart_from(new)
                work.saved_as(version, time.time())
                work.notice = f"Added to gold (version {version})."
                st.rerun()
        if r3.button("Dismiss", key=f"review.dismiss.{key}", disabled=work.unsaved):
            with C.guard():
                review.dismiss(db, user, doc_id, s)
                st.rerun()
