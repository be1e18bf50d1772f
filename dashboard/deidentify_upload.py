"""De-identify page, an upload: de-identified in this process (PHI detected where the files
carry no spans), never stored; the result lives in this session only."""
from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard import state
from dashboard.admin_import import FORMAT_WORDS as INPUT_WORDS
from dashboard.admin_import import table_columns_choice
from dashboard.deidentify_summary import render_summary
from dashboard.deidentify_views import FORMATS, POS_KEY, download, navigator, side_by_side
from dashboard.state import PageContext
from services.residual import residual_estimate
from pipeline.deid import Profile
from pipeline.layers import DETECTED
from pipeline.formats.table_io import TABLE_FORMATS
from services import deid_batch, deid_files, imports
from services import detectors, session

UPLOAD_KEY = "deid.upload_run"
#: The file names the uploader takes: the readers' formats (a .json is Label Studio's, a .spacy a
#: DocBin, a .parquet a table or a Hugging Face dataset).
UPLOAD_TYPES = ["txt", "zip", "xml", "jsonl", "json", "csv", "tsv", "parquet", "spacy"]


@st.cache_resource(show_spinner="Loading the detector ...", max_entries=4)
def _detector(db_path: str, project_id: int, model_id: int | None) -> detectors.DetectorChoice:
    """One detector per project and active model version (loading a model takes seconds)."""
    return detectors.detector_for_project(session.thread_db(db_path), project_id)


def upload(ctx: PageContext, profile: Profile) -> None:
    """The upload form and button, then the session's last upload result."""
    db, project = ctx.db, ctx.project
    c1, c2 = st.columns([1, 3])
    fmt = c1.selectbox("Format", FORMATS, index=FORMATS.index("text"), key="deid.upload_fmt",
                       format_func=lambda f: INPUT_WORDS.get(f, f),
                       help="text: plain notes (PHI is detected); brat needs a .zip of .txt and .ann files; a "
                            "table gives one document per row and text column")
    up = c2.file_uploader("One file, or a .zip of files", type=UPLOAD_TYPES, key="deid.upload")
    columns = None
    if up is not None and fmt in TABLE_FORMATS:
        header = None
        with C.guard():
            header = imports.upload_table_header(up.name, up.getvalue(), fmt)
        columns = table_columns_choice(header, "deid.table", keep_others=False) if header is not None else None
        if columns is None:
            return
        st.caption("The download holds one row per document and text column (its pseudonym, the de-identified "
                   "text, the spans); other columns are left out. To keep, drop or pseudonymise them, use the "
                   "deidentify-table command.")
    if st.button("De-identify the upload", key="deid.upload_run_btn", type="primary", disabled=up is None,
                 icon=":material/play_arrow:"):
        model_id = detectors.active_version_id(db, project.id)
        bar = st.empty()      # a progress bar once de-identification starts (after the checks)
        result = deid_files.deidentify_upload(
            db, ctx.user, project, up.name, up.getvalue(), fmt, profile, columns=columns,
            detector=lambda: _detector(str(state.db_path()), project.id, model_id),
            progress=lambda d, t: bar.progress(d / max(1, t), text=f"de-identifying {d}/{t}"))
        bar.empty()
        st.session_state[UPLOAD_KEY] = result
        st.session_state["deid.upload_dl.fmt"] = fmt        # downloaded in the upload's format by default
        st.session_state[POS_KEY + ".upload"] = 0
    result = st.session_state.get(UPLOAD_KEY)
    if result is not None:
        st.divider()
        _upload_result(ctx, result)


def _upload_result(ctx: PageContext, result) -> None:
    """The upload's summary and each document beside its output, with the download."""
    counts, quality = deid_batch.summary_dicts(result.batch.summary, result.batch.leaks)
    quality.update(getattr(result, "quality", None) or {})
    if result.detected:
        counts["detector"] = result.detector
        counts["inputs"] = {"upload": len(result.originals) - len(result.detected),
                            DETECTED: len(result.detected)}
    st.caption(f"Upload de-identified with profile {result.profile_name}; nothing was stored.")
    render_summary(counts, quality, result.batch.summary.leaks,
                   estimate=residual_estimate(ctx.db, ctx.project.id, counts))
    res = result.batch.results
    pos = navigator(len(res), POS_KEY + ".upload")
    r = res[pos]
    original = next(d for d in result.originals if d.doc_id == r.doc_id)
    st.subheader(str(r.doc_id) + (f" · {len(r.leaks)} leak(s)" if r.leaks else ""))
    st.caption(f"exported as {r.output_id}")
    side_by_side(list(ctx.project.schema.categories), original.text, r.source_spans, r.text, r.spans,
                 actions=r.actions, note="spans detected (no spans in the upload)" if r.doc_id in result.detected
                 else "")
    download(ctx.user, lambda tdb, items=res: items, f"project:{ctx.project.id}/upload", "deid.upload_dl",
             leaked=bool(result.batch.summary.leaks))
