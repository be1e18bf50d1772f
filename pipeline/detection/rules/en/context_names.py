"""Names as ward notes write them: a surname alone, in lower case or capitals, after the word
that says a person is meant, or before a credential, or after a sign-off's initials.

* after a role ("Dr", "Doctor", "RN", "MD", "NP", "attending", "resident", "nurse") -> DOCTOR;
* after kinship ("wife", "son", "daughter", "friend", ...) -> PATIENT (i2b2 files relatives' names
  with the patient's);
* after "per" (DOCTOR), "with" and "family" (PATIENT): weak contexts, a listed name only;
* before a credential ("Smith, RN", "Jones RN") -> DOCTOR;
* a staff sign-off at the end of a line: initials, a colon or a slash, a name ("JGT:holmes").

The shapes of staff lines (a credential, a sign-off, a signature, a login) live in
:mod:`.staff_lines`; this module merges them with its own. The context word is never part of the
span. Each word must pass :func:`.name_words.looks_like_name`, which keeps "with good effect", "per
protocol", "family meeting", "Dr called", "charge RN" out.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import titled
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_first_name, is_listed_name, is_listed_surname,
                                                   is_safe_word, looks_like_name, looks_like_typo, zipf)
from pipeline.detection.rules.en.staff_closings import CREDENTIAL_WORDS as _CREDENTIAL_WORDS
from pipeline.detection.rules.en.staff_closings import SECTION_HEADERS  # noqa: F401  (SECTION_HEADERS: re-exported for name_lines)
from pipeline.detection.rules.en.numbers import MEASURES
from pipeline.detection.rules.en.staff_lines import credential_names, signatures, usernames
from pipeline.detection.rules.en.staff_names import discussed_with, names_from_service, per_surname, rare_staff_name
from pipeline.detection.rules.en.name_pairs import (EPONYM_AFTER, and_names, eponym_or_label, first_and_surname,
                                                   has_lower, inverted, notified_doctor, surname_after, surname_alone,
                                                   title_case, unknown_subject)
from pipeline.detection.rules.registry import register
from pipeline.locales.shared_words import NAME_PARTICLES

__all__ = ["EPONYM_AFTER", "SECTION_HEADERS", "context_names"]   # EPONYM_AFTER: read by the pack's eponym step
from pipeline.spans import Span

# clergy by title ("Fr. Stavros", "RABBI GOLDFARB": icu_invented_b find f49, f57)
# ("FR WOJCIK FROM ST. CASIMIR'S" without its full stop: icu_invented_p find f104; "16 FR" is a catheter's size)
_CLERGY = r"fr\.|(?<!\d )fr(?=[ \t]+[A-Za-z])|rev\.?|reverend|rabbi|imam|cantor"
_ROLES = (r"dr|drs|doctor|rn|md|np|attending|resident|fellow|intern|nurse|hospitalist|intensivist|pcp|surgeon|"
          # a professor by their title in any case ("PT'S ADVISOR PROF LINDQVIST VISITED": icu_invented_p find f1006)
          r"prof\.?|professor|"
          + _CLERGY + "|"
          # the nurse handing over or covering: "report given to siobhan", "covering for mcnulty"
          r"report\s+(?:given\s+|called\s+)?to|covering\s+for|covered\s+for|"
          # who covers, as a ward writes it ("covering: hsu for micu": icu_invented_p find f147)
          r"covering\s*:|"
          # ("PT eval by Lorna.": icu_invented_p find f105, where a colon after the name still reads as a label's)
          r"(?:signed|seen|examined|dictated|evaluated|eval|eval'd|followed|covered|paged|reported|replaced|placed|inserted|ordered|"
          r"drawn|removed|changed|performed|discontinued|d/c'?d)\s+by|paged|page\s+(?:placed|sent)\s+to|"
          r"primary\s+care\s*:|referring\s+(?:provider|physician|md)\s*:|provider\s*:|surgeon\s*:|assistant\s*:|"
          r"accepting\s+(?:physician|md|attending|provider|surgeon)|requested\s+by|referred\s+by|"
          r"findings\s+(?:called|discussed|communicated)\s+(?:to|with)|"
          # a report's staff fields: "Ordering physician:", "Interpreting radiologist:", "Reviewed by:"
          r"(?:(?:attending|primary\s+care|referring|ordering|consulting|admitting|covering|treating|interpreting)\s+)?"
          r"(?:physician|provider|radiologist|surgeon|anesthesiologist|consultant|pharmacist|therapist|"
          r"case\s+manager|social\s+worker|author)\s*:|"
          r"(?:reviewed|verified|approved|read|interpreted|co-?signed|authored|attested|transcribed)\s+by\s*:?|"
          # a report's header fields without their "physician" ("Ordering: Vo, Linh", "Operators:",
          # "Reader:"; notes_invented find f04, f13)
          r"(?:ordering|referring|requesting|operators?|reader|sonographer|anesth(?:esia)?)\s*:")
_KIN = (r"(?:brother|sister|son|daughter|dtr|father|mother)[ \t]?-?[ \t]?in[ \t]?-?[ \t]?law|step-?(?:son|daughter|mother|father|brother|sister)|"
        r"sons|daughters|brothers|sisters|grandsons|granddaughters|grandchildren|children|kids|friends|parents|"
        r"wife|husband|son|daughter|dtr|sister|sis|brother|bro|mother|father|mom|dad|friend|fiance|fiancee|partner|niece|nephew|"
        # a ward's shorthand for the family ("GRANDDTR KYLA": icu_invented_c find f21)
        r"granddtr|gdtr|grandma|grandpa|grandmom|granddad|stepdad|stepmom|ex-?wife|ex-?husband|"
        # the in-laws' shorthand ("SON NIKOLAOS AND DIL GRACE": icu_invented_h find f19)
        r"dil|sil|mil|fil|bil|"
        r"aunt|uncle|cousin|grandson|granddaughter|grandmother|grandfather|girlfriend|boyfriend|neighbor|neighbour|"
        # who else a note names beside the family ("sitter (Lakisha)", "his boss Delbert", "AA sponsor
        # (Dwight)": icu_invented_b find f44, f48)
        r"sitter|sponsor|boss|supervisor|co-?worker|landlord|landlady|roommate|caregiver|pastor|"
        # and who speaks for a patient's work, school or affairs ("UNION REP MCNEIL", "Dean of students
        # Okafor", "atty Beaulieu": icu_invented_p find f166, f173, icu_invented_r find f80)
        r"union\s+rep|dean(?:\s+of\s+students)?|attorney|atty|lawyer|"
        # "re:" heads a letter's line ("Re: Mrs Jane Doe"); inside a line it is a topic's ("teaching re:
        # sternal precautions": icu_invented_i find f06)
        r"spouse|hcp|proxy|guardian|mr|mrs|ms|miss|patient\s*:|pt\s*:|patient\s+name\s*:|name\s*:|cc\s*:|(?<![^\n])re\s*:|"
        r"married\s+to|"   # "Married to Abena, a nurse" (notes_invented find f34)
        r"met\s+(?:with|w/)|spoke\s+(?:with|to|w/)|discussed\s+with|emergency\s+contact\s*:|next\s+of\s+kin\s*:|"
        r"accompanied\s+by(?:\s+(?:his|her|their))?|from\s*:|attn\s*:|nok\s*:|call\s+placed\s+to")
_WEAK = r"per|with|family|pt|this\s+is|called\s+to"
# a ventilator's or a monitor's measure that a role word and a comma happen to come before, and the
# value or change after it ("discussed w/ fellow, Vt decreased to 400": icu_invented_e find f19)
_MEASURE_WORD = re.compile(rf"(?i)(?:{MEASURES})")
_MEASURE_CHANGE = re.compile(r"(?i)[ \t]*(?:[:=<>~]|\d|(?:was|is|now|decreased|increased|weaned|changed|titrated|"
                             r"dropped|lowered|raised|down|up|of|goal|stable|remains)\b)")
# staff named by their discipline ("RRT (Kim)", "referred to CM deborah", "sw joanne"): each is also
# a ward word ("5 cm", "SW consult"; "rt" is right too often: "rt hickman"), so a listed name only, as after "per"
_STAFF = (r"rrt|sw|(?<!\d )cm|case\s+manager|case\s+mgr|social\s+work(?:er)?|chaplain|pharmacist|dietitian|nutritionist|"
          # a physician assistant and an educator or interpreter by their shorthand ("(PA Lewandowski)",
          # "cde marisol": notes_invented find f42, f09); "PA" is also the pulmonary artery ("PA line")
          r"pa|pa-c|cde|interpreter|coordinator|"   # "Coordinator Beth met w/ pt" (icu_invented_j find f20)
          # "outreach worker dale came in" (icu_invented_p find f15)
          r"outreach\s+worker|case\s*worker|peer\s+specialist|"
          # a shelter's or a programme's ("spoke w/ advocate Yesenia", "intake worker ron": ed_invented find f23, f29)
          r"advocate|intake\s+worker|intake\s+coordinator|"
          r"d/w|discussed\s+w/")   # "d/w Nussbaum": the team's shorthand for "discussed with"
# ("St." and "Ste." open a surname: "Dr. St. Pierre", "DR ST. ROMAIN"; icu_invented_r find f08, f28)
_TOKEN = r"(?i:st|ste)\.(?=[ \t]+[A-Za-z])|[A-Za-z][A-Za-z'-]*[A-Za-z](?:'s)?|[A-Za-z]\."
# a surname's saint before its name, which is no particle of the shared list
_SAINT_PARTICLES = frozenset({"st", "ste", "saint", "sainte"})
# (a slash joins two of a person's roles, "HCP/DAUGHTER-IN-LAW HOPE", "FRIEND/CO-WORKER MANUEL ROSARIO":
# icu_invented_p find f85, f109; after one letter it is shorthand's, "w/", "s/p", "d/c")
_CONTEXT = re.compile(rf"(?i)(?:(?<![\w/])|(?<=[A-Za-z]{{2}}/))(?:{_ROLES}|{_KIN}|{_WEAK}|{_STAFF})(?![\w])")
_NAME_AT = re.compile(   # "RRT (Kim)", "wife (Mary)": a bracket may hold the name after its context word
    # (and a quoted nickname in it: 'FRIEND ("BUBBA") FOLLOWING': ed_invented find f19)
    rf"(?i)\.?(?:'s)?(?:[ \t]*[:,]?[ \t]+|[ \t]*\([ \t]*[\"“]?)(?:(?P<title>dr|mr|mrs|ms|miss|fr|rev)\.?[ \t]+)?"
    # (four words when a particle is among them: "Niece Maria do Carmo Pereira": icu_invented_p find f199)
    rf"(?P<name>(?-i:{_TOKEN})(?:,?[ \t]+(?-i:{_TOKEN})){{0,2}}(?:[ \t]+(?-i:{_TOKEN}))?)")



# a person's part in what happened, which a bracket after their relation's word may hold
_PART_IN_EVENT = frozenset("driver passenger pedestrian witness bystander caregiver restrained unrestrained".split())


def _kind(ctx: str) -> tuple[str, bool]:
    """The generic type a context gives and whether it is strong."""
    c = re.sub(r"\s+", " ", ctx.lower().rstrip("."))
    if re.fullmatch(_CLERGY, c) or re.fullmatch(_CLERGY, c + "."):
        return "PATIENT", True   # HIPAA's convention names clergy with the family ("Fr. Onwudiwe":
        # icu_invented_f find f24; the full stop of "fr." was stripped before, so it read as weak)
    if re.fullmatch(_ROLES, c):
        return "DOCTOR", True
    if re.fullmatch(_KIN, c):
        return "PATIENT", True
    return ("DOCTOR" if c in ("per", "called to") or re.fullmatch(_STAFF, c) else "PATIENT"), False


def _particle_before_name(text: str, tokens: list[tuple[int, int]], k: int) -> bool:
    """Whether a credential's word inside a name is a particle ("Maria do Carmo Pereira", where "do"
    is also D.O.): not first, no comma before it, and a name's capitalised word after it in a line
    with lower case (icu_invented_p find f199); "John Smith DO" and "Smith, DO" stay credentials."""
    word = text[slice(*tokens[k])]
    if k == 0 or word.lower() not in NAME_PARTICLES or k + 1 >= len(tokens) or "," in text[tokens[k - 1][1]:tokens[k][0]]:
        return False
    nxt = text[slice(*tokens[k + 1])]
    return word.islower() and title_case(nxt) and looks_like_name(nxt, True, True)


def _name_end(text: str, start: int, tokens: list[tuple[int, int]], strong: bool, titled: bool = False) -> int | None:
    """Where the name starting at the first token ends: the tokens that look like names (an initial
    only before another token), or None when the first does not. A column's gap (two blanks or a
    tab) ends a name, and so does a field label ("mrn:"); a word after a comma ("burns, venita")
    must be a listed name, a capitalised word in a mixed-case line, or a very rare word."""
    end = None
    for k, (s, e) in enumerate(tokens):
        word = text[s:e]
        gap = text[tokens[k - 1][1]:s] if k else ""
        if k and ("  " in gap or "\t" in gap or text[e:e + 1] == ":"):
            break
        if text[e:e + 1].isdigit():
            break   # "per fellow, FiO2 to 90%": a word run into a number is a measure's (icu_invented_k find f01)
        if word.lower().replace(".", "") in _CREDENTIAL_WORDS and not _particle_before_name(text, tokens, k):
            break   # "accepting physician breana chander, pharmd": the credential ends the name, and
            # is none ("Ngozi Eze-Williams, MD, FASN": notes_invented find f11)
        if re.fullmatch(r"[A-Za-z]\.", word):
            nxt = text[slice(*tokens[k + 1])] if k + 1 < len(tokens) else ""
            if nxt and looks_like_name(nxt, strong, title_case(nxt) and has_lower(text, s), titled and k == 0):
                continue  # an initial before a surname: "J. Smith", "DR. A. RAHILLY"
            break
        if (word.lower() in NAME_PARTICLES or (k == 0 and word.lower().rstrip(".") in _SAINT_PARTICLES)) \
                and (strong or end is not None) and "," not in gap:
            nxt = next((text[a:b] for a, b in tokens[k + 1:k + 3] if text[a:b].lower() not in NAME_PARTICLES), "")
            nxt_cased = title_case(nxt) and has_lower(text, s)
            if nxt and looks_like_name(nxt, True, nxt_cased) and (nxt_cased or is_listed_name(nxt) or (zipf(nxt) or 0.0) < 4.5):
                continue   # a surname's particles, the surname after them: "per dr de la cruz", "Dr. de la
                # Cruz" (icu_invented_r find f10, f25: "de" and "la" are too common to pass as names alone)
        cased = title_case(word) and has_lower(text, s)
        if k and end is not None and "," not in gap and surname_after(text, tokens[k - 1], (s, e)):
            end = e   # "LIZZIE STRONG", "son holly small": a surname that is also a word, after a first name
            continue
        if "," in gap:
            z = zipf(word)
            ok = (looks_like_name(word, False) or (looks_like_name(word, True, cased) and (cased or (z is not None and z < 2.0)))
                  or (is_first_name(word) and looks_like_name(word, True)))   # "Rodriguez, Kerri"
        else:
            prev = text[slice(*tokens[k - 1])] if k else ""
            # "Dr. Santo Colly", "DR. A. RAHILLY", not "Ms. Schinner tearfful"
            after_first = k == 0 or is_first_name(prev) or bool(re.fullmatch(r"[A-Za-z]\.", prev))
            ok = looks_like_name(word, strong if k == 0 else True, cased, titled and after_first) or (
                k == 0 and strong and inverted(text, tokens))   # "PATIENT: STRONG, LIZZIE"
            if ok and k and not cased and not is_listed_name(word) and (zipf(word) or 0.0) >= 4.5:
                ok = False   # a common word philter lists after a titled name: "DR BAPTISTE MET W/ PT" (icu_invented_j find f17)
        if not ok:
            break
        end = e
    return end


_POSSESSED = re.compile(r"(?i)['’]s\b")
# what follows a relative's first name that is also a word, never the word: an aside in brackets
# ("son will (lives on the farm) and daughter hope": icu_invented_g find f15)
# or a visit's words ("GIRLFRIEND SUMMER AT BEDSIDE", "DIL GRACE AT BEDSIDE": icu_invented_h find f08, f19)
# (or their phone: "HUSBAND BILL CELL 978-555-0143": icu_invented_p find f1238)
_ASIDE_AFTER = re.compile(r"(?i)[ \t]*(?:\(|at[ \t]+(?:the[ \t]+)?bedside\b|in[ \t]+to[ \t]+visit\b|visited\b|visiting\b|"
                          r"called\b|updated\b|present\b|(?:cell|phone|#)[ \t]*[#:]?[ \t]*\(?\d)")
# a relative proper, whose first name that is also a word may close the sentence ("here w/ husband
# bill.", "DTR HOPE, SON MARK": notes_invented find f32): after "husband" a word and a stop is who he is
_RELATIVE = re.compile(r"(?i)(?:(?:brother|sister|son|daughter|dtr|father|mother)[ \t]?-?[ \t]?in[ \t]?-?[ \t]?law|"   # (icu_invented_p find f85)
                       r"wife|husband|spouse|son|daughter|dtr|sister|sis|brother|bro|mother|father|mom|dad|"
                       r"niece|nephew|aunt|uncle|cousin|grandson|granddaughter|granddtr|gdtr|girlfriend|boyfriend|"
                       r"fiance|fiancee|partner|dil|sil|mil|fil|bil)")
_ARTICLE_BEFORE = re.compile(r"(?i)\ban?[ \t]+$")
_SENTENCE_END_AFTER = re.compile(r"[.;,](?=[ \t]|\n|\Z)|[ \t]*(?:\n|\Z)")
# the courtesy titles, which alone take a stop before the name they head ("Mrs. Day")
_COURTESY = frozenset({"dr", "drs", "mr", "mrs", "ms", "miss"})


def _courtesy_title(text: str, c: re.Match) -> bool:
    """Whether the context is "Mrs"/"Miss", or "Mr."/"Ms." with its stop ("MR" and "MS" alone are
    mitral regurgitation and mental status in a ward's shorthand)."""
    word = c.group().lower()
    return word in ("mrs", "miss") or (word in ("mr", "ms") and text[c.end():c.end() + 1] == ".")


def _possessed_name(word: str) -> bool:
    """After a relative's possessive ("cousin's ..."), a word is a name only when it is a listed
    first name English uses little as a word (Zipf < 4.5: "cousin's Maria", not "cousin's car") or a
    rare word (Zipf < 3); "apt", "house", "boat" are what the relative owns."""
    z = zipf(word)
    if z is None:
        return True
    return z < 3.0 or (is_first_name(word) and z < 4.5)


@register(LOCALE, "context_names", "NAME", score=0.8)
def context_names(text: str, doc_id: str) -> list[Span]:
    """Names after a kinship or role word ("wife Mary", "dr mcmanus", "per Gupta"), before a
    credential ("Smith, RN") and in a sign-off ("JGT:holmes"); the context word left out."""
    out: list[Span] = []
    for c in _CONTEXT.finditer(text):
        m = _NAME_AT.match(text, c.end())
        if m is None:
            continue
        if text[c.end():c.end() + 1] == "." and c.group().lower() not in _COURTESY | {"rev", "fr"}:
            continue   # "applied by WOC RN. Post-pyloric Dobhoff", "he is hcp. dtr-in-law calls": the
            # sentence ended; only a title's abbreviation has a stop before the name (icu_invented_k find f18, f10)
        if c.group().lower() in _COURTESY and re.match(r"\.?[ \t]*,", text[c.end():c.end() + 3]):
            continue   # "mod mr, la dilated": mitral regurgitation; a title has no comma after it (icu_invented_i find f04)
        gtype, strong = _kind(c.group())
        first = text[m.start("name"):m.end("name")].split()[0].strip(".,")
        if "(" in text[c.end():m.start("name")] and first.lower() in _PART_IN_EVENT:
            continue   # "BOYFRIEND (DRIVER) ALSO INJURED": the bracket says their part, not their name
            # (icu_invented_p find f919)
        if gtype == "DOCTOR" and strong and not m.group("title") and re.match(r"[ \t]*,", text[c.end():c.end() + 3]) \
                and not (is_listed_name(first) or is_first_name(first) or is_listed_surname(first)
                         or 0.0 < (zipf(first) or 0.0) < 3.0):
            continue   # "held by rn + cards fellow, femostop reapplied": a list goes on after a role's comma;
            # only a listed name or a word English knows, if rarely, is its apposition (icu_invented_m find f12)
        if gtype == "DOCTOR" and strong and not m.group("title") and re.match(r"[ \t]*,", text[c.end():c.end() + 3]) \
                and not (first[:1].isupper() and first[1:].islower() and has_lower(text, c.start())) \
                and ((zipf(first) or 0.0) >= 4.0 or re.search(r"(?i)[a-z]{3}(?:ing|ed|ly)$", first)):
            continue   # "by fellow, manual pressure", "per resident, sensing appropriately": a list or a clause
            # goes on after the role's comma; a listed word a ward writes names no one unless it has
            # its capital in a line with lower case (icu_invented_p find f152, f185)
        if m.group("title"):
            gtype, strong = "DOCTOR" if m.group("title").lower().startswith("dr") else gtype, True
        tokens = [(m.start("name") + t.start(), m.start("name") + t.end()) for t in re.finditer(r"[^\s,]+", m.group("name"))]
        tokens = [(s, e - (1 if text[e - 1] in ".," and e - s > 2 else 0)) for s, e in tokens]
        titled = bool(m.group("title")) or c.group().lower() in ("dr", "drs", "doctor", "mr", "mrs", "ms", "miss")
        end = _name_end(text, tokens[0][0], tokens, strong, titled)
        if end is None and not strong and len(tokens) >= 2 and all(title_case(text[s:e]) for s, e in tokens[:2]) \
                and all(looks_like_name(text[s:e], False) or (zipf(text[s:e]) or 0) < 3.0 for s, e in tokens[:2]):
            # a weak context ("with", "per") before two title-case words in a mixed-case line, each
            # a listed name or a rare word, that pass as names after a strong one: "follow up with
            # Tory Connell" (and not "with Hep Lock")
            two = _name_end(text, tokens[0][0], tokens[:2], True)
            end = two if two == tokens[1][1] and has_lower(text, tokens[0][0]) else None
        if end is None and not strong:
            end = first_and_surname(text, tokens)
        if end is None and strong and gtype == "DOCTOR" and surname_alone(text, tokens[0]):
            end = tokens[0][1]
        if end is None and c.group().lower() in ("pt", "patient"):
            end = unknown_subject(text, tokens)
        if end is None and titled and gtype == "DOCTOR":
            end = notified_doctor(text, tokens)
        if end is None and c.group().lower() in ("dr", "doctor") and text[slice(*tokens[0])].lower() in _SHORT_SURNAMES \
                and not text[tokens[0][1]:tokens[0][1] + 1].isdigit():
            end = tokens[0][1]   # "renal following (dr ng)": a surname of two letters that is also a ward's
            # shorthand (a tube, a drug's route) is the name right after the title (icu_invented_p find f57)
        if end is None and _courtesy_title(text, c) and is_listed_name(text[slice(*tokens[0])]) \
                and text[slice(*tokens[0])].lower() not in FUNCTION_WORDS:
            end = tokens[0][1]   # "NEIGHBOR MRS DAY CALLED": after "Mrs" a listed name however common (icu_invented_i find f05)
        if end is None and c.group().lower() == "per":
            end = per_surname(text, tokens[0])
        if end is None and re.fullmatch(r"(?i)d/w|discussed\s+w/", c.group()):
            end = discussed_with(text, tokens[0])
        if end is None and re.fullmatch(_STAFF, re.sub(r"\s+", " ", c.group().lower())):
            end = rare_staff_name(text, tokens[0])
            if end is not None and len(tokens) > 1 and text[end:tokens[1][0]] == " " \
                    and rare_staff_name(text, tokens[1]) is not None:
                end = tokens[1][1]   # and a second rare word, its surname: "CASE MGR YESENIA PABON MET W/"
                # (icu_invented_p find f60)
        if end is None and strong and gtype == "PATIENT" and re.fullmatch(_KIN, c.group().lower()) \
                and is_first_name(text[slice(*tokens[0])]) and (
                    _ASIDE_AFTER.match(text, tokens[0][1])
                    or (_RELATIVE.fullmatch(c.group()) and _SENTENCE_END_AFTER.match(text, tokens[0][1])
                        and not is_safe_word(text[slice(*tokens[0])]))):   # "son tomorrow.", "daughter will."
            end = tokens[0][1]   # "son will (lives on the farm)": a first name that is a word, an aside after it
        first_word = text[slice(*tokens[0])]
        if end is not None and re.fullmatch(r"(?i)cc\s*:", c.group()) and (zipf(first_word) or 0.0) < 1.0 \
                and not is_first_name(first_word) and looks_like_typo(first_word):
            continue   # "CC: weankess": an ED note's chief complaint misspelt, not a copy's addressee
        if end is not None and eponym_or_label(text, end) and not _RELATIVE.fullmatch(c.group()):
            continue   # (a relative's name before "operation" is theirs: "his brother Wendell's operation",
            # a farm's: clinic_invented find f08; an eponym follows no kinship word)
        if end is not None and _POSSESSED.match(text, c.end()) and not _possessed_name(first_word):
            continue
        if end is not None and c.group()[-1:].lower() == "s" and c.group().lower() not in _COURTESY \
                and _ARTICLE_BEFORE.search(text, max(0, c.start() - 6), c.start()):
            continue   # "FALL FROM ROOF AT A FRIENDS COOKOUT": an article before a plural kinship word is a
            # possessive that lost its apostrophe, and what follows is the friend's (icu_invented_p find f113)
        if end is not None and _POSSESSED.match(text, c.end()) \
                and any(_ROLE_NOUN.fullmatch(text[s:e]) for s, e in tokens if e <= end):
            continue   # "her mother's pastor", "the family's parish priest": who the relative has, no
            # name (icu_invented_p find f54, f70)   # "plan d/c to cousin's apt": what the relative owns, no name (icu_invented_d find f17)
        if end == tokens[0][1] and _MEASURE_WORD.fullmatch(first_word) and _MEASURE_CHANGE.match(text, end):
            continue   # "discussed w/ fellow, Vt decreased to 400": a measure after the role, no name
        if end is not None:
            s = tokens[0][0]
            if text[end - 2:end].lower() in ("'s", "’s"):
                end -= 2   # in capitals too: "BROTHER WENDELL'S" is Wendell
            end = _middle_initial(text, s, end)
            out.append(mk(doc_id, s, end, gtype))
            out += [sp for sp in and_names(text, doc_id, end, gtype) if not _ROLE_NOUN.fullmatch(text[sp.start:sp.end])]
    out += credential_names(text, doc_id) + signatures(text, doc_id) + usernames(text, doc_id)
    out += _header_names(text, doc_id) + names_from_service(text, doc_id)
    by_offsets = {(sp.start, sp.end): sp for sp in out}   # a credential's DOCTOR over a context's guess
    return sorted(by_offsets.values(), key=lambda sp: (sp.start, sp.end))


# surnames of two letters that a ward's shorthand also spells ("NG" tube, "LE" edema), a name after "Dr"
_SHORT_SURNAMES = frozenset("ng le ho wu li yu".split())


# who comes with a relative and is no name ("wife benedetta and pastor from ...": icu_invented_b find f34)
_ROLE_NOUN = re.compile(rf"(?i)(?:{_KIN}|pastor|priest|rabbi|imam|minister|chaplain|reverend|deacon|elder|bishop|"
                        r"neighbou?r|caregiver|aide|interpreter|translator)")


# a header's "Name: Rutherford, Amos K   MRN": the middle initial after an inverted name, before a
# column's gap, a bracket or the line's end (notes_invented find f08, f13, f38)
_MIDDLE_INITIAL = re.compile(r"[ \t]+[A-Za-z]\.?(?=[ \t]{2,}|\t|[ \t]*\(|[ \t]*(?:\n|$))")


def _middle_initial(text: str, start: int, end: int) -> int:
    """Where an inverted name ("Whitlock, Agatha") ends with its middle initial, else ``end``."""
    m = _MIDDLE_INITIAL.match(text, end)
    return m.end() if m and "," in text[start:end] else end


# a report's header line with no label: an inverted name that a record number or an age follows
# ("Kimura, Haruto 0662091", "BRANDT, WILHELMINA  5590123  AGE 84", "Hoffmann, Gerd  79 yrs"), and a
# name that an age with a sex's letter follows in brackets ("Marguerite Delacroix-Boyd (73 F)");
# notes_invented find f22, f28, f42, f48, f57
_NAME_WORD = r"[A-Z][A-Za-z'-]*[A-Za-z]"
_INVERTED_BEFORE = re.compile(
    rf"(?m)(?:^|(?<=[ \t]))(?P<name>{_NAME_WORD},[ \t]*{_NAME_WORD}(?:[ \t][A-Z]\.?)?)[ \t]+"
    r"(?:(?:\(?[ \t]*(?i:MRN?|#)[ \t]*#?:?[ \t]*)?(?P<id>\d{6,10})(?![\w/.-])|\d{1,3}[ \t]*(?i:yrs?|yo|y/o)\b|(?i:age)\b)")
_NAME_BEFORE_AGE = re.compile(rf"(?m)^[ \t]*(?P<name>{_NAME_WORD}(?:[ \t]{_NAME_WORD}){{1,2}})[ \t]+\([ \t]*\d{{1,3}}[ \t]?[MF][ \t]*\)")


def _header_names(text: str, doc_id: str) -> list[Span]:
    """PATIENT names (and the record number) of :data:`_INVERTED_BEFORE` and :data:`_NAME_BEFORE_AGE`:
    each word no safe word and no credential."""
    out = []
    # a line in one case is read in title case ("kimura, haruto 0662091": notes_invented find f42)
    for m in list(_INVERTED_BEFORE.finditer(titled(text))) + list(_NAME_BEFORE_AGE.finditer(text)):
        words = re.findall(r"[A-Za-z][A-Za-z'-]*", m.group("name"))
        # a word of three letters or more without a vowel is an acronym ("Rowe, NMLS 1928374"), never a name
        if all(len(w) == 1 or (not is_safe_word(w) and w.lower() not in _CREDENTIAL_WORDS
                               and (len(w) < 3 or re.search(r"[aeiouyAEIOUY]", w))) for w in words):
            out.append(mk(doc_id, *m.span("name"), "PATIENT"))
            if "id" in m.groupdict() and m.group("id"):
                out.append(mk(doc_id, *m.span("id"), "MEDICALRECORD"))
    return out
