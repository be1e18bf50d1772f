"""The English pack's own boundary steps: numbers and names as ward notes write them.

* ``drop_numbers_without_context`` (merged stage): an age, a date or a phone number with digits
  in it is dropped unless the text says one of its numbers is one
  (:mod:`pipeline.detection.rules.en.numbers`): "HR 90-100", "RR 18-22", "PS 5/5", "K 3.9", "@ 1400",
  "10/5 beats" are measurements and times; a span naming a month or a weekday stays. A model trained on
  generated notes learns that a bare number near a name is an age; a ward's notes are full of
  bare numbers. A person's span is never dropped; a machine's name or named place (a town, a
  state, a hospital, a department) or profession that holds nothing but numbers and clinical words
  is dropped too ("0200" as a town, "Glucose 60" as a department): such a place always has a name.
* ``extend_over_particle`` (merged stage): a machine's NAME span ending on a name particle takes
  the word after it ("maybell van der" -> "maybell van der berg").
* ``strip_context_words`` (model stage): a NAME span loses the kinship or role word it starts with
  and the credential it ends with ("wife Mary" -> "Mary", "Smith, RN" -> "Smith"): they are the
  context that says a name follows, never part of it.
* ``repeat_names`` (merged stage): a name a rule found by its context marks the same word
  wherever else the note leaves it unmarked. Eponyms (``drop_eponyms``) are in :mod:`.eponym_steps`.

Only the ``en`` pack lists them; Spanish and German keep the shared Western steps alone.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.numbers import (DATE_WORD, NUMBER_PIECE, age_context, numeric_date_is_date,
                                                phone_context)
from pipeline.detection.rules.en.name_words import is_safe_word, zipf
from pipeline.detection.rules.en.towns import mixed_case
from pipeline.detection.rules.en.year_ranges import year_range_at
from pipeline.locales.shared_words import NAME_PARTICLES
from pipeline.text_fold import norm_key
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.locales import load_vocabulary
from pipeline.locales.en.eponym_steps import is_eponym as _eponym
from pipeline.spans import Span, marked_by_another

_PHONE_TYPES = {"PHONE", "FAX", "NUMERO_TELEFONO", "NUMERO_FAX"}
# a phone's shape inside a wider span ("call 617-555-0134"), not a run of values ("110-130/50-60")
_PHONE_INSIDE = re.compile(r"(?<![\d/.-])(?:\(\d{3}\)\s?|\d{3}[\s.-]?)\d{3}[\s.-]?\d{4}(?![\d/-])|"
                           r"(?<![\d/.-])\d{3}[\s.-]\d{4}(?![\d/-])")
# a name never holds a bare number ("GCS 14" is a score)
_NUMBER_TOKEN = re.compile(r"(?<!\S)\d+(?:[./:-]\d+)*(?!\S)")
# places that always have a name (a room, a street, a ZIP or "other" may be numbers alone)
_NAMED_PLACES = frozenset({"CITY", "STATE", "COUNTRY", "HOSPITAL", "ORGANIZATION", "DEPARTMENT"})
_TOKEN = re.compile(r"[^\W_]+|\d+(?:[./:-]\d+)*")


_NUMBERED_BODY = re.compile(r"(?i)(?<![\w-])(?:local|post|lodge|chapter|council|aerie)[ \t]+(?:no\.?[ \t]*|#[ \t]*)?\d")


def _nameless(span: Span, text: str) -> bool:
    """A machine's named place or profession made of numbers and safe clinical words only, one
    number at least: a reading or a clock time, not a place ("1500", "PAIN 0", "Glucose 60")."""
    if span.source.startswith("human"):
        return False
    if span.category in ("NAME", "LOCATION") and not any(c.isalnum() for c in text[span.start:span.end]):
        return True   # "wife + son at bs": a model's name of a lone sign (icu_invented_j find f09)
    if not (span.type.upper() in _NAMED_PLACES or span.category == "PROFESSION"):
        return False
    if _NUMBERED_BODY.search(text, span.start, span.end):
        return False   # a union's local, a veterans' post: a trade's words and a number name one
        # ("member of Carpenters Local 1187": icu_invented_p find f66)
    words = _TOKEN.findall(text, span.start, span.end)
    numbers = [w for w in words if w[0].isdigit()]
    safe = load_vocabulary("en").safe
    return bool(numbers) and all(w[0].isdigit() or (len(w) >= 2 and w.lower() in safe) for w in words)


def _has_context(span: Span, text: str) -> bool:
    """Whether the text makes ``span`` what its category says: one of its numbers has an age's
    context, a date's shape (or the span names a month or a weekday), a phone's shape or label."""
    value = text[span.start:span.end]
    pieces = [(span.start + m.start(), span.start + m.end()) for m in NUMBER_PIECE.finditer(value)]
    if span.category == "AGE":
        return any(age_context(text, s, e) for s, e in pieces)
    if span.category == "DATE":
        return bool(DATE_WORD.search(value)) or any(numeric_date_is_date(text, s, e) for s, e in pieces) \
            or year_range_at(text, span.start, span.end)
    if _PHONE_INSIDE.search(value) or re.search(r"(?<![\w-])[xX][ \t]?$", text[max(0, span.start - 3):span.start]):
        return True   # an extension's "x3-6120"
    if re.fullmatch(r"[xX]\d{3,5}", value) and re.search(r"\d{3}[\s.-]\d{4}[ \t]*$", text[max(0, span.start - 12):span.start]):
        return True   # the extension right after its phone number ("REHAB, 555-0123 X2145": icu_invented_p find f895)
    return phone_context(text, span.start, span.end) or any(phone_context(text, s, e) for s, e in pieces)


def _judged(span: Span, text: str) -> bool:
    """Whether ``span`` is one this step judges: a machine's age, date or phone number with a
    digit in it (ages in words and e-mail addresses are someone else's business)."""
    if span.source.startswith("human"):
        return False
    if span.category not in ("AGE", "DATE") and not (span.category == "CONTACT" and span.type in _PHONE_TYPES):
        return False
    return any(c.isdigit() for c in text[span.start:span.end])


@boundary_step("drop_numbers_without_context", "merged")
def drop_numbers_without_context(spans: list[Span], ctx: StepContext) -> list[Span]:
    """Ages, dates and phone numbers whose numbers their context does not make one; names holding a
    bare number.

    >>> text = "HR 90-100, MAE 5/5, 78 yo, seen 3/14."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_numbers_without_context([Span("d", 3, 9, "DATE", "DATE", source="model:crf"),
    ...     Span("d", 15, 18, "DATE", "DATE", source="model:crf"), Span("d", 20, 22, "AGE", "AGE", source="model:crf"),
    ...     Span("d", 32, 36, "DATE", "DATE", source="model:crf")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['78', '3/14']
    """
    return [s for s in spans if not (_judged(s, ctx.text) and not _has_context(s, ctx.text))
            and not (s.category == "NAME" and not s.source.startswith("human")
                     and _NUMBER_TOKEN.search(ctx.text, s.start, s.end))
            and not _nameless(s, ctx.text)]


# kinship and role words that say a name follows, and the credentials that say one came before;
# the kinship part alone is what risk scoring reads as a relative's mention (services.risk_evidence)
KINSHIP_WORDS = ("wife|husband|son|daughter|sister|brother|mother|father|mom|dad|friend|family|fiance|fiancee|"
                 "partner|niece|nephew|aunt|uncle|cousin|grandson|granddaughter|grandmother|grandfather|"
                 "girlfriend|boyfriend|neighbor|neighbour")
CONTEXT_WORDS = (KINSHIP_WORDS + "|nurse|attending|resident|fellow|intern|per|with|"
                 "rn|md|np|pa|dr|dr\\.|hcp|proxy|guardian|pcp")
_LEADING = re.compile(rf"(?i)(?:(?:{CONTEXT_WORDS})'?s?\s*[:,]?\s+)+")
# a relative's word a model took into a place's span, with what a possessive or "in law" leaves
# before it ("PT'S NIECE JOANNE", "Daughter-in-law Suzanne": icu_invented find f58, f60, f64)
_KIN_LEAD = re.compile(rf"(?i)(?:['’]s[ \t]+|(?<=['’])s[ \t]+)?(?:(?:in[ \t-]+)?laws?[ \t]+|(?:{KINSHIP_WORDS})'?s?[ \t]*[:,]?[ \t]+)")
# a relative's word inside a machine's name, after a comma ("wife joyce, sons dennis": f56)
_KIN_INSIDE = re.compile(rf"(?i)[ \t]*[,;/][ \t]*(?:and[ \t]+)?(?:{KINSHIP_WORDS})'?s?[ \t]*[:,]?[ \t]+")
_KIN_ONLY = re.compile(rf"(?i)[ \t]*(?:{KINSHIP_WORDS})(?:'?s)?[ \t]*")
# a reporting verb a relative's word comes before ("SON STATES PT IS DNR": icu_invented_c find f15)
_VERB_ONLY = re.compile(r"(?i)[ \t]*(?:states|stated|reports|reported|says|denies|requests|requested|verbalizes|verbalized|"
                        # what a relative does next ("WIFE SPEAKS LIMITED ENGLISH": icu_invented_e find f12)
                        r"speaks|spoke|called|calls|visited|visiting|updated|agrees|agreed|declined|declines|wants|"
                        r"wanted|signed|consented|brought|asked|asking|understands|understood|arrived|prefers|refuses|"
                        r"refused)[ \t]*")
# a role alone, and the "law" of a relative "in law" ("Sitter at bedside", "Son in law Ed also
# called": the cold start's model marked both on icu_invented find f49, f68)
_ROLE_ONLY = re.compile(r"(?i)[ \t]*(?:sitter|aide|interpreter|translator|chaplain|pastor|coordinator|liaison|caregiver)[ \t]*")
_IN_LAW = re.compile(r"(?i)(?:^|[ \t-])in[ \t-]$")
# (a social worker's "L. GREENE LMSW": icu_invented_l find f14)
_TRAILING = re.compile(r"(?i)(?:,?\s+(?:RN|R\.N\.|MD|M\.D\.|NP|PA-C|CNA|RRT|LICSW|LCSW|LMSW|MSW|PhD|DO))+\.?$")


# a modal verb a machine took as a name's last word, a verb after it ("ONLY PARTNER ANDRE MAY
# RECEIVE UPDATES": icu_invented_f find f13)
_MODAL_TAIL = re.compile(r"(?i)[ \t]+(?:may|will|can|should|must|would|could)$")
# a day's word a machine took after a name ("MTG W/ DR. HARDY TOMORROW AT 1100": icu_invented_h find f19)
_DAY_TAIL = re.compile(r"(?i)[ \t]+(?:today|tomorrow|tonight|yesterday|tmrw|tmr)$")
_VERB_NEXT = re.compile(r"[ \t]+([A-Za-z]+)\b")


def _modal_tail(text: str, start: int, end: int) -> re.Match | None:
    m = _MODAL_TAIL.search(text, start, end)
    nxt = _VERB_NEXT.match(text, end) if m else None
    return m if nxt and nxt.group(1).lower() in load_vocabulary("en").safe else None


@boundary_step("strip_context_words", "model")
def strip_context_words(spans: list[Span], ctx: StepContext) -> list[Span]:
    """NAME spans without a leading kinship or role word or a trailing credential; a machine's NAME
    span that is nothing but a kinship word ("husband" of "Accompanied by husband Fredrick"), a
    reporting verb ("SON STATES"), a role ("Sitter at bedside") or the "law" of "son in law" is
    dropped: the relative's name is beside it (found on generated wide notes: a 100-note wide CRF
    marked "husband" and "daughter" as doctors).

    >>> text = "Spoke with wife Mary; Smith, RN aware."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = strip_context_words([Span("d", 11, 20, "NAME", "PATIENT"), Span("d", 22, 31, "NAME", "DOCTOR"),
    ...                            Span("d", 11, 15, "NAME", "DOCTOR")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['Mary', 'Smith']
    """
    out: list[Span] = []
    for s in spans:
        if not s.source.startswith("human") and ctx.text[s.start:s.end].lower() in ("law", "laws") \
                and _IN_LAW.search(ctx.text, max(0, s.start - 4), s.start):
            continue   # "son in law": the relative's word, no place or name
        if s.category == "LOCATION" and not s.source.startswith(("human", "rule:")):
            if _KIN_ONLY.fullmatch(ctx.text[s.start:s.end]):
                continue   # "Grandson" cut from "Woburn. Grandson" (icu_invented find f36)
            lead = _KIN_LEAD.match(ctx.text, s.start, s.end)
            if lead and lead.end() < s.end:   # "PARTNER ANDRE" typed a place (icu_invented_f find f13)
                s = s.with_(start=lead.end(), category="NAME", type="PATIENT")
        if s.category == "NAME" and not s.source.startswith("human"):
            inside = _KIN_INSIDE.search(ctx.text, s.start, s.end)
            if inside and inside.start() > s.start and inside.end() < s.end:
                out.append(s.with_(end=inside.start()))   # "joyce" of "joyce, sons dennis"; "dennis" next
                s = s.with_(start=inside.end())
            piece = ctx.text[s.start:s.end]
            if _KIN_ONLY.fullmatch(piece) or _VERB_ONLY.fullmatch(piece) or _ROLE_ONLY.fullmatch(piece):
                continue
            lead = _LEADING.match(piece)
            start = s.start + (lead.end() if lead and lead.end() < len(piece) else 0)
            tail = (_TRAILING.search(ctx.text, start, s.end) or _modal_tail(ctx.text, start, s.end)
                    or _DAY_TAIL.search(ctx.text, start, s.end))
            end = tail.start() if tail and tail.start() > start else s.end
            if (start, end) != (s.start, s.end):
                s = s.with_(start=start, end=end)
        out.append(s)
    return out


_NEXT_WORD = re.compile(r"[ \t]?([^\W\d_][\w'’-]*)")
_LAST_WORD = re.compile(r"([^\W\d_]+)\W*$")


@boundary_step("extend_over_particle", "merged")
def extend_over_particle(spans: list[Span], ctx: StepContext) -> list[Span]:
    """A machine's NAME span that ends on a name particle ("van", "der", "de", "la") takes the word
    after it: a name never ends on one, and the surname left behind would be released as
    written ("maybell van der | berg"). Found on a 1M-row table benchmark's leak report.

    >>> text = "From: maybell van der berg <x>"
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> [text[s.start:s.end] for s in extend_over_particle([Span("d", 6, 21, "NAME", "PATIENT", source="rule:x")], ctx)]
    ['maybell van der berg']
    """
    out: list[Span] = []
    for s in spans:
        end = s.end
        if s.category == "NAME" and not s.source.startswith("human"):
            for _ in range(3):
                last = _LAST_WORD.search(ctx.text, s.start, end)
                if not last or last.end() != end or norm_key(last.group(1)) not in NAME_PARTICLES:
                    break
                nxt = _NEXT_WORD.match(ctx.text, end)
                if not nxt or marked_by_another(spans, s, end, nxt.end()):
                    break
                end = nxt.end()
        out.append(s if end == s.end else s.with_(end=end))
    return out


_NAME_WORD = re.compile(r"(?<![\w'’-])[^\W\d_][\w'’-]*[^\W\d_](?![\w'’-])")


def _name_key(word: str) -> str:
    low = word.lower()
    return low[:-2] if low.endswith(("'s", "’s")) else low


def _agreed_rule_names(spans: list[Span], resolved) -> list[Span]:
    """The resolved rule NAME spans that ``spans`` left out but cover wholly with NAME spans."""
    names = [(s.start, s.end) for s in spans if s.category == "NAME"]
    return [r for r in resolved if r.category == "NAME" and r.source.startswith("rule:") and r not in spans
            and any(a <= r.start and r.end <= b for a, b in names)]


def _everyday_word(key: str) -> bool:
    """A name that is also one of English's commonest words ("son will (lives on the farm)": the
    name is the relative's there, "will" elsewhere is the verb): a rule's context vouched for it
    once; elsewhere only a capital in a line with lower case does."""
    return is_safe_word(key, vocabulary=False) or (zipf(key) or 0.0) >= 5.0


def _capitalised_in_prose(text: str, m: re.Match) -> bool:
    word = m.group()
    return word[:1].isupper() and not word.isupper() and mixed_case(text, m.start())


@boundary_step("repeat_names", "merged")
def repeat_names(spans: list[Span], ctx: StepContext) -> list[Span]:
    """A person's name that a rule found by its context ("Dr. Lindgren", "wife Marjorie", "Smith,
    RN") marks the same word elsewhere in the note where nothing is marked: a note names someone
    once with a title or a role and then by the surname alone ("Lindgren aware"), in any case.
    Only rule spans are repeated (a dictionary's or a model's guess is not evidence), and only
    words of three letters or more that are neither safe nor ambiguous words ("Foley", "Brown").
    Found on the invented ICU notes' find half (benchmarks/icu_invented.py, f44). The rule spans
    the merge resolved (``ctx.resolved``) count too where a kept NAME span covers them: a model
    span that took the place of "Dr. Lindgren"'s rule span agrees a name is there, and without
    them the full detector repeated less than the rules alone (f44, f63, f70, any case).

    >>> text = "Wants Dr. Lindgren to call back. Plan: cont wean. LINDGREN aware."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = repeat_names([Span("d", 10, 18, "NAME", "DOCTOR", source="rule:titled_names")], ctx)
    >>> [(text[s.start:s.end], s.type) for s in got]
    [('Lindgren', 'DOCTOR'), ('LINDGREN', 'DOCTOR')]
    """
    vocab = load_vocabulary("en")
    names: dict[str, Span] = {}
    for s in [*spans, *_agreed_rule_names(spans, ctx.resolved)]:
        if s.category != "NAME" or s.type == "USERNAME" or not s.source.startswith("rule:"):
            continue
        for w in _NAME_WORD.finditer(ctx.text, s.start, s.end):
            key = _name_key(w.group())
            if len(key) >= 3 and key not in vocab.safe and key not in vocab.ambiguous:
                names.setdefault(key, s)
    if not names:
        return spans
    taken = bytearray(len(ctx.text))
    for s in spans:
        taken[s.start:s.end] = b"\x01" * (s.end - s.start)
    added: list[Span] = []
    for m in _NAME_WORD.finditer(ctx.text):
        src = names.get(_name_key(m.group()))
        if src is not None and _everyday_word(_name_key(m.group())) and not _capitalised_in_prose(ctx.text, m):
            continue   # "son will (lives on the farm)": "will" elsewhere is the verb unless written "Will"
        if src is not None and not any(taken[m.start():m.end()]) \
                and not _eponym(src.with_(start=m.start(), end=m.end()), ctx.text):   # "Ivor Lewis esophagectomy"
            end = m.end() - (2 if m.group().lower().endswith(("'s", "’s")) else 0)
            added.append(src.with_(start=m.start(), end=end, source="rule:repeat_names"))
    return sorted(spans + added, key=lambda s: (s.start, s.end)) if added else spans
