"""Admin page, Import documents: a file in any registered format into the current project.

A table (CSV, TSV, Parquet) asks which columns hold what, from select boxes filled with its
header (the first line, or the Parquet schema: the rows are not parsed for that), and imports
through :func:`services.imports.import_upload` with the same
:class:`~pipeline.formats.table.TableColumns` the command line's ``--text-column``,
``--id-column``, ``--patient-column`` and ``--keep-column`` give. The annotation tools' formats
(Label Studio, doccano, Prodigy, spaCy, Hugging Face datasets) are in the same format list; their
other layers (annotators, predictions) are stored beside the chosen one.
"""
from __future__ import annotations

import streamlit as st

from dashboard import components as C
from pipeline.formats import READERS
from pipeline.formats.table import TableColumns
from pipeline.formats.table_io import TABLE_FORMATS
from services import imports

NONE = "(none)"
#: The import formats in words (the select box shows these; the registry's names stay the values).
FORMAT_WORDS = {
    "text": "plain text (.txt, or a .zip of them)", "brat": "brat (.zip of .txt + .ann)", "xml": "i2b2 XML",
    "jsonl": "JSONL", "label-studio": "Label Studio project export (JSON)", "doccano": "doccano (JSONL)",
    "prodigy": "Prodigy (JSONL)", "spacy": "spaCy DocBin (.spacy)", "hf-dataset": "Hugging Face dataset (Parquet)",
    "csv": "table: CSV", "tsv": "table: TSV", "parquet": "table: Parquet",
}


def import_section(db, user, project) -> None:
    """The format, the layer, the file, a table's columns, and the Import button."""
    st.markdown("Plain text, brat, i2b2 XML, JSONL, a table (CSV, TSV, Parquet: one document per row and text "
                "column) or an annotation tool's export (Label Studio, doccano, Prodigy, spaCy, Hugging Face). "
                "Everything is checked first; a problem in any file imports nothing.")
    formats = list(READERS)
    fmt = st.selectbox("Format", formats, index=formats.index("text"), key="admin.import_format",
                       format_func=lambda f: FORMAT_WORDS.get(f, f))
    into = st.radio("Spans in the files become", ["pre", "gold"], horizontal=True, key="admin.import_layer",
                    format_func=lambda x: "suggestions to correct (pre)" if x == "pre" else "gold")
    up = st.file_uploader("File", key="admin.import_file")
    columns = None
    if up is not None and fmt in TABLE_FORMATS:
        header = None
        with C.guard():
            header = imports.upload_table_header(up.name, up.getvalue(), fmt)
        if header is None:
            return
        columns = table_columns_choice(header)
        if columns is None:
            return
    if up is not None and st.button("Import", key="admin.import", type="primary"):
        with C.guard():
            summary = imports.import_upload(db, project.id, up.name, up.getvalue(), fmt, user=user, layer=into,
                                            columns=columns)
            C.flash(f"Imported {summary.documents} document(s) with {summary.spans} span(s) from {summary.filename}.")
            st.rerun()


def _default(header: list[str], name: str) -> int:
    return header.index(name) + 1 if name in header else 0


def table_columns_choice(header: list[str], key: str = "admin.import", *, keep_others: bool = True
                         ) -> TableColumns | None:
    """Select boxes for a table's columns; None (with a warning) until a text column is chosen.
    ``keep_others``: ask which other columns to keep (an import's metadata); else none are kept."""
    st.caption(f"The table has {len(header)} columns. One document is made per row and text column.")
    c1, c2, c3 = st.columns(3)
    text = c1.multiselect("Text column(s)", header, default=["text"] if "text" in header else None,
                          key=f"{key}_text_cols", help="the notes; several give one document each per row")
    choices = [NONE, *header]
    id_col = c2.selectbox("Id column", choices, index=_default(header, "id"), key=f"{key}_id_col",
                          help="each document's name (none: row-1, row-2, ...)")
    patient = c3.selectbox("Patient column", choices, index=_default(header, "patient_id"),
                           key=f"{key}_patient_col", help="the patient's id (documents of one patient get "
                                                                "the same date shift and surrogates)")
    named = {*text, id_col, patient, "spans"}      # a ``spans`` column is read as the rows' spans
    rest = [c for c in header if c not in named]
    keep = st.multiselect("Other columns to keep (as the documents' metadata)", rest, default=rest,
                          key=f"{key}_keep_cols", help="columns left out here are not stored") if keep_others else []
    if not text:
        st.warning("Choose the text column(s): the notes to " + ("import." if keep_others else "de-identify."))
        return None
    # id and patient are chosen here, so "(none)" means none (not the column named id or patient_id)
    return TableColumns(text=tuple(text), id=None if id_col == NONE else id_col,
                        patient=None if patient == NONE else patient, keep=tuple(c for c in keep if c in rest),
                        defaults={"id": None, "patient": None, "spans": "spans"})
