"""Towns that business text names by what stands there or by a journey: "our Glenhaven warehouse",
"the Aalborg office", "at the Marrowgate depot", and a trip's ends ("flight LX 318 from Braga to
Recife", "OSAKA TO KAMLOOPS" on a boarding pass).

Why: tickets, HR letters, delivery notices and boarding passes (the public synthetic PII sets hold
many) name a town no list holds, with no state or postcode after it: the site's word after it
(office, branch, depot, warehouse, store, campus) or the journey around it is the evidence. The
town must be one or two capitalised words (or, in a line of one case, words no commoner than a
rare word), none a function word, a safe clinical word or a common English word (Zipf 4.0: "the
Main office", "the Post office", "the Head office" stay); a journey's ends need a travel word in
the same sentence of the line (flight, train, bus, ferry, ticket, boarding, depart, arrive, route, trip, travel),
so a ward's "transferred from ICU to 5 West" stays. Found on the second invented PII set's find
half (benchmarks/pii_invented.py --set b: f_cs_email_01, f_cs_41, f_hr_80, f_travel_19, f_travel_50).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at, titled
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, zipf
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_L = r"[^\W\d_]"
_TOWN = rf"[A-ZÀ-Þ]{_L}+(?:[ \t]+[A-ZÀ-Þ]{_L}+)?"
_SITE = re.compile(rf"\b(?i:the|our|their|your|its)[ \t]+(?P<town>{_TOWN})[ \t]+"
                   r"(?i:office|offices|branch|depot|warehouse|store|showroom|plant|factory|campus|headquarters|"
                   r"hub|site|outlet|studio)\b")
_ROUTE = re.compile(rf"(?:\b(?i:from)[ \t]+)?(?<![\w-])(?P<a>{_TOWN})[ \t]+(?i:to|->|→)[ \t]+(?P<b>{_TOWN})(?![\w-])")
_TRAVEL = re.compile(r"(?i)\b(?:flights?|flying|fly|train|bus|coach|ferry|e-?ticket|ticket|boarding|depart\w*|"
                     r"arriv\w*|route|trip|travel\w*|itinerary|seat)\b")


def _town_ok(value: str) -> bool:
    words = value.split()
    return all(w.lower() not in FUNCTION_WORDS and not is_safe_word(w) and (zipf(w) or 0.0) < 4.0 for w in words)


_SENTENCE_END = re.compile(r"[.;!?](?=\s|$)")


def _sentence(line: str, start: int, end: int) -> str:
    """The sentence of ``line`` that holds ``line[start:end]``: a code's run-on line names a journey's
    word in another sentence ("1658 PEA -> VT, shocked ... Family called, arrived 1730":
    icu_invented_r find f11), a ticket's words share the journey's."""
    ends = [m.end() for m in _SENTENCE_END.finditer(line, 0, start)]
    after = _SENTENCE_END.search(line, end)
    return line[ends[-1] if ends else 0:after.end() if after else len(line)]


@register(LOCALE, "route_towns", "LOCATION", score=0.74)
def route_towns(text: str, doc_id: str) -> list[Span]:
    """Towns before a business site's word, and a journey's two ends on a line with a travel word;
    lines in one case read in title case (:func:`.caseless.titled`)."""
    view = titled(text)
    out = [mk(doc_id, *m.span("town"), "CITY") for m in _SITE.finditer(view)
           if _town_ok(m.group("town")) and not one_case_at(text, m.start("town"))]
    for m in _ROUTE.finditer(view):
        line_start = view.rfind("\n", 0, m.start()) + 1
        line_end = view.find("\n", m.end())
        line = view[line_start:line_end if line_end >= 0 else len(view)]
        if _TRAVEL.search(_sentence(line, m.start() - line_start, m.end() - line_start)) \
                and _town_ok(m.group("a")) and _town_ok(m.group("b")):
            out += [mk(doc_id, *m.span("a"), "CITY"), mk(doc_id, *m.span("b"), "CITY")]
    return dedupe(out)
