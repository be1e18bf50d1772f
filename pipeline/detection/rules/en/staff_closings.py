"""How a nurse's or a therapist's note ends: the writer's initials on the last line ("PKM", "-KD",
"-AL, RN"), a dash with an initial and a surname ("-V. ISHIGURO"), a discipline and a first name
("RT Ulla."), and the word sets a staff name is told apart by (a note's section headers, the
credentials after a name). Called by :mod:`.context_names`; the closing shapes after a sentence
were found on the second invented ICU set's find half (``benchmarks/icu_invented_b.py``).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en.name_pairs import has_lower, title_case
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_first_name, is_safe_word, looks_like_name, zipf
from pipeline.spans import Span

# section headers of a nursing note, which a colon follows as a sign-off's initials do
SECTION_HEADERS = frozenset("""cv gi gu id ros resp pulm neuro skin plan a p s o pmh hpi fen endo heme renal labs meds access
lines pain iv ivf io i/o msk ext soc dx tx hx rx cc ap ab abd misc note vs bs bm cx gen dispo code diet act sx fx px
ddx ax ox pe exam wt ht temp hem onc psy echo cxr ekg ecg abg vbg lab data imp impr rec recs goal goals
dev devel fen nutr nutrition social sepsis bili""".split())


#: credentials after a name ("RN", "PharmD", "FACC"): they end a name and are none; the second
#: line holds North American nursing, therapy and family-medicine certifications a clinic's
#: signatures carry ("Aisha Mohammed, MD CCFP", "Tamsin Grant, RN, CWOCN": clinic_invented find
#: f07, f08, where the cold start's model took them for names)
CREDENTIAL_WORDS = frozenset("""rn md np pa pa-c do dpt phd pharmd msw lmsw lcsw licsw rrt cna lpn crna cnm rd sn dds dmd
od psyd facc facp fasn fccp facs frcp frcs frcpc mrcp mrcgp mbbs mbchb mph faap
ccfp fcfp mcfp cwocn cwcn cwon cdces bcps fnp fnp-c aprn crnp dnp msn bsn rn-bc ccrn ocn chpn lmft lcpc otr otr/l
ccc-slp rdn cpht acnp pmhnp pmhnp-bc whnp cnor faan fache mrcpch frcpch fracp
emt emt-p emt-b emt-i emt-a emt-paramedic nremt nremt-p""".split())
# (the emergency medical technicians' levels a run sheet's crew signs with: "D. YAZZIE EMT-P": ed_invented find f01)


# initials alone on a note's last line, in one case ("PKM", "mb"): the nurse who wrote it
# (after one or two dashes, or before a slash and a credential: "--MRF", "-- m.t.", "dh/rn": icu_invented_p
# find f173, f195, f200; one dash not after a list's line, "Labs:\n-CBC")
_CLOSING_INITIALS = re.compile(r"[ \t]*(?P<dash>-{1,2}[ \t]?)?(?P<init>[A-Z]{2,4}|[a-z]{2,3}|(?:[A-Z]\.){2,3}|(?:[a-z]\.){2,3})"
                               r"(?:/(?:rn|RN|lpn|LPN|rrt|RRT))?[ \t]*\n?\Z")
# or after a dash closing the last sentence ("WILL F/U. -KD")
# or before a credential ("...obtained from pt's pharmacy. -AL, RN": icu_invented_b find f12)
# (two dashes too: "ties secure. --dw", icu_invented_l find f10)
_CLOSING_DASH = re.compile(r"[.;!)][ \t]+-{1,2}[ \t]?(?P<init>[A-Z]{2,3}|[a-z]{2,3}|(?:[A-Za-z]\.){2,3})(?:,?[ \t]+(?i:rn|rrt|lpn|np|cm|sw))?[ \t]*\n?\Z")
# a discipline and a first name closing a note's last sentence ("Home vent not needed. RT Ulla.":
# icu_invented_b find f32)
_CLOSING_ROLE_NAME = re.compile(r"[.;!)][ \t]+(?:RT|RRT|RN|CM|SW)[ \t]+(?P<name>[A-Z][a-z'-]+|[A-Z][A-Z'-]+)\.?[ \t]*\n?\Z")
# a dash, an initial and a surname closing a note's last sentence ("CM TO F/U 12/3. -V. ISHIGURO":
# icu_invented_b find f09): the surname no safe or function word
_CLOSING_DASH_NAME = re.compile(r"[.;!)][ \t]+-{1,2}[ \t]?(?P<name>[A-Za-z]\.[ \t]?(?P<last>[A-Za-z][A-Za-z'-]*[A-Za-z]))"
                                r"[ \t]*\n?\Z")

# a listed first name and the initial of a surname alone on the last line ("Eileen T.": icu_invented_p
# find f77), in title case or capitals; the name no safe word ("Vitamin D.", "Hep B." close no note's writer)
_CLOSING_FIRST_INITIAL = re.compile(r"[ \t]*(?P<name>(?P<first>[A-Z][a-z'-]+[a-z]|[A-Z][A-Z'-]+[A-Z])[ \t]+[A-Z]\.?)[ \t]*\n?\Z")


# three letters of initials right after the last sentence's stop, closing the note on its line
# ("TELE ALARMS ON, NIGHT RN AWARE. JGC": icu_invented_p find f87): a string English does not write
_CLOSING_AFTER_STOP = re.compile(r"[.;!][ \t]+(?P<init>[A-Z]{3}|[a-z]{3})[ \t]*\n?\Z")


# a charting login alone on the note's last line, digits after its letters, in any case ("-- tnguyen2",
# "-- TNGUYEN2": icu_invented_p find f147): letters no ward's word, that English does not write
_CLOSING_LOGIN = re.compile(r"[ \t]*(?:-{1,2}[ \t]?)?(?P<login>(?P<letters>[A-Za-z]{4,12})\d{1,3})[ \t]*\n?\Z")


# the line before a dash's item that makes it a list: a header's colon closing it, or a dash opening it
_LIST_BEFORE = re.compile(r"(?:(?:^|\n)[ \t]*-[^\n]*|:[ \t]*)\n[ \t]*\Z")


def closing_initials(text: str, doc_id: str, last: int) -> list[Span]:
    """The writer's initials closing a note on a line of their own without a dash (not in a
    one-line note: a line alone says nothing about where it stands), or after a dash that closes
    its last sentence: no header, no function word, no word of the curated safe list ("DNR",
    "CMO", "rn" close notes too)."""
    login = _CLOSING_LOGIN.match(text, last) if last else None
    if login and (login.group("letters").isupper() or login.group("letters").islower()) \
            and not is_safe_word(login.group("letters")) and (zipf(login.group("letters")) or 0.0) < 1.0:
        return [mk(doc_id, *login.span("login"), "USERNAME")]
    role = _CLOSING_ROLE_NAME.search(text, last)
    if role and looks_like_name(role.group("name"), True, title_case(role.group("name")) and has_lower(text, role.start())):
        return [mk(doc_id, *role.span("name"), "DOCTOR")]
    named = _CLOSING_DASH_NAME.search(text, last)
    if named and not is_safe_word(named.group("last")) and named.group("last").lower() not in FUNCTION_WORDS \
            and named.group("last").lower() not in CREDENTIAL_WORDS:
        return [mk(doc_id, *named.span("name"), "DOCTOR")]
    first = _CLOSING_FIRST_INITIAL.match(text, last) if last else None
    if first and is_first_name(first.group("first")) and not is_safe_word(first.group("first")):
        return [mk(doc_id, *first.span("name"), "DOCTOR")]
    m = _CLOSING_INITIALS.match(text, last) if last else None
    if m and m.group("dash") == "-" and _LIST_BEFORE.search(text, 0, last):
        m = None   # "Labs:\n-CBC": a list's item after its header or another item, no writer
    m = m or _CLOSING_DASH.search(text, last)
    if m is None:
        stop = _CLOSING_AFTER_STOP.search(text, last)
        if stop is not None and (zipf(stop.group("init")) or 0.0) < 2.0 and not is_safe_word(stop.group("init")):
            m = stop
    if m is None:
        return []
    init = m.group("init")
    bare = init.replace(".", "").lower()
    # a header has its colon, never a dash before it: after a dash "ab" is the writer's ("condition". --ab":
    # icu_invented_p find f165)
    header = bare in SECTION_HEADERS and not re.search(r"-[ \t]?$", text[max(0, m.start("init") - 3):m.start("init")])
    if header or bare in CREDENTIAL_WORDS or init.lower() in ("a.m.", "p.m.", "e.g.", "i.e."):
        return []
    if (header and init.lower() in SECTION_HEADERS) or init.lower() in FUNCTION_WORDS or is_safe_word(init, vocabulary=False):
        return []
    return [mk(doc_id, *m.span("init"), "DOCTOR")]
