"""Names that a line's place in a note announces, in any case: no word before them says "a
person", the shape of the note does.

* dictation initials on a line of their own, the author's and the typist's ("JS/mk", "js/mk",
  "JS/MK"), when the transcription's stamps follow ("DD: 01/02/99", "DT:", "Job #") or a signature
  comes before ("Electronically signed by ..."): a line like "DNR/DNI" or "abd/gu" has neither;
* the subject of a presentation line: the name before "is a 57-year-old" or ", a 57-year-old"
  ("Roscoe Preston is a 57-year-old man", "MR. PRESTON IS A 57 YO MAN", "Leen, a 70-year-old");
* the name under a letter's closing ("Sincerely," then "Bill Parker, M.D.");
* a staff member's name that a role follows in brackets ("KOWALCZYK (NIGHT FLOAT)", "Hughes (resident)");
* a name that its kinship follows in brackets or an apposition ("Mary (daughter) called", "JIM
  HALE (HCP)", "Ted, the patient's son, called");
* a chart header's name, surname first, before the age and sex ("MURPHY, SEAMUS   52 M"), and a
  saint's surname after a name's label ("NAME: ST. GERMAIN, ROSE");
* a newborn's surname after its sex or its place among twins ("TWIN A GAGNON", "Baby Girl Pham"),
  not an exam's eponym with its finding ("Twin A Ortolani neg").

Each word must pass :func:`.name_words.looks_like_name` after a strong context, so "Patient is a
57-year-old" and "Internal Medicine Service" stay unmarked.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.context_names import SECTION_HEADERS
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_first_name, is_safe_word,
                                                   is_surname_after_first_name, looks_like_name)
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_SLASH_INITIALS = re.compile(r"(?m)^[ \t]*(?P<a>[A-Za-z]{2,3})[ \t]?/[ \t]?(?P<b>[A-Za-z]{2,3})[ \t]*$")
# the stamps a transcription puts under the initials, and the signature over them
_STAMP_AFTER = re.compile(r"(?i)[ \t]*(?:dd|dt|td|d|t|job|doc|document|cc|enc|dictated|transcribed)\b[ \t]*[:#]")
_SIGNED_BEFORE = re.compile(r"(?i)\b(?:signed|dictated|transcribed|sincerely|m\.?d\.?|d\.?o\.?|r\.?n\.?|np|pa-c)\b[ \t,.]*$")
_TOKEN = r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]\."
_SUBJECT = re.compile(
    rf"(?im)^[ \t]*(?:(?:hpi|history(?:\s+of\s+present\s+illness)?|id|summary)[ \t]*:[ \t]*)?"
    rf"(?:(?P<title>mr|mrs|ms|miss)\.?[ \t]+)?(?P<name>(?:{_TOKEN})(?:[ \t]+(?:{_TOKEN})){{0,2}})(?:[ \t]+is|,)[ \t]+an?[ \t]+"
    rf"(?:\d{{1,3}}|[a-z]+(?:-[a-z]+)?)[ \t-]*(?:y\b|yo\b|y/o|y\.o\.|years?\b|yr\b|month)")
# a name that its kinship follows in brackets or an apposition ("Mary (daughter) called", "JIM HALE
# (HCP)", "Ted, the patient's son, called")
_KIN_WORDS = (r"wife|husband|son|daughter|dtr|sister|brother|mother|father|mom|dad|niece|nephew|aunt|uncle|cousin|"
              r"grandson|granddaughter|friend|partner|fiance|fiancee|spouse|girlfriend|boyfriend|neighbor|neighbour|"
              r"hcp|proxy|health\s+care\s+proxy|nok|guardian|(?:son|daughter|brother|sister)-in-law")
_KIN_AFTER = re.compile(
    # (the kinship first in the brackets, more after it: "joyce king (daughter, poa)": clinic_invented find f12)
    rf"(?i)(?<![\w'])(?P<name>(?-i:{_TOKEN})(?:[ \t]+(?-i:{_TOKEN})){{0,2}})(?:[ \t]*\([ \t]*(?:pt'?s[ \t]+)?(?:{_KIN_WORDS})"
    rf"[ \t]*(?:\)|[,;/][^()\n]{{0,30}}\))"
    rf"|,[ \t]+(?:the[ \t]+)?(?:pt'?s|patient'?s|his|her|their)[ \t]+(?:{_KIN_WORDS})\b)")
# a staff member that a role in brackets follows ("KOWALCZYK (NIGHT FLOAT) AT BEDSIDE", "Hughes (resident)")
_ROLE_AFTER = re.compile(
    rf"(?i)(?<![\w'])(?P<name>(?-i:{_TOKEN})(?:[ \t]+(?-i:{_TOKEN})){{0,1}})[ \t]*\([ \t]*(?:night[ \t]+float|"
    rf"resident|intern|fellow|attending|covering|cross[ \t-]?cover|np|pa|rn|md|hospitalist|intensivist)[ \t]*\)")
# a chart's header line, surname first, its age and sex after ("MURPHY, SEAMUS   52 M   MR# ...":
# psych_invented find f09; "Okafor, Ada J. 67F")
_HEADER_NAME = re.compile(
    rf"(?im)^[ \t]*(?P<name>(?:{_TOKEN}),[ \t]*(?:{_TOKEN})(?:[ \t]+(?:{_TOKEN}))?)[ \t]+\d{{1,3}}[ \t]*"
    r"(?:y/?o|yo|y|yrs?)?[ \t]*(?:m|f|male|female)\b")
# a newborn named by its sex or its place among twins and the family's surname ("TWIN A GAGNON",
# "Baby Girl Pham": icu_invented_o find f09)
_NEWBORN = re.compile(rf"(?i)(?<![\w-])(?:baby[ \t]+(?:boy|girl)|twin[ \t]+[ab12]|triplet[ \t]+[abc123])[ \t]+"
                      rf"(?P<name>(?-i:{_TOKEN})(?:-(?-i:{_TOKEN}))?)")
# a surname with its saint after a name's label, surname first ("NAME: ST. GERMAIN, ROSE": ltc_invented
# find f11; "Patient: St. Pierre, Marie")
_SAINT_SURNAME = re.compile(rf"(?im)\b(?:name|patient|pt|resident|res)[ \t]*:[ \t]*(?P<name>(?:st\.?|ste\.?|saint)[ \t]+"
                            rf"(?:{_TOKEN}),[ \t]*(?:{_TOKEN}))")
_FINDING_AFTER = re.compile(r"(?i)[ \t]*(?:neg(?:ative)?|pos(?:itive)?|[+-]|sign|test|reflex|maneuver|manoeuvre|screen|"
                            r"score|stage|scale|present|absent|intact|symmetric|normal|wnl)\b")
_CLOSING = re.compile(r"(?im)^[ \t]*(?:sincerely|regards|best\s+regards|kind\s+regards|yours\s+truly|respectfully|"
                      r"cordially|with\s+thanks)[ \t]*,?[ \t]*\n(?:[ \t]*\n)*[ \t]*(?:dr\.?[ \t]+)?"
                      rf"(?P<name>(?:{_TOKEN})(?:[ \t]+(?:{_TOKEN})){{0,2}})")


def _next_line(text: str, end: int) -> str:
    """The first line after ``end`` that is not blank."""
    rest = text[end:].lstrip()
    return rest[:rest.find("\n")] if "\n" in rest else rest


def _previous_line(text: str, start: int) -> str:
    """The last line before ``start`` that is not blank."""
    s = text[:start].rstrip()
    return s[s.rfind("\n") + 1:]


def _initials(text: str, doc_id: str) -> list[Span]:
    """Slash initials alone on a line, between a signature and a transcription's stamps."""
    out: list[Span] = []
    for m in _SLASH_INITIALS.finditer(text):
        a, b = m.group("a"), m.group("b")
        if all(w.lower() in FUNCTION_WORDS or w.lower() in SECTION_HEADERS or is_safe_word(w, vocabulary=False)
               for w in (a, b)):
            continue   # "DNR/DNI", "abd/gu": each a ward's word (one may be: initials "EP/CH", "CM/AM")
        if _STAMP_AFTER.match(_next_line(text, m.end())) or _SIGNED_BEFORE.search(_previous_line(text, m.start())):
            out += [mk(doc_id, *m.span("a"), "DOCTOR"), mk(doc_id, *m.span("b"), "DOCTOR")]
    return out


def _name_words(text: str, start: int, value: str) -> int | None:
    """How much of ``value`` (at ``start``) is a name: its words, each a name after a strong context,
    an initial before one, or a surname after a first name; None when the first word is none."""
    tokens = [(start + t.start(), start + t.end()) for t in re.finditer(r"\S+", value)]
    end = None
    for k, (s, e) in enumerate(tokens):
        w = text[s:e]
        cased = w[:1].isupper() and w[1:].islower() and any(c.islower() for c in text[max(0, s - 60):s + 60])
        if re.fullmatch(r"[A-Za-z]\.", w) and k + 1 < len(tokens):
            continue
        ok = looks_like_name(w, True, cased) or (k and is_first_name(text[slice(*tokens[k - 1])])
                                                  and is_surname_after_first_name(w))
        if not ok:
            return end if k else None
        end = e
    return end


@register(LOCALE, "name_lines", "NAME", score=0.8)
def name_lines(text: str, doc_id: str) -> list[Span]:
    """Dictation initials over a transcription's stamps, the subject of "is a 57-year-old", the
    name under "Sincerely,", a header's surname-first name before age and sex, a newborn's
    surname after "Twin A" or "Baby Girl", and a saint's surname after a name's label."""
    out = _initials(text, doc_id)
    out += [mk(doc_id, *m.span("name"), "PATIENT") for m in _SAINT_SURNAME.finditer(text)]
    for m in _NEWBORN.finditer(text):
        name = m.group("name")
        if _FINDING_AFTER.match(text, m.end("name")):
            continue   # "Twin A Ortolani neg": an exam's eponym and its finding, no surname
        if name.lower() not in FUNCTION_WORDS and not is_safe_word(name) and looks_like_name(name.split("-")[0], True):
            out.append(mk(doc_id, *m.span("name"), "PATIENT"))
    for m in _HEADER_NAME.finditer(text):
        words = re.findall(r"[A-Za-z][A-Za-z'-]*", m.group("name"))
        if not any(w.lower() in FUNCTION_WORDS or w.lower() in SECTION_HEADERS or is_safe_word(w, vocabulary=False)
                   for w in words if len(w) > 1):
            out.append(mk(doc_id, *m.span("name"), "PATIENT"))
    for rx, gtype in ((_SUBJECT, "PATIENT"), (_CLOSING, "DOCTOR")):
        for m in rx.finditer(text):
            end = _name_words(text, m.start("name"), m.group("name"))
            if end is not None:
                out.append(mk(doc_id, m.start("name"), end, gtype))
    for rx, gtype in ((_KIN_AFTER, "PATIENT"), (_ROLE_AFTER, "DOCTOR")):
        for m in rx.finditer(text):
            start = _last_name_words(text, m.start("name"), m.group("name"))
            if start is not None:
                out.append(mk(doc_id, start, m.end("name"), gtype))
    return out


def _last_name_words(text: str, start: int, value: str) -> int | None:
    """Where the name that ends ``value`` (at ``start``) begins, read back from its last word: the
    words before a kinship in brackets ("Called Mary (daughter)", "spoke to JIM HALE (HCP)");
    None when the last word is no name."""
    tokens = [(start + t.start(), start + t.end()) for t in re.finditer(r"\S+", value)]
    begin = None
    for k in range(len(tokens) - 1, -1, -1):
        piece = text[tokens[k][0]:tokens[-1][1]]
        if _name_words(text, tokens[k][0], piece) != tokens[-1][1]:
            break
        begin = tokens[k][0]
    return begin
