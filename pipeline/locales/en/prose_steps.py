"""The English pack's boundary steps for text outside a ward: letters, forms, messages.

* ``ages_after_names`` (merged stage): an age written right after a person's name, between commas
  or in brackets ("Marigold Esterhuizen, 87, metastatic ...", "Mr Okafor (91)"), is marked. No
  age word says so, so the rules that read ages by their words ("87 yo", "aged 87") leave it and
  the number step (:mod:`.ward_steps`) would drop a model's; the name found beside it is the
  evidence. A ward's numbers never have a name right before them ("HR 90", "BP 120/80 (90)").
* ``drop_field_label_spans`` (merged stage): a machine's name or place that is only a field's
  label before its colon or its number ("Mobile: 07700 900461", "Mobile +1 646 555 0124",
  "Home: ...") is no name and no place, whatever a list says ("Mobile" is a town in Alabama);
  the value after it is what the label announces.
* ``drop_vehicle_spans`` (merged stage): a machine's name or place that is a car's make and model
  ("Toyota Camry", "2019 Toyota Camry", "Ford" after "2012") is no person and no place.

Found on the invented PII texts' find half (``benchmarks/pii_invented.py``: clinic_72, misc_51,
misc_57, misc_58 for ages; form_36, form_41 for labels; form_38, misc_56 for cars).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.bare_names import _THING_BEFORE, AMBIGUOUS_CAR_MAKES, CAR_MAKES
from pipeline.detection.rules import to_schema
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.locales import load_vocabulary
from pipeline.locales.shared_words import FIELD_LABELS
from pipeline.spans import Span

# ", 87," / ", 87." / ", 87;" or " (91)" right after the name: a number of one to three digits
# alone, closed by a comma, a semicolon, a full stop that ends a sentence, a bracket or the line's end
_AGE_AFTER_NAME = re.compile(r",[ \t]*(?P<a>[1-9]\d{0,2})[ \t]*(?=[,;]|\.(?!\d)|$)|[ \t]*\([ \t]*(?P<b>[1-9]\d{0,2})[ \t]*\)",
                             re.MULTILINE)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# a name whose age may follow: any person's (a model trained on generated notes types an obituary's
# name DOCTOR as readily as PATIENT: misc_57), not a user name
_NOT_AGED = {"USERNAME"}


def _a_persons_name(span: Span, text: str) -> bool:
    """A machine's or a person's NAME span with one word that is no safe and no ambiguous clinical
    word ("Foley (16)" is a catheter's size)."""
    if span.category != "NAME" or span.type in _NOT_AGED:
        return False
    vocab = load_vocabulary("en")
    words = [w.lower() for w in _WORD.findall(text, span.start, span.end)]
    return any(w not in vocab.safe and w not in vocab.ambiguous for w in words)


@boundary_step("ages_after_names", "merged")
def ages_after_names(spans: list[Span], ctx: StepContext) -> list[Span]:
    """An AGE span for a number of 1 to 120 right after a person's name, between commas or in
    brackets, where nothing is marked yet.

    >>> text = "Referral: Marigold Esterhuizen, 87, lives alone. Mr Okafor (91). Foley (16). HR 90."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = ages_after_names([Span("d", 10, 30, "NAME", "PATIENT", source="rule:x"),
    ...     Span("d", 52, 58, "NAME", "PATIENT", source="rule:x"), Span("d", 65, 70, "NAME", "PATIENT", source="model:m")], ctx)
    >>> [(text[s.start:s.end], s.type) for s in got if s.category == "AGE"]
    [('87', 'AGE'), ('91', 'AGE')]
    """
    taken = [(s.start, s.end) for s in spans]
    added: list[Span] = []
    for s in spans:
        m = _AGE_AFTER_NAME.match(ctx.text, s.end)
        if m is None or not _a_persons_name(s, ctx.text):
            continue
        start, end = m.span("a") if m.group("a") else m.span("b")
        if int(ctx.text[start:end]) > 120 or any(a < end and start < b for a, b in taken):
            continue
        added += to_schema([Span(s.doc_id, start, end, "AGE", "AGE", source="rule:ages_after_names", score=0.85)],
                           ctx.schema)
    return sorted(spans + added, key=lambda x: (x.start, x.end)) if added else spans


#: field labels a list may hold as a name or a place ("Mobile", "Home", "Contact", "City"): those of
#: :data:`pipeline.locales.shared_words.FIELD_LABELS`, the pack's contact labels and address and person fields
LABEL_WORDS = frozenset(x for x in FIELD_LABELS if x.isascii()) | frozenset("""mobile cell cellphone home work
office daytime evening landline pager contact nok city town state county country province region zip postcode street
surname nickname alias employer occupation school company nationality religion language gender sex title guardian
spouse partner relationship status location birthplace""".split()) | frozenset((
    "cell phone", "home phone", "work phone", "emergency contact", "next of kin", "zip code", "post code",
    "postal code", "address line", "first name", "last name", "given name", "family name", "full name",
    "middle name", "maiden name", "preferred name", "place of birth"))
# the label's colon, or the number it announces right after it ("Mobile +1 646 555 0124": form_41)
_VALUE_AFTER = re.compile(r"[\"']?[ \t]*:|[ \t]+[+(]?\d")
# a place named before a colon in prose ("we moved to Mobile: it is hot"): a preposition says a place
_PLACE_WORD_BEFORE = re.compile(r"(?i)\b(?:in|to|from|near|at|of|visit|visiting|around)[ \t]+[\"']?$")


@boundary_step("drop_field_label_spans", "merged")
def drop_field_label_spans(spans: list[Span], ctx: StepContext) -> list[Span]:
    """A machine's NAME or LOCATION span that is exactly a field label followed by its colon or by
    a number, and not a place after a preposition ("moved to Mobile: ...", "from Mobile 3 years ago").

    >>> text = "Mobile: 07700 900461\\nWe moved to Mobile: hot."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_field_label_spans([Span("d", 0, 6, "LOCATION", "CITY", source="dict:cities"),
    ...     Span("d", 33, 39, "LOCATION", "CITY", source="dict:cities")], ctx)
    >>> [text[s.start:s.end] for s in got], got[0].start
    (['Mobile'], 33)
    """
    def label(s: Span) -> bool:
        return (s.category in ("NAME", "LOCATION") and not s.source.startswith("human")
                and " ".join(ctx.text[s.start:s.end].lower().split()) in LABEL_WORDS
                and _VALUE_AFTER.match(ctx.text, s.end) is not None
                and not _PLACE_WORD_BEFORE.search(ctx.text, max(0, s.start - 20), s.start))
    return [s for s in spans if not label(s)]


# a model year before a make ("2012 Ford Focus", "'19 Dodge Ram"), inside the span or right before it
_MODEL_YEAR = re.compile(r"(?:(?:19|20)\d\d|'\d\d)[ \t]+$")
_SPAN_WORDS = re.compile(r"[^\W_][\w'’-]*")


def _a_car(span: Span, text: str) -> bool:
    """A machine's NAME or LOCATION span of one to four words that names a car: a make
    (:data:`pipeline.detection.rules.en.bare_names.CAR_MAKES`) first, after a model year
    where the make is a person's name too ("2012 Ford"); a place only with a model year in it or a
    year, an article or an owner's word before it, since towns share makes' names (Plymouth, Saturn)."""
    if span.source.startswith("human") or span.category not in ("NAME", "LOCATION"):
        return False
    words = list(_SPAN_WORDS.finditer(text, span.start, span.end))
    if not words or len(words) > 4:
        return False
    year = words[0].group().isdigit()
    make = words[1] if year and len(words) > 1 else words[0]
    low = make.group().lower()
    if span.category == "LOCATION" and not year and _THING_BEFORE.search(text, max(0, span.start - 12), span.start) is None:
        return False   # a town that shares a make's name: "Lives w/ girlfriend in Plymouth" (icu_invented_p find f20)
    if low in CAR_MAKES:
        return True
    return low in AMBIGUOUS_CAR_MAKES and (year or _MODEL_YEAR.search(text, max(0, span.start - 8), span.start) is not None)


@boundary_step("drop_vehicle_spans", "merged")
def drop_vehicle_spans(spans: list[Span], ctx: StepContext) -> list[Span]:
    """A machine's name or place that is a car ("Toyota Camry", "2019 Toyota Camry" as a street,
    "Ford" after "2012"): a list or a model reads the make as a first name or a surname, the year
    or the make says it is a car (found on the invented PII texts' find half: form_38, misc_56).

    >>> text = "Selling 2012 Ford Focus. Dr. Ford aware. 2019 Toyota Camry."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_vehicle_spans([Span("d", 13, 17, "NAME", "PATIENT", source="dict:surnames"),
    ...     Span("d", 29, 33, "NAME", "DOCTOR", source="rule:titled_names"),
    ...     Span("d", 41, 58, "LOCATION", "STREET", source="model:m")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['Ford']
    >>> got[0].start
    29
    """
    return [s for s in spans if not _a_car(s, ctx.text)]
