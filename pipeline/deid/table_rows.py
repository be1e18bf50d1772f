"""De-identifying the columns of a table row beside its text: what each column becomes, and the checks.

A table's text columns go through the engine like any document; the other columns are the
row's metadata, and a :class:`ColumnPlan` says what each becomes:

* the **id** column: the document pseudonym (:func:`pipeline.deid.pseudonyms.document_pseudonym`,
  ``doc-`` + 12 hex), exactly the name a folder or JSONL de-identification gives the same id;
* the **patient** column: the patient pseudonym (``pat-`` + 12 hex), the same HMAC with the
  installation's key, so one patient has one pseudonym in every table, JSONL output and run;
* **pseudonymise** columns: the same HMAC with a *kind* per column (``pat``: the patient
  pseudonym, ``doc``: the document one, any other short word: its own ``<kind>-`` names); an MRN
  column given kind ``pat`` gets the patient column's pseudonym for the same value;
* **date** columns: shifted by the patient's date offset (the one the patient's dates in the
  text get: :meth:`pipeline.deid.context.SurrogateContext.date_offset`, same key, same cache),
  kept in their own written format; a value that cannot be read as a date is blanked and counted;
* **keep** columns pass through; every other column is dropped (the safe default: a column
  nobody named may hold PHI), unless ``other="keep"``.

The original values of the id, patient, pseudonymised and date columns are PHI of the patient:
:func:`column_originals` gives them to the engine as the patient's values before the row's text
is rewritten, so a copy of an id or a date in the note is rewritten too (propagation) and its
surrogates avoid them. :func:`row_leaks` then scans what the row exposes outside its text (kept
and pseudonymised cells count as metadata) and the text for those identifiers: an original id
anywhere in the output is a leak. Nothing here reads or writes files.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from pipeline.deid.context import DeidContext, DocState, Original, SurrogateContext
from pipeline.deid.date_words import DateParseError
from pipeline.deid.dates import shift_date
from pipeline.deid.leaks import Leak, field_text, find_leaks, needles, scan_fields
from pipeline.deid.profile import Profile
from pipeline.deid.pseudonyms import DOC_PREFIX, PATIENT_PREFIX, blank_generated, pseudonym

OTHER_CHOICES = ("drop", "keep")
_KIND = re.compile(r"[a-z][a-z0-9]{0,7}\Z")


class ColumnPlanError(ValueError):
    """A column plan that cannot be applied (names only the columns the user gave)."""


@dataclass(frozen=True)
class ColumnPlan:
    """What each column of a table becomes (see the module's docstring)."""

    text: tuple[str, ...]
    id: str | None = None
    patient: str | None = None
    keep: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    pseudonymise: Mapping[str, str] = field(default_factory=dict)     # column -> kind
    dates: tuple[str, ...] = ()
    other: str = "drop"

    def __post_init__(self) -> None:
        if not self.text:
            raise ColumnPlanError("name at least one text column")
        if self.other not in OTHER_CHOICES:
            raise ColumnPlanError(f"other columns must be one of {', '.join(OTHER_CHOICES)}")
        for col, kind in self.pseudonymise.items():
            if not _KIND.match(kind):
                raise ColumnPlanError(f"column {col!r}: a pseudonym kind is a short lower-case word (pat, doc, enc)")
        roles: dict[str, str] = {}
        for role, cols in (("text", self.text), ("id", [self.id] if self.id else []),
                           ("patient", [self.patient] if self.patient else []), ("keep", self.keep),
                           ("drop", self.drop), ("pseudonymise", list(self.pseudonymise)), ("date", self.dates)):
            for col in cols:
                if col in roles and roles[col] != role:
                    raise ColumnPlanError(f"column {col!r} is named both as {roles[col]} and as {role}")
                roles[col] = role

    def named(self) -> list[str]:
        """Every column the plan names (each must be in the table)."""
        ids = [c for c in (self.id, self.patient) if c]
        return [*self.text, *ids, *self.keep, *self.drop, *self.pseudonymise, *self.dates]

    def role(self, col: str) -> str:
        """``text``, ``id``, ``patient``, ``pseudonymise``, ``date``, ``keep`` or ``drop``."""
        if col in self.drop:
            return "drop"
        if col in self.text:
            return "text"
        if col == self.id:
            return "id"
        if col == self.patient:
            return "patient"
        if col in self.pseudonymise:
            return "pseudonymise"
        if col in self.dates:
            return "date"
        if col in self.keep:
            return "keep"
        return self.other

    def output_columns(self, header: Sequence[str]) -> list[str]:
        """The columns of the output, in the input's order, dropped ones left out."""
        return [c for c in header if self.role(c) != "drop"]

    def kind_of(self, col: str) -> str:
        if col == self.id:
            return DOC_PREFIX
        if col == self.patient:
            return PATIENT_PREFIX
        return self.pseudonymise[col]


def is_blank(value: object) -> bool:
    """A missing cell: empty text, None, or a Parquet null (NaN/NaT)."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    try:
        return bool(value != value)         # NaN and NaT are not equal to themselves
    except (TypeError, ValueError):
        return False


def pseudonymise_cell(secret: bytes, kind: str, value: object) -> object:
    """The keyed pseudonym of a cell (``kind``-12 hex), the same HMAC as document and patient names.

    >>> pseudonymise_cell(b"0123456789abcdef", "pat", "P00017") == pseudonym(b"0123456789abcdef", "pat", "P00017")
    True
    """
    if is_blank(value):
        return value
    return pseudonym(secret, kind, str(value))


def shift_cell(value: object, offset_days: int, locale: str) -> tuple[object, bool]:
    """``(shifted value, readable)``: a date or timestamp moved by ``offset_days``; a text date moved
    in its own format (:func:`pipeline.deid.dates.shift_date`); an unreadable one becomes None.

    >>> shift_cell("2070-03-14", 30, "en")
    ('2070-04-13', True)
    >>> shift_cell(_dt.date(2070, 3, 14), -1, "en")
    (datetime.date(2070, 3, 13), True)
    """
    if is_blank(value):
        return value, True
    if isinstance(value, (_dt.date, _dt.datetime)):       # pandas Timestamps are datetimes
        try:
            return value + _dt.timedelta(days=offset_days), True
        except (OverflowError, ValueError):
            return None, False
    try:
        return shift_date(str(value).strip(), offset_days, locale), True
    except (DateParseError, ValueError, OverflowError):
        return None, False


def column_originals(plan: ColumnPlan, row: Mapping[str, object]) -> list[Original]:
    """The row's identifying cells as PHI values of its patient (ids as ``ID``, dates as ``DATE``)."""
    out = []
    for col in [c for c in (plan.id, plan.patient) if c] + list(plan.pseudonymise):
        v = row.get(col)
        if not is_blank(v) and plan.role(col) != "drop":
            out.append(Original("ID", "", str(v)))
    for col in plan.dates:
        v = row.get(col)
        if isinstance(v, str) and not is_blank(v):
            out.append(Original("DATE", "", v.strip()))
    return out


def patient_date_offset(ctx: DeidContext, profile: Profile, patient_id: str, values: Iterable[Original]) -> int:
    """The patient's date offset in days: the engine's own draw (same key and cache as the text's
    shifted dates), avoiding the patient's real ``values``."""
    locale = profile.locale or ctx.locale
    sc = SurrogateContext(deid=ctx, profile=profile, patient_id=patient_id, category="DATE", type="",
                          locale=locale, state=DocState(list(values)))
    return sc.date_offset()


def row_leaks(label: str, original: Mapping[str, object], output: Mapping[str, object], texts: Sequence[str],
              plan: ColumnPlan, phi: Iterable[tuple[str, str, str]]) -> list[Leak]:
    """Leaks of one output row outside what the engine checked: in its non-text cells (``meta``:
    kept, pseudonymised and shifted cells, scanned for the row's PHI ``phi`` = (category, type,
    value) and its identifying cells) and in its text (the identifying cells: an original id in the
    output text is a leak). ``label`` names the row (``row 12``), never a value."""
    ident = [(o.category, o.type or "TABLE_COLUMN", o.text, "document") for o in column_originals(plan, original)]
    prepared, _ = needles([*((c, t, v, "document") for c, t, v in phi), *ident])
    kept = [str(v) for col, v in output.items() if plan.role(col) in ("keep", "date") and not is_blank(v)]
    named = [str(v) for col, v in output.items() if plan.role(col) in ("id", "patient", "pseudonymise")
             and not is_blank(v)]
    # the pseudonyms' ``doc-``/``pat-`` prefix is the tool's own writing, not a patient called "Pat"
    fields = {"meta": field_text(kept), "id": blank_generated("id", field_text(named))}
    leaks = scan_fields(label, fields, prepared) if kept or named else []
    id_needles, _ = needles(ident)
    for text in texts:
        leaks += find_leaks(label, text, prepared=id_needles)[0]
    return leaks
