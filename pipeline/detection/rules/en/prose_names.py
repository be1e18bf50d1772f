"""People's names with no title, kinship word or field label, in positions only a person takes:
the subject of a person's verb ("Kasandra has been approved", "Ysolt worked for us", "Barnaby
said"), the object of a verb said of people ("please contact Oduya", "assigned to Brennagh",
"tell Eilert to", "escalated to Nkiruka"), a possessive before what a person owns or has
("Ilse's account", "Teodor's last phone ping"), a list of names joined by commas and "and"
("Tomasz, Wairimu and Odile"), and a form's or a message's subject line ("New hire: Babajide
Ogunleye, ...", "Exit survey: Rasmus (Senior ...)").

Why: the second invented PII set's find half (``benchmarks/pii_invented.py --set b --show``:
f_chat_55, f_cs_68, f_gov_23, f_gov_75, f_gps_63, f_hr_38, f_hr_57, f_hr_69, f_hr_80, f_it_12,
f_it_43, f_med_37, f_med_47, f_mixed_40, f_mkt_62, f_re_74) names people that way, and no other
rule reads those positions: :mod:`.bare_names` needs a listed first name and a rare surname,
:mod:`.context_names` a title, a role or a kinship word, :mod:`.letters_chat` a greeting.

The position is half the evidence; the word is the other half (:func:`vouched`): a listed first
name (the pack's or philter-lite's, :func:`.name_words.is_first_name`) that is no common English
word, or, in a line with lower case and written with a capital, a word English hardly uses that
looks like a name; never a safe clinical word, a function word, an ambiguous surname ("Foley") or
a typo of a ward's word. In a line written in one case (ALL CAPS, all lower case) only a listed
first name rarer still will do (an unlisted word only before a person's verb or after "contact",
"assigned to", or a subject line's pair, and rarer still). Clinical
lines keep their words: "Foley placed", "Lasix given", "Pt has been stable", "contact pharmacy".
"""
from __future__ import annotations

import re
import unicodedata

from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.bare_names import _NOT_A_PERSON_AFTER, _PLACE_FIRST, _PLACE_LAST, CAR_MAKES
from pipeline.detection.rules.en.caseless import one_case, titled
from pipeline.detection.rules.en.name_pairs import EPONYM_AFTER
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_ambiguous_word, is_first_name, is_safe_word,
                                                   is_surname_after_first_name, looks_like_name, looks_like_typo,
                                                   typo_of_ward_word, zipf)
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

#: how common a listed first name may be as an English word in a mixed-case line ("Rasmus", "Liv",
#: "Felicity"; not "Grace", "Austin", "Hope") and in a line of one case (stricter: "LIV" is a word)
FIRST_MAX_ZIPF = 4.0
ONE_CASE_FIRST_MAX_ZIPF = 3.4
#: how rare an unlisted word must be to pass as a name in a person's position ("Ysolt", "Eilert")
UNLISTED_MAX_ZIPF = 2.0
#: how rare both words of an unlisted pair on a subject line must be ("Babajide Ogunleye")
PAIR_MAX_ZIPF = 2.5
#: how rare an unlisted word must be in a line of one case ("ESCALATED TO NKIRUKA", "ysolt worked")
ONE_CASE_UNLISTED_MAX_ZIPF = 1.5

_L = r"[^\W\d_]"
_W = rf"{_L}+(?:['’-]{_L}+)*"                     # a word, accents and "O'Neil", "Strachan-Moyo" included
_NAME = rf"(?P<name>{_W}(?:[ \t]+{_W})?)"
_NAME_MID = rf"(?P<name>{_W}(?:[ \t]+[A-Z]\.)?(?:[ \t]+{_W})?)"   # a middle initial may stand inside
# verbs said of a person, after the subject ("Ysolt worked", "Kasandra has been approved")
_PERSON_VERBS = (r"said|says|told|asked|wrote|writes|emailed|called|phoned|texted|replied|confirmed|requested|"
                 r"reported|complained|mentioned|explained|agreed|declined|refused|signed|joined|left|resigned|"
                 r"retired|worked|works|lives|lived|moved|paid|missed|attended|submitted|applied|booked|"
                 r"cancelled|canceled|wants|wanted|needs|prefers|thinks|thought|knows|forgot|"
                 r"(?:has|have|had)[ \t]+(?:been[ \t]+)?(?:approved|employed|appointed|accepted|promoted|hired|enrolled|registered|"
                 r"selected|awarded|invited|assigned|transferred|notified|informed|contacted|granted|"
                 r"asked|called|emailed|confirmed|requested|joined|left|submitted|paid|signed)|"
                 r"(?:will|would|can|could|should|must|may)[ \t]+(?:attend|be[ \t]+(?:attending|joining|"
                 r"contacted|notified|in[ \t]+touch|away|out|back|late|there|taking)|call|email|send|bring|"
                 r"join|meet|contact|sign|collect|pick|need|take|present|cover|confirm|reply|arrive|visit)")
_SUBJECT = re.compile(rf"(?m)(?:^|(?<=[.!?:;])[ \t]+|(?<=\n)|\b(?i:that)[ \t]+)[ \t]*{_NAME_MID}[ \t]+(?i:{_PERSON_VERBS})\b")
# verbs and phrases whose object is a person ("contact Oduya", "escalated to Nkiruka", "tell Eilert")
_OBJECT = re.compile(rf"(?i:\b(?:please[ \t]+)?(?:contact|tell|ask|thank|remind|invite|notify|inform|congratulate|"
                     rf"welcome|cc|email|e-mail|message|text|ping|phone|ring)|"
                     rf"\b(?:re)?assigned[ \t]+(?:from|to)|\b(?:submitted|sent|written|prepared|completed|filed|raised|"
                     rf"opened|created|uploaded|issued|authori[sz]ed|booked)[ \t]+by|"
                     rf"\b(?:meeting|call|catch[ \t]+up|appointment|session|interview|lunch|dinner|chat)[ \t]+with|"
                     rf"\bescalated[ \t]+to|\bhanded[ \t]+(?:over[ \t]+)?to|"
                     rf"\bforwarded[ \t]+to|\breferred[ \t]+to|\bon[ \t]+behalf[ \t]+of|\bguardian[ \t]+of(?:[ \t]+the"
                     rf"[ \t]+minor)?|\bwriting[ \t]+(?:to[ \t]+you[ \t]+)?about|\bwants)"
                     rf"[ \t]+{_NAME}(?=[ \t]*(?:[,.;:!?)(]|$|\n|[ \t]+(?i:to|in|at|from|on|and|for|about|or|if|"
                     rf"that|back|know|today|tomorrow|asap|directly)\b))")
# a possessive before a lower-case word that is no eponym's ("Ilse's account", "Teodor's last phone")
_POSSESSIVE = re.compile(rf"(?<![\w'’-])(?P<name>{_W})['’][sS][ \t]+(?=[A-Za-z])")
# a list of two or three words joined by commas and "and" ("Tomasz, Wairimu and Odile", "Tremaine and
# Keisha Okonjo-Baptiste"): the last member may carry a surname
_LIST_BODY = (rf"(?P<a>{_W})(?:,[ \t]+(?P<b>{_W}))?,?[ \t]+(?i:and|&)[ \t]+(?P<c>{_W})(?:[ \t]+(?P<d>{_W}))?")
_LIST = re.compile(rf"(?<![\w'’-]){_LIST_BODY}(?![\w'’-])")
# such a list as the subject of a person's verb ("Kasandra and Oduya will cover the desk"): the verb
# vouches for words no list holds
_LIST_SUBJECT = re.compile(rf"(?m)(?:^|(?<=[.!?:;,])[ \t]+|(?<=\n))[ \t]*{_LIST_BODY}[ \t]+(?i:{_PERSON_VERBS})\b")
# a form's or a message's subject ("New hire: X", "Application for benefits: X,", "Patient X (",
# "Passport renewal for X,", "Winner announced! X from"): two unlisted rare words written as names
_SUBJECT_LINE = re.compile(rf"(?m)(?:(?:^|(?<=\n))[ \t]*[A-Z][\w /&-]{{0,40}}(?::|\bfor|\bPatient)|[!]|[:,][ \t]+name[ \t]*:?|"
                           rf"^[ \t]*(?:Patient|Client|Customer|Applicant|Tenant|Employee|Student))[ \t]+"
                           rf"(?P<first>[A-Z]{_L}+)(?:[ \t]+(?P<mid>[A-Z]\.|[A-Z]{_L}+))?[ \t]+(?P<last>[A-Z]{_L}+(?:['’-][A-Z]?{_L}+)?)"
                           rf"(?=[ \t]*(?:[,(|;]|\.(?:\s|$)|$)|[ \t]+from\b)")
# a name written surname first on a subject line ("Voter registration: Przybylski, Ludmila Jadwiga;")
_INVERTED = re.compile(rf"(?m)^[ \t]*[A-Za-z][\w /&-]{{0,40}}:[ \t]+(?P<last>{_W}),[ \t]+(?P<first>{_W})"
                       rf"(?:[ \t]+(?P<mid>{_W}|[A-Za-z]\.))?(?=[ \t]*(?:[;,(]|\.(?:\s|$)|$))")
# a single listed name on a subject line, closed by a comma or a bracket ("Exit survey: Rasmus (Senior")
# (not a list of things, "Access: Hickman, Broviac": after the comma a number, a first name, or an
# ordinary word: in lower case where the line has both cases, a common one in a line of one case)
_SUBJECT_ONE = re.compile(rf"(?m)^[ \t]*[A-Za-z][\w /&-]{{0,60}}:[ \t]+(?P<name>{_L}+)(?=[ \t]*(?:\(|,[ \t]+(?P<next>[\w'’-]+)))")
# the second person of a hand-over ("reassigned from Lukas to Emre Yildirim")
_FROM_TO = re.compile(rf"(?i:\b(?:re)?assigned|\bhanded[ \t]+over|\bpassed)[ \t]+(?i:from)[ \t]+{_W}[ \t]+"
                      rf"(?i:to)[ \t]+{_NAME}(?=[ \t]*(?:[,.;:!?)(]|$|\n))")
# who a service is for ("the appointment for Kasandra", "a parcel for Brennagh"): no clinical order's
# noun ("prescription for", "referral for", "order for" name drugs and services)
_FOR = re.compile(rf"(?i:\b(?:appointment|booking|reservation|ticket|invoice|parcel|package|delivery|payment|"
                  rf"refund|gift|present|message|voucher|room|table|seat|flight|visa|party|cake|reminder)s?[ \t]+for)"
                  rf"[ \t]+{_NAME}(?=[ \t]*(?:[,.;:!?)(]|$|\n|[ \t]+(?i:is|was|has|at|on|in|from|and)\b))")
# a capitalised word right before: the name goes on to the left, which the other rules read
_CAPITAL_BEFORE = re.compile(r"[A-Z][\w'’-]*[ \t]+$")
# a name followed by an age in brackets or between commas ("Rasmus (31)", "Matteo, 52, driver")
_AGE_AFTER = re.compile(rf"(?<![\w'’-]){_NAME}(?=[ \t]*\((?:(?i:age|aged)[ \t]+)?\d{{1,2}}\)|,[ \t]+\d{{1,2}},[ \t]+[A-Za-z])")
_AND_NAME = re.compile(rf"[ \t]+(?i:and|&)[ \t]+{_NAME}(?=[ \t]*(?:[,.;:!?)(]|$|\n|[ \t]+(?i:at|in|on|to|for)\b))")
# words a person's position is followed by that are no one's name
_NOT_NAMES = frozenset("""sir madam team all everyone everybody anyone someone nobody customer member members patient
patients manager support admin user staff committee board it this that them him her us me you everyone""".split())


def _plain(word: str) -> str:
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()


def vouched(word: str, cased: bool, *, unlisted: bool = True, strong: bool = False) -> bool:
    """Whether ``word`` may be a person's name in a person's position: a listed first name that is
    no common word (rarer still in a line of one case), or (``cased``: a line with lower case, the
    word capitalised; ``unlisted``) a word English hardly uses that looks like a name; in a line of
    one case, only in the strongest positions (``strong``: a person's verb after, "contact" or
    "assigned to" before) and rarer still (:data:`ONE_CASE_UNLISTED_MAX_ZIPF`)."""
    w = _plain(word)
    low = w.lower()
    if len(w) < 3 or low in FUNCTION_WORDS or low in _NOT_NAMES or low in _PLACE_FIRST or low in _PLACE_LAST \
            or low in CAR_MAKES or is_safe_word(w) or is_ambiguous_word(w):
        return False
    z = _frequency(w, cased)
    if z is None:
        return False
    if is_first_name(w) and z < (FIRST_MAX_ZIPF if cased else ONE_CASE_FIRST_MAX_ZIPF):
        return True
    if cased:
        return unlisted and _rare_shaped(w, z, UNLISTED_MAX_ZIPF)
    return unlisted and strong and _one_case_rare(w)


def _frequency(w: str, cased: bool) -> float | None:
    """``w``'s Zipf frequency, or None when it has none or, in a line with lower case (``cased``),
    is not written as a name is (a capital, then lower case)."""
    if cased and not (w[0].isupper() and not w.isupper()):
        return None
    return zipf(w)


def _rare_shaped(w: str, z: float, most: float) -> bool:
    """A word rarer than ``most`` that looks like a name after a strong context and is no typo of a
    ward's word or of a common word."""
    flat = w.lower().replace("'", "").replace("’", "").replace("-", "")
    return (z < most and looks_like_name(w, True, cased=True) and not typo_of_ward_word(flat)
            and not (z < 1.0 and looks_like_typo(flat)))


def _surname(word: str, cased: bool) -> bool:
    """Whether ``word`` after a vouched first name is its surname: a rare name-shaped word, or a listed
    surname short of the common words ("Keisha Okonjo-Baptiste", "Emre Yıldırım")."""
    w = _plain(word)
    low = w.lower()
    if len(w) < 2 or low in FUNCTION_WORDS or low in _PLACE_LAST or is_safe_word(w) or is_ambiguous_word(w):
        return False
    z = _frequency(w, cased)
    if z is None:
        return False
    parts = [p for p in re.split(r"['’-]", w) if p]
    if len(parts) > 1 and all(zipf(p) is not None and (zipf(p) < 3.0 or is_surname_after_first_name(p)) for p in parts):
        return True
    return (z < 3.0 and not typo_of_ward_word(low)) or (is_surname_after_first_name(w) and z < 4.0)


def _cased(text: str, i: int) -> bool:
    line = line_of(text, i)
    return not one_case(line) and any(w.islower() for w in line.split())


def _name_span(text: str, m: re.Match, doc_id: str, *, unlisted: bool = True) -> list[Span]:
    """The ``name`` group of ``m``: its first word vouched, its second kept only as a surname."""
    cased = _cased(text, m.start("name"))
    words = re.split(r"[ \t]+", m.group("name"))
    if not vouched(words[0], cased, unlisted=unlisted, strong=True):
        return []
    s = m.start("name")
    e = s + len(words[0])
    if len(words) > 1 and _surname(words[-1], cased):
        e = m.end("name")
    if _NOT_A_PERSON_AFTER.match(text, e) or EPONYM_AFTER.match(text, e):
        return []
    return [mk(doc_id, s, e, "PATIENT")]


@register(LOCALE, "prose_subject_names", "NAME", score=0.75)
def prose_subject_names(text: str, doc_id: str) -> list[Span]:
    """A name opening a sentence before a person's verb ("Ysolt worked", "Kasandra has been approved")."""
    return [s for m in _SUBJECT.finditer(text) for s in _name_span(text, m, doc_id)]


@register(LOCALE, "prose_object_names", "NAME", score=0.75)
def prose_object_names(text: str, doc_id: str) -> list[Span]:
    """A name after a verb said of people ("contact Oduya", "escalated to Nkiruka", "tell Eilert to")."""
    out: list[Span] = []
    for m in (m for rx in (_OBJECT, _FROM_TO, _FOR) for m in rx.finditer(text)):
        got = _name_span(text, m, doc_id)
        if got:   # a second person joined by "and" ("meeting with Oduya and Kasandra")
            nxt = _AND_NAME.match(text, got[-1].end)
            got += _name_span(text, nxt, doc_id) if nxt else []
        out += got
    return out


@register(LOCALE, "prose_aged_names", "NAME", score=0.7)
def prose_aged_names(text: str, doc_id: str) -> list[Span]:
    """A name an age follows, in brackets or between commas ("benedetta (9) forgot", "Matteo, 52,
    truck driver"); in a line of one case a listed first name only."""
    out: list[Span] = []
    for m in _AGE_AFTER.finditer(text):
        if _CAPITAL_BEFORE.search(text, max(0, m.start() - 40), m.start()):
            continue
        words = re.split(r"[ \t]+", m.group("name"))
        start = m.start("name") if len(words) == 1 else m.start("name") + len(words[0]) + 1
        one = text[start:m.end("name")]
        if len(words) == 2 and vouched(words[0], _cased(text, start)) and _surname(words[1], _cased(text, start)):
            out.append(mk(doc_id, m.start("name"), m.end("name"), "PATIENT"))
        elif vouched(one, _cased(text, start)) and not EPONYM_AFTER.match(text, m.end("name")):
            out.append(mk(doc_id, start, m.end("name"), "PATIENT"))
    return out


@register(LOCALE, "prose_possessive_names", "NAME", score=0.7)
def prose_possessive_names(text: str, doc_id: str) -> list[Span]:
    """A listed first name or a rare capitalised word before "'s" and a lower-case word that is no
    eponym's ("Ilse's account"; not "Addison's disease", "Bell's palsy")."""
    out: list[Span] = []
    for m in _POSSESSIVE.finditer(text):
        cased = _cased(text, m.start())
        if EPONYM_AFTER.match(text, m.end("name")) or not vouched(m.group("name"), cased) \
                or (cased and not text[m.end():m.end() + 1].islower()):
            continue
        out.append(mk(doc_id, *m.span("name"), "PATIENT"))
    return out


@register(LOCALE, "prose_listed_names", "NAME", score=0.7)
def prose_listed_names(text: str, doc_id: str) -> list[Span]:
    """Words joined by commas and "and", each vouched as a name and one at least a listed first name
    ("Tomasz, Wairimu and Odile"); the last may carry its surname."""
    out: list[Span] = []
    for m in [*_LIST.finditer(text), *_LIST_SUBJECT.finditer(text)]:
        cased = _cased(text, m.start())
        keys = [k for k in ("a", "b", "c") if m.group(k)]
        if not all(vouched(m.group(k), cased) for k in keys) \
                or not (m.re is _LIST_SUBJECT or any(is_first_name(_plain(m.group(k))) for k in keys)):
            continue
        end_c = m.end("d") if m.group("d") and _surname(m.group("d"), cased) else m.end("c")
        if _NOT_A_PERSON_AFTER.match(text, end_c) or EPONYM_AFTER.match(text, end_c):
            continue
        out += [mk(doc_id, *m.span(k), "PATIENT") for k in keys if k != "c"]
        out.append(mk(doc_id, m.start("c"), end_c, "PATIENT"))
    return out


@register(LOCALE, "prose_subject_line_names", "NAME", score=0.7)
def prose_subject_line_names(text: str, doc_id: str) -> list[Span]:
    """On a form's or a message's subject line: two rare words written as names ("New hire:
    Babajide Ogunleye,"; in a line of one case, read on its title-case view, two words rarer still),
    a rare surname, a comma and a first name ("Voter registration: Przybylski, Ludmila
    Jadwiga;"), or one listed first name closed by a comma or a bracket ("Exit survey: Rasmus (")."""
    out: list[Span] = []
    view = titled(text)
    for m in _SUBJECT_LINE.finditer(view):
        f, mid, la = (text[m.start(k):m.end(k)] if m.group(k) else None for k in ("first", "mid", "last"))
        cased = _cased(text, m.start("first"))
        pair = ((vouched(f, True) or _rare_name(f)) and _rare_name(la)) if cased else \
            ((vouched(f, False) or _one_case_rare(f)) and _one_case_rare(la))
        if not pair or (mid and not (len(mid) == 2 or is_first_name(_plain(mid)))):
            continue
        if _NOT_A_PERSON_AFTER.match(view, m.end("last")) or EPONYM_AFTER.match(text, m.end("last")):
            continue
        out.append(mk(doc_id, m.start("first"), m.end("last"), "PATIENT"))
    for m in _INVERTED.finditer(text):
        cased = _cased(text, m.start("last"))
        last, mid = m.group("last"), m.group("mid")
        first = m.group("first")
        if (_rare_name(last) if cased else _one_case_rare(last)) and (vouched(first, cased) or (cased and _rare_name(first))) \
                and (not mid or mid.endswith(".") or is_first_name(_plain(mid)) or (cased and _rare_name(mid))):
            out.append(mk(doc_id, m.start("last"), m.end("mid") if mid else m.end("first"), "PATIENT"))
    for m in _SUBJECT_ONE.finditer(text):
        w, cased = m.group("name"), _cased(text, m.start("name"))
        if is_first_name(_plain(w)) and vouched(w, cased, unlisted=False) and _not_a_list(m.group("next"), cased):
            out.append(mk(doc_id, *m.span("name"), "PATIENT"))
    return out


def _not_a_list(nxt: str | None, cased: bool) -> bool:
    """Whether the word after a subject line's name and its comma (None: a bracket) leaves it a
    person's name and not the first of a list of things ("Hickman, Broviac")."""
    if nxt is None or nxt[0].isdigit() or is_first_name(_plain(nxt)):
        return True
    if cased:
        return nxt[0].islower()
    z = zipf(_plain(nxt))
    return nxt.lower() in FUNCTION_WORDS or (z is not None and z >= 5.0)


def _one_case_rare(word: str) -> bool:
    """In a line of one case, a word English hardly uses (:data:`ONE_CASE_UNLISTED_MAX_ZIPF`) that
    looks like a name there and is no safe word, no typo and no word with a verb's ending."""
    w = _plain(word)
    z = zipf(w)
    return (z is not None and len(w) > 3 and not is_safe_word(w) and w.lower() not in FUNCTION_WORDS
            and looks_like_name(w, True, cased=False) and _rare_shaped(w, z, ONE_CASE_UNLISTED_MAX_ZIPF))


def _rare_name(word: str) -> bool:
    """A capitalised word English hardly uses that looks like a name and is no ward's word or typo."""
    w = _plain(word)
    low = w.lower()
    z = zipf(w)
    if z is None or len(w) < 3 or is_safe_word(w) or low in FUNCTION_WORDS or low in _PLACE_FIRST or low in _PLACE_LAST:
        return False
    return _rare_shaped(w, z, PAIR_MAX_ZIPF) or (is_first_name(w) and z < 3.0)
