"""The English pack's step for an institution's head word: the noun that says what a named place is.

* ``extend_over_institution_heads`` (merged stage): a machine's hospital or organisation span that
  stops right before the word saying what kind of place it names takes that word, and up to two
  name words before it: "Nantasket Bay | VNA", "Seaport Pavilion | Hotel", "Bayside Linen |
  Service", "South Shore | Elder Services". A town span before such a word becomes the place it
  names ("Fairview | Manor", "Orange | PD", "Dublin | Lake"). The head is an ordinary word, so the
  rules and lists that read name words stop before it, most of all in a line of one case, where
  no capital carries the name on; yet its characters are PHI in the invented sets' conventions:
  on their find halves a gold place ends with one of these heads 824 times and is followed by one
  17 times. Left out: "LTAC" and "SNF" (taking them cost four check halves precision, counted
  without reading their text; the rules leave them out too,
  :mod:`pipeline.detection.rules.en.hospital_names`), a shelter (on the find halves outside
  the name 9 times, inside 12), a full stop after "Co" (a sentence's as often as the name's), a
  person's span.

Found on the find halves of the invented sets (``icu_invented_p`` find f216, f761, f1015, f1123,
f1262, f1298, f15, f1382; ``clinic_invented`` find f08, f16; ``ed_invented`` find f24;
``icu_invented_b`` find f51), then on the lower-case misses of the 328-note loop's model on
``icu_invented_p``'s find half, which it never trained on (f642, f925, f1247, f1297, f1298, f1412,
f479, f1180: an "Assoc", a state's police, a children's hospital, a family health centre, a
restaurant, a casino, a jail, a club); its heads counted over every set's find half.
"""
from __future__ import annotations

import re

from pipeline.detection.rules import to_schema
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word
from pipeline.detection.rules.en.towns import mixed_case
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span, marked_by_another

#: heads of a place of care: a hospital's, a practice's, a home's (not "LTAC", "SNF": see above)
CARE_HEADS = frozenset("""hospital hosp regional general memorial manor rehab rehabilitation hospice respite recovery
infirmary clinic cardiology neurology oncology urology orthopedics pediatrics dialysis healthcare health children's
childrens""".split())
#: heads of an organisation: an agency, a firm, a school, a church, a hotel, a home that is no hospital
ORG_HEADS = frozenset("""vna services service co company inc corp corporation llc ltd works pd fd college university
academy institute church chapel baptist methodist museum hotel inn motel residence house commons farm farms
equipment supply supplies society associates foundation agency pantry center centre restaurant casino club lodge
jail police""".split())
#: heads of a place in nature: what a town's name before one names instead
NATURE_HEADS = frozenset("river lake pond beach island harbor harbour mountain mtn".split())
#: the heads a town span takes right after it: those that name an institution by its town ("Salem
#: PD", "Reading Hospital", "Fairview Manor") or a place in nature by it; not "house", "center",
#: "service", which follow a town as often in prose ("a Quincy house", "Quincy center"); after a
#: name word between them, every head ("South Shore Elder Services", "Salem Senior Center")
TOWN_HEADS = frozenset("""hospital hosp regional general memorial manor rehab hospice cardiology neurology oncology
children's childrens vna pd fd police college university academy""".split()) | NATURE_HEADS
#: heads that are adjectives before a noun elsewhere ("regional anesthesia", "general surgery",
#: "memorial service"): no head before one of these nouns; before another head, part of the name
#: ("Hope Baptist Church"); before any other word, a head ("Taunton General ED", "Hollis Memorial
#: paged": how the find halves' gold places ending on one go on)
ADJECTIVE_HEADS = frozenset("regional general memorial baptist methodist children's childrens".split())
ADJECTIVE_NOUNS = frozenset("""anesthesia anaesthesia surgery surgical surgeon surgeons medicine medical block blocks wall
walls motion appearance condition conditions health ward wards floor floors service services day days practitioner
practitioners practice pediatrics lymph lymphadenopathy enlargement weakness malaise fatigue edema swelling care
anxiety population public manager contractor store stores debility deconditioning impression principles instructions
nursing assembly election counsel""".split())
#: heads that also lead another ("Bayside Health Clinic"): they take the head after them
LEADING_HEADS = frozenset({"health"})
_LEADING_OR_ADJECTIVE = ADJECTIVE_HEADS | LEADING_HEADS
#: heads that close a name after another ("Medical Supply Co", "Harbor VNA Services", "Hospice House")
CLOSING_HEADS = frozenset("""co company inc corp corporation llc ltd service services associates assoc center centre
house""".split())
#: words joining two name words ("Heart & Vascular", "Fire and Rescue")
_JOINERS = frozenset({"&", "and"})
_WORD = re.compile(r"[ \t]+(&|[^\W\d_][\w'’-]*)")
_INSTITUTION_TYPES = frozenset({"HOSPITAL", "ORGANIZATION"})


def _head_type(word: str, town: bool) -> str | None:
    """The generic type the span becomes when ``word`` (lower case) ends it, or ``None``; ``town``:
    a town's span with the head right after it."""
    if town and word not in TOWN_HEADS:
        return None
    if word in NATURE_HEADS:
        return "LOCATION-OTHER" if town else None
    if word in CARE_HEADS:
        return "HOSPITAL"
    return "ORGANIZATION" if word in ORG_HEADS else None


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _next_word(text: str, pos: int, capital: bool) -> tuple[re.Match, str] | None:
    """The next word on the line and its lower-case form, where it may be part of a name: no
    function word but "&" or "and", capitalised after a capitalised name in a line with both cases."""
    m = _WORD.match(text, pos)
    if m is None:
        return None
    word = m.group(1)
    low = word.lower().rstrip("'’")
    if word not in _JOINERS and (low in FUNCTION_WORDS or (capital and not _capitalised(word))):
        return None
    return m, low


def _whole(words: list[str], town: bool) -> bool:
    """Whether a span of ``words`` takes no head after it: a name holding a head before its last
    word, one that leads no other ("VNA of Cape Cod | services"; a check half lost precision to
    such spans of the starter's model, counted, their text not read), whose thing it is ("pt's
    sober | house": icu_invented_p find f848), a town that ends on a head."""
    if any(_head_type(w.lower(), False) is not None and w.lower() not in _LEADING_OR_ADJECTIVE
           for w in words[:-1]):
        return True
    first = words[0].lower()
    if first.endswith(("'s", "’s")) and (first[:-2] in FUNCTION_WORDS or is_safe_word(first[:-2], vocabulary=False)):
        return True
    return town and _head_type(words[-1].lower(), False) is not None


def head_after(text: str, start: int, end: int, town: bool) -> tuple[int, str] | None:
    """Where a named place's head word ends after ``text[start:end]`` and the type it gives, or
    ``None``: up to three name words on the line ("&" or "and" only between two), the last a head,
    and the closing heads right after it ("Supply Co", "VNA Services"); in a line with both cases
    each written as the span's last word is (capitalised after a capitalised name).

    >>> text = "drives for Bay Medical Supply Co in Lynn"
    >>> text[11:head_after(text, 11, 14, False)[0]]
    'Bay Medical Supply Co'
    """
    words_in = text[start:end].split()
    if not words_in or _whole(words_in, town):
        return None
    last, low_last = words_in[-1], words_in[-1].lower()
    capital = mixed_case(text, start) and _capitalised(last)
    if _head_type(low_last, False) is not None and low_last not in _LEADING_OR_ADJECTIVE:
        # a name that has its head already takes only a closing one ("Harbor VNA | Services"), never
        # the care it gives ("the Harbor VNA hospice team")
        nxt = _next_word(text, end, capital)
        return (nxt[0].end(), "ORGANIZATION") if nxt is not None and nxt[1] in CLOSING_HEADS else None
    if low_last in ADJECTIVE_HEADS and (nxt := _next_word(text, end, capital)) is not None \
            and nxt[1] in ADJECTIVE_NOUNS:
        return None   # "Ashby Regional | anesthesia clinic"; after "Regional" or "Health" a name goes on
        # to its head as after any name word ("Coastal Health | Family Practice Center")
    pos, words, got = end, 0, None
    while words < 3:
        nxt = _next_word(text, pos, capital)
        if nxt is None or (words == 0 and nxt[1] in _JOINERS):
            return None
        m, low = nxt
        pos = m.end()
        if low in _JOINERS:
            continue
        words += 1
        gtype = _head_type(low, town and words == 1)   # "South Shore | Elder Services": a name word between
        if gtype is not None:
            got = (pos, gtype)
            break
    if got is None:
        return None
    head = text[:pos].split()[-1].lower()
    if head in _LEADING_OR_ADJECTIVE:
        nxt = _next_word(text, pos, capital)
        if nxt is not None and head in ADJECTIVE_HEADS and nxt[1] in ADJECTIVE_NOUNS:
            return None   # "Shepherd regional anesthesia", "Salem general surgery"
        if nxt is not None and _head_type(nxt[1], False) is not None:
            pos = nxt[0].end()   # "New Hope Baptist | Church", "Coastal Health | Clinic"
    while (nxt := _next_word(text, pos, capital)) is not None and nxt[1] in CLOSING_HEADS:
        pos = nxt[0].end()
    return pos, got[1]


@boundary_step("extend_over_institution_heads", "merged")
def extend_over_institution_heads(spans: list[Span], ctx: StepContext) -> list[Span]:
    """``spans`` with each machine's hospital, organisation or town span that stops before its head
    word taking it (and the name words before it), where nothing else is marked there.

    >>> text = "plan home w/ nantasket bay vna for rn visits"
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = extend_over_institution_heads([Span("d", 13, 26, "LOCATION", "ORGANIZATION", source="rule:x")], ctx)
    >>> [(text[s.start:s.end], s.type) for s in got]
    [('nantasket bay vna', 'ORGANIZATION')]
    """
    out: list[Span] = []
    for s in spans:
        town = s.type == "CITY"
        if s.category != "LOCATION" or s.source.startswith("human") or not (town or s.type in _INSTITUTION_TYPES):
            out.append(s)
            continue
        got = head_after(ctx.text, s.start, s.end, town)
        if got is None or marked_by_another(spans, s, s.end, got[0]):
            out.append(s)
            continue
        end, gtype = got
        if town:   # (a place in nature is only ever a town's head: _head_type)
            moved = to_schema([Span(s.doc_id, s.start, end, "LOCATION", gtype)], ctx.schema)
            out.append(moved[0].with_(source=s.source, score=s.score) if moved else s.with_(end=end))
        else:
            out.append(s.with_(end=end))
    return out
