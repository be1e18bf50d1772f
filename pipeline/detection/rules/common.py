"""Helpers shared by the locale packs, and the recognizers every pack carries (email, URL, IP).

The helpers keep each recognizer a few lines long: :func:`mk` builds a span with the category
of its generic type, :func:`spans_from` turns regex matches (or one group of them) into spans,
and :func:`trim` shrinks a stretch to drop surrounding blanks and trailing punctuation, which is
where most boundary disagreements with gold annotations come from; :func:`trimmed_spans` does
both. :func:`text_before` is the look-back window context filters search, and
:func:`merge_overlapping` folds overlapping candidate stretches (the date rules) into spans.
"""
from __future__ import annotations

import re
from typing import Iterable

from pipeline.detection.rules.registry import register
from pipeline.detection.rules.typemap import GENERIC_CATEGORY
from pipeline.spans import Span

# Upper-case letters of the Latin alphabets the packs meet (Spanish, Catalan, Portuguese, ...).
UPPER = "A-ZÁÉÍÓÚÜÑÇÀÈÌÒÙÂÊÎÔÛÄËÏÖ"
LOWER = "a-záéíóúüñçàèìòùâêîôûäëïößøå"
LETTER = UPPER + LOWER


def mk(doc_id: str, start: int, end: int, gtype: str) -> Span:
    """A span of generic type ``gtype`` (category looked up); source and score are set by the registry."""
    return Span(doc_id=doc_id, start=start, end=end, category=GENERIC_CATEGORY.get(gtype, "OTHER"), type=gtype)


def spans_from(pattern: re.Pattern, text: str, doc_id: str, gtype: str, group: int | str = 0) -> list[Span]:
    """One span per match of ``pattern`` (``group`` selects the part to label); empty groups skipped."""
    out: list[Span] = []
    for m in pattern.finditer(text):
        s, e = m.span(group)
        if s >= 0 and e > s:
            out.append(mk(doc_id, s, e, gtype))
    return out


# what :func:`trim` drops at the end of a stretch unless told otherwise
TRIM_TRAILING = " \t\r\n.,;:"


def trim(text: str, start: int, end: int, *, trailing: str = TRIM_TRAILING) -> tuple[int, int]:
    """Shrink ``[start, end)`` past leading blanks and trailing blanks/punctuation.

    A trailing full stop is kept when it closes an abbreviation written with dots
    (``EE.UU.``, ``D.F.``), which gold annotations include.
    """
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1] in trailing:
        if text[end - 1] == "." and re.search(r"(?:\b\w\.){2,}$", text[start:end]):
            break
        end -= 1
    return start, end


def trimmed_spans(pattern: re.Pattern, text: str, doc_id: str, gtype: str, group: int | str = 0,
                  *, trailing: str = TRIM_TRAILING) -> list[Span]:
    """One span per match of ``pattern`` (``group`` selects the part to label), :func:`trim`-med
    with ``trailing``; matches trimmed to nothing are skipped."""
    out: list[Span] = []
    for m in pattern.finditer(text):
        s, e = trim(text, *m.span(group), trailing=trailing)
        if e > s:
            out.append(mk(doc_id, s, e, gtype))
    return out


def text_before(text: str, i: int, width: int) -> str:
    """The ``width`` characters before offset ``i`` (fewer near the start): the context a rule looks back at."""
    return text[max(0, i - width):i]


def line_of(text: str, i: int) -> str:
    """The line of ``text`` around offset ``i`` (its newlines left out): what a rule reads a word's
    case or context in."""
    s = text.rfind("\n", 0, i) + 1
    e = text.find("\n", i)
    return text[s:e if e >= 0 else len(text)]


def merge_overlapping(found: Iterable[tuple[int, int]], doc_id: str, gtype: str) -> list[Span]:
    """Spans of type ``gtype`` from candidate ``(start, end)`` stretches, sorted by offset.

    Of nested stretches the longest is kept ("octubre de 2016" inside "10 de octubre de 2016");
    partly overlapping ones are merged into one span from the first start to the last end.
    """
    out: list[Span] = []
    last_end = -1
    for s, e in sorted(found, key=lambda x: (x[0], -x[1])):
        if e <= last_end:
            continue
        if s < last_end:  # partial overlap: extend the previous span
            s = out.pop().start
        out.append(mk(doc_id, s, e, gtype))
        last_end = e
    return out


def at_word_start(text: str, i: int) -> bool:
    return i == 0 or not text[i - 1].isalnum()


# --- recognizers shared by all packs -------------------------------------------------------

# a field label written onto the address ("E-mail.x@y.es", "Email-x@y.es") is not part of it
# a space after the "@" is a line-wrapping accident of the source ("marias.alfageme@ juntadeandalucia.es"):
# the address is still one, and MEDDOCAN's gold marks it whole
EMAIL_RE = re.compile(r"(?<![\w.+-])(?:(?i:e-?mail)[.:\-](?=[\w%+]))?([\w.%+-]+@ ?(?:[\w-]+\.)+[A-Za-z]{2,})(?![\w@])")
URL_RE = re.compile(
    r"(?<![\w@/])(?:(?:https?|ftp)://|www\.)[^\s<>\"'()\[\]]+", re.IGNORECASE)
# (the lookahead for a digit first spares the lookbehind at every position: 3x faster, same matches)
IPV4_RE = re.compile(
    r"(?=\d)(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\d|\.\d)")
IPV6_RE = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![\w:])")


def email(text: str, doc_id: str) -> list[Span]:
    """E-mail addresses."""
    return spans_from(EMAIL_RE, text, doc_id, "EMAIL", group=1)


def url(text: str, doc_id: str) -> list[Span]:
    """Web addresses starting with a scheme or ``www.``; trailing punctuation left out."""
    return trimmed_spans(URL_RE, text, doc_id, "URL", trailing=".,;:!?")


def ipaddr(text: str, doc_id: str) -> list[Span]:
    """IPv4 dotted quads (each octet <= 255) and full IPv6 addresses."""
    return spans_from(IPV4_RE, text, doc_id, "IPADDR") + spans_from(IPV6_RE, text, doc_id, "IPADDR")


def register_common(locale: str) -> None:
    """Register the shared recognizers in ``locale``'s pack."""
    register(locale, "email", "CONTACT", score=0.98)(email)
    register(locale, "url", "CONTACT", score=0.95)(url)
    register(locale, "ipaddr", "CONTACT", score=0.9)(ipaddr)
