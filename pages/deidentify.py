"""De-identify: project documents (as a job) or an upload (in this process) with a profile; the
original and the output side by side, the run summary (leaks in red), and a zip download.

A run or upload whose leak check finds input PHI in the output (text, metadata, ids, names) is
shown as failed in red, and offers no download and no resume; outputs are named by keyed
pseudonyms (shown beside each document's real name here, for the lead only).

Paraphrase: a profile may infill surrogates with the project's own masked language model
(:mod:`services.infill`; trained here as a job by a lead). Without one, those spans get list
surrogates and the summary says how many; a paraphrase run shows its quality table beside list
surrogates (Same rate, n-gram overlap, BERTScore-style similarity).

Logic lives in :mod:`services.deidentification` (jobs, uploads, exports),
:mod:`services.detectors` (which detector) and :mod:`pipeline.deid`; this page only gathers
choices and shows results. Uploads are never stored: their results live in this session only.
"""
from __future__ import annotations

from collections import Counter

import pandas as pd
import streamlit as st

from dashboard import components as C
from dashboard import state
from pipeline.deid import Profile, builtin_profiles
from pipeline.deid.batch import fallback_note
from pipeline.deid.profile import ACTIONS, SHIFTABLE, ProfileError
from pipeline.layers import DETECTED, parse_output_layer
from services import access, detectors, infill, jobs, projects, session
from services import deidentification as rj
from services.risk import risk_line

JOB_KEY = "deid.job_id"
RUN_KEY = "deid.run_id"
UPLOAD_KEY = "deid.upload_run"
POS_KEY = "deid.pos"
INFILL_JOB_KEY = "deid.infill_job_id"
#: The quality table's columns, as the page names them.
QUALITY_COLUMNS = {"system": "Surrogates", "notes": "Notes", "replacements": "Replaced", "same_rate": "Same rate",
                   "char_trigram_overlap": "Character 3-gram overlap", "word_overlap": "Word overlap",
                   "bertscore_precision": "BERTScore P", "bertscore_recall": "BERTScore R",
                   "bertscore_f1": "BERTScore F1"}
FORMATS = ("text", "brat", "xml", "jsonl")

ctx = state.page_context("deidentify")
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings
schema = project.schema

st.title("De-identify")
C.show_flash()


# --------------------------------------------------------------------------- helpers

@st.cache_resource(show_spinner="Loading the detector ...", max_entries=4)
def _detector(db_path: str, project_id: int, model_id: int | None) -> detectors.DetectorChoice:
    """One detector per project and active model version (loading a model takes seconds)."""
    return detectors.detector_for_project(session.thread_db(db_path), project_id)


def _profile_editor() -> Profile:
    """Choose a built-in or saved profile and adjust it per category (not saved unless asked)."""
    builtins = builtin_profiles()
    saved = rj.saved_profiles(db, project.id)
    options = list(builtins) + [n for n in saved if n not in builtins]
    c1, c2 = st.columns([2, 3])
    base_name = c1.selectbox("Profile", options, key="deid.profile",
                             format_func=lambda n: n + (" (saved)" if n in saved else " (built-in)"))
    base = rj.resolve_profile(db, project.id, base_name)
    # the version of each saved profile as first shown: a save states it, so a profile someone
    # else saved meanwhile is not overwritten (a stale save is refused, as for layers)
    seen_versions = st.session_state.setdefault("deid.profile_versions", {})
    for name, sp in saved.items():
        seen_versions.setdefault(name, sp.version)
    c2.caption(base.description or "")
    actions = dict(base.actions)
    with st.expander("Adjust the profile (per category)"):
        cols = st.columns(4)
        for i, cat in enumerate(schema.categories):
            # dates and ages are shifted, never infilled; only they can be shifted
            allowed = [a for a in ACTIONS if (a != "shift" or cat in SHIFTABLE)
                       and (a != "paraphrase" or cat not in SHIFTABLE)]
            current = base.action_for(cat)
            current = current if current in allowed else "redact"
            actions[cat] = cols[i % 4].selectbox(cat, allowed, index=allowed.index(current),
                                                 key=f"deid.action.{base_name}.{cat}")
        placeholder = st.text_input("Placeholder template for redact ({CATEGORY}, {Type}, ... or * to keep length)",
                                    value=base.placeholder, key=f"deid.placeholder.{base_name}")
        meta_text = st.text_input("Metadata keys to keep in JSONL outputs (comma-separated; every other key is "
                                  "dropped, ids are always pseudonymised)", value=", ".join(base.meta_keys),
                                  key=f"deid.meta_keys.{base_name}")
        meta_keys = [k.strip() for k in meta_text.split(",") if k.strip()]
        data = base.to_dict()
        data.update(actions=actions, placeholder=placeholder, meta_keys=meta_keys)
        changed = (actions != {c: base.action_for(c) for c in actions} or placeholder != base.placeholder
                   or meta_keys != list(base.meta_keys))
        if changed:
            data["name"] = f"{base.name} (edited)"
        try:
            profile = Profile.from_json(data)
        except ProfileError as e:       # e.g. a template with an unknown field: say so, keep the base
            st.error(f"{e}; using profile {base.name} as it is.")
            return base
        if access.can(user, "manage_profiles"):
            s1, s2 = st.columns([3, 1])
            new_name = s1.text_input("Save as", key="deid.save_as", placeholder="name for a saved profile")
            if s2.button("Save profile", key="deid.save_profile") and new_name.strip():
                with C.guard():     # e.g. saved by someone else since it was shown: say so, keep the edits
                    name = new_name.strip()
                    data["name"] = name
                    projects.save_profile(db, user, project.id, Profile.from_json(data),
                                          expected_version=seen_versions.get(name))
                    seen_versions.pop(name, None)
                    C.flash(f"Saved profile {name}.")
                    st.rerun()
    return profile


def _render_summary(counts: dict, quality: dict, leaks: int, names: dict[str, str] | None = None) -> None:
    """Counts per category and action, leaks (a red alert: the run failed), unparseable dates,
    names and metadata changed, surrogate quality."""
    spans = counts.get("spans") or {}
    m = st.columns(5)
    m[0].metric("Documents", counts.get("documents", 0))
    m[1].metric("Spans", sum(sum(a.values()) for a in spans.values()))
    m[2].metric("Leaks", leaks)
    m[3].metric("Unparseable dates", counts.get("unparseable_dates", 0))
    m[4].metric("Fell back to placeholder", counts.get("fallbacks", 0))
    para_fallbacks = counts.get("paraphrase_fallbacks") or {}
    if counts.get("paraphrased") or para_fallbacks:
        p = st.columns(5)
        p[0].metric("Paraphrased", counts.get("paraphrased", 0),
                    help="spans the project's language model infilled in their context")
        p[1].metric("Fell back to list surrogates", sum(para_fallbacks.values()))
        note = fallback_note(para_fallbacks)
        if note:
            (st.warning if para_fallbacks.get("no_model") else st.caption)(note + ".")
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
    else:
        st.success("Leak check: no original PHI string was found in the output (text, metadata, ids or file "
                   "names).", icon=":material/verified_user:")
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
        extra.append(f"{counts['resume_mismatches']} earlier outputs differ from a rerun (secret or profile changed?)")
    if extra:
        st.caption(" · ".join(extra))
    if spans:
        rows = [{"Category": c, **{a: acts.get(a, 0) for a in ACTIONS}, "Total": sum(acts.values())}
                for c, acts in spans.items()]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    if quality.get("surrogates"):
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
    _render_comparison(quality)


def _render_comparison(quality: dict) -> None:
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


def _language_model_panel(needed: bool) -> None:
    """The project's language model for paraphrase: which one, and (leads) train a new one as a job."""
    status = infill.model_status(db, user, project.id, state.db_path())
    with st.expander("Project language model (paraphrase)", expanded=needed and status is None):
        if status is None:
            st.info("No project language model yet: paraphrase spans fall back to list surrogates. Train one on "
                    "the project's documents (a few minutes; nothing is downloaded).")
        else:
            st.caption(f"Language model {status['name']}: trained on {status.get('documents') or 0} documents, "
                       f"{status.get('created') or ''}, in {float(status.get('train_seconds') or 0):.0f} s.")
        if st.session_state.get(INFILL_JOB_KEY) is None:       # a reload, or started from another browser
            running = jobs.running_jobs(db, project.id, kinds=(infill.JOB_KIND,))
            if running:
                st.session_state[INFILL_JOB_KEY] = running[0].id
        job = C.job_progress(st.session_state.get(INFILL_JOB_KEY), user=user, key="deid.infill", counts=True)
        if job is not None and job.status == "failed":
            st.error(f"Job #{job.id} failed: {job.error or 'no reason recorded'}; the previous model stays in use.")
        elif job is not None and job.status == "done":
            st.success(jobs.describe_result(job))
        if access.can(user, "train"):
            busy = not jobs.job_finished(db, st.session_state.get(INFILL_JOB_KEY))
            if st.button("Train the language model", key="deid.infill_train", disabled=busy,
                         icon=":material/model_training:"):
                with C.guard():
                    st.session_state[INFILL_JOB_KEY] = infill.start_infill_training(state.db_path(), db, user,
                                                                                   project.id)
                    st.rerun()


def _navigator(n: int, key: str) -> int:
    """Previous / next through ``n`` documents; returns the current index."""
    pos = min(max(0, int(st.session_state.get(key, 0))), max(0, n - 1))
    c1, c2, c3 = st.columns([1, 3, 1])
    if c1.button("Previous", key=f"{key}.prev", disabled=pos <= 0, icon=":material/chevron_left:"):
        pos -= 1
    if c3.button("Next", key=f"{key}.next", disabled=pos >= n - 1, icon=":material/chevron_right:"):
        pos += 1
    st.session_state[key] = pos
    c2.markdown(f"Document **{pos + 1}** of **{n}**")
    return pos


def _side_by_side(original: str, in_spans: list, output: str, out_spans: list, *, note: str = "",
                  actions: list[str] | None = None) -> None:
    """The original with its PHI spans, and the output with every surrogate, placeholder and kept
    span marked (what is unmarked is as in the original: a missed name stands out)."""
    left, right = st.columns(2)
    cats = list(schema.categories)
    with left:
        st.markdown("**Original**")
        if note:
            st.caption(note)
        st.html(C.legend_html(cats) + C.spans_html(original, in_spans, low_confidence=0.0))
    with right:
        st.markdown("**De-identified**")
        st.html(C.output_legend_html() + C.deid_output_html(output, out_spans, actions=actions))


def _download(items_fn, target: str, key: str, *, leaked: bool = False) -> None:
    """Zip download in a chosen format; only for users who may export (audited on click), and
    never for outputs that failed the leak check."""
    if leaked:
        st.caption("No download: the leak check failed for these outputs.")
        return
    if not access.can(user, "export"):
        st.caption("Downloading de-identified documents needs the export right (leads).")
        return
    c1, c2 = st.columns([1, 3])
    fmt = c1.selectbox("Download format", FORMATS, index=FORMATS.index("brat"), key=f"{key}.fmt")
    db_path = str(state.db_path())
    who = user

    def make() -> bytes:     # runs when the button is clicked (deferred), on its own connection
        with projects.open_db(db_path) as tdb:
            return rj.export_outputs(tdb, who, items_fn(tdb), fmt, target=target)

    c2.download_button("Download de-identified documents (zip)", data=make, file_name=f"deidentified-{fmt}.zip",
                       mime="application/zip", key=f"{key}.download", icon=":material/download:")


def _job_panel() -> None:
    job = C.job_progress(st.session_state.get(JOB_KEY), user=user, key="deid", counts=True)
    if job is None:
        return
    if job.status == "failed":
        st.error(f"Job #{job.id} failed: {job.error or 'no reason recorded'}")
        if isinstance(job.params, dict) and job.params.get("run_id") is None:
            runs = [r for r in rj.runs(db, user, project.id) if r.job_id == job.id]
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
                       f"{job.result.get('leaks', 0)} leaks" + (f"; {risk_line(risk)}" if risk else ""))


# --------------------------------------------------------------------------- choices

profile = _profile_editor()
_language_model_panel(profile.uses_paraphrase())
source = st.radio("Documents", ["Project documents", "Upload files"], horizontal=True, key="deid.source")

if source == "Project documents":
    records = projects.documents(db, project.id)
    names = {r.id: r.name for r in records}
    how = st.radio("Which documents", ["All", "Selection", "By status"], horizontal=True, key="deid.which")
    if how == "Selection":
        ids = st.multiselect("Documents", list(names), format_func=lambda i: names[i], key="deid.docs")
    elif how == "By status":
        statuses = projects.document_statuses(db, project.id)
        have = Counter(statuses.values())
        chosen = st.multiselect("Status", sorted(have), default=["gold"] if "gold" in have else None,
                                format_func=lambda s: f"{s} ({have[s]})", key="deid.status")
        ids = [i for i, s in statuses.items() if s in chosen]
    else:
        ids = list(names)
    c1, c2 = st.columns(2)
    layer = c1.selectbox("Spans from layer", ["gold", "pre"], key="deid.layer")
    missing = c2.radio("Documents without that layer", ["detect", "skip"], horizontal=True, key="deid.missing",
                       format_func=lambda m: "detect their PHI (active model, else rules and dictionaries)"
                       if m == "detect" else "leave them out")
    running = not jobs.job_finished(db, st.session_state.get(JOB_KEY))
    if st.button(f"De-identify {len(ids)} document(s)", key="deid.run", type="primary", disabled=not ids or running,
                 icon=":material/play_arrow:"):
        st.session_state[JOB_KEY] = rj.start_run(state.db_path(), user, project.id,
                                                 doc_ids=ids if how != "All" else "all", layer=layer,
                                                 missing=missing, profile=profile)
        st.rerun()
    _job_panel()

    # --- a stored run ------------------------------------------------------------------------
    runs = rj.runs(db, user, project.id)
    if runs:
        st.divider()
        by_id = {r.id: r for r in runs}
        if st.session_state.get(RUN_KEY) not in by_id:
            st.session_state[RUN_KEY] = runs[0].id
        run_id = st.selectbox("Run", list(by_id), key=RUN_KEY,
                              format_func=lambda i: f"Run {i} · {by_id[i].profile_name} · {by_id[i].status} · "
                                                    f"{by_id[i].created_at[:16]} · by {by_id[i].created_by or '-'}")
        run = by_id[run_id]
        if run.failed_leak_check:
            st.error(f"Run {run.id} failed: its leak check found input PHI in the outputs. It cannot be resumed, "
                     "scored or downloaded; fix the spans and start a new run.")
        elif run.status != "done":
            st.warning(f"Run {run.id} is {run.status}: its outputs may be incomplete.")
            if rj.resumable(db, run) and st.button("Resume this run", key="deid.resume", disabled=running,
                                                   help="writes only the documents the run lacks"):
                st.session_state[JOB_KEY] = rj.resume_run(state.db_path(), user, project.id, run.id)
                st.rerun()
        _render_summary(run.counts or {}, run.quality or {}, int(run.leaks or 0), {str(k): v for k, v in names.items()})
        outputs = rj.run_outputs(db, user, run.id)
        if outputs:
            pos = _navigator(len(outputs), POS_KEY + ".run")
            out = rj.run_output(db, user, run.id, outputs[pos].doc_id)
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
            elif in_layer == DETECTED:
                note = "spans were detected when the run was made (not stored)"
            _side_by_side(doc.text or "", in_spans, out.text or "", out.spans, note=note)
            _download(lambda tdb, rid=run.id: rj.stored_outputs_as_documents(tdb, rid), f"deid_run:{run.id}",
                      "deid.run_dl", leaked=run.failed_leak_check)
else:
    # --- an upload ---------------------------------------------------------------------------
    c1, c2 = st.columns([1, 3])
    fmt = c1.selectbox("Format", FORMATS, key="deid.upload_fmt",
                       help="text: plain notes (PHI is detected); brat needs a .zip of .txt and .ann files")
    up = c2.file_uploader("One file, or a .zip of files", type=["txt", "zip", "xml", "jsonl", "json"],
                          key="deid.upload")
    if st.button("De-identify the upload", key="deid.upload_run_btn", type="primary", disabled=up is None,
                 icon=":material/play_arrow:"):
        model_id = detectors.active_version_id(db, project.id)
        bar = st.empty()      # a progress bar once de-identification starts (after the checks)
        result = rj.deidentify_upload(
            db, user, project, up.name, up.getvalue(), fmt, profile,
            detector=lambda: _detector(str(state.db_path()), project.id, model_id),
            progress=lambda d, t: bar.progress(d / max(1, t), text=f"de-identifying {d}/{t}"))
        bar.empty()
        st.session_state[UPLOAD_KEY] = result
        st.session_state[POS_KEY + ".upload"] = 0
    result = st.session_state.get(UPLOAD_KEY)
    if result is not None:
        st.divider()
        counts, quality = rj.summary_dicts(result.batch.summary, result.batch.leaks)
        quality.update(getattr(result, "quality", None) or {})
        if result.detected:
            counts["detector"] = result.detector
            counts["inputs"] = {"upload": len(result.originals) - len(result.detected),
                                DETECTED: len(result.detected)}
        st.caption(f"Upload de-identified with profile {result.profile_name}; nothing was stored.")
        _render_summary(counts, quality, result.batch.summary.leaks)
        res = result.batch.results
        pos = _navigator(len(res), POS_KEY + ".upload")
        r = res[pos]
        original = next(d for d in result.originals if d.doc_id == r.doc_id)
        st.subheader(str(r.doc_id) + (f" · {len(r.leaks)} leak(s)" if r.leaks else ""))
        st.caption(f"exported as {r.output_id}")
        _side_by_side(original.text, r.source_spans, r.text, r.spans, actions=r.actions,
                      note="spans detected (no spans in the upload)" if r.doc_id in result.detected else "")
        _download(lambda tdb, items=res: items, f"project:{project.id}/upload", "deid.upload_dl",
                  leaked=bool(result.batch.summary.leaks))
