"""De-identify page: the pieces both a stored run and an upload show: a previous / next
navigator, the original beside its output, and the zip download (leads, audited, never for
outputs that failed the leak check)."""
from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard import state
from services import access, projects, release
from services import deid_files
from services.session import User

POS_KEY = "deid.pos"
FORMATS = deid_files.EXPORT_FORMATS
#: The download formats in words (what a reader of the select box knows them by).
FORMAT_WORDS = {
    "text": "plain text (.txt per document)", "brat": "brat (.txt + .ann)", "xml": "i2b2 XML", "jsonl": "JSONL",
    "label-studio": "Label Studio tasks (JSON)", "doccano": "doccano (JSONL)", "prodigy": "Prodigy (JSONL)",
    "spacy": "spaCy DocBin (.spacy)", "hf-dataset": "Hugging Face dataset (Parquet)",
    "csv": "table: CSV (id, text, spans)", "tsv": "table: TSV (id, text, spans)",
    "parquet": "table: Parquet (id, text, spans)",
}


def _format_box(key: str, column) -> str:
    """The download format (brat unless the page chose another first, e.g. an upload's own format)."""
    st.session_state.setdefault(f"{key}.fmt", "brat")
    return column.selectbox("Download format", FORMATS, key=f"{key}.fmt", format_func=lambda f: FORMAT_WORDS.get(f, f))


def navigator(n: int, key: str) -> int:
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


def side_by_side(categories: list[str], original: str, in_spans: list, output: str, out_spans: list, *,
                 note: str = "", actions: list[str] | None = None) -> None:
    """The original with its PHI spans, and the output with every surrogate, placeholder and kept
    span marked (what is unmarked is as in the original: a missed name stands out)."""
    left, right = st.columns(2)
    with left:
        st.markdown("**Original**")
        if note:
            st.caption(note)
        st.html(C.legend_html(categories) + C.spans_html(original, in_spans, low_confidence=0.0))
    with right:
        st.markdown("**De-identified**")
        st.html(C.output_legend_html() + C.deid_output_html(output, out_spans, actions=actions))


def download(user: User, items_fn, target: str, key: str, *, leaked: bool = False) -> None:
    """Zip download in a chosen format; only for users who may export (audited on click), and
    never for outputs that failed the leak check."""
    if leaked:
        st.caption("No download: the leak check failed for these outputs.")
        return
    if not access.can(user, "export"):
        st.caption("Downloading de-identified documents needs the export right (leads).")
        return
    c1, c2 = st.columns([1, 3])
    fmt = _format_box(key, c1)
    db_path = str(state.db_path())
    who = user

    def make() -> bytes:     # runs when the button is clicked (deferred), on its own connection
        with projects.open_db(db_path) as tdb:
            return deid_files.export_outputs(tdb, who, items_fn(tdb), fmt, target=target)

    c2.download_button("Download de-identified documents (zip)", data=make, file_name=f"deidentified-{fmt}.zip",
                       mime="application/zip", key=f"{key}.download", icon=":material/download:")


def run_download(user: User, run_id: int, key: str, *, leaked: bool = False) -> None:
    """A stored run's zip, gated by the risk decisions (:mod:`services.release`): withheld and
    sent-back documents are left out and counted; a required red decision missing refuses it."""
    if leaked:
        st.caption("No download: the leak check failed for these outputs.")
        return
    if not access.can(user, "export"):
        st.caption("Downloading de-identified documents needs the export right (leads).")
        return
    db_path = str(state.db_path())
    with projects.open_db(db_path) as tdb:
        plan = release.release_plan(tdb, run_id)
    if plan.blocked:
        st.warning(f"No download: {plan.blocked}.", icon=":material/block:")
        return
    st.caption(f"The download {plan.line()} (risk decisions on the Risk page).")
    c1, c2 = st.columns([1, 3])
    fmt = _format_box(key, c1)
    who = user

    def make() -> bytes:     # runs when the button is clicked (deferred), on its own connection
        with projects.open_db(db_path) as tdb:
            return release.export_run_zip(tdb, who, run_id, fmt)[0]

    c2.download_button("Download de-identified documents (zip)", data=make, file_name=f"deidentified-{fmt}.zip",
                       mime="application/zip", key=f"{key}.download", icon=":material/download:")
