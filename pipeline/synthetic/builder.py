"""Assemble a note piece by piece and record each PHI span's offsets as it is inserted.

Offsets are never recovered by searching the finished text (a name that also occurs as a
common word, or twice, would be found in the wrong place); they are the running length of the
text at the moment the value is appended.
"""
from __future__ import annotations

import string
from dataclasses import dataclass

from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span

GOLD_SOURCE = "synthetic"

_FORMATTER = string.Formatter()


@dataclass(frozen=True)
class Phi:
    """A value to insert as a gold span: its text, i2b2 2014 fine type and the format used."""

    value: str
    type: str
    fmt: str = ""

    def __post_init__(self) -> None:
        if not self.value or self.value != self.value.strip():
            raise ValueError(f"PHI value for {self.type} must be non-empty without outer spaces")
        I2B2_2014.category_of(self.type)  # raises SchemaError for an unknown type


@dataclass(frozen=True)
class Inserted:
    """What the generator put where: the test oracle for offsets (``text[start:end] == value``)."""

    start: int
    end: int
    type: str
    value: str
    fmt: str


class NoteBuilder:
    """Append text and PHI; ``fill`` expands ``{key}`` placeholders, PHI values becoming spans."""

    def __init__(self, doc_id: str) -> None:
        self.doc_id = doc_id
        self._parts: list[str] = []
        self._pos = 0
        self.inserted: list[Inserted] = []

    @property
    def pos(self) -> int:
        return self._pos

    def text(self, s: str) -> "NoteBuilder":
        if s:
            self._parts.append(s)
            self._pos += len(s)
        return self

    def phi(self, p: Phi) -> "NoteBuilder":
        start = self._pos
        self.text(p.value)
        self.inserted.append(Inserted(start, self._pos, p.type, p.value, p.fmt))
        return self

    def put(self, piece: "str | Phi | Piece") -> "NoteBuilder":
        if isinstance(piece, Phi):
            return self.phi(piece)
        if isinstance(piece, Piece):
            for part in piece.parts:
                self.put(part)
            return self
        return self.text(piece)

    def fill(self, template: str, **values: "str | Phi | Piece") -> "NoteBuilder":
        """Expand ``template``; ``{{``/``}}`` are literal braces. No format specs are allowed."""
        for literal, field, spec, conv in _FORMATTER.parse(template):
            self.text(literal)
            if field is None:
                continue
            if spec or conv:
                raise ValueError(f"template field {field!r}: format specs are not supported")
            if field not in values:
                raise KeyError(f"template field {field!r} has no value")
            self.put(values[field])
        return self

    def line(self, template: str = "", **values: "str | Phi | Piece") -> "NoteBuilder":
        return self.fill(template, **values).text("\n")

    def build_text(self) -> str:
        return "".join(self._parts)

    def to_document(self, *, patient_id: str | None, meta: dict) -> Document:
        text = self.build_text()
        spans = [
            Span(self.doc_id, i.start, i.end, I2B2_2014.category_of(i.type), i.type,
                 source=GOLD_SOURCE, score=1.0, layer="gold")
            for i in self.inserted
        ]
        return Document(doc_id=self.doc_id, text=text, spans=spans, meta=dict(meta), patient_id=patient_id)


class Piece:
    """A short sequence of text and PHI treated as one value (``"Dr. "`` + a doctor's name)."""

    __slots__ = ("parts",)

    def __init__(self, *parts: "str | Phi | Piece") -> None:
        self.parts = parts

    def __add__(self, other: "str | Phi | Piece") -> "Piece":
        return Piece(*self.parts, other)

    def __radd__(self, other: "str | Phi | Piece") -> "Piece":
        return Piece(other, *self.parts)


@dataclass(frozen=True)
class SyntheticNote:
    """A generated document and the record of what was inserted where (the test oracle)."""

    doc: Document
    inserted: tuple[Inserted, ...]
    kind: str
