"""GPS coordinates: a latitude and a longitude written as decimals ("43.6591, -70.2568", "lat
44.2706 lon -71.3033") or in degrees with their hemispheres ("N 47° 36.582 W 122° 19.926",
"40°26′46″N 79°58′56″W").

Why: a position to a few metres points at a home as surely as its street (the public synthetic
PII sets label them NEARBYGPSCOORDINATE; i2b2 2014 has no type, LOCATION-OTHER holds them). A
clinical note writes decimals in pairs too ("7.38, 7.42"), so a pair without a label needs four
decimals each, a latitude within 90 and a longitude within 180; two decimals do after a word that
says a position ("GPS", "coordinates", "lat", "located at", "ping"). Degrees need the degree sign
and a hemisphere letter on both halves (a temperature's "38.5°C" has neither after it).
Found on the invented PII texts' "find" half (benchmarks/pii_invented.py).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_PAIR = re.compile(r"(?<![\w.+-])(?P<lat>[-+]?\d{1,2}\.(?P<d1>\d{2,8}))[ \t]*,[ \t]*(?P<lon>[-+]?\d{1,3}\.(?P<d2>\d{2,8}))"
                   r"(?![\w.]|[ \t]*,[ \t]*[-+]?\d)")
_LABELLED = re.compile(r"(?i)(?<![\w])lat(?:itude)?[ \t]*[:=]?[ \t]*(?P<lat>[-+]?\d{1,2}\.\d{2,8})[ \t]*[,;/]?[ \t]*"
                       r"(?:lon|lng|long|longitude)[ \t]*[:=]?[ \t]*(?P<lon>[-+]?\d{1,3}\.\d{2,8})(?![\w.])")
_CUE = re.compile(r"(?i)\b(?:gps|coordinates?|coords?|lat(?:itude)?|long(?:itude)?|lat/lon[g]?|location|position|"
                  r"located|ping(?:ed)?|pin|geo\w*|map|waypoint|site)\b[^\n]{0,30}$")
_DEG = r"\d{1,3}(?:\.\d+)?°(?:[ \t]?\d{1,2}(?:\.\d+)?[′']?(?:[ \t]?\d{1,2}(?:\.\d+)?[″\"])?)?"
# hemispheres in any case ("40°26′46″n 79°58′56″w" in a lower-case text): the degree signs vouch
_DMS = re.compile(rf"(?<![\w])(?:(?i:[NS])[ \t]?{_DEG}|{_DEG}[ \t]?(?i:[NS]))[ \t]*,?[ \t]*"
                  rf"(?:(?i:[EW])[ \t]?{_DEG}|{_DEG}[ \t]?(?i:[EW]))(?![\w])")


def _in_range(lat: str, lon: str) -> bool:
    return abs(float(lat)) <= 90 and abs(float(lon)) <= 180


@register(LOCALE, "coordinates", "LOCATION", score=0.85)
def coordinates(text: str, doc_id: str) -> list[Span]:
    """Latitude/longitude pairs (decimals with four places, or two after a position's word, or
    after "lat"/"lon" labels) and degrees with hemispheres."""
    out: list[Span] = []
    for m in _PAIR.finditer(text):
        places = min(len(m.group("d1")), len(m.group("d2")))
        cued = _CUE.search(text[max(0, m.start() - 40):m.start()])
        if _in_range(m.group("lat"), m.group("lon")) and (places >= 4 or cued):
            out.append(mk(doc_id, m.start(), m.end(), "LOCATION-OTHER"))
    for m in _LABELLED.finditer(text):
        if _in_range(m.group("lat"), m.group("lon")):
            out.append(mk(doc_id, m.start(), m.end(), "LOCATION-OTHER"))
    out += [mk(doc_id, m.start(), m.end(), "LOCATION-OTHER") for m in _DMS.finditer(text)]
    return dedupe(out)
