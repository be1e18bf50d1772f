"""Where in a hospital, and where a patient works: rooms and beds, wards named by a building and a
floor, hospital acronyms before an emergency department, and employers.

* a room or a bed number after "Room", "Rm", "Bed" ("Room 1006", "RM 11D", "bed 13") -> ROOM,
  never when a duration or a count follows ("bed 2 days", "in bed x 2");
* a ward named by a building's or a donor's name and a floor alone after a move ("TRANSFERRED TO
  ELLISON 11", "call out to Farr 7") -> DEPARTMENT;
* a ward named by a building's or a donor's name and a floor, in any case ("Ellison 12",
  "Colgan 17 Medicine", "Golding Wing 17", "ERDMAN PAVILION 3") -> DEPARTMENT: the name must be
  no safe word, and a floor alone needs a service word after it ("Medicine", "Oncology",
  "Surgical ICU"), since "Lasix 40" and "Levo 2" are drips;
* an acronym before an emergency department or a clinic ("seen in NEBH ED", "went to sjh er") ->
  HOSPITAL: no ward's abbreviation ("OSH ED", "peds ED"), and in a line of one case a string
  English does not use;
* an employer after "works at", "worked for", "employed by", "formerly with", "is a teacher at",
  "is a student at" -> ORGANIZATION:
  title-case words in a mixed-case line, or, in any case, words that end in an employer's word
  ("Bakery", "Trucking", "Credit Union", "Fire Department"), or, in a line of one case, up to
  three words that are no ward's word, no function word and no clinical one, one of them rare
  or a listed place ("STUDENT AT UMASS BOSTON"; "works at night", "works for the city" stay).
* after a calling and "for", a company closed by its legal word ("DECKHAND FOR VINEYARD SOUND
  FERRY CO") -> ORGANIZATION;
* after "retired (<calling>) from", "owns", "runs", an employer's name its trade's word closes
  ("retired from Hollis Woolen Mill", "PT OWNS FIELDSTONE PAVING") -> ORGANIZATION.

Every word is asked of :mod:`.name_words`, so ward words and drugs never start a place.
"""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.hospital_names import INSTITUTION_TAIL
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, has_clinical_ending, is_safe_word, looks_like_place,
                                                   looks_like_typo, zipf)
from pipeline.detection.rules.registry import register
from pipeline.locales import load_list
from pipeline.spans import Span

# (only "Rm." is an abbreviation: "BACK TO BED. 1700 CT OUTPUT" is a time: icu_invented_l find f13)
_ROOM = re.compile(r"(?i)(?<![\w])(?:room|rm\.?|bed)[ \t]*(?:#|no\.?|number)?[ \t]*:?[ \t]*"
                   r"(?P<room>\d{1,4}[A-Za-z]?(?:-\d{1,4}[A-Za-z]?)?)(?![\w./-])")
# a clock time after "room" ("PROCEDURE ROOM 0915, THRESHOLD": icu_invented_n find f05)
_CLOCK_ROOM = re.compile(r"0\d[0-5]\d")
_NOT_A_ROOM_AFTER = re.compile(r"(?i)[ \t]*(?:x\b|times|days?|d\b|hrs?|hours?|h\b|mins?|minutes|weeks?|wks?|%|mg|ml|"
                               r"cc|l\b|degrees?|deg\b|in\b|inch|cm)")
_SERVICE = (r"(?:medicine|oncology|surgery|surgical(?:\s+icu)?|orthopedics|orthopaedics|cardiology|neurology|"
            r"step-?down|transplant(?:\s+unit)?|telemetry|psychiatry|pediatrics|obstetrics|rehab(?:ilitation)?|"
            r"geriatrics|nephrology|pulmonary|gastroenterology|hematology|urology|neurosurgery|burn\s+unit|"
            r"medical\s+icu|cardiac\s+icu)")
_WARD_NAME = re.compile(
    rf"(?i)(?<![\w'-])(?P<ward>(?P<name>[A-Za-z][A-Za-z'-]+)(?:[ \t]+(?P<wing>wing|pavilion|tower|building|bldg)"
    rf"[ \t]+\d{{1,2}}[A-Za-z]?|[ \t]+\d{{1,2}}[A-Za-z]?[ \t]+{_SERVICE})(?:[ \t]+{_SERVICE})?)(?![\w-])")
# a ward named by a building and a floor alone, where a move says it is one ("TRANSFERRED TO ELLISON 11",
# "call out to Farr 7"): no service word needed there
_WARD_AFTER_MOVE = re.compile(
    r"(?i)(?<![\w])(?:transferred|transfer|tx'?d?|xfer'?d?|moved|going|go|call(?:ed)?[ \t]+out|called[ \t]+out)"
    r"[ \t]+(?:back[ \t]+)?to[ \t]+(?P<ward>(?P<name>[A-Za-z][A-Za-z'-]+)[ \t]+\d{1,2}[A-Za-z]?)(?![\w./%-])")
_NOT_A_WARD_AFTER = re.compile(r"(?i)[ \t]*(?:x\b|times|days?|hrs?|hours?|mins?|minutes|%|mg|mcg|ml|cc|units?|u\b|l\b)")
_ED = re.compile(r"(?i)(?<![\w])(?:to|at|in|from|the|@)[ \t]+(?P<abbr>[A-Za-z]{2,6})[ \t]+"
                 r"(?:ed|er|ew|e\.d\.|emergency[ \t]+(?:room|department|dept)|clinic|cath[ \t]+lab)(?![\w])")
_WORK = re.compile(r"(?i)(?<![\w])(?:(?:works?|worked|working|employed|retired|formerly|volunteers?|volunteered)"
                   # (or a shift: "WORKS 2ND SHIFT AT MERRIMACK VALLEY PACKAGING": icu_invented_p find f439)
                   r"(?:[ \t]+(?:part[ -]?time|full[ -]?time|nights|days|now|currently|"
                   r"(?:1st|2nd|3rd|first|second|third|night|day|evening|overnight)[ \t]+shift))?"
                   r"(?:[ \t]+as\s+(?:an?\s+)?[A-Za-z-]+(?:[ \t]+[A-Za-z-]+){0,2}?)?|"   # "works as a\nsecurity guard at" (f49)
                   # who a driver drives for ("he drives a delivery route for Zeeland Farm Supply", "STILL
                   # DRIVES BUS FOR MTA": spec_invented find f37, f02)
                   r"(?:drives|drove|driving)[ \t]+(?:an?[ \t]+|the[ \t]+)?(?:[A-Za-z-]+[ \t]+){0,2}?"
                   r"(?:truck|bus|route|cab|taxi|van|forklift|rig)|"
                   # "lost his job at the sunnyvale cannery" (notes_invented find f09)
                   # (no determiner too: "SINCE LOSING JOB AT NORTHSHORE PRINTING": icu_invented_p find f611)
                   r"(?:lost|losing|left|leaving|quit|started)[ \t]+(?:(?:his|her|their|a|the|a[ \t]+new)[ \t]+)?job|"
                   # a boss at the workplace ("Pt's manager at Coastal Tile & Stone called": f649)
                   r"(?:manager|supervisor|boss|foreman|coworkers?|co-workers?)|"
                   # "pt lives w/ mother, student at roxbury cc" (icu_invented_h find f04)
                   r"(?:student|freshman|sophomore)|"
                   # what a teacher teaches, then where ("PT TEACHES 5TH GRADE AT TADMUCK BROOK ELEMENTARY":
                   # icu_invented_p find f176)
                   r"teach(?:es|ing)?(?:[ \t]+[A-Za-z0-9]+){0,3}?(?=[ \t]+at\b)|"   # ("teach with cde marisol" stays)
                   # "is a teacher at", "IS A STUDENT AT": a calling's word before "at"
                   # and "is an MD at", "was a nurse at": a clinician's title says a workplace follows
                   r"(?:is|was)[ \t]+an?[ \t]+(?:[\w/-]+[ \t]+){0,3}?(?:student|md|rn|np|nurse|physician|"
                   r"[A-Za-z-]{2,}(?:er|or|ist|ian)))"
                   # a letter's line may wrap after "at" ("losing her job at\nKimball Plastics": f16, f19)
                   r"[ \t]+(?:at|for|by|with)(?:[ \t]+|[ \t]*\n[ \t]*)(?:the[ \t]+)?")
# a name in brackets after the kind of place it is ("HUSBAND'S EMPLOYER (PLAINS MILLING)", "pt's employer
# (fitzgerald bros. construction)", "presented to OSH (Door Peninsula Memorial)", "Her church (Greater
# New Hope Baptist)": icu_invented_q find f08, f10, icu_invented_p find f10, rad_invented find f10)
# (and the church's van: "BROUGHT BY CHURCH VAN (GREATER MT ZION)": spec_invented find f18)
_BRACKETED = re.compile(r"(?i)(?<![\w])(?P<kind>employer|workplace|church(?:[ \t]+van)?|congregation|parish|osh|outside[ \t]+hospital|"
                        r"referring[ \t]+hospital|outside[ \t]+facility)[ \t]*\((?P<name>[A-Za-z][A-Za-z.'&\- \t]{1,58}?)\)")
_HOSPITAL_KINDS = ("osh", "outside hospital", "referring hospital", "outside facility")
EMPLOYER_TAIL = frozenset("""bakery trucking authority department library union bank group associates inc inc. llc
cannery plant electric plastics textile textiles mall
corp corp. corporation company co co. services school academy university college church store market
restaurant factory mill shop firm agency partners industries systems foods motors insurance
drilling construction roofing plumbing landscaping logging mining farms dairy ranch freight logistics manufacturing
builders contractors diner cafe pizza grill salon transport energy hardware supply steel cc seed
paper packaging lines storage movers die elementary
paving erectors etching finishing co-op cooperative masonry excavating welding fabricators machining tool
printing lumber knitting""".split())
# ("BOOKKEEPER AT HOLLIS BOX & PAPER", "DRIVES A TRUCK FOR PELHAM FREIGHT LINES": icu_invented_p find f164, f152)
# (a trade's word closing an employer's name: "works at powder river drilling", icu_invented_g find f14; a farm
# store's "Feed & Seed", spec_invented find f43)
# the kinds of workplace "the" names without a name ("works at the feedlot", "at the shipyard")
_KINDS_OF_WORKPLACE = frozenset("""feedlot feedlots sawmill shipyard shipyards refinery quarry foundry warehouse depot
slaughterhouse packinghouse stockyard stockyards docks dock mine mines elevator cannery lumberyard junkyard""".split())
_TOKEN = re.compile(r"[A-Za-z][A-Za-z.'&-]*")
# a calling before "for" and its employer, closed by a company's legal word ("DECKHAND FOR VINEYARD
# SOUND FERRY CO": icu_invented_p find f79; "mechanic for Delgado Trucking Inc", "clerk for Brant &
# Sons LLC"): a listed calling or a word with an agent's ending; the legal word is the evidence, so
# "monitor for CO retention", "nurse for the company" stay
_CALLING_FOR = re.compile(r"(?i)(?<![\w'-])(?P<job>[A-Za-z][A-Za-z-]+)[ \t]+for[ \t]+(?:the[ \t]+)?")
_CALLING_ENDING = re.compile(r"(?i)[a-z]{2,}(?:er|or|ist|ian|hand|man|woman|ess)")
_COMPANY_CLOSER = frozenset("co co. company inc inc. llc corp corp. corporation ltd ltd. co-op cooperative".split())
# where someone retired from, what they own or run, by its name ("retired from Hollis Woolen Mill after 40
# yrs", "PT OWNS FIELDSTONE PAVING, HIS FOREMAN HAS CALLED": icu_invented_p find f289, f287): no article
# ("owns a bakery" names none), and an employer's closing word ends the name ("retired from teaching")
# (a calling between: "RETIRED MACHINIST FROM QUABBIN PRECISION TOOL": icu_invented_p find f525)
_FROM_OR_OWNS = re.compile(r"(?i)(?<![\w])(?:retired(?:[ \t]+[A-Za-z-]+){0,2}?[ \t]+from|owns|owned|runs|ran)[ \t]+"
                           r"(?!(?:an?|the|his|her|their)\b)(?=[A-Za-z])")


def _one_case(text: str, i: int) -> bool:
    s = text.rfind("\n", 0, i) + 1
    e = text.find("\n", i)
    line = text[s:e if e >= 0 else len(text)]
    return not (any(c.islower() for c in line) and any(c.isupper() for c in line))


def _ward_name_ok(name: str, text: str, i: int) -> bool:
    """A building's or a donor's name: no safe word and no function word; in a mixed-case line
    written with a capital, in a line of one case not a common word."""
    if name.lower() in FUNCTION_WORDS or is_safe_word(name):
        return False
    if _one_case(text, i):
        z = zipf(name)
        return z is None or z < 4.0
    return name[:1].isupper()


def _employer(text: str, i: int, after_the: bool = False) -> tuple[int, int] | None:
    """Up to five words from ``i``: title case in a mixed-case line, or ending in an employer's word."""
    toks = []
    for m in _TOKEN.finditer(text, i, min(len(text), i + 80)):
        # (" & " joins a name's words: "at Tennessee Valley Feed & Seed", spec_invented find f43)
        if (toks and text[toks[-1].end():m.start()] not in (" ", "\t", " & ")) or (not toks and m.start() != i):
            break
        toks.append(m)
        if len(toks) == 5:
            break
    words = [t.group().rstrip(".") for t in toks]
    tail = max((k for k, w in enumerate(words) if w.lower() in EMPLOYER_TAIL), default=-1)
    if tail >= 1 and after_the and (not any(w[:1].isupper() for w in words[:tail + 1]) if not _one_case(text, i)
                                    else not any((zipf(w) or 0.0) < 4.0 or looks_like_place(w, True) for w in words[:tail])):
        return None   # "works part time at the dollar store": a kind of shop, no name (spec_invented find f01);
        # in one case a rare word or a place names it ("AT THE KAHLE MILL")
    if tail >= 1 and all(not is_safe_word(w, vocabulary=False) or w.lower() in EMPLOYER_TAIL or w.lower() in ("and", "of")
                         for w in words[:tail]):
        return toks[0].start(), toks[tail].start() + len(words[tail])   # "SCHOOL." ends before its stop
    if _one_case(text, i):
        return _caseless_employer(toks, words, after_the)
    end = None
    for k, (t, w) in enumerate(zip(toks, words)):
        if w.lower() in ("and", "of", "&") and end is not None and k + 1 < len(words):
            continue
        # a capitalised word the general vocabulary holds but English seldom writes ("works for
        # Delphi in Kokomo": icu_invented_c find f10) names the employer as it does in one case
        if not (w[:1].isupper() and not is_safe_word(w, vocabulary=False)
                and (not is_safe_word(w) or (zipf(w) or 0.0) < 3.5)):
            break
        end = t.start() + len(w)
    return (toks[0].start(), end) if end is not None else None


def _caseless_employer(toks: list, words: list[str], after_the: bool = False) -> tuple[int, int] | None:
    """An employer's name in a line of one case: its first words while they are no ward word, no
    function word and no clinical word (up to three; after the first, no common word that is no
    listed place), one of them rare (Zipf < 4) or a listed place. After "the" a trade's common
    noun describes the workplace ("WORK AT THE LUMBER YARD": icu_invented_f find f14), so rare
    means Zipf < 3 there."""
    end, rare = None, False
    most = 3.0 if after_the else 4.0
    if after_the and words and words[0].lower() in _KINDS_OF_WORKPLACE:
        return None   # "WORKS AT THE FEEDLOT, STILL ON HIS FEET": a kind of workplace (spec_invented find f01)
    for t, w in list(zip(toks, words))[:3]:
        z, place = zipf(w) or 0.0, looks_like_place(w, strong=True)
        if w.lower() in FUNCTION_WORDS or is_safe_word(w, vocabulary=False) or has_clinical_ending(w) or (
                end is not None and z >= 4.5 and not place):   # "walmart part time"
            break
        rare = rare or z < most or (place and not after_the)
        end = t.start() + len(w)
    return (toks[0].start(), end) if end is not None and rare else None


@lru_cache(maxsize=1)
def _callings() -> frozenset[str]:
    return frozenset(e.lower() for e in load_list("en", "professions"))


def _company_words(words: list[str], one_case: bool) -> bool:
    """A company's words before its legal closing word: no function word but "and", "of", "&";
    capitalised in a mixed-case line; in a line of one case one of them rare (Zipf < 4) or a place's."""
    words = [w.rstrip(".,") for w in words]
    if any(w.lower() in FUNCTION_WORDS and w.lower() not in ("and", "of", "&") for w in words):
        return False
    if not one_case:
        return all(w[:1].isupper() or w.lower() in ("and", "of", "&") for w in words)
    return any((zipf(w) or 0.0) < 4.0 or looks_like_place(w, True) for w in words if w.lower() not in ("and", "of", "&"))


def _bracketed_name(name: str, one_case: bool) -> bool:
    """Whether the words in brackets after a kind of place name one: no ward or function word
    (but "and", "of", an employer's closing word), and in a line of one case one word English
    seldom writes (Zipf < 4) or an employer's word closing them; in mixed case each word
    capitalised ("employer (retired)", "church (none)", "OSH (see above)" are no names)."""
    words = [w.rstrip(".") for w in name.split()]
    if not words or len(words) > 5:
        return False
    for w in words:
        low = w.lower()
        if low in ("and", "of", "&") or low in EMPLOYER_TAIL:
            continue
        if low in FUNCTION_WORDS or is_safe_word(w, vocabulary=False) or has_clinical_ending(w):
            return False
        if not one_case and not w[:1].isupper():
            return False
    if one_case:   # (an institution's closing word too: "OSH (DOOR PENINSULA MEMORIAL)")
        return words[-1].lower() in EMPLOYER_TAIL | INSTITUTION_TAIL or any((zipf(w) or 0.0) < 4.0 for w in words
                                                           if w.lower() not in FUNCTION_WORDS)
    return any(w.lower() not in EMPLOYER_TAIL and w.lower() not in ("and", "of", "&") for w in words)


@register(LOCALE, "workplaces", "LOCATION", score=0.8)
def workplaces(text: str, doc_id: str) -> list[Span]:
    """Rooms and beds, wards named by a building and a floor, acronyms before "ED", and employers."""
    out: list[Span] = []
    for m in _ROOM.finditer(text):
        if not _NOT_A_ROOM_AFTER.match(text, m.end()) and not _CLOCK_ROOM.fullmatch(m.group("room")):
            out.append(mk(doc_id, *m.span("room"), "ROOM"))
    for m in _WARD_NAME.finditer(text):
        if _ward_name_ok(m.group("name"), text, m.start()):
            out.append(mk(doc_id, *m.span("ward"), "DEPARTMENT"))
    for m in _WARD_AFTER_MOVE.finditer(text):
        if _ward_name_ok(m.group("name"), text, m.start("name")) and not _NOT_A_WARD_AFTER.match(text, m.end()):
            out.append(mk(doc_id, *m.span("ward"), "DEPARTMENT"))
    for m in _ED.finditer(text):
        abbr = m.group("abbr")
        if abbr.lower() in FUNCTION_WORDS or is_safe_word(abbr, vocabulary=False):
            continue
        z = zipf(abbr) or 0.0
        if (abbr.isupper() and not _one_case(text, m.start()) and z < 4.0) or (z < 2.0 and not looks_like_typo(abbr)):
            out.append(mk(doc_id, *m.span("abbr"), "HOSPITAL"))
    for m in _WORK.finditer(text):
        got = _employer(text, m.end(), re.search(r"(?i)\bthe[ \t]+$", m.group()) is not None)
        if got:
            out.append(mk(doc_id, *got, "ORGANIZATION"))
    for m in _FROM_OR_OWNS.finditer(text):
        got = _employer(text, m.end())
        if got and text[got[0]:got[1]].split()[-1].lower().rstrip(".") in EMPLOYER_TAIL and len(text[got[0]:got[1]].split()) > 1:
            out.append(mk(doc_id, *got, "ORGANIZATION"))
    for m in _CALLING_FOR.finditer(text):
        job = m.group("job")
        if not (job.lower() in _callings() or (_CALLING_ENDING.fullmatch(job) and not is_safe_word(job, vocabulary=False))):
            continue
        got = _employer(text, m.end())
        if got and text[got[0]:got[1]].split()[-1].lower() in _COMPANY_CLOSER and len(text[got[0]:got[1]].split()) > 1 \
                and _company_words(text[got[0]:got[1]].split()[:-1], _one_case(text, m.start())):
            out.append(mk(doc_id, *got, "ORGANIZATION"))
    for m in _BRACKETED.finditer(text):
        name = m.group("name").rstrip(" \t.")
        if _bracketed_name(name, _one_case(text, m.start())):
            kind = re.sub(r"[ \t]+", " ", m.group("kind").lower())
            out.append(mk(doc_id, m.start("name"), m.start("name") + len(name),
                          "HOSPITAL" if kind in _HOSPITAL_KINDS else "ORGANIZATION"))
    return out
