"""deidkit: the workbench's de-identification from Python (notebooks and pipelines).

The same code paths as ``python -m pipeline``: load a detector, find PHI, de-identify with a
profile, score re-identification risk, read and write every registered format, de-identify a
CSV, TSV or Parquet table. A notebook session (rules and dictionaries of the English preset, so
it runs without a trained model; pass a model folder, or ``store=`` and ``project=``, for yours)::

    >>> import deidkit
    >>> model = deidkit.load(schema="i2b2-2014", secret=b"a notebook key of 16+ bytes")
    >>> note = "Seen by Dr. Ann Wu on 03/14/2070. Call 617-555-0199."
    >>> sorted({s.category for s in model.detect(note)})
    ['CONTACT', 'DATE', 'NAME']
    >>> [len(spans) > 0 for spans in model.detect([note, "No PHI here."])]
    [True, False]
    >>> out = model.deidentify(note, profile="replace")
    >>> "617-555-0199" in out.text, len(out.leaks)
    (False, 0)
    >>> batch = model.deidentify([note, "Dr. Ann Wu saw her again."], patient_id="P1")
    >>> batch.summary.documents, batch.summary.leaks
    (2, 0)
    >>> [r.colour in ("green", "amber", "red") for r in deidkit.score_risk(batch)]
    [True, True]
    >>> "csv" in deidkit.formats().read and "conll" in deidkit.formats().write
    True

A table, streamed in chunks into the same format (ids pseudonymised with the key, dates shifted
by each patient's offset, other columns dropped unless kept)::

    >>> import pandas as pd, tempfile, pathlib
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"note_id": ["n1"], "mrn": ["P1"], "seen": ["2070-03-14"], "note": [note]}).to_csv(
    ...     tmp / "notes.csv", index=False)
    >>> s = model.deidentify_table(tmp / "notes.csv", tmp / "clean.csv", text=["note"], id="note_id",
    ...                            patient="mrn", dates=["seen"])
    >>> s.rows, s.leaks, list(pd.read_csv(tmp / "clean.csv").columns)
    (1, 0, ['note_id', 'mrn', 'seen', 'note'])
    >>> pd.read_csv(tmp / "clean.csv")["mrn"][0].startswith("pat-")
    True
"""
from __future__ import annotations

from deidkit.io import Formats, formats, read, write
from deidkit.loading import load
from deidkit.model import DeidkitError, Model, resolve_secret
from deidkit.risk import as_risk_document, score_risk
from pipeline.deid import BatchResult, DeidResult, Profile
from pipeline.formats.table import TableColumns
from pipeline.spans import Document, Span

__version__ = "0.1.0"

__all__ = ["BatchResult", "DeidResult", "DeidkitError", "Document", "Formats", "Model", "Profile", "Span",
           "TableColumns", "as_risk_document", "formats", "load", "read", "resolve_secret", "score_risk", "write"]
