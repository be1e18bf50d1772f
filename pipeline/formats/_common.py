"""Checks every reader shares: label resolution, span placement and duplicate removal.

Messages name the file, the line and the offsets; a label is quoted only when it looks like a
label (a free-text field could hold PHI).
"""
from __future__ import annotations

import re
from typing import Iterable

from pipeline.errors import FormatError, LabelNotInSchemaError
from pipeline.schemas import LabelSchema, SchemaError
from pipeline.spans import Span, dedupe

_LABEL_LIKE = re.compile(r"^[A-Za-z0-9_\-./:]{1,64}$")
_WS = re.compile(r"\s")


def safe_label(label: object) -> str:
    """The label quoted for a message if it looks like one, otherwise a neutral placeholder."""
    s = str(label)
    return repr(s) if _LABEL_LIKE.match(s) else "(a value that is not a label)"


def resolve_label(schema: LabelSchema, label: str, display: str, line: int | None,
                  category_hint: str | None = None) -> tuple[str, str]:
    """``schema.resolve`` with the file's error; also accepts i2b2's ``TYPE="OTHER"`` style
    types written without their category prefix (LOCATION + OTHER -> LOCATION-OTHER)."""
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
        where = f" under {safe_label(category_hint)}" if category_hint else ""
        raise LabelNotInSchemaError(display, f"label {safe_label(label)}{where} is not in schema {schema.name!r}",
                                    line) from None


def parse_offset(value: object, what: str, display: str, line: int | None) -> int:
    if isinstance(value, bool):
        raise FormatError(display, f"{what} offset is not an integer", line)
    if isinstance(value, int):
        return value
    s = str(value).strip()
    if not re.fullmatch(r"\d+", s):
        raise FormatError(display, f"{what} offset is not a non-negative integer", line)
    return int(s)


def check_offsets(start: int, end: int, text_len: int, display: str, line: int | None) -> None:
    if not (0 <= start < end <= text_len):
        raise FormatError(display, f"span {start}-{end} lies outside the text (length {text_len}) or is empty", line)


def same_text(expected: str, actual: str) -> bool:
    """Exact match, or equal once whitespace is folded to spaces (brat writes a newline inside a
    span as a space, XML attribute normalisation does the same to tabs and newlines)."""
    return expected == actual or (len(expected) == len(actual) and _WS.sub(" ", expected) == _WS.sub(" ", actual))


def sorted_unique(spans: Iterable[Span]) -> list[Span]:
    """Sorted spans with exact duplicates (offsets, category and type) removed; overlaps are kept."""
    return dedupe(sorted(spans, key=lambda s: (s.start, s.end, s.category, s.type)))


def require_text(text: str, display: str) -> None:
    if not text.strip().lstrip("\ufeff").strip():
        raise FormatError(display, "file is empty" if not text else "file holds only whitespace")
