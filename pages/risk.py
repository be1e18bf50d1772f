"""Risk triage: the documents of a de-identification run by re-identification risk, red first,
with the reasons marked in the de-identified text, and the reviewer's decision (accept, send
back, withhold). Scores come from :mod:`services.risk` (job ``risk``); the store keeps
decisions across re-scoring."""
from __future__ import annotations


import pandas as pd
import streamlit as st

from dashboard import components as C
from dashboard import figures, state
from dashboard.deidentify_runs import run_label
from dashboard.when import local_time
from pipeline.risk.scorer import QI_WORDS
from services import access, jobs, rework
from services import risk as rs

RUN_KEY = "risk.run_id"
DOC_KEY = "risk.doc_id"
JOB_KEY = "risk.job_id"
# Coloured with Streamlit markdown, not emoji: a browser without an emoji font shows empty boxes.
DOTS = {"red": ":red[●]", "amber": ":orange[●]", "green": ":green[●]"}
TAGS = {"red": "[RED]", "amber": "[AMBER]", "green": "[GREEN]"}   # where markdown is not rendered
CELL_STYLE = {"red": "background-color: #f8d0d0", "amber": "background-color: #fde7c2",
              "green": "background-color: #d4edd6"}
DECISION_WORDS = {"accepted": "Accept (release)", "sent_back": "Send back (fix annotation)",
                  "withheld": "Withhold (never release)"}
DECIDED_WORDS = {"accepted": "accepted", "sent_back": "sent back", "withheld": "withheld"}
METHOD_WORDS = {"document-share": "share of the document's contexts", "corpus-share": "share of all contexts"}
REASON_WORDS = {"possible_missed_phi": "possible missed PHI", "phi_like_text": "PHI-like text left",
                "unique_context": "unusual wording around identifiers", "quasi_identifier": "rare kept facts",
                "keep": "kept as written", "unreviewed_low_confidence": "replaced, model unsure",
                "machine_only_direct_identifier": "found by the model only (older score)"}
LEVEL_WORDS = {"red": "likely still identifies", "amber": "weaker evidence", "info": "for information"}

ctx = state.page_context("view_risk")
db, user, project = ctx.db, ctx.user, ctx.project
can_decide = access.can(user, "decide_risk")

st.title("Risk triage")
C.show_flash()


def _level(reason: dict) -> str:
    """A stored reason's level; scores from before levels: their colour came from the count."""
    return str(reason.get("level") or "amber")


def risk_reasons(score) -> list[dict]:
    """The reasons that set the colour (red, amber): the ones boxed in the text."""
    return [r for r in score.reasons if _level(r) != "info"]


def _flags(score) -> int:
    return len(risk_reasons(score))


def show_reasons(score) -> None:
    """Every reason in full, wrapped: red and amber first, information folded below."""
    flagged = risk_reasons(score)
    st.markdown(f"**Why {score.colour}** ({len(flagged)} reason{'s' if len(flagged) != 1 else ''})")
    if not flagged:
        st.caption("Nothing suggests PHI is left or that kept facts single someone out.")
    for r in flagged:
        level = _level(r)
        kept = r.get("quasi_identifiers") or {}
        facts = (" Kept: " + ", ".join(f"{QI_WORDS.get(k, k)} {v}" for k, v in kept.items()) + ".") if kept else ""
        st.markdown(f"{DOTS.get(level, '')} **{REASON_WORDS.get(r.get('kind', ''), r.get('kind', ''))}** "
                    f"({LEVEL_WORDS.get(level, level)}): {r.get('message', '')}{facts}")
    info = [r for r in score.reasons if _level(r) == "info"]
    if info:
        with st.expander(f"For information ({len(info)})"):
            for r in info:
                st.markdown(f"- **{REASON_WORDS.get(r.get('kind', ''), r.get('kind', ''))}**: {r.get('message', '')}")


def job_panel() -> None:
    job = C.job_progress(st.session_state.get(JOB_KEY), user=user, key="risk.job")
    if job is None:
        return
    if job.status == "failed":
        st.error(f"Re-scoring (job #{job.id}) failed: {job.error or 'no reason recorded'}")
    elif st.session_state.get("risk.job_seen") != job.id:
        st.session_state["risk.job_seen"] = job.id
        st.success(f"Re-scored: {rs.risk_words(job.result or {})}")


runs = rs.runs(db, user, project.id)
if not runs:
    st.info("No de-identification run yet: a lead runs one on the De-identify page.")
    st.stop()
by_id = {r.id: r for r in runs}
if st.session_state.get(RUN_KEY) not in by_id:
    st.session_state[RUN_KEY] = next((r.id for r in runs if r.status == "done"), runs[0].id)
run_id = st.selectbox("De-identification run", list(by_id), key=RUN_KEY,
                      format_func=lambda i: run_label(by_id[i]))
run = by_id[run_id]
if st.session_state.get("risk.doc_run") != run.id:
    # another run: its own first document, never the one chosen in the run before
    st.session_state.pop(DOC_KEY, None)
    st.session_state.pop("risk.next_doc", None)
    st.session_state["risk.doc_run"] = run.id
job_panel()

queue = rs.triage_queue(db, user, run.id)
info = rs.latest_risk_result(db, run.id)
st.caption("**Red**: the note likely still identifies someone (text the model reads as PHI left as written, a "
           "kept name, or kept facts few people share). **Amber**: weaker evidence. **Green**: neither. Replaced "
           "spans are not a risk by themselves.")
if info:
    st.caption(f"Scored with: {info.get('evidence') or 'no detector looking for PHI left (an older score)'}; "
               f"kept facts rare below {info.get('k')} people; wording around identifiers compared with "
               f"{info.get('embedder')} (information only).")

with st.expander("Re-score this run" if queue else "Score this run", expanded=not queue):
    c1, c2, c3 = st.columns(3)
    method = c1.selectbox("Method", ["document-share", "corpus-share"], key="risk.method")
    threshold = c2.number_input("Similarity threshold", 0.0, 1.0, 0.5, 0.05, key="risk.threshold")
    k = c3.number_input("k (quasi-identifiers)", 1, 100, 5, key="risk.k")
    running = not jobs.job_finished(db, st.session_state.get(JOB_KEY))
    if st.button("Score risk" if not queue else "Re-score", key="risk.rescore", disabled=not can_decide or running,
                 help=None if can_decide else "reviewers and leads re-score"):
        st.session_state[JOB_KEY] = rs.start_scoring(state.db_path(), user, project.id, run.id, method=method,
                                                     threshold=float(threshold), k=int(k))
        st.rerun()

if not queue:
    st.info(f"Run {run.id} has no risk scores yet.")
    st.stop()

release_words, blocked = rework.release_line(db, user, run.id)
if blocked:
    st.warning(f"Export refused now: {blocked}.")
else:
    st.caption(f"Export of run {run.id}: {release_words} (withheld never leave; sent back wait for their fix).")

colours = [r.colour for r in queue]
m = st.columns(4)
for col, colour in zip(m, ("red", "amber", "green")):
    col.metric(f"{DOTS[colour]} {colour}", colours.count(colour))
m[3].metric("Undecided", sum(1 for r in queue if r.decision is None))
f1, f2 = st.columns([1, 2], vertical_alignment="bottom")
show = f1.pills("Colours", ["red", "amber", "green"], selection_mode="multi", default=["red", "amber", "green"],
                key="risk.colours") or []
undecided_only = f2.toggle("Undecided only", key="risk.undecided")
shown = [r for r in queue if r.colour in show and (r.decision is None or not undecided_only)]
left, right = st.columns([2, 3])
with left:
    st.plotly_chart(figures.risk_distribution(colours), key="risk.chart")
with right:
    table = pd.DataFrame([{"colour": r.colour, "document": r.doc_name, "score": round(r.score, 1),
                           "reasons": _flags(r), "decision": DECIDED_WORDS.get(r.decision or "", ""),
                           "decided by": r.decided_by or ""} for r in shown],
                         columns=["colour", "document", "score", "reasons", "decision", "decided by"])
    st.dataframe(table.style.map(lambda c: CELL_STYLE.get(c, ""), subset=["colour"]).format({"score": "{:.1f}"}),
                 hide_index=True, height=300)

if not shown:
    st.info("No document matches the filters.")
    st.stop()
ids = [r.doc_id for r in shown]
by_doc = {r.doc_id: r for r in shown}
nxt = st.session_state.pop("risk.next_doc", None)
if nxt in by_doc:
    st.session_state[DOC_KEY] = nxt
if st.session_state.get(DOC_KEY) not in by_doc:
    st.session_state[DOC_KEY] = ids[0]
doc_id = st.selectbox("Document", ids, key=DOC_KEY,
                      format_func=lambda i: f"{TAGS.get(by_doc[i].colour, '')} {by_doc[i].doc_name} · "
                                            f"score {by_doc[i].score:.1f} · {_flags(by_doc[i])} reason(s)"
                                            + (f" · {DECIDED_WORDS.get(by_doc[i].decision, '')}"
                                               if by_doc[i].decision else ""))
score = by_doc[doc_id]
out = rs.scored_output(db, user, run.id, doc_id)

st.subheader(f"{DOTS.get(score.colour, '')} {score.doc_name}")
if score.decision:
    st.caption(f"Decision: **{DECIDED_WORDS.get(score.decision, score.decision)}** by {score.decided_by or '?'} "
               f"on {local_time(score.decided_at)}")
else:
    st.caption("No decision yet.")
sent = rework.open_send_back(db, user, run.id, doc_id)
if sent is not None:
    st.info(f"Sent back to **{sent.annotator}** by {sent.sent_by or '?'} on {local_time(sent.sent_at)}"
            + (f": {sent.note}" if sent.note else "") + ". Once its gold is fixed and saved, a lead re-de-identifies "
            "this document alone; its new output is then triaged again.")
    if access.can(user, "deidentify") and st.button("Re-de-identify this document from its gold", key="risk.redo",
                                                    icon=":material/refresh:"):
        try:
            rework.redeidentify_document(db, user, run.id, doc_id)
            C.flash(f"{score.doc_name}: re-de-identified from its fixed gold; decide on it again.")
            st.rerun()
        except Exception as e:  # noqa: BLE001 - the services' errors are one line, safe to show
            st.error(str(e))
body, side = st.columns([3, 2])
with body:
    st.markdown("**De-identified text** (reason entities boxed in red, their contexts shaded)")
    st.html(C.output_legend_html() + C.deid_output_html(out.text or "", out.spans, reasons=risk_reasons(score),
                                                        reason_words=REASON_WORDS, css_class="wb-risk"))
with side:
    show_reasons(score)
    if can_decide:
        choices = rs.annotator_choices(db, user, doc_id)
        s1, s2 = st.columns(2)
        send_to = s1.selectbox("Send back to", choices, key="risk.send_to",
                               help="the document goes first in this annotator's queue, with the reasons above")
        note = s2.text_input("Note for the annotator", key="risk.note", max_chars=200,
                             help="what to fix, in words; no patient details")
        for decision, words in DECISION_WORDS.items():
            if st.button(words, key=f"risk.decide.{decision}", width="stretch",
                         type="primary" if decision == "accepted" else "secondary",
                         disabled=decision == "sent_back" and not choices):
                rs.decide(db, user, run.id, doc_id, decision, annotator=send_to, note=note or "")
                C.flash(f"{score.doc_name}: {DECIDED_WORDS[decision]}.")
                nxt = next((i for i in ids if i != doc_id and by_doc[i].decision is None), None)
                if nxt is not None:
                    st.session_state["risk.next_doc"] = nxt
                st.rerun()
    else:
        st.caption("Deciding needs the decide_risk right (reviewers and leads).")
