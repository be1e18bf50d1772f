"""Keyed pseudonyms for what names a document outside its text: its id, its patient, its file.

A de-identified output must not be called by its input's name: ids are often file names, and
file names are often the patient's name and record number (``Pedro_Garcia_Lopez_2569870.txt``).
Every output format (file names, brat/xml/text/jsonl ids, JSONL ``patient_id``) therefore uses
a pseudonym: ``HMAC-SHA256(secret, kind | value)`` shown as ``doc-`` or ``pat-`` and 12 hex
digits. Keyed with the project secret, the same input gets the same name in every run (which is
what lets ``--resume`` find the files an interrupted run wrote) and nobody without the secret
can compute a name from a guess. No mapping is written beside the outputs; project runs keep it
in the store (``deid_outputs.output_name``).

JSONL metadata goes the same way: ``meta`` keys are dropped unless the profile lists them in
``meta_keys`` (:func:`filter_meta`); the identifiers among them are never copied.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from pipeline.deid.keys import keyed_bytes
from pipeline.errors import WorkbenchError
from pipeline.spans import Document

HEX_DIGITS = 12          # 48 bits: a clash in a million documents has odds of about 1 in 500
DOC_PREFIX = "doc"
PATIENT_PREFIX = "pat"
#: meta keys that identify a document or patient: always renamed or dropped, never allowed.
IDENTIFIER_KEYS = frozenset({"id", "patient_id", "patient"})
#: meta keys that describe the file format, not the document (kept when they are a plain name).
STRUCTURAL_KEYS = frozenset({"xml_root"})
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")
#: the suffixes the per-document writers add to an id (brat, xml, text): the names the leak
#: check looks at, whichever format the run writes.
FILE_SUFFIXES = (".txt", ".ann", ".xml")


class PseudonymError(WorkbenchError):
    """Two inputs would get the same output name (the message names the pseudonym only)."""


def pseudonym(secret: bytes, kind: str, value: str) -> str:
    """``<kind>-<12 hex>``: the keyed, stable, readable stand-in for ``value``.

    >>> pseudonym(b"0123456789abcdef", "doc", "Pedro_Garcia_Lopez_2569870")
    'doc-...'
    >>> pseudonym(b"0123456789abcdef", "doc", "a") == pseudonym(b"0123456789abcdef", "doc", "a")
    True
    """
    digest = keyed_bytes(secret, "deid-name", kind, str(value)).hex()
    return f"{kind}-{digest[:HEX_DIGITS]}"


def document_pseudonym(secret: bytes, doc_id: str) -> str:
    """The output id (and file name stem) of the document with input id ``doc_id``."""
    return pseudonym(secret, DOC_PREFIX, doc_id)


def patient_pseudonym(secret: bytes, patient_id: str) -> str:
    """The output ``patient_id`` of a patient (same patient, same pseudonym, in every note)."""
    return pseudonym(secret, PATIENT_PREFIX, patient_id)


def explicit_patient_id(doc: Document) -> str | None:
    """The patient id the input names (``patient_id``, else ``meta['patient_id']``/``meta['patient']``);
    None where it names none (the document is then its own patient, and the output says nothing)."""
    if doc.patient_id not in (None, ""):
        return str(doc.patient_id)
    meta = doc.meta if isinstance(doc.meta, dict) else {}
    for key in ("patient_id", "patient"):
        if meta.get(key) not in (None, ""):
            return str(meta[key])
    return None


def output_ids(docs: Iterable[Document], secret: bytes) -> dict[str, str]:
    """Input id -> output id for every document; refuses two inputs that would share a name
    (the writers would refuse them later, after work was done)."""
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for d in docs:
        name = document_pseudonym(secret, d.doc_id)
        if seen.setdefault(name, d.doc_id) != d.doc_id:
            raise PseudonymError(f"two documents would both be written as {name}; rename one of them")
        out[d.doc_id] = name
    return out


def prior_by_input(docs: Sequence[Document], prior: Sequence[Document], secret: bytes) -> dict[str, Document]:
    """Documents an earlier run wrote (named by pseudonym), keyed by the input id they came from."""
    by_name = {p.doc_id: p for p in prior}
    out = {}
    for d in docs:
        p = by_name.get(document_pseudonym(secret, d.doc_id))
        if p is not None:
            out[d.doc_id] = p
    return out


def filter_meta(meta: Mapping | None, allowed: Iterable[str]) -> tuple[dict, int]:
    """The metadata an output may carry, and how many keys were dropped.

    Kept: the keys the profile allows (in their input order), and ``xml_root`` when it is a plain
    XML name (it says how to write the file, not who it is about). Identifier keys (``id``,
    ``patient_id``, ``patient``) are never copied and not counted as dropped: they are renamed.

    >>> filter_meta({"id": "x", "patient_name": "P", "ward": "7", "xml_root": "MEDDOCAN"}, ["ward"])
    ({'ward': '7', 'xml_root': 'MEDDOCAN'}, 1)
    """
    if not isinstance(meta, Mapping):
        return {}, 0
    allow = set(allowed) - IDENTIFIER_KEYS
    kept: dict = {}
    dropped = 0
    for key, value in meta.items():
        if key in IDENTIFIER_KEYS:
            continue
        if key in allow:
            kept[key] = value
        elif key in STRUCTURAL_KEYS and isinstance(value, str) and _PLAIN_NAME.match(value):
            kept[key] = value
        else:
            dropped += 1
    return kept, dropped


def file_names(output_id: str) -> list[str]:
    """The file names the per-document writers give a document with this output id."""
    return [output_id + s for s in FILE_SUFFIXES]


_PSEUDONYM_LINE = re.compile(rf"(?P<prefix>(?:{DOC_PREFIX}|{PATIENT_PREFIX})-)[0-9a-f]{{{HEX_DIGITS}}}"
                             rf"(?P<suffix>{'|'.join(re.escape(x) for x in FILE_SUFFIXES)})?\Z")
_SUFFIX = re.compile(rf"(?:{'|'.join(re.escape(x) for x in FILE_SUFFIXES)})\Z")


def blank_generated(location: str, text: str) -> str:
    """``text`` (a :func:`pipeline.deid.leaks.field_text`, one name per line) with the parts the
    tool itself writes blanked out (same length, so leak offsets stay): in ``id`` and ``name``
    the ``doc-``/``pat-`` prefix of a pseudonym, and in ``name`` the extension the writers add.

    Those parts are the same for every document, so a patient called "Ann" or "Doc", or an
    input id "doc", is not in them; everything else (the keyed hex digits, a name that is not a
    pseudonym at all) is still scanned, so a real value in a file name or id is still a leak.

    >>> blank_generated("name", "doc-0123456789ab.ann")
    '    0123456789ab    '
    """
    if location not in ("id", "name"):
        return text
    out = []
    for line in text.split("\n"):
        m = _PSEUDONYM_LINE.match(line)
        if m:
            a = len(m.group("prefix"))
            suffix = m.group("suffix") or ""
            line = " " * a + line[a:len(line) - len(suffix)] + " " * len(suffix)
        elif location == "name":
            line = _SUFFIX.sub(lambda x: " " * len(x.group()), line)
        out.append(line)
    return "\n".join(out)
