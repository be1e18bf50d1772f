"""i2b2 2014 XML (also MEDDOCAN's XML copy): ``<ROOT><TEXT><![CDATA[...]]></TEXT><TAGS>...</TAGS></ROOT>``.

Each child of ``TAGS`` is one span: the tag name is the category, ``TYPE`` the fine type, with
``id``, ``start``, ``end``, ``text`` and ``comment`` attributes. Parsed with expat directly so each
span keeps its line number for error messages. DTDs are refused outright (no ``<!DOCTYPE``, no
``<!ENTITY``): that closes entity-expansion bombs and external entities without defusedxml.

Reading keeps every ``\\r`` of the file in the text. An XML parser turns ``\\r\\n`` and a lone
``\\r`` into ``\\n`` (XML 1.0, 2.11), but offsets written for a CRLF file count the ``\\r``, so
every span after the first line would shift silently (only a ``text=`` attribute would catch it).
Expat reports each line break as its own one-character event at its byte position, so the
reader puts back the bytes the file holds there; a ``&#13;`` character reference stays a ``\\r``.

Writing keeps the same shape. ``]]>`` inside the text is split across two CDATA sections and a
carriage return is written as ``&#13;`` between sections, so any parser gets the ``\\r`` back.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterator, Sequence
from xml.parsers import expat

from pipeline.errors import FormatError
from pipeline.formats._common import (check_offsets, parse_offset, refuse_overlaps, require_text, resolve_label,
                                      same_text, sorted_unique)
from pipeline.formats._output import check_spans_fit, target_paths, write_file
from pipeline.formats._sources import Limits, PathLike, Progress, check_unique_ids, decode_utf8, open_entries
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

SOURCE = "import:xml"
DEFAULT_ROOT = "deIdi2b2"

_CDATA = re.compile(r"<!\[CDATA\[.*?\]\]>", re.S)
_DECL_ENCODING = re.compile(r"""^\ufeff?<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']""")
_XML_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_NOT_XML_CHAR = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class _Refused(Exception):
    """Raised from expat handlers; carries the message and line."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line


def _line_break(data: bytes, at: int) -> str:
    """The line break the file holds where expat reported ``\\n``: ``\\r\\n``, ``\\r`` or ``\\n``
    (a ``&#10;`` reference starts with ``&`` and stays ``\\n``)."""
    if data[at:at + 1] != b"\r":
        return "\n"
    return "\r\n" if data[at + 1:at + 2] == b"\n" else "\r"


def _parse(data: bytes, display: str) -> tuple[str, str, list[tuple[int, str, dict[str, str]]]]:
    """``(root tag, text, [(line, tag, attributes), ...])`` of one XML file."""
    decoded = decode_utf8(data, display)  # strict UTF-8 first, to report the bad byte's line
    m = _DECL_ENCODING.match(decoded)
    if m and m.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise FormatError(display, f"declared encoding {m.group(1)!r} is not supported; use UTF-8", 1)
    outside_cdata = _CDATA.sub("", decoded)
    for marker in ("<!DOCTYPE", "<!ENTITY"):
        idx = outside_cdata.find(marker)
        if idx >= 0:
            raise FormatError(display, f"{marker[2:]} declarations are refused (entity-expansion protection)")

    p = expat.ParserCreate()
    p.buffer_text = False  # one event per line break, at its byte position (see _line_break)
    state = {"root": None, "depth": 0, "in_text": False, "text_seen": False, "in_tags": False}
    chunks: list[str] = []
    tags: list[tuple[int, str, dict[str, str]]] = []

    def refuse_dtd(*_a) -> None:
        raise _Refused("DTD declarations are refused (entity-expansion protection)", p.CurrentLineNumber)

    def start(name: str, attrs: dict[str, str]) -> None:
        d = state["depth"]
        state["depth"] = d + 1
        if d == 0:
            state["root"] = name
        elif d == 1 and name == "TEXT":
            if state["text_seen"]:
                raise _Refused("more than one TEXT element", p.CurrentLineNumber)
            state["in_text"] = state["text_seen"] = True
        elif d == 1 and name == "TAGS":
            state["in_tags"] = True
        elif d == 2 and state["in_tags"]:
            tags.append((p.CurrentLineNumber, name, dict(attrs)))
        elif state["in_text"]:
            raise _Refused("TEXT must hold only text", p.CurrentLineNumber)

    def end(name: str) -> None:
        state["depth"] -= 1
        if state["depth"] == 1:
            state["in_text"] = state["in_tags"] = False

    def chars(text: str) -> None:
        if state["in_text"]:
            chunks.append(_line_break(data, p.CurrentByteIndex) if text == "\n" else text)

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    p.StartDoctypeDeclHandler = refuse_dtd
    p.EntityDeclHandler = refuse_dtd
    p.ExternalEntityRefHandler = refuse_dtd
    try:
        p.Parse(data, True)
    except _Refused as e:
        raise FormatError(display, str(e), e.line) from None
    except expat.ExpatError as e:
        raise FormatError(display, f"malformed XML: {expat.ErrorString(e.code)} (column {e.offset + 1})",
                          e.lineno) from None
    if not state["text_seen"]:
        raise FormatError(display, "no TEXT element")
    return state["root"], "".join(chunks), tags


def read_i2b2_xml(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
                  progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """Every ``.xml`` under ``paths``; ``doc_id`` is the file's relative path without extension.
    ``allow_overlap=False`` refuses overlapping spans, naming the file and the tags' lines."""
    return list(iter_i2b2_xml(paths, schema, limits=limits, progress=progress, allow_overlap=allow_overlap))


def iter_i2b2_xml(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
                  progress: Progress | None = None, allow_overlap: bool = True) -> Iterator[Document]:
    """The documents of :func:`read_i2b2_xml` one at a time, each file read when its turn comes
    (a command streaming thousands of notes holds a few)."""
    with open_entries(paths, (".xml",), limits) as entries:
        if not entries:
            raise FormatError(str(paths), "no .xml files found")
        check_unique_ids([(e.stem_id, e.display) for e in entries])
        for i, e in enumerate(entries):
            data = e.read()
            if not data.strip():
                raise FormatError(e.display, "file is empty")
            root, text, tags = _parse(data, e.display)
            require_text(text, e.display)
            placed: list[tuple[Span, int]] = []
            for line, tag, attrs in tags:
                type_label = (attrs.get("TYPE") or "").strip()
                hint = None if tag == "PHI" else tag  # i2b2 2006 wrote <PHI TYPE="..."/>
                category, type_ = (resolve_label(schema, type_label, e.display, line, category_hint=hint,
                                                 field="the TYPE attribute")
                                   if type_label else resolve_label(schema, tag, e.display, line,
                                                                    field="the tag name (no TYPE attribute)"))
                start = parse_offset(attrs.get("start", ""), "start", e.display, line)
                end = parse_offset(attrs.get("end", ""), "end", e.display, line)
                check_offsets(start, end, len(text), e.display, line)
                if "text" in attrs and not same_text(attrs["text"], text[start:end]):
                    raise FormatError(e.display, f"span {start}-{end} ({type_ or category}): the text attribute "
                                                 "does not match the document at those offsets", line)
                placed.append((Span(doc_id=e.stem_id, start=start, end=end, category=category, type=type_,
                                     source=SOURCE), line))
            if not allow_overlap:
                refuse_overlaps(placed, e.display)
            yield Document(doc_id=e.stem_id, text=text, spans=sorted_unique(s for s, _ in placed),
                           meta={"xml_root": root}, source_file=e.display)
            if progress:
                progress(i + 1, len(entries))


def _cdata(text: str) -> str:
    body = text.replace("]]>", "]]]]><![CDATA[>")
    body = body.replace("\r", "]]>&#13;<![CDATA[")
    return f"<![CDATA[{body}]]>"


def _attr(value: str) -> str:
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def format_xml(doc: Document, root: str = DEFAULT_ROOT) -> str:
    """One document as i2b2 XML text (raises :class:`ValueError` for what XML 1.0 cannot hold)."""
    bad = _NOT_XML_CHAR.search(doc.text)
    if bad:
        raise ValueError(f"document {doc.doc_id!r}: character U+{ord(bad.group()):04X} at offset {bad.start()} "
                         "cannot be written in XML 1.0")
    lines = ["<?xml version='1.0' encoding='UTF-8'?>", f"<{root}>", f"  <TEXT>{_cdata(doc.text)}</TEXT>", "  <TAGS>"]
    spans = sorted(doc.spans, key=lambda s: (s.start, s.end, s.label))
    for i, s in enumerate(spans, start=1):
        if not _XML_NAME.match(s.category):
            raise ValueError(f"document {doc.doc_id!r}: category {s.category!r} is not a valid XML tag name")
        lines.append(f'    <{s.category} id="T{i}" start="{s.start}" end="{s.end}" '
                     f'text="{_attr(doc.text[s.start:s.end])}" TYPE="{_attr(s.type)}" comment=""/>')
    lines += ["  </TAGS>", f"</{root}>", ""]
    return "\n".join(lines)


def write_i2b2_xml(docs: Sequence[Document], out_dir: str | os.PathLike, *, root: str | None = None) -> list[Path]:
    """``<doc_id>.xml`` per document. The root element is ``root``, else the one the document was
    read with (``meta["xml_root"]``), else ``deIdi2b2``; pass ``root="MEDDOCAN"`` for MEDDOCAN."""
    paths = target_paths(docs, out_dir, ".xml")
    bodies = []
    for doc in docs:
        check_spans_fit(doc, out_dir)
        r = root or str(doc.meta.get("xml_root") or DEFAULT_ROOT)
        if not _XML_NAME.match(r):
            raise FormatError(str(out_dir), f"root element {r!r} is not a valid XML name")
        try:
            bodies.append(format_xml(doc, r))
        except ValueError as e:
            raise FormatError(str(out_dir), str(e)) from None
    for p, body in zip(paths, bodies):
        write_file(p, body)
    return paths
