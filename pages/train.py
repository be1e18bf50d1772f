"""Train (leads): retrain the ensemble from the gold set as a background job, watch its progress
and live loss / dev F1, compare the new version with the active one, activate or roll back,
pre-annotate unannotated documents, and see failed jobs with their reason.

Jobs run in worker processes (:func:`services.jobs.start_job`) and report to the store, so this page
only reads them: a reload, or the page opened in another browser, shows the same progress. The
job panel is a fragment that polls every few seconds while a job is running; the rest of the
app stays usable meanwhile. Every action checks the lead's right again on the server.
"""
from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from dashboard import components as C
from dashboard import state
from dashboard.figures import category_prf_bars, training_history
from dashboard.when import local_time
from pipeline.metrics.summaries import models_to_activate, version_rows
from services import access, detectors, jobs, preannotation
from services import project_metrics as pm
from services import training as tj

POLL_SECONDS = 2.0
MEMBER_CHOICES = list(tj.KNOWN_MEMBERS)
MODE_WORDS = {"flat": "flat: the members label fine types",
              "hierarchical": "hierarchical: a category model checks the type members"}

ctx = state.page_context("train")
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings
db_path = str(state.db_path())

st.title("Train")
st.caption(f"Project: {project.name} · schema {project.schema.name}")
C.show_flash()


STATUS_WORDS = {"trained": "trained", "active": "active", "rolled_back": "rolled back", "failed": "failed"}
PRF_COLUMNS = {k: st.column_config.NumberColumn(k, format="%.3f") for k in
               ("Precision", "Recall", "F1", "Span recall", "All PHI found")}
PRF_COLUMNS["Char precision"] = st.column_config.NumberColumn(
    "Char precision", format="%.3f", help="share of the characters the version marks on dev that are PHI (any label)")
PRF_COLUMNS["Char recall"] = st.column_config.NumberColumn(
    "Char recall", format="%.3f", help="share of the dev notes' PHI characters the version marks (any label)")
PRF_COLUMNS["Missed / 1000 tokens"] = st.column_config.NumberColumn(
    "Missed / 1000 tokens", format="%.2f", help="PHI tokens the version missed per 1,000 dev tokens")


def history_chart(job) -> None:
    """The loss / dev F1 of a training job, per member (live while it runs, kept after)."""
    points = jobs.history_of(job)
    if job.kind == "train" and points:
        st.plotly_chart(training_history(points), key=f"train.history.{job.id}")


def version_table(rows: list[dict]):
    """Model versions for people: words for headers and states, minutes for times, 3 decimals."""
    return pd.DataFrame([{"Version": r["name"], "Trained": local_time(r["created_at"]),
                          "Status": "active" if r["active"] else STATUS_WORDS.get(r["status"], r["status"]),
                          "Precision": r["precision"], "Recall": r["recall"], "F1": r["f1"],
                          "Span recall": r.get("span_recall"), "Char precision": r.get("char_precision"),
                          "Char recall": r.get("char_recall"), "All PHI found": r.get("document_recall"),
                          "Missed / 1000 tokens": r.get("fn_per_1000"),
                          "Dev documents": r.get("dev_documents"), "Members": r.get("members") or "-"}
                         for r in rows])


VERSION_KEY = "train.version"
SEEN_KEY = "train.versions_seen"


def pick_version(versions, active) -> None:
    """Preselect in the version picker what a lead wants to look at: the newest version worth
    activating (trained after the active one) when the page first opens or a version appears
    that it had not shown (a training job just ended), else keep the lead's choice."""
    ids = [v.id for v in versions]
    seen = st.session_state.get(SEEN_KEY)
    st.session_state[SEEN_KEY] = ids
    new = seen is None or any(i not in seen for i in ids)
    if not new and st.session_state.get(VERSION_KEY) in ids:
        return
    candidates = sorted(models_to_activate(versions), key=lambda v: v.id, reverse=True)
    st.session_state[VERSION_KEY] = (candidates[0] if candidates else (active or versions[0])).id


jobs.fail_stale_jobs(db)
running_now = jobs.running_jobs(db, project.id)
if running_now:
    st.session_state["train.polling"] = True


@st.fragment(run_every=POLL_SECONDS if running_now else None)
def live_jobs() -> None:
    fdb = state.get_db()
    access.require(state.current_user(fdb), "train")   # a timer rerun checks the session again
    running = jobs.running_jobs(fdb, project.id)
    if not running:
        if st.session_state.pop("train.polling", False):
            st.rerun()   # a job just ended: refresh the versions and the job lists
        st.caption("No training or pre-annotation job is running.")
        return
    for job in running:   # fdb: the fragment run's own connection (it may run in another thread)
        C.render_job(fdb, job, user=user, key="train", title=True, chart=history_chart)


st.subheader("Running jobs")
live_jobs()

# --- retrain ----------------------------------------------------------------------------------
st.subheader("Retrain from the gold set")
gold = tj.gold_summary(db, project.id)
st.caption(f"{gold.documents} finished gold document(s) from {gold.patients} patient(s), {gold.spans} span(s). "
           "They are split by patient into training and held-out dev documents; the new version is evaluated "
           "on the dev documents and is not activated until you activate it below.")
with st.form("train.form"):
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
    members = c1.multiselect("Ensemble members", MEMBER_CHOICES, default=list(tj.DEFAULT_MEMBERS),
                             key="train.members",
                             help="crf, crf-l1 and crf-rules are CRFs (fitted side by side; on MEDDOCAN the three "
                                  "together matched crf alone for three times the training time); the encoders "
                                  "(bert, electra, roberta) train for much longer; on MEDDOCAN bert earned a small "
                                  "weight (0.125-0.25) but crf+bert found less than crf alone")
    epochs = c2.number_input("Epochs (0 = default)", min_value=0, max_value=200, value=0, step=1, key="train.epochs")
    seed = c3.number_input("Seed", min_value=0, max_value=2**31 - 1, value=13, step=1, key="train.seed")
    target = c4.number_input("Target recall", min_value=0.5, max_value=1.0, value=float(settings.target_recall),
                             step=0.001, format="%.3f", key="train.target_recall")
    mode = st.selectbox(
        "Ensemble mode", list(tj.ENSEMBLE_MODES), index=0, format_func=lambda m: MODE_WORDS.get(m, m),
        key="train.mode",
        help="Flat: the members label each piece of PHI with its fine type directly. Hierarchical: a further model "
             "labels only the coarse category (name, date, location, ...); where it and the members agree the span "
             "gets the members' type, where only it finds PHI the span gets the category's 'other' type, and where "
             "they disagree the span is marked OTHER with an uncertain type and flagged for review.")
    refit = st.checkbox(
        "Refit the CRFs on training and dev documents", value=True, key="train.refit",
        help="The published CRFs are trained on the training and dev documents (the thresholds are tuned on a "
             "fit to the training documents alone, which runs beside it, a core each): fewer missed PHI (on "
             "MEDDOCAN, three CRFs: 1.07 instead of 1.33 missed tokens per 1,000) for twice the CPU time")
    a1, a2 = st.columns([1, 3], vertical_alignment="bottom")
    copies = a1.number_input(
        "Surrogate copies per note", min_value=0, max_value=tj.MAX_AUGMENT_COPIES, value=tj.DEFAULT_AUGMENT_COPIES,
        step=1, key="train.augment",
        help="Each training note is also rewritten this many times with fresh names, streets, institutions, ids "
             "and shifted dates (the gold spans follow), so the members see more PHI values and memorise fewer. "
             "On MEDDOCAN two copies lifted bert from 0.70 to 0.82 F1 (four: 0.84); 0 trains on the notes alone")
    augment_crf = a2.checkbox(
        "The CRFs learn from the copies too", value=tj.DEFAULT_AUGMENT_CRF, key="train.augment_crf",
        help="Each copy adds a training set's worth of CRF fitting. On MEDDOCAN one copy cut the missed PHI "
             "tokens per 1,000 from 1.12 to 0.97-1.07 (three surrogate seeds) at the same strict F1, for twice "
             "the training time (about 6 instead of 3 minutes on two cores)")
    submitted = st.form_submit_button("Start training", disabled=not gold.trainable, key="train.start",
                                      icon=":material/model_training:")
if not gold.trainable:
    st.info("Training needs finished gold spans from at least two patients (adjudicate more documents on the "
            "Review page).")
if submitted:
    with C.guard():
        job_id = tj.start_training(db_path, db, user, project.id,
                                   {"members": members, "epochs": int(epochs) or None, "seed": int(seed),
                                    "target_recall": float(target), "mode": mode,
                                    "config": {**({} if refit else {"refit_crf": False}),
                                               "augment_copies": int(copies), "augment_crf": bool(augment_crf)}})
        C.flash(f"Training job {job_id} started.")
        st.rerun()

# --- versions ---------------------------------------------------------------------------------
st.subheader("Model versions")
versions = tj.model_versions(db, project.id)
active = next((v for v in versions if v.active), None)
if not versions:
    st.info("No model version yet.")
else:
    rows = list(reversed(version_rows(versions)))
    st.dataframe(version_table(rows), hide_index=True, key="train.versions", column_config=PRF_COLUMNS)
    by_id = {v.id: v for v in versions}
    pick_version(versions, active)
    chosen_id = st.selectbox(
        "Version", [v.id for v in versions],
        format_func=lambda i: f"{by_id[i].name} · trained {local_time(by_id[i].created_at)}"
        + (" · active" if by_id[i].active else f" · {STATUS_WORDS.get(by_id[i].status, by_id[i].status)}"),
        key=VERSION_KEY)
    cmp = pm.compare_versions(db, project.id, chosen_id)
    chosen = by_id[chosen_id]
    if chosen.active:   # a version next to itself says nothing: its own figures, and what to choose
        st.markdown(f"**{chosen.name}** is the active version (dev, held-out gold). Choose another version "
                    "above to see it next to this one.")
        cmp = dataclasses.replace(cmp, rows=[])
    else:
        st.markdown(f"**{chosen.name}** (dev, held-out gold) next to the active version "
                    f"**{active.name if active else '- none -'}**")
    target = (chosen.config or {}).get("target_recall")
    st.caption("Strict micro scores on the held-out dev split at the version's operating point: per-type "
               "thresholds tuned for recall" + (f" ≥ {float(target):g}" if target is not None else "")
               + " (they trade some precision, and often F1, for recall; a plain 0.5 decision scores differently).")
    learnt = tj.learnt_on_dev(chosen)
    if learnt:
        st.caption(learnt)
    if cmp.rows:
        compare = pd.DataFrame([{"Category": r["category"], "Support": r["support"],
                                 **{f"{who} {k}": r[f"{who} {k}"] for who in ("new", "active") for k in ("precision", "recall", "f1")},
                                 "Δ F1": r["Δ F1"]} for r in cmp.rows])
        compare.columns = [c.replace(" f1", " F1").replace("new ", "New ").replace("active ", "Active ") for c in compare.columns]
        st.dataframe(compare, hide_index=True, key="train.compare",
                     column_config={c: st.column_config.NumberColumn(c, format="%+.3f" if c == "Δ F1" else "%.3f")
                                    for c in compare.columns if c not in ("Category", "Support")})
    c1, c2 = st.columns(2)
    if cmp.candidate_per_category:
        c1.plotly_chart(category_prf_bars(cmp.candidate_per_category, title=f"{chosen.name} (dev)"),
                        key="train.cand_chart")
    if active is not None and active.id != chosen.id and cmp.active_per_category:
        c2.plotly_chart(category_prf_bars(cmp.active_per_category, title=f"{active.name} (active, dev)"),
                        key="train.active_chart")
    made_by = jobs.job_of_version(db, chosen)
    if made_by is not None and jobs.history_of(made_by):
        with st.expander(f"How {chosen.name} trained (loss and dev F1 per fit)"):
            history_chart(made_by)
    b1, b2 = st.columns(2)
    if b1.button(f"Activate {chosen.name}", disabled=chosen.active or chosen.status == "failed",
                 key="train.activate", icon=":material/check_circle:"):
        with C.guard():
            tj.activate_version(db, user, chosen.id)
            C.flash(f"{chosen.name} is now the active model.")
            st.rerun()
    if b2.button("Roll back the active model", disabled=active is None or active.previous_active_id is None,
                 key="train.rollback", icon=":material/undo:"):
        with C.guard():
            mv = tj.rollback_version(db, user, project.id)
            C.flash(f"Rolled back: {mv.name} is active again.")
            st.rerun()

# --- pre-annotate -----------------------------------------------------------------------------
st.subheader("Pre-annotate")
todo = preannotation.unannotated_documents(db, project.id)
st.caption(f"{len(todo)} document(s) have no gold and no annotator layer; their pre layer is replaced with the "
           "suggestions of the source you choose. A project without gold of its own (a cold start) can use a "
           "model of another project in the same language, and a pretrained member that needs no gold.")
with C.guard():
    pre_sources = detectors.preannotation_sources(db, user, project)
    pre_src = st.selectbox("Suggestions from", pre_sources, format_func=lambda x: x.words,
                           key="train.pre_source") if pre_sources else None
    pre_member = None
    for opt in detectors.pretrained_options(project):
        if st.checkbox(f"Add {opt.words} (needs no gold)", disabled=opt.reason is not None, help=opt.reason,
                       key=f"train.pre_{opt.name}"):
            pre_member = opt.name
    last = preannotation.last_preannotation(db, user, project.id)
    if last:
        st.caption(f"Last pre-annotation: {last}.")
    if pre_src is None:
        st.caption("There is nothing to pre-annotate with: no model, and no rules for this project's language.")
    elif st.button(f"Pre-annotate {len(todo)} document(s)", disabled=not todo, key="train.preannotate",
                   icon=":material/auto_fix_high:"):
        job_id = preannotation.start_from_source(db_path, db, user, project.id, pre_src, pretrained=pre_member)
        C.flash(f"Pre-annotation job {job_id} started.")
        st.rerun()

# --- job history ------------------------------------------------------------------------------
st.subheader("Recent jobs")
recent = jobs.recent_jobs(db, project.id)
failed = [j for j in recent if j.status == "failed"]
if failed:
    st.markdown("**Failed jobs**")
    st.dataframe(pd.DataFrame([{"Job": j.id, "Kind": jobs.KIND_WORDS.get(j.kind, j.kind),
                                "Started by": j.created_by or "-", "Finished": local_time(j.finished_at),
                                "Reason": jobs.describe_result(j)} for j in failed]), hide_index=True, key="train.failed")
done = [j for j in recent if j.status == "done"]
if done:
    st.markdown("**Finished jobs**")
    st.dataframe(pd.DataFrame([{"Job": j.id, "Kind": jobs.KIND_WORDS.get(j.kind, j.kind),
                                "Started by": j.created_by or "-", "Finished": local_time(j.finished_at),
                                "Result": jobs.describe_result(j)} for j in done]), hide_index=True, key="train.done")
if not recent:
    st.caption("No jobs yet.")
