"""De-identify page: the project's language model for the ``paraphrase`` action (which one is in
use), and for leads a button that trains a new one as a background job."""
from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard import state
from dashboard.state import PageContext
from dashboard.when import local_time
from services import access, infill, jobs

INFILL_JOB_KEY = "deid.infill_job_id"


def language_model_panel(ctx: PageContext, needed: bool) -> None:
    """The project's language model for paraphrase: which one, and (leads) train a new one as a job."""
    db, user, project = ctx.db, ctx.user, ctx.project
    status = infill.model_status(db, user, project.id, state.db_path())
    with st.expander("Project language model (paraphrase)", expanded=needed and status is None):
        if status is None:
            st.info("No project language model yet: paraphrase spans fall back to list surrogates. Train one on "
                    "the project's documents (a few minutes; nothing is downloaded).")
        else:
            st.caption(f"Language model {status['name']}: trained on {status.get('documents') or 0} documents, "
                       f"{local_time(status.get('created'))}, in {float(status.get('train_seconds') or 0):.0f} s.")
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
