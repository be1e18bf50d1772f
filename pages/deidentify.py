"""De-identify: project documents (as a job) or an upload (in this process) with a profile; the
original and the output side by side, the run summary (leaks in red), and a zip download.

A run or upload whose leak check finds input PHI in the output (text, metadata, ids, names) is
shown as failed in red, and offers no download and no resume; outputs are named by keyed
pseudonyms (shown beside each document's real name here, for the lead only).

Paraphrase: a profile may infill surrogates with the project's own masked language model
(:mod:`services.infill`; trained here as a job by a lead). Without one, those spans get list
surrogates and the summary says how many; a paraphrase run shows its quality table beside list
surrogates (Same rate, n-gram overlap, BERTScore-style similarity).

Logic lives in :mod:`services.deid_runs` (runs as jobs), :mod:`services.deid_files` (uploads,
exports), :mod:`services.deid_batch` (profiles, inputs, figures), :mod:`services.detectors`
(which detector) and :mod:`pipeline.deid`; this page only gathers choices and shows results,
through its rooms in :mod:`dashboard`: ``deidentify_profile`` (the profile editor),
``deidentify_model`` (the language model panel), ``deidentify_runs`` (project documents and
stored runs), ``deidentify_upload`` (an upload), ``deidentify_summary`` and ``deidentify_views``
(what both show). Uploads are never stored: their results live in this session only.

Formats: an upload may be in any registered reader's format (a table asks for its text, id and
patient columns, :func:`dashboard.admin_import.table_columns_choice`); downloads are
:data:`services.deid_files.EXPORT_FORMATS` (the folder formats, the annotation tools' formats and
tables of id, text and spans), a run's through the release gate (:mod:`services.release`).
"""
from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard import state
from dashboard.deidentify_model import language_model_panel
from dashboard.deidentify_profile import profile_editor
from dashboard.deidentify_runs import project_documents
from dashboard.deidentify_upload import upload

ctx = state.page_context("deidentify")

st.title("De-identify")
C.show_flash()

profile = profile_editor(ctx)
language_model_panel(ctx, profile.uses_paraphrase())
source = st.radio("Documents", ["Project documents", "Upload files"], horizontal=True, key="deid.source")
if source == "Project documents":
    project_documents(ctx, profile)
else:
    upload(ctx, profile)
