"""De-identify page: a run's (or an upload's) summary, figures only: counts per category and
action, the leak check (a red alert: the run failed), what else changed, surrogate quality and
a paraphrase run's comparison with list surrogates."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pipeline.deid.batch import fallback_note
from pipeline.deid.profile import ACTIONS
from services.residual import ResidualEstimate

#: The quality table's columns, as the page names them.
QUALITY_COLUMNS = {"system": "Surrogates", "notes": "Notes", "replacements": "Replaced", "same_rate": "Same rate",
                   "char_trigram_overlap": "Character 3-gram overlap", "word_overlap": "Word overlap",
                   "bertscore_precision": "BERTScore P", "bertscore_recall": "BERTScore R",
                   "bertscore_f1": "BERTScore F1"}


def render_summary(counts: dict, quality: dict, leaks: int, names: dict[str, str] | None = None, *,
                   estimate: ResidualEstimate | None = None) -> None:
    """Counts per category and action, leaks (a red alert: the run failed) or what a passed check
    covered and what may remain (``estimate``), unparseable dates, names and metadata changed,
    surrogate quality."""
    spans = counts.get("spans") or {}
    m = st.columns(5)
    m[0].metric("Documents", counts.get("documents", 0))
    m[1].metric("Spans", sum(sum(a.values()) for a in spans.values()))
    m[2].metric("Leaks", leaks)
    m[3].metric("Unparseable dates", counts.get("unparseable_dates", 0))
    m[4].metric("Fell back to placeholder", counts.get("fallbacks", 0))
    _paraphrase_metrics(counts)
    _leak_check(counts, leaks, names, estimate)
    extra = _what_else_changed(counts)
    if extra:
        st.caption(" · ".join(extra))
    if spans:
        rows = [{"Category": c, **{a: acts.get(a, 0) for a in ACTIONS}, "Total": sum(acts.values())}
                for c, acts in spans.items()]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    if quality.get("surrogates"):
        _surrogate_quality(quality)
    render_comparison(quality)


def _paraphrase_metrics(counts: dict) -> None:
    para_fallbacks = counts.get("paraphrase_fallbacks") or {}
    if counts.get("paraphrased") or para_fallbacks:
        p = st.columns(5)
        p[0].metric("Paraphrased", counts.get("paraphrased", 0),
                    help="spans the project's language model infilled in their context")
        p[1].metric("Fell back to list surrogates", sum(para_fallbacks.values()))
        note = fallback_note(para_fallbacks)
        if note:
            (st.warning if para_fallbacks.get("no_model") else st.caption)(note + ".")


def _leak_check(counts: dict, leaks: int, names: dict[str, str] | None,
                estimate: ResidualEstimate | None = None) -> None:
    """The leak check's verdict; with leaks, where they are (offsets and categories, no text);
    without, what it checked (only detected or annotated PHI) beside what may remain."""
    if leaks:
        by_cat = ", ".join(f"{c} {n}" for c, n in sorted((counts.get("leaks_by_category") or {}).items()))
        by_loc = ", ".join(f"{k} {n}" for k, n in sorted((counts.get("leaks_by_location") or {}).items()))
        st.error(f"Leak check: {leaks} original PHI string(s) are still in the output ({by_cat}"
                 + (f"; in {by_loc}" if by_loc else "") + "). The run failed: do not release these documents; "
                 "fix their spans and run again (downloads are disabled).", icon=":material/gpp_bad:")
        details = counts.get("leak_details") or []
        if details:
            st.dataframe(pd.DataFrame([{"document": (names or {}).get(str(d.get("doc_id")), d.get("doc_id")),
                                        "category": d.get("category"), "type": d.get("type"),
                                        "where": d.get("location", "text"),
                                        "offsets": f"{d.get('start')}-{d.get('end')}", "scope": d.get("scope")}
                                       for d in details]), hide_index=True)
    elif estimate is not None:
        left, right = st.columns(2)
        left.success(estimate.check_words(), icon=":material/verified_user:")
        n = estimate.may_hold_phi
        (right.warning if (n or estimate.annotated_docs or n is None) else right.info)(
            estimate.estimate_words(), icon=":material/travel_explore:")
    else:
        st.success("Leak check: no detected or annotated PHI remains in the output (text, metadata, ids or file "
                   "names); it cannot see PHI that was never detected.", icon=":material/verified_user:")


def _what_else_changed(counts: dict) -> list[str]:
    """One phrase per other fact of the run: renamed ids, dropped metadata, merged overlaps, ..."""
    extra = []
    if counts.get("renamed_documents"):
        extra.append(f"{counts['renamed_documents']} document ids and file names replaced by keyed pseudonyms"
                     + (f", {counts['renamed_patients']} patient ids" if counts.get("renamed_patients") else ""))
    if counts.get("dropped_meta_keys"):
        extra.append(f"{counts['dropped_meta_keys']} metadata keys dropped (not allowed by the profile)")
    if counts.get("merged_overlaps"):
        extra.append(f"{counts['merged_overlaps']} overlapping spans merged into their union")
    if counts.get("inputs"):
        extra.append("spans from " + ", ".join(f"{k} ({v} documents)" for k, v in counts["inputs"].items()))
    if counts.get("detector"):
        extra.append(f"detector: {counts['detector']}")
    if counts.get("propagated"):
        extra.append(f"{counts['propagated']} unannotated copies of PHI values also replaced")
    if counts.get("not_deidentified"):
        extra.append(f"{len(counts['not_deidentified'])} documents lacked the layer and were left out")
    if counts.get("resume_mismatches"):
        extra.append(f"{counts['resume_mismatches']} earlier outputs differed from what the resumed run writes "
                     "and were written again")
    return extra


def _surrogate_quality(quality: dict) -> None:
    st.markdown("**Surrogate quality**")
    q = st.columns(4)
    q[0].metric("Surrogates", quality.get("surrogates", 0))
    q[1].metric("Same as original", f"{quality.get('same_rate', 0.0):.1%}",
                help="share of surrogates equal to their original (should be 0)")
    q[2].metric("Trigram similarity", f"{quality.get('mean_trigram_similarity', 0.0):.3f}",
                help="mean character-trigram Jaccard similarity of surrogate and original (lower is safer)")
    q[3].metric("Diversity", f"{quality.get('diversity', 0.0):.3f}",
                help="distinct surrogates / distinct originals (below 1: different values share a surrogate)")
    by_cat = quality.get("quality_by_category") or {}
    if by_cat:
        st.dataframe(pd.DataFrame([{"Category": c, "Surrogates": v.get("surrogates"),
                                    "Same as original": v.get("same_rate"),
                                    "Trigram similarity": v.get("mean_trigram_similarity"),
                                    "Diversity": v.get("diversity")} for c, v in by_cat.items()]),
                     hide_index=True,
                     column_config={k: st.column_config.NumberColumn(k, format="%.3f")
                                    for k in ("Same as original", "Trigram similarity", "Diversity")})


def render_comparison(quality: dict) -> None:
    """A paraphrase run's quality table beside list surrogates (figures only)."""
    rows = quality.get("comparison") or []
    if not rows:
        return
    st.markdown("**Paraphrase vs list surrogates**")
    st.dataframe(pd.DataFrame([{QUALITY_COLUMNS[k]: v for k, v in r.items() if k in QUALITY_COLUMNS} for r in rows]),
                 hide_index=True)
    emb = quality.get("embedding")
    st.caption(f"On {quality.get('compared_documents', 0)} documents, the same spans. Same rate: surrogates equal "
               "to their original (must be 0). n-gram overlap with the original: lower is safer. BERTScore: "
               "greedy cosine match of the de-identified note's token embeddings with the original's, higher reads "
               "closer" + (f" (embeddings of language model {emb})." if emb else
                           " (needs the project's language model: not computed)."))
