"""What the words around a dictionary hit say: a stop-listed word that opens a sentence or
follows "in"/"en" is the word, not the name; a name after "San" or "Santa" is a place; a name
after a doctor's title is a doctor; a short all-capitals word is an acronym unless a capitalised
name stands beside it.

Apart from the matcher (:mod:`pipeline.detection.dictionaries`) because these are the per-language
word lists and patterns a new locale adds to, not the matching itself.
"""
from __future__ import annotations

import re

DOCTOR_TITLES = ("Dr", "Dra", "Drs", "Dres", "Doctor", "Doctora", "Prof", "Profa", "DR", "DRA")
DOCTOR_BEFORE = re.compile(r"(?:\b(?:%s)\.?|\bdoctora?)[ \t]+$" % "|".join(DOCTOR_TITLES))

# Words that are names or places but also ordinary words; they need a capital letter and must
# not open a sentence. Compared after normalisation (lower case, no accents).
STOP_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset("""
        will may hope faith grace joy june april august bill mark art rich frank gene sue pat bob don ray rose
        lily page holly dawn summer autumn sunny brown white black green gray grey long short young king bell
        cook hill wood stone rice park lane ward hall ball best good love little small strong wise price rose
        case chase cross day early hart page bush bass bird fox wolf may marsh moss reed shaw snow west north
        south miles hunter baker parker carter walker turner porter mason major person rush glass hope human
        chance christian sharp holiday lake land guy norman pierce power summers winter winters lamb
        georgia jordan chad turkey guinea china india chile mali niger togo""".split()),
    "es": frozenset("""
        mayo dolores luz sol paz consuelo amparo mercedes salud reyes pilar rey mayor real nuevo nueva santos
        cruz fe gracia asuncion concepcion soledad remedios angeles gloria esperanza victoria mar nieves
        blanco moreno rubio delgado calvo bueno rico leal pastor franco bravo cano lobo toro vega luna mesa
        campos ramos mora sierra rivera rios soto plaza prado pozo valle vera roca mata sala costa campo
        corral barrio huerta puerta granada merida leon palma cuenca ronda guinea chile china india turquia
        georgia granados lorca salvador angel caridad piedad olvido socorro rocio alba sagrario trinidad
        purificacion encarnacion milagros inmaculada montserrat belen candela clara blanca aurora fatima
        flores castillo iglesias marin cuesta herrero herrera serrano navarro medina guerra ferrer merino
        vidal marcos santiago rosario dia norte sur este oeste centro madrid general mas diez hierro salud
        vila campo lucas""".split()),
}


SAINT_BEFORE = re.compile(r"\b(?:San|Santa|Sant|Santo|Sta\.|Sto\.|Sao|São|St\.|Saint)[ \t]+$")
NOT_NAME_AFTER = re.compile(r"[ \t]+de[ \t]+Bengala\b")
PREPOSITION_BEFORE = re.compile(r"(?i)\b(?:in|on|of|since|until|by|early|late|mid|en|de|desde|hasta|el)[ \t]+$")
#: words before which a listed one-word person's name is the thing the word names, per locale: an
#: article, a possessive or a motion onto something ("THROWN ONTO HOOD AND WINDSHIELD", "HIT THE
#: HOOD": ed_invented find f05); "A" is left out, since it is an initial too ("A SMITH RN")
THING_BEFORE = {
    "en": re.compile(r"(?i)\b(?:the|an|onto|into|its|their)[ \t]+$"),
}


def caps_neighbour(text: str, start: int, end: int) -> bool:
    """Whether the word just before or after (across one blank) is also an all-capitals word."""
    before = re.search(r"(\w+)[ \t]$", text[max(0, start - 30):start])
    after = re.match(r"[ \t](\w+)", text[end:end + 30])
    return any(m and len(m.group(1)) >= 3 and m.group(1).isalpha() and m.group(1).isupper() for m in (before, after))


def sentence_start(text: str, i: int) -> bool:
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] in "\n.!?¡¿:;\"'(«-•*" or text[j] == "\ufeff"


#: the locales whose matcher asks a one-word person's name in a line of capitals for company
#: (:func:`held_up`). Spanish: on MEDDOCAN dev in capitals the full detector's strict F1 went
#: 0.904 -> 0.925 with it. Not English: its pack judges capitalised clinical words with the safe
#: vocabulary, and on ward notes in capitals the rule cost 0.003 of name recall for no precision.
CAPS_NEED_COMPANY = frozenset({"es"})
#: the locales whose matcher lets a proper-noun list hit through in a line written all in lower
#: case when its words or context vouch for it (:mod:`pipeline.detection.dictionary_lower`).
#: English: on the invented PII texts' lower-case copy the lists found no country and a third of
#: the states. Not Spanish: letting held-up hits through there cost MEDDOCAN train F1.
LOWER_LINES_VOUCHED = frozenset({"en"})
#: a line this share of whose letters or more are capitals says nothing by its case
CAPS_LINE_SHARE = 0.95
#: ... when it holds at least this many letters (a short heading decides nothing)
CAPS_LINE_MIN_LETTERS = 8
# what may stand between two name hits that hold each other up ("GARCIA LOPEZ", "LOPEZ, JUAN")
NAME_GLUE = re.compile(r"[ \t]*,?[ \t]*")
# a field label or a title right before a name on its line ("NOMBRE: ", "DR. ", "PACIENTE: ")
LABEL_BEFORE = re.compile(r":[ \t]*$")


def line_bounds(text: str, i: int) -> tuple[int, int]:
    """Start and end of the line of ``text`` holding offset ``i`` (the newline left out)."""
    b = text.find("\n", i)
    return text.rfind("\n", 0, i) + 1, b if b >= 0 else len(text)


def caps_line(text: str, i: int) -> bool:
    """Whether the line holding offset ``i`` is written in capitals (see :data:`CAPS_LINE_SHARE`)."""
    a, b = line_bounds(text, i)
    line = text[a:b]
    letters = [c for c in line if c.isalpha()]
    if len(letters) < CAPS_LINE_MIN_LETTERS:
        return False
    return sum(c.isupper() for c in letters) >= CAPS_LINE_SHARE * len(letters)


def held_up(text: str, start: int, end: int, names: list[tuple[int, int]]) -> bool:
    """Whether a name hit at ``start``-``end`` has company that says it is a name without its case:
    another name hit right beside it (blanks or a comma between), a doctor's title or a field
    label right before it."""
    for s, e in names:
        if (e <= start and NAME_GLUE.fullmatch(text, e, start)) or (s >= end and NAME_GLUE.fullmatch(text, end, s)):
            return True
    before = text[max(0, start - 12):start]
    return bool(DOCTOR_BEFORE.search(before) or LABEL_BEFORE.search(before))
