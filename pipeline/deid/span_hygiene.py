"""Spans made fit to rewrite, whatever produced them: a span never swallows a line break, and a
field label is never PHI.

Why here, in de-identification, and not (only) in detection's boundary steps: every span that
is rewritten passes through :func:`pipeline.deid.engine.deidentify`, whether it came from a
model, rules, a gold layer people made, or an uploaded file with its own spans. A model span
running over a line break ("5530017⏎Admitted") or a name span over a blank line would take the
line structure with it in every profile (one surrogate for two lines); a gold span that includes
its field's label ("SSN", "Phone: 555 0142") would replace the label. Fixing it once at the gate
that every profile shares keeps the output a note for all of them, and the leak check, which is
computed from the same cleaned spans, does not then ask for a label to be gone.

* :func:`split_at_line_breaks`: a span becomes one span per line it touches (each piece
  trimmed of surrounding blanks; a piece of blanks only is dropped). When a *machine* span (a
  model's, a rule's, a list's) has a piece holding digits (an id, phone or date), its pieces of
  ordinary words are dropped: "5530017⏎Admitted" keeps "5530017" and "Admitted" stays as
  written. A span a person drew keeps every piece ("Calle Mayor 5⏎Madrid" is one address on two
  lines): de-identification never leaves a character people marked as PHI.
* :func:`join_one_value_spans`: "retired" and "librarian" spanned apart are one profession and
  get one surrogate, not two entries side by side.
* :func:`drop_field_labels`: a piece that is exactly a field label (``"SSN"``, ``"MRN:"``) is
  dropped; a piece that starts with one followed by ``:``/``.``/``#`` (or by blanks and a
  number: "Phone 617 555 0142") is trimmed to what follows ("Tel Aviv" stays a place).
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

from pipeline.locales.shared_words import FIELD_LABELS
from pipeline.spans import Span

_LABEL_RE = re.compile(
    r"^(?:" + "|".join(re.escape(x) for x in sorted(FIELD_LABELS, key=len, reverse=True)) + r")"
    r"(?P<tail>\s*[:#.]?\s*)", re.IGNORECASE)
_LINE_BREAK = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]")


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_at_line_breaks(text: str, spans: Iterable[Span]) -> list[Span]:
    """Each span cut at the line breaks inside it.

    >>> text = "MRN 5530017\\nAdmitted"
    >>> [text[s.start:s.end] for s in split_at_line_breaks(text, [Span("d", 4, 20, "ID", "MEDICALRECORD", "model:crf")])]
    ['5530017']
    >>> text = "Calle Mayor 5\\nMadrid"
    >>> [text[s.start:s.end] for s in split_at_line_breaks(text, [Span("d", 0, 20, "LOCATION", "STREET", "gold")])]
    ['Calle Mayor 5', 'Madrid']
    >>> text = "Dr. Anna Smith.\\n\\nJohn Doe"
    >>> [text[s.start:s.end] for s in split_at_line_breaks(text, [Span("d", 4, 25, "NAME", "DOCTOR")])]
    ['Anna Smith.', 'John Doe']
    """
    out: list[Span] = []
    for s in spans:
        if not _LINE_BREAK.search(text, s.start, s.end):
            out.append(s)
            continue
        pieces, pos = [], s.start
        for m in _LINE_BREAK.finditer(text, s.start, s.end):
            pieces.append(_trimmed(text, pos, m.start()))
            pos = m.end()
        pieces.append(_trimmed(text, pos, s.end))
        pieces = [(a, b) for a, b in pieces if a < b]
        if _machine(s) and any(_has_digit(text[a:b]) for a, b in pieces):
            pieces = [(a, b) for a, b in pieces if not _plain_word_run(text[a:b])]
        out.extend(s.with_(start=a, end=b) for a, b in pieces)
    return out


#: sources of spans no person drew (what detection writes before its first ":")
MACHINE_SOURCES = frozenset({"model", "rule", "dict", "llm", "pretrained"})


def _machine(span: Span) -> bool:
    return (span.source or "").split(":", 1)[0] in MACHINE_SOURCES


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _plain_word_run(value: str) -> bool:
    """Words in ordinary case and no digit ("Admitted", "seen today"): what a number-shaped span
    (an id, a phone, a date) took from the next line, not part of its value. All-capital letters
    ("ABC") may be an identifier's prefix and stay."""
    return not _has_digit(value) and any(c.isalpha() for c in value) and not value.isupper()


def drop_field_labels(text: str, spans: Iterable[Span]) -> list[Span]:
    """Spans without the field labels they start with; a span that is only a label is dropped.

    >>> text = "SSN: 078-05-1120 Phone 617 555 0142"
    >>> spans = [Span("d", 0, 3, "ID", "SSN"), Span("d", 0, 16, "ID", "SSN"), Span("d", 17, 35, "CONTACT", "PHONE")]
    >>> [text[s.start:s.end] for s in drop_field_labels(text, spans)]
    ['078-05-1120', '617 555 0142']
    """
    out: list[Span] = []
    for s in spans:
        value = text[s.start:s.end]
        m = _LABEL_RE.match(value)
        if m is None:
            out.append(s)
            continue
        rest = value[m.end():]
        if not rest.strip(" \t:#.-"):
            continue                                   # the label alone (with its colon): not PHI
        tail = m.group("tail")
        if not any(c in tail for c in ":#.") and not (tail and (rest[:1].isdigit() or rest[:1] in "+(")):
            out.append(s)          # "Telford", "Tel Aviv": a word or a place, not a label and its value
            continue
        a, b = _trimmed(text, s.start + m.end(), s.end)
        if a < b:
            out.append(s.with_(start=a, end=b))
    return out


#: categories whose value is one thing however many words it takes: side-by-side spans of one
#: of them are one value ("retired" + "librarian" drawn apart read "factory worker fisherman")
ONE_VALUE_CATEGORIES = frozenset({"PROFESSION"})


def join_one_value_spans(text: str, spans: Iterable[Span]) -> list[Span]:
    """Spans of a :data:`ONE_VALUE_CATEGORIES` category separated only by blanks on one line
    become one span (the first one's type and source), so the value gets one surrogate.

    >>> text = "a retired librarian, 70"
    >>> [text[s.start:s.end] for s in join_one_value_spans(text, [Span("d", 2, 9, "PROFESSION", "PROFESSION"),
    ...                                                          Span("d", 10, 19, "PROFESSION", "PROFESSION")])]
    ['retired librarian']
    """
    spans = list(spans)
    out: list[Span] = []
    joined = False
    for s in sorted(spans, key=lambda x: (x.start, x.end)):
        prev = out[-1] if out else None
        if (prev is not None and s.category in ONE_VALUE_CATEGORIES and prev.category == s.category
                and prev.end <= s.start and text[prev.end:s.start].strip(" \t") == ""):
            out[-1] = prev.with_(end=max(prev.end, s.end))
            joined = True
            continue
        out.append(s)
    return out if joined else spans         # nothing joined: the spans as given, in their order


def clean_spans(text: str, spans: Sequence[Span]) -> list[Span]:
    """Spans split at line breaks, then without field labels (in this order: a label sits at the
    start of its line, so it is found once the span before it on the line above is cut off),
    then side-by-side pieces of one profession joined (:func:`join_one_value_spans`)."""
    return join_one_value_spans(text, drop_field_labels(text, split_at_line_breaks(text, spans)))
