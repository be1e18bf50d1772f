"""A person's full name written with no context around it: a listed first name and a rare word,
both written as names, in a line that has lower case ("The account of Sofia Rossi was charged",
"Please update the address for Hannah Whitfield").

Why: the other name rules need a context (a title, a role, a field label, "pt", a kinship word),
and the dictionaries take a listed first name or surname alone, so a name in a letter, an e-mail,
a form's free text or an export ("My name is Tomasz Kowalczyk") was found in part or not at all.
The pair is the evidence one word is not: the first word a first name of the pack's or
philter-lite's lists that is no safe clinical word, the second a word English hardly uses (or a
listed surname short of the common words) that is no safe word, no function word and no typo of a
ward's word, and nothing around them that makes them a place, an organisation or an eponym: a
place's first or last word ("Lake Kiplagat", "Franklin Park"), a preposition of place before
("in Temple Terrace"), an institution's word or a state after ("Grace Lindqvist Hospital",
"Santa Clarita, CA", "Austin Flint murmur"). Case carries the signal, so the rule only
reads lines that have lower-case words; ALL CAPS and lower-case notes keep the context rules.
Written from the shape of names, not from any corpus's misses; checked on the generators' notes
and the ICU lines of ``benchmarks/english_rules_context.py``.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.contact import STATE_ABBR
from pipeline.detection.rules.en.name_pairs import EPONYM_AFTER, has_lower
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_first_name, is_safe_word,
                                                   is_surname_after_first_name, typo_of_ward_word, zipf)
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

# a word written as a name: "Rossi", "O'Connell", "McDonald", "Al-Sayed", "Smith-Jones"
_NAME_WORD = r"(?:[A-Z]'[A-Z][a-z]+|Mc[A-Z][a-z]+|Mac[A-Z][a-z]{2,}|[A-Z][a-z]+(?:-[A-Z][a-z]+)?)"
# a lookahead, so that "Officer James Tanaka" tries "James Tanaka" after "Officer James"
_PAIR = re.compile(rf"(?<![\w'’.-])(?=(?P<first>[A-Z][a-z]+) (?P<last>{_NAME_WORD})(?![\w'’-]))")
# what makes the pair a place, an organisation or a thing named after someone
_NOT_A_PERSON_AFTER = re.compile(
    r"[ \t]+(?:Hospital|Medical|Health|Healthcare|Clinic|Center|Centre|University|College|School|Institute|"
    r"Foundation|Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Way|Court|Place|Park|County|City|"
    r"Bank|Inc|LLC|Ltd|Corp|Company|Co|Group|Church|Memorial|Hall|Building|Pharmacy|Library|Airport|Station|"
    r"Square|Mall|Hotel|Valley|Lake|River|Mountain|Heights|Hills|Springs|Beach|Island|Association|Society|"
    r"Partners|Associates|Services|Systems|Labs?|Laboratories|Industries|Motors|Insurance|Trust|Fund|Museum|"
    r"Stadium|Arena|Theater|Theatre|Ward|Unit|Wing|Tower|Pavilion|House|Community|General|Regional|Emergency|"
    r"Transit|Authority|Hospice|Zoo|Terrace|Gardens|Estates|Village|Township)\b"
    # a town before its state ("Santa Clarita, CA", "Glen Burnie, Maryland 21061"); MD and PA are
    # credentials after a person's name far more often ("Arthur Salquist, MD")
    rf"|,[ \t]*(?:(?:{'|'.join(a for a in STATE_ABBR if a not in ('MD', 'PA'))})\b"
    r"|(?:New |North |South |West )?[A-Z][a-z]+,?[ \t]+\d{5}\b)")
# words that open or close the names of places, never a person's ("Lake Kiplagat", "Franklin Park")
_PLACE_FIRST = frozenset("""lake saint san santa cape mount fort port glen holy temple el los las del new north south
east west upper lower great little old""".split())
_PLACE_LAST = frozenset("""park lane terrace hill hills creek ridge meadows meadow woods grove heights springs falls
harbor harbour bay beach island point crossing valley view gardens estates village square place court way road
street avenue drive boulevard circle trail landing junction plaza commons""".split())
# a preposition of place before the pair ("lives in Temple Terrace", "a picnic at Fenway Park")
_PLACE_BEFORE = re.compile(r"(?i)\b(?:in|at|from|near|towards|outside|inside)[ \t]+$")
# car makers whose name is no common person's name (no "Ford", "Lincoln", "Mercedes", "Dodge"): the
# first-name lists hold "Toyota" and "Nissan", and a make with its model ("Toyota Camry", "Nissan Leaf")
# is a car, not a person. Compiled from the makes sold in the US, the UK and Europe: the one package
# that lists makes (faker-vehicle) is a Faker plug-in the project does not otherwise need (found on
# the invented PII texts' find half: form_38)
CAR_MAKES = frozenset("""toyota honda nissan hyundai subaru mazda lexus acura infiniti mitsubishi suzuki isuzu
daihatsu datsun scion volkswagen vw audi bmw porsche opel vauxhall skoda seat cupra peugeot citroen renault dacia fiat
alfa lancia ferrari lamborghini maserati bugatti chevrolet chevy buick cadillac gmc chrysler pontiac oldsmobile
plymouth saturn hummer tesla rivian polestar volvo saab jeep landrover jaguar lotus mclaren yamaha kawasaki ducati
triumph""".split())
#: makes that are people's names too ("Ford", "Lincoln"): a car only with a model year or an article before
AMBIGUOUS_CAR_MAKES = frozenset("ford lincoln mercedes dodge kia mini genesis ram bentley harley morgan austin".split())
# what makes a pair a thing and not a person: an article or an owner's word before it ("a Ford Focus",
# "my Honda Civic", "the Lincoln Navigator") or a model year ("2019 Toyota Camry", "'19 Ford Escape")
_THING_BEFORE = re.compile(r"(?i)(?:\b(?:a|an|the|my|his|our|your|their|its|new|used|old|leased|rented)|\b(?:19|20)\d\d|'\d\d)"
                           r"[ \t]+$")
#: the most common words a first name may be and still open a name with a rare surname ("Hope Whitfield")
FIRST_MAX_ZIPF = 5.6
#: how rare the second word must be, unless it is a listed surname short of the common words
LAST_MAX_ZIPF = 3.6


def _is_first(word: str) -> bool:
    z = zipf(word)
    return (word.lower() not in _PLACE_FIRST and is_first_name(word) and not is_safe_word(word) and word.lower() not in FUNCTION_WORDS
            and z is not None and z < FIRST_MAX_ZIPF)


def _is_last(word: str) -> bool:
    z = zipf(word)
    if z is None or is_safe_word(word) or word.lower() in FUNCTION_WORDS or word.lower() in _PLACE_LAST:
        return False
    plain = word.replace("'", "").replace("-", "")
    # a typo of a ward's word is none ("Pateint"); one edit from any common word says nothing here:
    # surnames often are ("Rossi", "Bello")
    return (z < LAST_MAX_ZIPF and not typo_of_ward_word(plain)) or is_surname_after_first_name(word)


# a police or military rank is the title before a surname, never a first name ("Trooper Dufresne (state
# police) here at 0815": icu_invented_p find f66; lists hold "Trooper" as a first name)
RANKS = frozenset("trooper officer deputy sergeant detective constable corporal captain lieutenant marshal".split())


@register(LOCALE, "bare_full_names", "NAME", score=0.8)
def bare_full_names(text: str, doc_id: str) -> list[Span]:
    """A listed first name and a rare name-shaped word after it, in a mixed-case line, nothing
    after them that makes them a place or an eponym, no car's make and no article, owner's word or
    model year before them that makes them a thing."""
    out: list[Span] = []
    for m in _PAIR.finditer(text):
        if not (_is_first(m.group("first")) and _is_last(m.group("last")) and has_lower(text, m.start())):
            continue
        end = m.end("last")
        if _NOT_A_PERSON_AFTER.match(text, end) or EPONYM_AFTER.match(text, end) \
                or _PLACE_BEFORE.search(text, max(0, m.start() - 12), m.start()) \
                or m.group("first").lower() in CAR_MAKES or _THING_BEFORE.search(text, max(0, m.start() - 12), m.start()) \
                or m.group("first").lower() in RANKS:
            continue
        out.append(mk(doc_id, m.start("first"), end, "PATIENT"))
    return out
