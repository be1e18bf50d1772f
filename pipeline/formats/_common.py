"""Checks every reader shares: label resolution, span placement, overlaps and duplicate removal.

Messages name the file, the line, the column or attribute, and the offsets. A value read from
the input (a label, an id) is never quoted: a patient's name typed into the label column looks
just like a label, so only values the program itself knows (the schema's labels, the format
names) are ever shown.
"""
from __future__ import annotations

import re
from typing import Collection, Iterable, Sequence

from pipeline.errors import FormatError, LabelNotInSchemaError, SpanOverlapError
from pipeline.schemas import LabelSchema, SchemaError
from pipeline.spans import Span, dedupe

_WS = re.compile(r"\s")
#: Offsets beyond this are refused as "too large" before any arithmetic or message uses them
#: (a 5,000-digit offset cannot even be turned back into a string by Python).
MAX_OFFSET = 10 ** 12


def safe_label(value: object, known: Collection[str] = ()) -> str:
    """``value`` quoted for a message only when it is one of ``known`` (a vocabulary the program
    defines: the schema's labels, the format names); anything else read from a file could be
    free text (a name typed into the wrong column), so it is replaced by a neutral placeholder.

    >>> safe_label("FECHAS", {"FECHAS"}), safe_label("Garcia", {"FECHAS"})
    ("'FECHAS'", '(a value that is not a known label)')
    """
    s = str(value)
    return repr(s) if s in known else "(a value that is not a known label)"


def resolve_label(schema: LabelSchema, label: str, display: str, line: int | None,
                  category_hint: str | None = None, *, field: str = "the label") -> tuple[str, str]:
    """``schema.resolve`` with the file's error; also accepts i2b2's ``TYPE="OTHER"`` style
    types written without their category prefix (LOCATION + OTHER -> LOCATION-OTHER).

    ``field`` says where the label was read (``"the label (second column)"``): the error names
    that place and the line, never the value, which may be free text typed in the wrong place.
    """
    try:
        category, type_ = schema.resolve(label, category_hint or None)
        if category_hint and category != category_hint:
            raise SchemaError("category hint does not match")
        return category, type_
    except SchemaError:
        if category_hint:
            prefixed = f"{category_hint}-{label}"
            try:
                return schema.resolve(prefixed, category_hint)
            except SchemaError:
                pass
        where = f" under category {safe_label(category_hint, schema.categories)}" if category_hint else ""
        raise LabelNotInSchemaError(display, f"{field}{where} is not in schema {schema.name!r}", line) from None


def parse_offset(value: object, what: str, display: str, line: int | None) -> int:
    """A non-negative integer offset no larger than :data:`MAX_OFFSET` (ASCII digits only)."""
    if isinstance(value, bool):
        raise FormatError(display, f"{what} offset is not an integer", line)
    if isinstance(value, int):
        n = value
    else:
        s = str(value).strip()
        if not re.fullmatch(r"[0-9]+", s):
            raise FormatError(display, f"{what} offset is not a non-negative integer", line)
        digits = s.lstrip("0") or "0"  # leading zeros count against Python's digit limit too
        if len(digits) > len(str(MAX_OFFSET)):
            raise FormatError(display, f"{what} offset is too large (more than {MAX_OFFSET})", line)
        n = int(digits)
    if n > MAX_OFFSET:
        raise FormatError(display, f"{what} offset is too large (more than {MAX_OFFSET})", line)
    return n


def check_offsets(start: int, end: int, text_len: int, display: str, line: int | None) -> None:
    if not (0 <= start < end <= text_len):
        raise FormatError(display, f"span {start}-{end} lies outside the text (length {text_len}) or is empty", line)


def same_text(expected: str, actual: str) -> bool:
    """Exact match, or equal once whitespace is folded to spaces (brat writes a newline inside a
    span as a space, XML attribute normalisation does the same to tabs and newlines)."""
    return expected == actual or (len(expected) == len(actual) and _WS.sub(" ", expected) == _WS.sub(" ", actual))


def _key(s: Span) -> tuple[int, int, str, str]:
    return s.start, s.end, s.category, s.type


def refuse_overlaps(placed: Sequence[tuple[Span, int | None]], display: str, line: int | None = None) -> None:
    """Refuse overlapping spans of one document, naming the file and the line of each span.

    ``placed`` is ``[(span, line it was read from), ...]``; ``line`` is used where a span has
    none (JSONL: the document's line). Exact duplicates are not overlaps (:func:`sorted_unique`
    drops them), so the rule is the store's own (``validate_spans``), checked here where the
    file and line are still known. The error's line is the later of the two spans' lines (where
    the overlap appears reading down the file); the message names the other one. Raises
    :class:`SpanOverlapError`.
    """
    ordered = sorted(placed, key=lambda sl: (*_key(sl[0]), sl[1] or 0))
    prev: tuple[Span, int | None] | None = None
    for cur in ordered:
        if prev is not None and _key(prev[0]) == _key(cur[0]):
            continue  # an exact duplicate, dropped later
        if prev is not None and cur[0].start < prev[0].end:
            (a, a_line), (b, b_line) = sorted((prev, cur), key=lambda sl: sl[1] or 0)
            b_line = b_line if b_line is not None else line
            other = f" on line {a_line}" if a_line is not None and a_line != b_line else ""
            raise SpanOverlapError(display, f"span {b.start}-{b.end} ({b.label}) overlaps span {a.start}-{a.end} "
                                            f"({a.label}){other}; overlapping spans are refused unless overlaps "
                                            "are allowed", b_line)
        prev = cur


def sorted_unique(spans: Iterable[Span]) -> list[Span]:
    """Sorted spans with exact duplicates (offsets, category and type) removed; overlaps are kept."""
    return dedupe(sorted(spans, key=lambda s: (s.start, s.end, s.category, s.type)))


def require_text(text: str, display: str) -> None:
    if not text.strip().lstrip("\ufeff").strip():
        raise FormatError(display, "file is empty" if not text else "file holds only whitespace")
