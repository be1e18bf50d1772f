"""People a ward note names by their role: a first name or surname in brackets after the role
("transplant coordinator (Khanh)", "interpreter (Xay)", "RT (LUBBERS)"), a name right after an
interpreter's or a liaison's role and before what they did ("INTERPRETER ELEAZAR USED"), and a
surname after a police officer's title ("Det. Hanrahan", "Officer Kowalski"), a charting login
after a discipline and a colon ("RT:dpostma  pager 7716"), a name before a bracket that holds the
person's role or after a discipline before their pager ("per Shay (CM, x3-6120)", "SW Magaly (pgr
2291)"), a credential's sign-off ("RN/TD"), the name a patient goes by ('GOES BY "PAPO"'), the
relative named as proxy ("Rose is HCP") and a group home's staff by first name ("Group home staff
Marisol stayed").

Why: nurses name the people around a patient by what they do, not by "Dr" or "RN", and the
name often stands alone in brackets; a cold start that waits for a title misses them in every
case. The word must pass as a name after a strong context (:func:`.name_words.looks_like_name`:
no safe word, no common English word unless a listed name) and be no language, so "interpreter
(Spanish)", "interpreter (phone)", "RT (prn)" and "coordinator (transplant)" stay. Found on the
third and fourth invented ICU sets' find halves (benchmarks/icu_invented_c.py: f04, f08, f13, f14,
f27, f30; icu_invented_d.py: f03, f12, f20) and checked on the other invented sets and the clean
ICU lines.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_first_name, is_listed_name, is_listed_surname,
                                                   is_safe_word, looks_like_name, zipf)
from pipeline.detection.rules.en.towns import mixed_case
from pipeline.detection.rules.en.staff_closings import CREDENTIAL_WORDS
from pipeline.detection.rules.en.ward_vocabulary import CONTEXT
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

#: roles a ward note writes before a person's name in brackets
_ROLE = (r"interpreter|translator|coordinator|liaison|chaplain|pastor|navigator|advocate|sitter|aide|"
         r"dietitian|dietician|pharmacist|resident|fellow|intern|attending|tech|technician|therapist|"
         r"case[ \t]+manager|case[ \t]+(?:mgmt|mgr|management)|social[ \t]+worker|charge[ \t]+nurse|nurse|RT|RRT|RN|NP|PA|SW|CM|PT|OT|SLP|"
         r"perfusionist|transport|security|officer|police|detective|"
         # a service and its person in brackets ("PERFUSION (TERRY) CALLED IN", "nutrition (esther) saw pt":
         # icu_invented_p find f246, f249)
         r"perfusion|nutrition|pharmacy|"
         # a consulting service or a team and its doctor in brackets ("para by hepatology (Kirsch)",
         # "MICU team (Ferreira)": icu_invented_h find f15)
         r"hepatology|cardiology|cards|renal|nephrology|neurology|neurosurgery|nsgy|surgery|ortho|"
         r"pulm|pulmonary|oncology|onc|psych|psychiatry|palliative|urology|vascular|team|service|consult")
# (an initial may come first: "VAD COORDINATOR (P. LINDQVIST) AWARE": icu_invented_p find f1323)
_IN_BRACKETS = re.compile(rf"(?i:\b(?:{_ROLE}))[ \t]*\([ \t]*(?P<init>[A-Za-z]\.[ \t]*)?(?P<name>[A-Za-z][A-Za-z'’-]+)[ \t]*\)")
# an interpreter or a liaison named before what they did ("INTERPRETER ELEAZAR USED", "interpreter
# Amina present for the consent")
# (and a perfusionist at the balloon: "Perfusionist Dimitrios checked balloon console", icu_invented_h find f13)
# (and an educator, a coordinator, a group home's staff: "DIABETES EDUCATOR KOWALCZYK PAGED", "coordinator
# pete on call tonight", "Group home manager Lisette called": icu_invented_p find f339, f371, f395)
# (and a lactation consultant, and a title before the name: "Lactation consultant Ines in", "interpreter
# Mr. Delva used": icu_invented_p find f1236, f1241)
_BEFORE_VERB = re.compile(r"(?i:\b(?:interpreter|interp|translator|liaison|chaplain|perfusionist|phlebotomist|educator|"
                          r"coordinator|staff[ \t]+member|home[ \t]+manager|lactation[ \t]+consultant)[ \t]+"
                          r"(?:(?:mr|mrs|ms|miss)\.?[ \t]+)?)"
                          r"(?P<name>[A-Za-z][A-Za-z'’-]+)"
                          r"(?=[ \t]+(?i:used|present|here|at[ \t]+bedside|via|translated|interpreted|assisted|"
                          r"called|aware|notified|visited|checked|in|came|drew|adjusted|changed|paged|on[ \t]+call|"
                          # (or what they come to do: "diabetes educator joy to see pt tomorrow": f1181)
                          r"to[ \t]+(?:see|help|meet|speak|talk)|"
                          # (or where they came from: "LIAISON MARISOL FROM WHITCOMB REHAB SCREENED": f765)
                          r"from)\b|"
                          # (or the way they came in brackets: "PORTUGUESE INTERPRETER INES (IN PERSON)": f415)
                          r"[ \t]*\((?i:in[ \t]+person|by[ \t]+phone|phone|video|via[ \t]+phone)\)|"
                          # (or their number: "interp Joaquim #3318", "INTERPRETER JEAN-RONEL (ID 7719)":
                          # icu_invented_p find f737, f746)
                          r"[ \t]*\(?(?:#|(?i:id)[ \t]*#?)[ \t]*\d{3})")
# a discipline's shorthand, a first name and what the person did ("RT DESMOND IN, PLACED ON BIPAP":
# icu_invented_p find f100): "rt" is right too ("RT LEG IN SPLINT"), so a listed first name only
_STAFF_BEFORE_VERB = re.compile(r"(?<![\w/])(?<!\d )(?i:RT|RRT|RN|NP|SW|CM)[ \t]+(?P<name>[A-Za-z][A-Za-z'’-]+)"
                                r"(?=[ \t]+(?i:in|here|at[ \t]+bedside|aware|notified|updated|present|came|called|paged|"
                                r"to[ \t]+see|placed|changed|drew|suctioned|adjusted|on[ \t]+(?:the[ \t]+)?vent|"
                                # (or coming to the bed, or what they will do: "RT Okafor to bedside", "RT
                                # Hollis will put back on vent": icu_invented_p find f941, f944)
                                r"to[ \t]+(?:bedside|bs|help|meet|speak|talk)|will)\b)")   # ("sw kerri to help w/
                                # fmla paperwork": icu_invented_p find f1209)
# a discipline's person by first name after "per" ("PER RT GUS.", "PER PERFUSIONIST GRETA UO ON PUMP 650CC":
# icu_invented_p find f405, f515): a listed first name short of English's common words ("per RN will f/u" stays)
_PER_STAFF = re.compile(r"(?<![\w/])(?i:per)[ \t]+(?i:RT|RRT|RN|SW|CM|NP|PA|perfusionist|perfusion|pharmacist|pharmacy|"
                        r"dietitian|nutrition|interpreter)[ \t]+(?P<name>[A-Za-z][A-Za-z'’-]+)")
# a house officer by surname before what they did ("HO PETRAKIS TO BEDSIDE": icu_invented_p find f33);
# "HO" in capitals in a mixed-case line, "ho" only in a line of one case ("h/o" is a history's)
_HOUSE_OFFICER = re.compile(r"(?<![\w/])(?P<ho>HO|ho)[ \t]+(?P<name>[A-Za-z][A-Za-z'’-]+)"
                            r"(?=[ \t]+(?i:in|here|at[ \t]+bedside|to[ \t]+(?:bedside|bs|see|eval)|aware|notified|updated|"
                            r"present|came|called|paged|placed|ordered|examined|saw|evaluated)\b)")
# police titles before a surname ("Det. Hanrahan", "OFFICER KOWALSKI", "sgt. ruiz")
# ("dep. strong at bedside": a deputy sheriff, icu_invented_r find f30)
# (an officer's "ofc" without its stop: "OFC DELACROIX FROM QUINCY PD": icu_invented_p find f973)
_POLICE = re.compile(r"\b(?i:det\.|detective|officer|ofc\.?|sgt\.|sergeant|trooper|tpr\.?|deputy|dep\.)[ \t]+"
                     r"(?P<name>[A-Za-z][A-Za-z'’-]+)")
# a charting login after a discipline and a colon ("RT:dpostma  pager 7716", "RN:KWOJCIK" closing
# a line: icu_invented_c find f08): the login is the person's
_ROLE_LOGIN = re.compile(r"(?<![\w/])(?i:RN|RT|RRT|NP|MD|SW|CM|OT|SN|LPN)[ \t]?:[ \t]?(?P<name>[A-Za-z][A-Za-z0-9]{3,11})"
                         r"(?=[ \t]*(?:$|\n|(?i:pager|pgr|beeper|bpr|ext)\b|x\d|#|\(|,|;|/))", re.MULTILINE)
# a name before a bracket that holds the person's role, with up to two words of where they work
# before it ("per Shay (CM, x3-6120)": icu_invented_d find f03; "by Chip (cath lab RN)": icu_invented_c find f16)
# (or after "w/" and "call": "Timing checked w/ Cheng (cards fellow)", "will call Ines (CT fellow)":
# icu_invented_p find f38, f243)
# (and a note left for one: "note left for Adeyemi (CM)": icu_invented_p find f425)
_BEFORE_ROLE_BRACKET = re.compile(r"(?i:\b(?:(?:per|with|by|from|to|for|call|called|page|paged|spoke[ \t]+(?:with|to))[ \t]+|w/[ \t]*))"
                                  r"(?P<name>[A-Za-z][A-Za-z'’-]+)[ \t]*\([ \t]*(?:[A-Za-z]+[ \t]+){0,2}(?i:CM|SW|RN|RT|RRT|NP|PA|OT|SLP|"
                                  r"case[ \t]+manager|social[ \t]+worker|resident|fellow|attending|interpreter|chaplain)\b")
# a discipline and a name before the person's pager in brackets or after a slash or a comma ("SW
# Magaly (pgr 2291)": find f12; "RT Yaw / pgr 2291": icu_invented_b find f45)
_ROLE_BEFORE_PAGER = re.compile(r"\b(?i:SW|CM|RT|RN|NP|PA|OT|SLP|chaplain|interpreter)[ \t]+(?P<name>[A-Za-z][A-Za-z'’-]+)"
                                r"(?=[ \t]*[(/,-][ \t]*(?i:pgr|pager|beeper|bpr|x[ \t]?\d|ext|cell|#))")
# a staff sign-off of a credential and the writer's initials ("RN/TD" closing a note: find f03)
# (initials in capitals only: a lower-case "rt/ca" is a note's shorthand as often)
_CREDENTIAL_INITIALS = re.compile(r"(?m)^[ \t]*(?:RN|RT|RRT|NP|LPN|SN)/(?P<name>[A-Z]{2,3})[ \t.]*$")
# the name a patient goes by ('PT GOES BY "PAPO"', "prefers to be called Bud": icu_invented_d find f20)
# (and who knows a patient by what: "COWORKERS KNOW HIM AS "CHUY"": ed_invented find f01)
_GOES_BY = re.compile(r"(?i:\b(?:goes[ \t]+by|prefers[ \t]+to[ \t]+be[ \t]+called|known[ \t]+as|a\.?k\.?a\.?|nicknamed?|"
                      r"knows?[ \t]+(?:him|her|them|pt|patient)[ \t]+(?:only[ \t]+)?as|calls?[ \t]+(?:him|her)(?=[ \t]*[\"“])|"
                      # a newborn's chosen name in quotes ('INFANT "YANDEL" 3620G': ob_invented find f02)
                      r"(?:infant|baby|newborn|neonate|named)(?=[ \t]*[\"“])))"
                      r"[ \t]*[\"'“‘]?(?P<name>[A-Za-z][A-Za-z'’-]+)[\"'”’]?")
# a group home's or a residence's staff by first name, in brackets or before what they did ("Group home
# staff Marisol stayed until 2200", "Residential staff Devon here most of day", "GROUP HOME STAFF (JOY)
# BROUGHT IN", "group home house manager Bev": icu_invented_p find f1137, f1140, f1147, f1146)
# (and the shift between: "group home night staff delroy called": icu_invented_p find f1407)
_HOME_STAFF = re.compile(r"(?i:\b(?:group[ \t]+home|residential|residence|house|program|day[ \t]+program)[ \t]+"
                         r"(?:(?:night|day|evening|overnight|weekend)[ \t]+)?"
                         r"(?:staff(?:[ \t]+member)?|manager|house[ \t]+manager|supervisor|worker|counselor|counsellor)"
                         r")[ \t]*\(?[ \t]*(?P<name>[A-Za-z][A-Za-z'’-]+)")
# the words before "is HCP" that are no one's name ("son is HCP", "dtr is HCP", "pt is own guardian"; the
# function words, "who is HCP", are :data:`FUNCTION_WORDS`)
_KIN_OR_ROLE = frozenset(CONTEXT) | frozenset("dtr nobody noone one".split())
# a side before "AKA" ("L AKA", "bilat aka", "s/p R AKA"): a leg's amputation above the knee
_AMPUTATION = re.compile(r"(?i)\b(?:l|r|b|lt|rt|left|right|bilat|bilateral|b/l)[ \t]+aka\b")
#: languages an interpreter is named by ("interpreter (Hmong)")
LANGUAGES = frozenset("""spanish hmong arabic somali vietnamese asl mandarin cantonese chinese russian polish portuguese
creole haitian french korean japanese bosnian albanian nepali karen burmese swahili amharic tigrinya farsi persian
dari pashto urdu hindi punjabi bengali tagalog khmer cambodian lao laotian thai german italian greek turkish
romanian ukrainian serbian croatian hebrew yiddish english sign oromo kinyarwanda kirundi hausa yoruba igbo
navajo diné dine lakota ojibwe hopi yupik marshallese chuukese chamorro ilocano mixtec zapotec""".split())


def _name_ok(word: str) -> bool:
    w = word.strip("'’-").lower()
    return (w not in LANGUAGES and w not in FUNCTION_WORDS and w not in CREDENTIAL_WORDS
            and looks_like_name(word, True))


def _capitalised(word: str, text: str, i: int) -> bool:
    """A capital and then lower case, in a line that has lower case: a name's capital there."""
    return word[:1].isupper() and word[1:].islower() and mixed_case(text, i)


def _rare_word_ok(word: str) -> bool:
    """After a role and before the person's own bracket (a pager, a role): any word that is no safe,
    function, credential or language word and that English seldom writes ("Magaly")."""
    w = word.strip("'’-").lower()
    return (w not in LANGUAGES and w not in FUNCTION_WORDS and w not in CREDENTIAL_WORDS and not is_safe_word(w)
            and ((zipf(w) or 0.0) < 3.5 or looks_like_name(word, True)))


_NEWBORN_QUOTE = re.compile(r"(?i)(?:infant|baby|newborn|neonate|named)\b")
# the relative a note names as the proxy or guardian ("Rose is HCP.": icu_invented_p find f1110, and "is
# her health care proxy" alike): a listed first name, or a name's capital in a mixed-case line
_IS_PROXY = re.compile(r"(?<![\w'’/-])(?P<name>[A-Za-z][A-Za-z'’-]+)[ \t]+(?i:is|remains|will[ \t]+be)[ \t]+"
                       r"(?i:(?:the|her|his|pt'?s|their)[ \t]+)?(?i:hcp|health[ \t]*care[ \t]+proxy|proxy|dpoa|poa|guardian)\b")


def _newborn_name(text: str, m: re.Match) -> bool:
    """Whether the quoted word after "infant" or "baby" is a chosen name: with its capital in a line
    with lower case, and a listed first name or a word English seldom writes."""
    word = m.group("name")
    if not one_case_at(text, m.start("name")) and not word[:1].isupper():
        return False
    return is_first_name(word) or ((zipf(word) or 0.0) < 2.5 and not is_safe_word(word))


def _officer_name(text: str, m: re.Match) -> bool:
    """After a police title a surname that is also a word ("Correctional Officer Sterling"): in a
    mixed-case line, written with its capital and not among English's commonest words; in a line
    of one case, a listed surname short of the commonest ("OFFICER KING"; ed_invented find f15)."""
    word = m.group("name").strip("'’-")
    low = word.lower()
    if low in FUNCTION_WORDS or low in LANGUAGES or is_safe_word(word) or low.endswith("ed"):
        return False
    z = zipf(word) or 0.0
    if mixed_case(text, m.start("name")):
        return word[:1].isupper() and word[1:].islower() and z < 5.0
    # or a word English barely writes ("TROOPER DUFRESNE": icu_invented_p find f66, where lists took
    # the rank for a first name before)
    return (is_listed_name(word) and z < 5.5) or (word.isalpha() and len(word) >= 3 and z < 2.5)


@register(LOCALE, "role_names", "NAME", score=0.8)
def role_names(text: str, doc_id: str) -> list[Span]:
    """The people of the module's shapes: staff by their role, a login, a sign-off's initials, a
    police officer, a patient's own name for themself."""
    out: list[Span] = []
    for m in _CREDENTIAL_INITIALS.finditer(text):
        init = m.group("name").lower()
        if init not in FUNCTION_WORDS and init not in CREDENTIAL_WORDS:
            out.append(mk(doc_id, *m.span("name"), "DOCTOR"))
    for rx, gtype in ((_IN_BRACKETS, "DOCTOR"), (_BEFORE_VERB, "DOCTOR"), (_POLICE, "PATIENT")):
        for m in rx.finditer(text):
            if _name_ok(m.group("name")) or (rx is _POLICE and _officer_name(text, m)):
                start = m.start("init") if rx is _IN_BRACKETS and m.group("init") else m.start("name")
                out.append(mk(doc_id, start, m.end("name"), gtype))
    for m in _HOUSE_OFFICER.finditer(text):
        if m.group("ho") == "ho" and not one_case_at(text, m.start()):
            continue
        word = m.group("name").strip("'’-")
        if one_case_at(text, m.start()) and word.lower() not in FUNCTION_WORDS and not is_safe_word(word) \
                and ((is_listed_name(word) and (zipf(word) or 0.0) < 5.0) or (len(word) >= 3 and (zipf(word) or 0.0) < 2.5)):
            out.append(mk(doc_id, *m.span("name"), "DOCTOR"))   # "ho petrakis to bedside"
        elif _officer_name(text, m):
            out.append(mk(doc_id, *m.span("name"), "DOCTOR"))
    for rx in (_STAFF_BEFORE_VERB, _PER_STAFF):   # a discipline's person by a listed first name
        for m in rx.finditer(text):
            word = m.group("name")
            # (or a listed surname English seldom writes: "RT GUSTAFSON AT BEDSIDE", icu_invented_p find f762)
            listed = is_first_name(word) or (is_listed_surname(word) and (zipf(word) or 0.0) < 3.0)
            if listed and _name_ok(word) and not is_safe_word(word) and (zipf(word) or 0.0) < 4.5:
                out.append(mk(doc_id, *m.span("name"), "DOCTOR"))
    for m in _HOME_STAFF.finditer(text):
        word = m.group("name")
        if word.lower() not in _KIN_OR_ROLE and (is_first_name(word) or _capitalised(word, text, m.start())) \
                and _name_ok(word) and not is_safe_word(word):
            out.append(mk(doc_id, *m.span("name"), "PATIENT"))
    for m in _IS_PROXY.finditer(text):
        word = m.group("name")
        # a listed first name however common English writes it ("HOPE IS HCP": icu_invented_p find f1359)
        if word.lower() not in _KIN_OR_ROLE and word.lower() not in FUNCTION_WORDS \
                and (is_first_name(word) or (_capitalised(word, text, m.start()) and _name_ok(word))):
            out.append(mk(doc_id, *m.span("name"), "PATIENT"))
    for m in _GOES_BY.finditer(text):
        if _AMPUTATION.search(text, max(0, m.start() - 12), m.start() + 4):
            continue   # "L AKA STUMP WELL HEALED": an above-knee amputation, no alias (icu_invented_p find f978)
        if _NEWBORN_QUOTE.match(m.group()) and not _newborn_name(text, m):
            continue   # 'infant "fussy" after feeds': a quoted word, no chosen name
        if m.group("name").lower() not in FUNCTION_WORDS and not is_safe_word(m.group("name"), vocabulary=False):
            out.append(mk(doc_id, *m.span("name"), "PATIENT"))
    for rx in (_BEFORE_ROLE_BRACKET, _ROLE_BEFORE_PAGER):
        for m in rx.finditer(text):
            if _rare_word_ok(m.group("name")):
                out.append(mk(doc_id, *m.span("name"), "DOCTOR"))
    for m in _ROLE_LOGIN.finditer(text):
        login = m.group("name")
        if not (login.isupper() or login.islower()) or login.lower() in FUNCTION_WORDS or is_safe_word(login) \
                or (zipf(login) or 0.0) >= 3.0:
            continue   # "RN:Aware", "RT:none", "MD:notified": a ward's word, no login
        out.append(mk(doc_id, *m.span("name"), "USERNAME"))
    return dedupe(out)
