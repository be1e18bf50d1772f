"""Hospitals and towns as ward notes write them: in any case, abbreviated, without a state.

* a hospital by its head word: the name-like words before "Hospital", "Medical Center", "Med
  Ctr", "Nursing Home", "Rehab Center", "Hosp" ("mercy hospital", "ST. ANNE'S HOSPITAL", "CAPE COD
  HOSP"), head included;
* a hospital after a transfer: the name or abbreviation after "transferred from/to", "admitted
  to", "sent to", "came from", "returned from" ("transferred from NEBH", "to Baystate"), and an
  abbreviation in capitals after "at" or "from" in a mixed-case line ("seen at MGH");
* a town after "lives in", "resides in", "moved from", "born in" ("LIVES IN BROCKTON"), and a
  listed one after "from";
* a facility named before the care it gives, in any case: "hebrew rehab", "Lantern Hill Assisted
  Living" (head included), "MELROSE VNA", "<name> LTAC/SNF" (the name alone); never the care
  word with a safe word ("cardiac rehab", "inpatient rehab", "to rehab when stable");
* a saint's, a mount's or a holy name after "at", "from", "to" ("from st. elizabeths", "TO HOLY
  FAMILY") and the other facilities named by their context (:mod:`.named_facilities`), and the town
  after any facility found ("HOLY FAMILY IN METHUEN", "HOSP IN METHUEN").

Ward abbreviations (MICU, CCU, OR, ED, CT, "OSH" for an outside hospital, "floor", "rehab") are
safe words (:func:`.name_words.is_safe_word`) and never a place here.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of as _line, mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case
from pipeline.detection.rules.en.following_place import following_place, listed_facilities, named_in_mixed_case
from pipeline.detection.rules.en.following_place import one_case_facility
from pipeline.detection.rules.en.named_facilities import named_facilities
from pipeline.detection.rules.en.hospital_acronyms import (acronyms_in_towns, defined_acronyms, department_acronym,
                                                         initials_of_found, town_after_acronym)
from pipeline.detection.rules.en.hospital_names import GENERIC as _GENERIC, HEAD as _HEAD, closed_by_head
from pipeline.detection.rules.en.hospital_names import hospital_names as _hospital_names
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, looks_like_place, looks_like_typo, zipf
from pipeline.detection.rules.en.place_abbreviations import abbreviation as _abbreviation
from pipeline.detection.rules.en.place_abbreviations import any_case_abbreviation as _any_case_abbreviation
from pipeline.detection.rules.en.state_codes import _state_codes, codes_not_words, kin_state_code, state_after_town, state_code
from pipeline.detection.rules.en.towns import PLACE_TOKEN as _PLACE_TOKEN
from pipeline.detection.rules.en.towns import listed_place_type, lower_case_places, mixed_case as _mixed_case
from pipeline.detection.rules.en.towns import one_case_town, prose_places, town_before_place, word_town
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe


_MOVE = re.compile(
    # a facility that screens or accepts a patient ("screened by Spaulding", "ACCEPTED AT KINDRED")
    r"(?i)(?<![\w])(?:(?:screened|screening|screen|accepted|evaluated)\s+(?:by|at)\s+(?:the\s+)?|"
    # the hospital an ambulance passed by ("BYPASSED REDBUD MEMORIAL - NO CT": ed_invented find f19)
    r"(?:bypass(?:ed|ing)?|diverted\s+from)\s+(?:the\s+)?|"
    r"(?:transferred|transfer|xfer'?d|xferred|tx'?d|admitted|sent|came|arrived|discharged?|dc'?d|d/c'?d|"
    r"returned|returning|return|brought|taken|transported|flown|med-?flighted|moved|referred|go|goes|going|went|"
    r"transfered|trasnferred|tranferred|txfr'?d?|d/c|dc|"   # as notes misspell or shorten it
    # ("likely tx to CBMC", "?tx to cbmc if needs intubation": a transfer's shorthand before "to" only,
    # icu_invented_p find f289, f299, f302)
    r"tx(?=\s+to\b)|"
    # where an injured patient was taken first ("INITIALLY TO PVMC IN WESTERLY": icu_invented_p find f166)
    r"initially)"
    r"(?:\s+(?:back|here|over|in|out))?(?:\s+(?:via|by)\s+(?:med[\s-]?flight|life[\s-]?flight|air|ambulance|ems|"
    r"helicopter|ground|car|family|wheelchair|stretcher|ALS|BLS))?\s+(?:from|to)\s+(?:the\s+)?)")
_AT_ABBR = re.compile(r"(?<![\w])(?:[Aa]t|[Ff]rom|@)\s+(?P<abbr>[A-Z]{2,6})(?![\w-])")   # "At GH CT showed" (find f43)
_AT_ABBR_ONE_CASE = re.compile(r"(?<![\w])(?:AT|FROM|at|from|@)\s+(?P<abbr>[A-Z]{3,6}|[a-z]{3,6})(?![\w-])")
_TOWN = re.compile(
    # "lives with her husband in Quincy", "LIVES WITH HIS WIFE ALEXUS GOUGH IN SANFORD" (tried first)
    r"(?i)(?<![\w])(?:lives|living|resides|residing|staying|stays)\s+(?:with|w/)\s*[^\n.;:()]{1,40}?\s+in\s+|"
    # a relative and where they come from: "DAUGHTER LORI FROM HAVERHILL", "sister denise from chicago"
    r"(?<![\w])(?:wife|husband|son|daughter|dtr|sister|brother|mother|father|niece|nephew|cousin|friend)"
    r"(?:\s+[A-Za-z][A-Za-z'-]*)?\s+(?:is\s+)?(?:visiting\s+|flying\s+in\s+|driving\s+up\s+)?from\s+|"
    # "sister in glen rock is emergency contact", "flew in from Moncton", "will drive to Bala Cynwyd"
    # (icu_invented_b find f50, f54, f58)
    # (and parents, and how far away they are: "PARENTS IN HANOI", "DAUGHTER 30 MIN AWAY IN GARDNER":
    # icu_invented_p find f995, f1015)
    r"(?<![\w])(?:wife|husband|son|daughter|sister|brother|niece|nephew|cousin|parents)"
    r"(?:\s+(?:about\s+|~\s*)?\d+(?:\.\d+)?\s*(?:hrs?|hours?|mins?|minutes?|miles?|mi)\s+away)?\s+in\s+(?!law\b)|"
    # (a boat's home port: "works on boat out of Gloucester", "goes out on a dragger out of point judith":
    # icu_invented_p find f1083, f1153, f917)
    r"(?<![\w])(?:boat|dragger|scalloper|trawler|fishes|fishing|fished)\b[^\n.;:()]{0,30}?\s+out\s+of\s+|"
    # (and who drove whom: "daughter Marisol who drove her over from Palisade": spec_invented find f33)
    r"(?<![\w])(?:flew|flown|drove)(?:\s+(?:him|her|them|me|us))?(?:\s+(?:in|up|down|over))?\s+from\s+|"
    # ("LIVING DONORS", "living donation info", "live vaccine": what lives, no residence; spec_invented find f08)
    r"(?<![\w])(?:lives|(?:live|living)(?![ \t]+(?:will|wills|donors?|donation|related|unrelated|situation|arrangements?|"
    r"room|quarters|conditions?|expenses|space|skills|vaccines?|births?|organs?|kidney|liver)\b)|"
    r"resides|residing|resident\s+of|home\s+in|home\s+to|moved\s+(?:here\s+)?from|born\s+in|"
    r"native\s+of|town\s+of|city\s+of|visiting\s+from|visits\s+from|originally\s+from|(?:is|are|was)\s+from|vacation(?:ing)?\s+in|"
    # who calls or comes from a place ("SON CALLED FROM PITTSFIELD", "PT FROM NEW BEDFORD"); "from home",
    # "from OR", "from the lab" stop at a residence, ward or function word
    # (and a relative driving down or up: "husband dale driving down from nh": icu_invented_p find f1400)
    r"(?:called|calling|phoned|driving|flying)(?:\s+(?:in|down|up|over))?\s+from|(?:pt|patient|family)\s+from|"
    # "lives independently in Wooster" (notes_invented find f27)
    r"trip\s+to|travel(?:l)?ed\s+to)(?:\s+(?:in|at|alone|independently|by\s+(?:him|her)self|with\s+\w+|"
    # where a home lies from a town ("PT LIVES ABOVE MAN, NEAREST PAVED RD IS 2 MI": spec_invented find f15)
    r"(?:just\s+)?(?:above|below|outside(?:\s+of)?|past|beyond|(?:north|south|east|west)\s+of)|"
    # how far away: "LIVES 1 HR AWAY IN LIBERTY" (icu_invented_j find f15)
    r"(?:about\s+|~\s*)?\d+(?:\.\d+)?\s*(?:hrs?|hours?|mins?|minutes?|miles?|mi)\s+away))?\s+(?:in\s+)?")
# where a patient was seen before: a hospital, abbreviated in any case ("seen at uhf yesterday")
_SEEN_AT = re.compile(r"(?i)(?<![\w])(?:(?:seen|evaluated|treated|hospitali[sz]ed|followed|presented|worked\s+up)"
                      r"\s+(?:at|to)|"
                      # what was done elsewhere: "tPA given at Ephrata Community" (icu_invented_b find f24)
                      r"(?:given|done|performed)\s+at|"
                      # where the PCP or a doctor works: "PCP is Dr. Goldstein at Harvard Vanguard",
                      # "followed by Dr. Ahmed at South Shore", "DR HOROWITZ FROM DANA FARBER FOLLOWING"
                      r"pcp\b[^\n;]{0,40}?\s+at|\bdr\.?[ \t]+[A-Za-z'-]+[ \t]+(?:at|from)|"
                      # a specialist's practice: "sees a cardiologist at brch" (icu_invented_i find f04)
                      r"(?:cardiologist|oncologist|neurologist|nephrologist|pulmonologist|endocrinologist|"
                      r"hematologist|gastroenterologist|psychiatrist|rheumatologist|urologist|surgeon|specialist)s?"
                      r"\s+(?:at|from))\s+(?:the\s+)?")
# the places a patient goes that a note names by their kind, before the town they are in
# (and a pharmacy: "PT STATES SHE USES HADLEY'S PHARMACY IN IPSWICH": icu_invented_p find f189)
_VENUE_WORDS = r"vfw|legion|library|senior[ \t]+center|church|mall|jail|shelter|plant|mill|pharmacy"
# a town after a place of care or a doctor ("facility in Far Rockaway", "PCP Dr. Hudson in Collierville")
_IN_TOWN = re.compile(r"(?i)(?<![\w])(?:facility|rehab|nursing\s+home|snf|clinic|practice|office|pcp\b[^\n]{0,40}?|"
                      # where a doctor practises ("his cardiologist dr. mehta in edison": icu_invented_g find f05)
                      r"\bdr\.?[ \t]+[A-Za-z'-]{2,}|"
                      # a place the patient goes, named by its kind ("goes to the vfw in hurricane":
                      # spec_invented find f10)
                      rf"{_VENUE_WORDS})"
                      r"\s+in\s+")
_VENUE = re.compile(rf"(?i)(?:{_VENUE_WORDS})\b")
# "66 y.o. F from methuen", "a 42-year-old construction worker from isla vista"
_AGE_FROM = re.compile(r"(?i)(?<![A-Za-z])(?:(?:yo|y/o|y\.o\.?|yr\s+old|year[\s-]old|(?<=\d)[ \t]?[mf])[ \t]+(?:[A-Za-z'-]+[ \t]+){0,3}?|"
                       # "PT IS A CONSTRUCTION WORKER FROM TAUNTON": who the patient is, then where from
                       # and "FATHER IS A FIREFIGHTER IN CHELSEA": a relative's calling, then where
                       r"(?:pt|patient|he|she|father|mother|son|daughter|wife|husband|brother|sister)[ \t]+"
                       r"(?:is|was)[ \t]+an?[ \t]+(?:[A-Za-z'-]+[ \t]+){1,4}?|"
                       # "PT WORKS AS LINE COOK IN GLOUCESTER", "a high school chemistry teacher in Hudson
                       # NH" (icu_invented_p find f02, f03): a calling of up to four words, then where
                       r"(?:works|worked|working)[ \t]+as[ \t]+(?:an?[ \t]+)?(?:[A-Za-z'-]+[ \t]+){1,4}?)"
                       r"(?:from|in)[ \t]+")
# a town's fire or police department ("SHOCKED X2 BY WESTWOOD FIRE DEPT")
_SERVICE_TOWN = re.compile(r"(?i)(?<![\w'-])(?P<town>[A-Za-z][A-Za-z'-]+[A-Za-z])[ \t]+(?:(?:fire|police)[ \t]+"
                           r"(?:dept|department|rescue|station)|twp|township|boro|borough)\b")   # "Paradise twp" (find f49)
# what a ward writes after "near" as one word with it ("near syncope", "near drowning", "near total")
_NEAR_CLINICAL = re.compile(r"(?i)syncope|syncopal|drowning|total|complete|occlusion|occlusive|miss|fall|death|arrest|"
                            r"baseline|term")
# a listed town's firefighter or police officer ("brother-in-law is a chelsea firefighter":
# icu_invented_k find f16)
_TOWN_JOB = re.compile(r"(?i)(?<![\w'-])(?P<town>[a-z][a-z'-]+[a-z])[ \t]+(?:firefighter|fireman|police[ \t]+officer|cop)\b")
# "from" alone is a weak context ("from home", "from 4.0", "from OR"): a listed place only
_FROM = re.compile(r"(?i)(?<![\w])from\s+")
# (one word may name the meeting's kind: "case reviewed at GU consensus conference": rad_invented find f03)
_MEETING_AFTER = re.compile(r"(?i)(?:[ \t]+[a-z]+)?[ \t]+(?:rounds|meeting|huddle|conference|team|board)\b")
# where family travels ("she will drive to Bala Cynwyd tonight": find f58): a place's words only,
# never a town's shape in a line of one case ("DRIVING TO APPOINTMENTS")
_TRAVEL_TO = re.compile(r"(?i)(?<![\w])(?:drive|drives|driving|fly|flies|flying)\s+(?:back\s+|home\s+)?to\s+")
# where a visitor went home to ("WIFE AT BEDSIDE UNTIL 2100, THEN HOME TO READING.": icu_invented_p find f151)
# ("SHE IS DRIVING HOME TO READING TONIGHT": icu_invented_p find f273)
_HOME_TO = re.compile(r"(?i)(?<![\w])(?:then|went|gone|going|left|headed|returned|drove|driving|drives|flying|flew)"
                      r"[ \t]+home[ \t]+to[ \t]+")
# where a home is, a town follows: "a trailer park off Route 61 in Frackville", "NEAR HER IN
# BOYERTOWN", "near Fleetwood" (icu_invented_b find f01, f04, f09); a farm or ranch "outside" a town
# and a mine "in" one ("From ranch outside Pie Town", "LAID OFF FROM THE MINE IN GRANTS":
# icu_invented_s find f16, f02; a town that is a common word in a line of one case, "ON A FARM
# OUTSIDE MONEY" in icu_invented_r find f02, is still not read)
# (and a home's grounds: "SLIPPED ON ICE IN HER DRIVEWAY IN SANDWICH": icu_invented_p find f974)
_HOME_IN = re.compile(r"(?i)(?<![\w])(?:(?:trailer|farm|farmhouse|ranch|orchard|apartment|apt|condo|townhouse|duplex|house|rowhome|"
                      r"mine|driveway|backyard|yard|cottage)\b[^\n.;:]{0,45}?[ \t]+(?:in|outside(?:[ \t]+of)?)|"
                      # ("REHAB NEAR DTR IN STERLING": icu_invented_p find f181)
                      r"near(?:[ \t]+(?:her|him|them|us|family|son|daughter|dtr|sister|brother|kids|children)[ \t]+in)?)[ \t]+")


_IN_AFTER = re.compile(r"(?i)[ \t]+(?:in|at)[ \t]+")   # "Keystone Villa at Douglassville" (find f22)


# a hospital's town and state after its comma ("MONADNOCK VALLEY HOSPITAL, PETERBOROUGH NH, TO A":
# icu_invented_o find f06): the state's code says the words before it are a town
_COMMA_TOWN_STATE = re.compile(r",[ \t]*(?P<town>[A-Za-z][A-Za-z'.-]*(?:[ \t][A-Za-z][A-Za-z'.-]*){0,2}?),?[ \t]+"
                               r"(?P<st>[A-Za-z]{2})(?![\w-])")


# a residence's town and its state's code after the comma ("lives alone in Normal, IL")
_TOWN_STATE = re.compile(r"(?P<town>[A-Za-z][A-Za-z'.-]*(?:[ \t][A-Za-z][A-Za-z'.-]*){0,2}?),[ \t]*"
                         r"(?P<st>[A-Za-z]{2})(?![\w-])")


def _town_and_state(m: re.Match) -> bool:
    """Whether a comma's words and two letters after a hospital are its town and state: a listed
    code (one that is also a word only in capitals), no function or ward word in the town."""
    st = m.group("st")
    if st.upper() not in _state_codes() or (st.upper() not in codes_not_words() and not st.isupper()):
        return False
    return not any(w.lower() in FUNCTION_WORDS or is_safe_word(w, vocabulary=False) for w in m.group("town").split())


def _towns_after_places(text: str, doc_id: str, places: list[Span]) -> list[Span]:
    """The town after a place of care already found, in any case ("HOLY FAMILY IN METHUEN", "CAPE
    COD HOSP IN METHUEN", "Briarwood assisted living in Needham"): where a facility is, is a town.
    Found on the invented ICU notes' find half (f85)."""
    out: list[Span] = []
    for sp in places:
        if sp.label not in ("HOSPITAL", "ORGANIZATION"):
            continue
        end = sp.end
        h = _HEAD.match(text, end + 1) if text[end:end + 1] == " " else None
        end = h.end() if h and h.group("bare") else end   # past "assisted living", "VNA"
        c = _COMMA_TOWN_STATE.match(text, end)
        if c is not None and sp.label == "HOSPITAL" and _town_and_state(c):
            out += [mk(doc_id, *c.span("town"), "CITY"), mk(doc_id, *c.span("st"), "STATE")]
            continue
        m = _IN_AFTER.match(text, end)
        if m is None:
            continue
        got = following_place(text, m.end(), True, "CITY")
        town = one_case_town(text, m.end())
        if town and (got is None or town[1] > got[1]):
            got = town
        if got:
            out.append(mk(doc_id, got[0], got[1], got[2]))
    return out


def _one_case_named_hospital(text: str, i: int) -> tuple[int, int, str] | None:
    """After "from" in a line of one case, a hospital named by ordinary words that its head word
    closes ("MED FLIGHTED FROM WEST RIVER VALLEY HOSPITAL IN BRATTLEBORO VT": icu_invented_p find
    f58), which a mixed-case line shows by its capitals: the place a strong context would read
    there, when it is a hospital and ends on its head word ("from outside hospital", "from the
    medical center", "from rehab hospital" name none, as after a strong context)."""
    if not one_case(_line(text, i)):
        return None
    got = following_place(text, i, True, "HOSPITAL")
    if got is None or got[2] != "HOSPITAL":
        return None
    name = text[got[0]:got[1]]
    if name.split()[0].lower() in FUNCTION_WORDS:
        return None   # "REFERRED FROM THE IHS CLINIC": an article opens no name (icu_invented_g find f27)
    return got if closed_by_head(name) else None


@register(LOCALE, "ward_places", "LOCATION", score=0.8)
def ward_places(text: str, doc_id: str) -> list[Span]:
    """Hospitals by their head word ("mercy hospital"), after a transfer ("transferred from NEBH"),
    abbreviations after "at" in mixed case ("seen at MGH"), and towns after "lives in"."""
    out = _hospital_names(text, doc_id)
    out += defined_acronyms(text, doc_id)
    for m in _MOVE.finditer(text):
        got = following_place(text, m.end(), True, "HOSPITAL") or one_case_facility(text, m.end()) \
            or department_acronym(text, m.end())
        if got and got[2] == "HOSPITAL" and (town := town_after_acronym(text, got[1])) is not None:
            out.append(mk(doc_id, town[0], town[1], listed_place_type(text[town[0]:town[1]]) or town[2]))
            # "TO PVMC IN WESTERLY": the hospital's town, a word in one case
        if got:   # a listed town after a move is the town ("moved from Leeds": pii_invented find, letter_45's kin)
            gtype = listed_place_type(text[got[0]:got[1]]) or got[2]
            out += listed_facilities(text, doc_id, (got[0], got[1], gtype)) if gtype == "HOSPITAL" \
                else [mk(doc_id, got[0], got[1], gtype)]
    for m in _AT_ABBR.finditer(text):
        if _MEETING_AFTER.match(text, m.end()):
            continue   # "at IDT rounds" (icu_invented_b find f33): a meeting, not a hospital
        if _mixed_case(text, m.start()) and _abbreviation(m.group("abbr"), text, m.start("abbr")):
            out.append(mk(doc_id, *m.span("abbr"), "HOSPITAL"))
    for m in _AT_ABBR_ONE_CASE.finditer(text):
        # a line in one case ("CATH AT NEBH", "cath at nebh"): three letters or more, no safe word, a
        # string English does not use
        abbr = m.group("abbr")
        if not _mixed_case(text, m.start()) or abbr.islower() and not any(c.isupper() for c in _line(text, m.start())):
            z = zipf(abbr)
            # after "at": a string English barely uses ("CABG AT BWH", "cath @ bwh"); after "from",
            # where a name stands too ("CALL FROM KIYA (WIFE)"), one it does not use
            most = 1.5 if m.group().lower().startswith("from") else 2.5
            if not is_safe_word(abbr) and z is not None and z < most and not looks_like_typo(abbr):
                out.append(mk(doc_id, *m.span("abbr"), "HOSPITAL"))
        elif abbr.islower() and (zipf(abbr) or 0.0) < 1.0 and not is_safe_word(abbr) and not looks_like_typo(abbr):
            out.append(mk(doc_id, *m.span("abbr"), "HOSPITAL"))   # "cardiologist is at nemc": no English
    out += acronyms_in_towns(text, doc_id)
    for m in _SERVICE_TOWN.finditer(text):
        town = m.group("town")
        if town.lower() not in FUNCTION_WORDS and town.lower() not in _GENERIC and not is_safe_word(town):
            out.append(mk(doc_id, *m.span("town"), "CITY"))
    out += [mk(doc_id, *m.span("town"), "CITY") for m in _TOWN_JOB.finditer(text)
            if (listed_place_type(m.group("town")) == "CITY" or looks_like_place(m.group("town"), True)
                or named_in_mixed_case(m.group("town"), text, m.start("town")))
            and not is_safe_word(m.group("town"))]
    out += named_facilities(text, doc_id, out)
    for m in _SEEN_AT.finditer(text):
        tok = _PLACE_TOKEN.match(text, m.end())
        if tok and _any_case_abbreviation(tok.group()):
            out.append(mk(doc_id, *tok.span(), "HOSPITAL"))
            continue
        got = following_place(text, m.end(), True, "HOSPITAL") or one_case_facility(text, m.end())
        if got:
            out.append(mk(doc_id, got[0], got[1], got[2]))
    for rx, strong in ((_TOWN, True), (_IN_TOWN, True), (_AGE_FROM, True), (_HOME_IN, True), (_TRAVEL_TO, True),
                       (_HOME_TO, True), (_FROM, False)):
        for m in rx.finditer(text):
            got = following_place(text, m.end(), strong, "CITY")
            if got is None and rx is _FROM:
                got = _one_case_named_hospital(text, m.end())
            town = one_case_town(text, m.end()) if strong and rx is not _TRAVEL_TO else None
            if town and (got is None or (got[2] == "CITY" or got[1] - got[0] < town[1] - town[0]) and town[1] > got[1]):
                got = town   # "SANTA PAULA", "de pere": the whole town, not its first word
            if got is None and rx is _TOWN and (c := _TOWN_STATE.match(text, m.end())) is not None and _town_and_state(c):
                # "lives alone in Normal, IL": a town that is a ward's word, which its state's code
                # says is a town (rad_invented find f10)
                out += [mk(doc_id, *c.span("town"), "CITY"), mk(doc_id, *c.span("st"), "STATE")]
                continue
            if got is None and (rx is _HOME_TO or (rx is _HOME_IN and re.search(r"(?i)\bin[ \t]+$", m.group()))):
                # (a home's town that is a word: "LIVES ALONE IN A 2ND FLOOR APT IN HULL,": icu_invented_p find f216)
                got = word_town(text, text[max(0, m.start() - 60):m.end()], m.end())
            if got is None and rx is _TOWN and re.search(r"(?i)\bin\s+$", m.group()):
                got = (state_code(text, m.end()) or kin_state_code(text, m.group(), m.end())
                       or word_town(text, m.group(), m.end()))   # "lives in NH", "DAUGHTER IN CT"; "pt
                # is from OR" is a ward; "LIVES IN READING." a town that is a word
            venue = rx is _IN_TOWN and _VENUE.match(m.group()) is not None
            if got and rx is _IN_TOWN and all(is_safe_word(w, vocabulary=not venue) for w in text[got[0]:got[1]].split()):
                continue   # "Dr. Smith in clinic", "dr. lee in icu": where the doctor is, no town; after a
                # venue only the ward's own words say so ("the vfw in hurricane" is a town)
            if got and rx is _HOME_IN and re.search(r"(?i)near[ \t]+$", text[max(0, got[0] - 8):got[0]]) \
                    and _NEAR_CLINICAL.fullmatch(text[got[0]:got[1]].split()[0]):
                continue   # "dizzy and near syncope at nh": a clinical "near-" (icu_invented_l find f17); a
                # town that is a common word stays ("near Loyal"): only the ward's compounds are read
            if got:
                out.append(mk(doc_id, got[0], got[1], got[2]))
    out += initials_of_found(text, doc_id, out)
    out += _towns_after_places(text, doc_id, out)
    out += [sp for sp in lower_case_places(text, doc_id) + prose_places(text, doc_id) + town_before_place(text, doc_id)
            if not any(o.start < sp.end and sp.start < o.end for o in out)]
    out += state_after_town(text, doc_id, out)
    first = {}
    for sp in dedupe(out):
        first.setdefault((sp.start, sp.end), sp)   # one place per offsets: the first context's type
    return list(first.values())
