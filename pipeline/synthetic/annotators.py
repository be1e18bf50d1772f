"""Simulated human annotators: layers that disagree with the gold the way people do.

Each gold span is, in this order of chance, missed, given different boundaries (a title "Dr."
pulled in, a trailing token dropped, a neighbouring word swallowed), or given a confusable type
(PATIENT for DOCTOR, FAX for PHONE, ORGANIZATION for HOSPITAL); spurious spans land on
capitalised common words and numbers. Rates are per gold span. Profiles set how careful an
annotator is; the result is a pure function of (document, annotator, seed, rates).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from pipeline.schemas import I2B2_2014, SchemaError
from pipeline.spans import Document, Span


@dataclass(frozen=True)
class AnnotatorProfile:
    miss_rate: float
    boundary_rate: float
    wrong_category_rate: float
    spurious_rate: float


PROFILES: dict[str, AnnotatorProfile] = {
    "careful": AnnotatorProfile(miss_rate=0.03, boundary_rate=0.04, wrong_category_rate=0.02, spurious_rate=0.01),
    "average": AnnotatorProfile(miss_rate=0.08, boundary_rate=0.08, wrong_category_rate=0.05, spurious_rate=0.03),
    "hasty": AnnotatorProfile(miss_rate=0.16, boundary_rate=0.12, wrong_category_rate=0.08, spurious_rate=0.06),
}
# The demo's users; any other name gets the "average" profile (or a profile named directly).
ANNOTATOR_PROFILES: dict[str, str] = {"ana": "careful", "ben": "hasty", "rita": "careful"}

# Plausible confusions between i2b2 2014 types.
CONFUSIONS: dict[str, tuple[str, ...]] = {
    "PATIENT": ("DOCTOR",), "DOCTOR": ("PATIENT",), "USERNAME": ("DOCTOR", "IDNUM"),
    "PROFESSION": ("ORGANIZATION",), "ROOM": ("LOCATION-OTHER", "IDNUM"), "DEPARTMENT": ("HOSPITAL", "ORGANIZATION"),
    "HOSPITAL": ("ORGANIZATION", "DEPARTMENT"), "ORGANIZATION": ("HOSPITAL",), "STREET": ("LOCATION-OTHER",),
    "CITY": ("LOCATION-OTHER", "STATE"), "STATE": ("CITY",), "COUNTRY": ("LOCATION-OTHER",), "ZIP": ("IDNUM",),
    "LOCATION-OTHER": ("CITY", "ORGANIZATION"), "AGE": ("DATE",), "DATE": ("AGE", "IDNUM"),
    "PHONE": ("FAX",), "FAX": ("PHONE",), "EMAIL": ("URL",), "URL": ("EMAIL",), "IPADDR": ("URL", "IDNUM"),
    "SSN": ("IDNUM",), "MEDICALRECORD": ("IDNUM", "ACCOUNT"), "HEALTHPLAN": ("ACCOUNT", "IDNUM"),
    "ACCOUNT": ("IDNUM", "MEDICALRECORD"), "LICENSE": ("IDNUM",), "VEHICLE": ("IDNUM",), "DEVICE": ("IDNUM",),
    "BIOID": ("IDNUM",), "IDNUM": ("MEDICALRECORD",),
}

_TITLE_BEFORE = re.compile(r"(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+$")
_CAPWORD = re.compile(r"\b[A-Z][a-z]{2,}\b")
_NUMBER = re.compile(r"\b\d{1,4}\b")
_SPURIOUS_WORD_LABELS = (("NAME", "PATIENT"), ("NAME", "DOCTOR"), ("LOCATION", "HOSPITAL"), ("LOCATION", "CITY"))
_SPURIOUS_NUMBER_LABELS = (("AGE", "AGE"), ("ID", "IDNUM"), ("DATE", "DATE"))


def profile_for(annotator: str) -> AnnotatorProfile:
    if annotator in PROFILES:
        return PROFILES[annotator]
    return PROFILES[ANNOTATOR_PROFILES.get(annotator, "average")]


def _boundary_variants(text: str, s: Span) -> list[tuple[int, int]]:
    """Other (start, end) a person might have selected for this span."""
    out: list[tuple[int, int]] = []
    value = text[s.start:s.end]
    m = _TITLE_BEFORE.search(text, max(0, s.start - 8), s.start)
    if m and s.category == "NAME":
        out.append((m.start(), s.end))  # "Dr. Smith"
    tokens = [t for t in re.finditer(r"\S+", value)]
    if len(tokens) > 1:
        last_kept = tokens[-2]
        end = s.start + last_kept.end()
        while end > s.start and text[end - 1] in ",.;:":
            end -= 1
        if end > s.start:
            out.append((s.start, end))  # trailing token dropped: "December 1" for "December 1, 2070"
        out.append((s.start + tokens[1].start(), s.end))  # leading token dropped: "Smith" for "John Smith"
    # Swallow the rest of the token to the right ("45" -> "45-year-old", "Smith" -> "Smith,").
    j = s.end
    while j < len(text) and not text[j].isspace():
        j += 1
    if j > s.end:
        out.append((s.start, j))
    # Swallow the word to the left ("aged 45", "MRN: 1234567").
    i = s.start
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    k = i
    while k > 0 and not text[k - 1].isspace():
        k -= 1
    if k < i < s.start and i - k <= 12:
        out.append((k, s.end))
    return [(a, b) for a, b in out if (a, b) != (s.start, s.end) and 0 <= a < b <= len(text)]


def _confuse(s: Span, rng: random.Random) -> Span:
    options = CONFUSIONS.get(s.type, ())
    if not options:
        return s
    t = rng.choice(options)
    try:
        return s.with_(category=I2B2_2014.category_of(t), type=t)
    except SchemaError:
        return s


def simulate_annotator(doc: Document, annotator: str, seed: int, *, miss_rate: float | None = None,
                       boundary_rate: float | None = None, wrong_category_rate: float | None = None,
                       spurious_rate: float | None = None) -> list[Span]:
    """One annotator's layer for ``doc`` derived from its gold spans (``doc.spans``).

    Rates default to the annotator's profile (:data:`ANNOTATOR_PROFILES`; unknown names are
    "average"). Returned spans have layer ``annotator:<name>``, source ``human:<name>``, score 1,
    lie inside the text and never overlap.
    """
    prof = profile_for(annotator)
    miss = prof.miss_rate if miss_rate is None else miss_rate
    boundary = prof.boundary_rate if boundary_rate is None else boundary_rate
    wrong = prof.wrong_category_rate if wrong_category_rate is None else wrong_category_rate
    spurious = prof.spurious_rate if spurious_rate is None else spurious_rate
    rng = random.Random(f"annotator:{seed}:{annotator}:{doc.doc_id}")
    text = doc.text
    layer, source = f"annotator:{annotator}", f"human:{annotator}"
    gold = sorted((s for s in doc.spans if 0 <= s.start < s.end <= len(text)), key=lambda s: (s.start, s.end))

    out: list[Span] = []
    extras: list[Span] = []
    for i, s in enumerate(gold):
        # Draw every decision for every span, so one rate does not shift the others' draws.
        r_miss, r_bound, r_wrong, r_spur = rng.random(), rng.random(), rng.random(), rng.random()
        pick = rng.random()
        span = s.with_(doc_id=doc.doc_id, layer=layer, source=source, score=1.0)
        if r_miss < miss:
            span = None
        else:
            if r_bound < boundary:
                # Stay clear of the previous kept span and the next gold span.
                lo = out[-1].end if out else 0
                hi = gold[i + 1].start if i + 1 < len(gold) else len(text)
                variants = [(a, b) for a, b in _boundary_variants(text, s) if a >= lo and b <= hi]
                if variants:
                    a, b = variants[int(pick * len(variants))]
                    span = span.with_(start=a, end=b)
            if r_wrong < wrong:
                span = _confuse(span, rng)
        if span is not None:
            out.append(span)
        if r_spur < spurious:
            extra = _spurious(text, gold, rng, doc.doc_id, layer, source)
            if extra is not None:
                extras.append(extra)
    # Spurious spans never touch gold, but may touch a widened span: those give way.
    kept = _drop_overlaps(out)
    for e in extras:
        if not any(k.start < e.end and e.start < k.end for k in kept):
            kept.append(e)
    return sorted(kept, key=lambda s: (s.start, s.end))


def _spurious(text: str, gold: list[Span], rng: random.Random, doc_id: str, layer: str, source: str) -> Span | None:
    """A span on a capitalised word or a number that is not PHI (in the gold)."""
    for _ in range(8):
        pattern = _CAPWORD if rng.random() < 0.6 else _NUMBER
        pos = rng.randrange(len(text)) if text else 0
        m = pattern.search(text, pos) or pattern.search(text)
        if m is None:
            continue
        a, b = m.start(), m.end()
        if any(g.start < b and a < g.end for g in gold):
            continue
        cat, typ = rng.choice(_SPURIOUS_WORD_LABELS if pattern is _CAPWORD else _SPURIOUS_NUMBER_LABELS)
        return Span(doc_id, a, b, cat, typ, source=source, score=1.0, layer=layer)
    return None


def _drop_overlaps(spans: list[Span]) -> list[Span]:
    """Keep spans left to right, dropping any that overlaps one already kept (a person's tool refuses it)."""
    kept: list[Span] = []
    for s in sorted(spans, key=lambda s: (s.start, -(s.end - s.start))):
        if kept and s.start < kept[-1].end:
            continue
        kept.append(s)
    return kept
