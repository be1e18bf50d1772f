"""Boundary steps that trim the edges of one span at a time: the edges gold sets leave out and
rules and dictionaries never draw (a leading title, the sentence's full stop after a place, "de
edad" after an age, a contact label glued to a name, a trailing function word).

Each is registered for the ``model`` stage (the model's spans); the glued label also for the
``candidates`` stage, where a name rule reads "PérezCorreo" as one word. The words are the
locale pack's (``ctx.words``); which types are organisations is the schema's (``ctx.plays``).
"""
from __future__ import annotations

import re

from pipeline.detection.combine import CombinePolicy
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

# a place name's last word with the sentence's full stop after it: four letters or more, not an
# abbreviation ("Avda.", "Apto.") nor capitals ("D.F.", "S.A." never match: they hold a dot)
_WORD_FULL_STOP = re.compile(r"(?<![\w.])([^\W\d_]{4,})\.$")
_NAMES = CombinePolicy().strip_titles


def _cut_tail(span: Span, text: str, tail: re.Pattern) -> Span:
    """``span`` ending where ``tail`` (anchored at the span's end) starts; as it was when nothing
    matches or the cut would leave it empty."""
    m = tail.search(text, span.start, span.end)
    if not m or m.start() <= span.start:
        return span
    return span.with_(end=m.start())


def _without_title(span: Span, ctx: StepContext) -> Span:
    if span.category not in _NAMES:
        return span
    m = ctx.words.title.match(ctx.text, span.start, span.end)
    if not m or m.end() >= span.end:
        return span
    return span.with_(start=m.end())


@boundary_step("strip_leading_title", "model")
def strip_leading_title(spans: list[Span], ctx: StepContext) -> list[Span]:
    """NAME spans without the titles they start with: a title is never part of a name, whoever
    drew the span, and gold sets leave it out. A span that is nothing but a title is kept.

    >>> text = "Remitido por: Doctora Marta García Torrelles."
    >>> ctx = StepContext.for_locale(text, "meddocan", "es")
    >>> [text[s.start:s.end] for s in strip_leading_title([Span("d", 14, 44, "NAME", "DOCTOR")], ctx)]
    ['Marta García Torrelles']
    """
    return [_without_title(s, ctx) for s in spans]


def _without_full_stop(span: Span, ctx: StepContext) -> Span:
    if span.category != "LOCATION":
        return span
    m = _WORD_FULL_STOP.search(ctx.text, span.start, span.end)
    if not m or m.group(1) in ctx.words.abbreviations_4 or m.group(1).isupper():
        return span
    return span.with_(end=span.end - 1)


@boundary_step("strip_trailing_full_stop", "model")
def strip_trailing_full_stop(spans: list[Span], ctx: StepContext) -> list[Span]:
    """LOCATION spans without the full stop that ends the sentence after them ("San Justo."):
    gold sets leave it out, as rules and dictionaries do. An abbreviation keeps its dot.

    >>> text = "Dr. Luis León, DIAVERUM, San Justo. Buenos Aires"
    >>> ctx = StepContext.for_locale(text, "meddocan", "es")
    >>> [text[s.start:s.end] for s in strip_trailing_full_stop([Span("d", 25, 35, "LOCATION", "TERRITORIO")], ctx)]
    ['San Justo']
    """
    return [_without_full_stop(s, ctx) for s in spans]


# separators a value never ends or starts with (a span's inner comma, "Smith, John", stays), and
# brackets that open or close nothing inside the span ("(617) 555 0142" keeps its bracket)
_EDGE_SEPARATORS = ",;:-–—"
_PAIRS = {"(": ")", "[": "]"}


def _without_edge_separators(span: Span, text: str) -> Span | None:
    start, end = span.start, span.end
    while True:
        before = (start, end)
        while start < end and (text[start] in _EDGE_SEPARATORS or text[start].isspace()):
            start += 1
        while end > start and (text[end - 1] in _EDGE_SEPARATORS or text[end - 1].isspace()):
            end -= 1
        if start < end and text[start] in _PAIRS and _PAIRS[text[start]] not in text[start:end]:
            start += 1
        if start < end and text[end - 1] in _PAIRS.values() and not any(
                o in text[start:end] for o, c in _PAIRS.items() if c == text[end - 1]):
            end -= 1
        if (start, end) == before:
            break
    if start == end:
        return None
    return span if (start, end) == (span.start, span.end) else span.with_(start=start, end=end)


@boundary_step("strip_edge_separators", "model")
def strip_edge_separators(spans: list[Span], ctx: StepContext) -> list[Span]:
    """Model spans without a comma, semicolon, colon or dash at their edges, nor a bracket that
    opens or closes nothing inside them ("- Valencia", "(Hutchinson"); a span of nothing else is
    dropped. A CRF that learnt "Kiniry, Jane" (the comma inside a name) carries the comma on where
    the name stops ("Kiniry, RN" -> "Kiniry,"): the characters are PHI-adjacent noise, but the span
    no longer matches the name people drew, and the rule span that had it right loses the merge.
    Gold sets end a span on one of these 1 time in 17,134 (MEDDOCAN train + dev).
    Found on generated ward notes (a 100-note ward CRF on the ward generator's held-out part).

    >>> text = "Update given.\\nKiniry, RN"
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> [text[s.start:s.end] for s in strip_edge_separators([Span("d", 14, 21, "NAME", "DOCTOR")], ctx)]
    ['Kiniry']
    >>> strip_edge_separators([Span("d", 20, 21, "NAME", "DOCTOR")], ctx)
    []
    """
    out = []
    for s in spans:
        kept = _without_edge_separators(s, ctx.text)
        if kept is not None:
            out.append(kept)
    return out


# words (a label, "contact", "Tel.") before a number that starts right after them
_WORDS_BEFORE_NUMBER = re.compile(r"(?:[^\W\d_]+[.:]?[ \t]+)+(?=[\d(+])")


@boundary_step("strip_words_before_number", "model")
def strip_words_before_number(spans: list[Span], ctx: StepContext) -> list[Span]:
    """CONTACT spans without the words before their number ("contact 413 555 0161" -> "413 555
    0161", "Tel. 91 555 01 02" -> "91 555 01 02"): a phone or fax number never starts with a word,
    and a model that learnt the label beside the number carries it in, so the span no longer matches
    the number people drew and the phone rule's exact span loses the merge. An e-mail or URL has
    no blank, so it never matches. Found on generated wide notes (a 100-note wide CRF on the
    generator's held-out part).

    >>> text = "Accompanied by son Hezron; contact 774 555 0129."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> [text[s.start:s.end] for s in strip_words_before_number([Span("d", 27, 47, "CONTACT", "PHONE")], ctx)]
    ['774 555 0129']
    """
    out = []
    for s in spans:
        m = _WORDS_BEFORE_NUMBER.match(ctx.text, s.start, s.end) if s.category == "CONTACT" else None
        out.append(s.with_(start=m.end()) if m and m.end() < s.end else s)
    return out


@boundary_step("strip_age_tail", "model")
def strip_age_tail(spans: list[Span], ctx: StepContext) -> list[Span]:
    """AGE spans without a trailing "de edad" ("seis meses de edad" -> "seis meses"), as the age
    rules draw them: MEDDOCAN's gold ends "53 años" before "de edad" 244 times in train + dev and
    includes it twice. MEDDOCAN dev: 2 spans more at seeds 7 and 21, none at seed 13.

    >>> text = "adoptada a los seis meses de edad, sin"
    >>> ctx = StepContext.for_locale(text, "meddocan", "es")
    >>> [text[s.start:s.end] for s in strip_age_tail([Span("d", 15, 33, "AGE", "EDAD_SUJETO_ASISTENCIA")], ctx)]
    ['seis meses']
    """
    return [_cut_tail(s, ctx.text, ctx.words.age_tail) if s.category == "AGE" else s for s in spans]


@boundary_step("strip_glued_label", "model")
@boundary_step("strip_glued_label_from_candidates", "candidates")
def strip_glued_label(spans: list[Span], ctx: StepContext) -> list[Span]:
    """Spans without a contact label glued to their last word ("Ignacio Sarra DominguezCorreo" ->
    "Ignacio Sarra Dominguez"), a line break lost in the source; found twice in MEDDOCAN's
    training notes, both names after "Dr.", where the doctor-name rule read the glued word as one.

    >>> text = "Dr. Ignacio Sarra DominguezCorreo electrónico: x@y.es"
    >>> ctx = StepContext.for_locale(text, "meddocan", "es")
    >>> [text[s.start:s.end] for s in strip_glued_label([Span("d", 4, 33, "NAME", "NOMBRE_PERSONAL_SANITARIO")], ctx)]
    ['Ignacio Sarra Dominguez']
    """
    return [_cut_tail(s, ctx.text, ctx.words.glued_label_tail) for s in spans]


@boundary_step("strip_trailing_function_word", "model")
def strip_trailing_function_word(spans: list[Span], ctx: StepContext) -> list[Span]:
    """Spans without a lower-case function word at their end ("padre de", "Marzo a", "hermano
    mayor de" end where it starts), except organisations: their names go on after "de"
    ("Hospital General de" + "Ciudad Real"), and a model that stopped there cut the name short.

    Measured on MEDDOCAN dev with four models: span recall +0.0002 to +0.0003, strict F1 +0.0002 to
    +0.0004; missed PHI tokens per 1,000 +0 to +0.009 (the "de" of a relative's "hermano mayor de
    6 años", a function word).

    >>> text = "padre de 30 años"
    >>> ctx = StepContext.for_locale(text, "meddocan", "es")
    >>> [text[s.start:s.end] for s in strip_trailing_function_word(
    ...     [Span("d", 0, 8, "OTHER", "FAMILIARES_SUJETO_ASISTENCIA")], ctx)]
    ['padre']
    """
    return [s if ctx.plays(s, "organisation") else _cut_tail(s, ctx.text, ctx.words.function_word_tail)
            for s in spans]
