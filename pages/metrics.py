"""Metrics (leads and reviewers): how good the model and the annotators are.

Everything is computed by :func:`services.project_metrics.project_metrics` (this page only
renders) and cached per data version of the store and per filter, so reruns are cheap and any
save refreshes the figures. Nothing here shows document text.
"""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.figures import (agreement_heatmap, category_prf_bars, confusion_heatmap, learning_curve,
                               operating_curve_figure, throughput_bars)
from dashboard.when import local_time
from pipeline.metrics.filters import MetricsFilter
from pipeline.metrics.summaries import gold_comparison_rows, measure_rows
from services import project_metrics as pm
from services import session

#: The miss kinds of :mod:`pipeline.metrics.misses` as table headers ("none" would read "None").
MISS_WORDS = {"none": "nothing there"}
#: An annotator's rates per hour are shown from this many timed notes on (not extrapolated from one).
MIN_TIMED_NOTES = 5

ctx = state.page_context("view_metrics")
db, user, project = ctx.db, ctx.user, ctx.project


@st.cache_data(show_spinner="Computing metrics...", max_entries=32)
def load_metrics(db_path: str, project_id: int, category: str | None, since: str | None, until: str | None,
                 held_out_only: bool, version: int) -> pm.ProjectMetrics:
    """``version`` (``state.data_version``) is only a cache key: any write to the store changes it."""
    flt = MetricsFilter(category=category, since=since, until=until)
    return pm.project_metrics(session.thread_db(db_path), project_id, flt, held_out_only=held_out_only)


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def table(rows: list[dict], key: str, *, decimals: int = 3) -> None:
    """A table for people: column names in words (first letter up), floats to ``decimals``."""
    df = pd.DataFrame(rows)
    if df.empty:
        return
    df.columns = [str(c)[:1].upper() + str(c)[1:] for c in df.columns]
    config = {c: st.column_config.NumberColumn(c, format=f"%.{decimals}f")
              for c in df.columns if df[c].dtype.kind == "f"}
    st.dataframe(df, hide_index=True, key=key, column_config=config)


st.title("Metrics")
st.caption(f"Project: {project.name} · schema {project.schema.name}")

f1, f2, f3, f4 = st.columns([2, 1.4, 1.4, 1.6])   # wide enough for a whole date (not "2026 / 11")
cat_choice = f1.selectbox("Category", ["All categories", *project.schema.categories], key="metrics.category")
since_d = f2.date_input("From", value=None, key="metrics.since")
until_d = f3.date_input("To", value=None, key="metrics.until")
held_out = f4.checkbox("Held-out gold only", help="only gold documents the active model was not trained on", value=False,
                       key="metrics.held_out")
category = None if cat_choice == "All categories" else cat_choice
since = since_d.isoformat() if isinstance(since_d, dt.date) else None
until = until_d.isoformat() if isinstance(until_d, dt.date) else None
st.caption("Dates filter assignments by when they were finished, gold by when it was last saved and model "
           "versions by when they were trained.")

m = load_metrics(str(state.db_path()), project.id, category, since, until, held_out, state.data_version(db))
tab_model, tab_pre, tab_people, tab_speed = st.tabs(["Model", "Pre-annotations vs gold", "Annotators", "Throughput"])

# --- the active model's held-out evaluation and the versions over time ----------------------
with tab_model:
    if m.active is None:
        st.info("No active model: train one and activate it on the Train page.")
    else:
        st.markdown(f"**Active model {m.active['name']}** · trained {local_time(m.active['created_at'])} · "
                    f"members {m.active['members'] or '-'} · "
                    f"{m.active['dev_documents'] or '?'} held-out dev document(s)")
        c = st.columns(4)
        c[0].metric("Precision (strict)", fmt(m.active["precision"]))
        c[1].metric("Recall (strict)", fmt(m.active["recall"]))
        c[2].metric("F1 (strict)", fmt(m.active["f1"]))
        c[3].metric("Documents with all PHI found", fmt(m.active.get("document_recall")))
        c = st.columns(4)
        c[0].metric("Character precision", fmt(m.active.get("char_precision")),
                    help="share of the characters the model marks that are PHI (any label, blanks not counted)")
        c[1].metric("Character recall", fmt(m.active.get("char_recall")),
                    help="share of the PHI characters the model marks (any label): what would not leak")
        if m.active_per_category:
            st.plotly_chart(category_prf_bars(m.active_per_category, title="Active model, per category (dev)"),
                            key="metrics.active_prf")
            table(measure_rows(m.active_per_category), "metrics.active_table")
        if m.active_characters:
            st.markdown("**Per character, per category** (dev; recall over the category's PHI characters, "
                        "precision over the characters the model marked with it)")
            table(m.active_characters, "metrics.active_characters")
        for note in m.notes:
            st.caption(note)
    if m.versions:
        metric_names = ("f1", "recall", "precision")
        st.plotly_chart(learning_curve(m.versions, metric_names), key="metrics.learning_curve")
        st.caption("Held-out dev figures of every version by training date"
                   + (f" (category {category})." if category else "."))
    else:
        st.caption("No model version in the date range.")

# --- the pre layer (what annotators were shown) against gold ----------------------------------
with tab_pre:
    pre = m.pre
    if pre is None:
        st.info("No document has both a finished gold layer and pre-annotations"
                + (" in this selection." if (since or until or held_out) else "."))
    else:
        rep = pre.report
        st.caption(f"{pre.n_documents} gold document(s) with pre-annotations; produced by "
                   + "; ".join(f"{k}: {v} doc(s)" for k, v in pre.sources.items())
                   + (f". {pre.held_out_documents} of them were not used to train the active model."
                      if m.active is not None else "."))
        c = st.columns(4)
        c[0].metric("Strict F1", fmt(rep.strict.micro.f1))
        c[1].metric("Relaxed F1", fmt(rep.relaxed.micro.f1))
        c[2].metric("PHI tokens missed / 1000", f"{rep.fn_per_1000:.2f}")
        c[3].metric("Documents with all PHI found", fmt(rep.document_recall))
        st.plotly_chart(category_prf_bars(rep.strict.per_category, title="Pre-annotations vs gold, per category"),
                        key="metrics.pre_prf")
        rows, cols, matrix = rep.confusion.matrix()
        if rows:
            st.plotly_chart(confusion_heatmap(rows, cols, matrix), key="metrics.confusion")
        if rep.misses.total:
            st.markdown(f"**Why gold spans were missed**: {rep.misses.total} of {rep.misses.reference_spans} "
                        "have no pre-annotation with the same offsets")
            table([{MISS_WORDS.get(k, k): v for k, v in row.items()} for row in rep.misses.rows()], "metrics.misses")
            st.caption("Nothing there: no pre-annotation touches the span (a recall problem). Too long / too short / "
                       "split / shifted: one was drawn with other boundaries (the annotation guideline's "
                       "conventions, which training on more corrected gold teaches).")
        if rep.operating is not None:
            st.plotly_chart(operating_curve_figure(rep.operating), key="metrics.operating")
            table([{"target recall": p.target_recall, "reached": "yes" if p.achieved else "no",
                    "threshold": p.threshold, "recall": p.recall, "precision": p.precision,
                    "missed / 1000 tokens": p.fn_per_1000, "flagged wrongly / 1000": p.fp_per_1000}
                   for p in rep.operating.points], "metrics.points")
        else:
            st.caption("Operating points need scored pre-annotations (all scores are equal here).")

# --- annotators: agreement and against gold ---------------------------------------------------
with tab_people:
    ag = m.agreement
    if ag is None:
        st.info("No document was finished by two annotators" + (" in this selection." if since or until else "."))
    else:
        names, z = ag.matrix("strict", category)
        st.plotly_chart(agreement_heatmap(names, z, title="Pairwise agreement (strict entity F1)"),
                        key="metrics.agreement_f1")
        names_k, zk = ag.matrix("kappa")
        st.plotly_chart(agreement_heatmap(names_k, zk, title="Cohen's kappa (token labels)"),
                        key="metrics.agreement_kappa")
        c = st.columns(3)
        c[0].metric("Krippendorff's alpha", fmt(ag.alpha))
        c[1].metric("Documents compared", len(ag.per_document))
        c[2].metric("Disagreements", len(ag.disagreements))
        n_unrev = sum(ag.unreviewed.values())
        if n_unrev:
            st.warning(f"Not in these figures: {n_unrev} span(s) nobody looked at (accepted in bulk or left open "
                       f"as suggestions: " + ", ".join(f"{a} {n}" for a, n in sorted(ag.unreviewed.items()) if n)
                       + f"); {ag.unreviewed_shared} of them were held by two or more annotators that way, which "
                       "would otherwise count as agreement with the model, not between people.",
                       icon=":material/visibility_off:")
        st.info(ag.caveat, icon=":material/info:")
    if m.vs_gold:
        st.markdown("**Each annotator against gold, next to the pre-annotations on the same documents**")
        bars = {}
        for comp in m.vs_gold:
            bars[comp.annotator] = comp.strict.micro
            if comp.model_strict is not None:
                bars[f"pre ({comp.annotator}'s docs)"] = comp.model_strict.micro
        st.plotly_chart(category_prf_bars(bars, title="Strict P/R/F1 against gold"), key="metrics.vs_gold")
        table(gold_comparison_rows(m.vs_gold), "metrics.vs_gold_table")
    elif ag is not None:
        st.caption("No annotator finished a document that has gold yet.")

# --- throughput -------------------------------------------------------------------------------
with tab_speed:
    if not m.throughput:
        st.info("No finished assignment" + (" in this date range." if since or until else " yet."))
    else:
        enough = [r for r in m.throughput if r.timed_documents >= MIN_TIMED_NOTES]
        if enough:
            st.plotly_chart(throughput_bars(enough), key="metrics.throughput")
        st.caption(f"Rates per hour are shown for an annotator with at least {MIN_TIMED_NOTES} timed notes; "
                   "a rate from one or two notes would be a guess. Each row says how many notes it rests on.")
        table([{"annotator": r.user, "documents": r.n_documents, "spans": r.n_spans, "timed documents": r.timed_documents,
                "hours": r.total_seconds / 3600,
                "documents / hour": r.docs_per_hour if r.timed_documents >= MIN_TIMED_NOTES else None,
                "spans / hour": r.spans_per_hour if r.timed_documents >= MIN_TIMED_NOTES else None,
                "median minutes / document": (r.median_seconds_per_doc / 60) if r.median_seconds_per_doc else None}
               for r in m.throughput], "metrics.throughput_table", decimals=1)
