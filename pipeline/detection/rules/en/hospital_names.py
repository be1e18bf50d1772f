"""A hospital named by its head word, as ward notes write it: the name-like words before
"Hospital", "Medical Center", "Hosp", "Nursing Home", "Skilled Nursing", and before the care a named
facility gives ("hebrew rehab", "Lantern Hill Assisted Living", "MELROSE VNA"), in any case, with
"of" and a town after the head ("University Hospital of Battle Creek"). Practices as letters head
them ("Brightwater Primary Care", "Saguaro Family Medicine", a UK GP's "Elmhurst Road Surgery",
the town of "Nephrology Associates of Crestwood") and a rare name before a bare "General"
("Kessington General,"). Also the word lists a hospital's name is made of, which :mod:`.places`
reads after its transfer contexts. Apart so that the place rules stay one room each.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_listed_place_word, is_safe_word, looks_like_place,
                                                   looks_like_typo, zipf)
from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en.towns import listed_place_type, mixed_case
from pipeline.spans import Span

# "hosp" is the head word abbreviated ("CAPE COD HOSP")
HEAD = re.compile(r"(?im)(?<![\w])(?:"
                  # two kinds of care joined by "&", the whole head ("Stonewall Hill Nursing & Rehab":
                  # icu_invented_p find f51; "Health & Rehabilitation", "Rehab & Nursing Center")
                  r"(?:skilled\s+)?(?:nursing|health|healthcare|rehab(?:ilitation)?)\s+(?:&|and)\s+"
                  r"(?:rehab(?:ilitation)?|nursing|healthcare)(?:\s+(?:center|centre|ctr\b\.?|facility))?(?![\w])|"
                  r"hospital|hosp\b\.?|medical\s+center|medical\s+centre|medical\s+ctr|med\s+ctr|"
                  r"med\s+center|health\s+center|health\s+centre|nursing\s+home|nursing\s+facility|"
                  # a nursing centre and its "ctr" ("FROM DELTA OAKS NURSING CTR IN MARKED TREE": icu_invented_r find f24)
                  r"nursing\s+(?:center|centre|ctr)\b\.?|"
                  # "Maple Crest Skilled Nursing", "Brightwater General." closing its line or clause
                  # (notes_invented find f30, f35)
                  r"skilled\s+nursing(?:\s+facility)?|(?P<general>general)(?=[ \t]*(?:[.,;)]|$))|"
                  r"rehab(?:ilitation)?\s+(?:center|centre|hospital)|infirmary|"
                  r"(?P<weak>clinic|hospice|medical\s+group|rehab|assisted\s+living|dialysis(?:\s+(?:center|centre|unit))?|"
                  # a dialysis unit named for its care ("FLATBUSH RENAL CARE": spec_invented find f02) and a
                  # psychiatric hospital by its care ("Desert Willow Behavioral has adult bed": ed_invented find f24)
                  r"(?:renal|kidney)\s+care|behavioral(?:\s+health)?|"
                  r"pavilion|"   # "Brightwater Surgical Pavilion" (notes_invented find f23)
                  # a treatment centre, and a house, a shelter or a service agency where someone lives or
                  # whose staff look after them, an organisation ("CALLED METHADONE CLINIC (HARBOR PATH
                  # TREATMENT CENTER)", "staying at the greenhouse shelter in athol", "professional guardian
                  # thru Minuteman Guardianship Services": icu_invented_p find f782, f772, f768, f769)
                  r"treatment\s+(?:center|centre|ctr\b\.?)|"
                  r"(?P<org>shelter|sober\s+house|(?:residential|guardianship|community|human)\s+services)|"
                  # an addiction programme by its care ("FROM FORT HILL DETOX", "ENROLLED AT CROSSROADS
                  # METHADONE CLINIC": icu_invented_p find f131, f132)
                  r"detox|methadone\s+(?:clinic|program|programme|maintenance\s+program)|"
                  # an agency that visits the home ("seacoast home care": icu_invented_o find f14; "Heartland
                  # Visiting Nurses": clinic_invented find f08)
                  # (with the hospice it runs: "northeast kingdom home health & hospice", icu_invented_g find f15)
                  # (and home infusion: "Keystone Home Infusion - RN home visit", spec_invented find f28)
                  r"(?P<visit>home\s+(?:care|health(?:\s+care)?|infusion)(?:\s+(?:&|and)\s+hospice)?|"
                  r"visiting\s+nurses?(?:\s+(?:association|service))?)|"
                  # a specialty's centre and a retirement community ("Lebanon Diabetes Center", "Pleasant
                  # View Retirement Community": icu_invented_b find f37, f46)
                  # (and "ctr", and a transplant centre: "BRAZOS VALLEY KIDNEY CTR", "Gulf South Transplant
                  # Ctr": spec_invented find f18, f27)
                  r"(?:diabetes|wound|kidney|vein|sleep|infusion|transplant)\s+(?:center|centre|ctr\b\.?)|"
                  r"retirement\s+(?:community|village|home)|(?P<practice>primary\s+care|"
                  # a practice as letters head it ("Brightwater Primary Care", "Sagebrush Family Practice",
                  # "Nephrology Associates of Crestwood"), a UK GP's surgery by its street ("Elmhurst Road
                  # Surgery"; found on benchmarks/data/notes_invented find f01, f06, f11)
                  r"family\s+(?:practice|medicine|health(?:\s+(?:center|centre|care|services))?|med\b\.?)|"
                  # (the whole "Family Health Center": icu_invented_g find f29)
                  r"internal\s+medicine|medical\s+practice|"
                  r"(?:medical\s+|health\s+)?associates)|"
                  r"(?P<surgery>surgery))|"
                  # a service named by its town or owner ("MELROSE VNA", "Hillcrest SNF"): the name is
                  # the place, the kind of care is not
                  r"(?P<bare>ltach?|snf|vna))(?![\w])")
# a street's words, inside a practice's name ("Elmhurst Road Surgery", "Mill Lane Health Centre"); a
# GP's "surgery" needs one, since an eponym's operation ("Whipple surgery") has none
STREET_WORDS = frozenset("road rd lane ln street avenue ave close green square way drive crescent".split())
# words a hospital's name is made of besides its own name: kept inside a name, never a name alone
GENERIC = frozenset("""general community regional university memorial medical children's childrens women's womens
state county city central north south east west new saint st st. mount mt mt. sacred heart holy cross valley
lady our of the and park manor health rehabilitation nursing center centre village beach heights hills springs
falls lake grove""".split()) | STREET_WORDS
# what stands before a hospital's head word and is no name ("the hospital", "outside hospital")
_NOT_PLACE = frozenset("""the a an this that outside other another local our your their his her same previous prior
nearby nearest osh rehab psych psychiatric va veterans teaching private public acute chronic skilled different
referring receiving home community brief outpatient inpatient adult pediatric paediatric geriatric""".split()) - {"community"}
#: the kind of care a centre or a clinic gives, which describes it and names none ("the cancer
#: center", "the infusion clinic"): read by the place rules and by the pack's described-place step
CARE_WORDS = frozenset("""cancer heart infusion wound kidney sleep pain surgical surgery imaging radiology lab
laboratory dialysis urgent primary care clinic clinics center centre""".split())
# a hospital's generic name ("University Hospital", "GENERAL HOSPITAL") after a transfer: a name
NAMED_GENERIC = frozenset("""university general memorial regional children's childrens women's womens state county
city sacred holy""".split())

# a whole word: never the letters after a digit ("2ND LTACH DECLINED": icu_invented_q find f08)
_TOKEN_BEFORE = re.compile(r"(?<![\w])([A-Za-z][A-Za-z.'-]*)[ \t]+$")


# the words an institution's name ends with ("Bowie Health", "Helena Community", "Keller Regional")
INSTITUTION_TAIL = frozenset("""community health regional general memorial medical children's childrens hospital
clinic center centre infirmary""".split())



def _sentence_start(text: str, i: int) -> bool:
    """Whether ``i`` starts a line or a sentence, where a capital says nothing ("Big hospital")."""
    before = text[text.rfind("\n", 0, i) + 1:i].rstrip()
    return not before or before.endswith((".", ":", ";", "!", "?"))


def _one_case_name_word(word: str) -> bool:
    """In a line of one case, a word of a hospital's name before its head word that is not among
    English's commonest ("HOLLIS STREET HEALTH CENTER", "cape cod hospital"): letters only, no
    function word, no ward word, no typo; one distinctive word must come with it."""
    z = zipf(word)
    low = word.lower()
    if re.search(r"(?:[^s]s|ing|ed)$", low) and is_safe_word(word) and not is_listed_place_word(word):
        return False   # a verb's or a plural's ending ("SISTER PREFERS MEADOWLARK NURSING HOME", "TEAM
        # RECOMMENDS SNF", "DELIRIUM. AWAITING LTAC BED": icu_invented_l find f03, icu_invented_m find
        # f10); "FALLS", "SPRINGS" of listed places stay
    return (word.isalpha() and len(word) > 2 and low not in FUNCTION_WORDS
            and not is_safe_word(word, vocabulary=False) and z is not None and z < 5.6
            and not (z < 1.0 and looks_like_typo(word)))


def hospital_names(text: str, doc_id: str) -> list[Span]:
    """Each head word's hospital: up to four name-like words before it (generic ones such as
    "General" inside a name only), one of them distinctive; a weak head ("clinic", "rehab") only
    after a name that is no kind of care, and never after a hospital's own word ("Health Center
    rehab"); a service's head ("VNA", "SNF") left out of the span (the ``en`` pack's
    ``extend_over_institution_heads`` step gives a VNA its head back)."""
    out: list[Span] = []
    for h in HEAD.finditer(text):
        if h.group("bare") and of_place(text, h.end()) > h.end():
            out.append(mk(doc_id, h.start(), of_place(text, h.end()), "ORGANIZATION"))   # "VNA OF CAPE COD"
            continue
        start, pos, named = h.start(), h.start(), False
        line = line_of(text, h.start())
        one_case, distinct = not (any(c.islower() for c in line) and any(c.isupper() for c in line)), False
        for _ in range(4):
            m = _TOKEN_BEFORE.search(text, max(0, pos - 40), pos)
            if m is None:
                break
            word = m.group(1)
            low = word.lower()
            if word.endswith(".") and low not in ("st.", "mt.", "ft.", "hosp.", "med."):
                break   # "C diff, delirium. Awaiting LTAC bed": a sentence ended (icu_invented_m find f10)
            if low not in _NOT_PLACE and _town_of_words(text[m.start(1):h.start()]):
                named, distinct, pos, start = True, True, m.start(1), m.start(1)
                continue   # a listed town of words ("at Three Rivers Dialysis": icu_invented_p find f761)
            if low in _NOT_PLACE or (is_safe_word(word, vocabulary=False) and low not in GENERIC):
                break
            if low in GENERIC:
                pos = m.start(1)
                start = pos if named or low in ("st", "st.", "saint", "mount", "mt", "mt.") else start
                continue
            possessive = low.endswith("'s") and pos == h.start()   # "St. Anne's Hospital"
            if possessive and (low[:-2] in FUNCTION_WORDS or is_safe_word(word[:-2], vocabulary=False)):
                break   # whose house it is, no name ("house manager at pt's sober house": icu_invented_p find f848)
            place = looks_like_place(word, True)
            if not (possessive or place
                    or (word[:1].isupper() and mixed_case(text, m.start()) and not is_safe_word(word, vocabulary=False)
                        and not (_sentence_start(text, m.start(1))
                             and ((zipf(word) or 0.0) >= 5.0 or is_safe_word(word))))
                    or (one_case and _one_case_name_word(word))):
                break
            distinct = distinct or possessive or place or not one_case or (zipf(word) or 0.0) < 4.5
            named, pos, start = True, m.start(1), m.start(1)
        weak = h.group("weak") or h.group("bare")
        owner = [w for w in text[start:h.start()].split() if w.lower() not in GENERIC]
        if h.group("visit") and one_case and not any((zipf(w) or 0.0) < 3.5 or looks_like_place(w, True) for w in owner):
            continue   # "ARRANGING ELDER HOME CARE": in one case an agency's words need a rare or a place's one
            # ("NORTHEAST KINGDOM HOME HEALTH": icu_invented_g find f15)
        if weak and after_head(text[start:h.start()]):
            continue   # "Allapattah Health Center rehab": the care a named hospital gives, not its name
        if h.group("surgery") and not STREET_WORDS & set(text[start:h.start()].lower().split()):
            continue   # "Whipple surgery", "Vascular Surgery": an operation or a department
        if h.group("general") and not _rare_name(text[start:h.start()]):
            continue   # "Attorney General", "appearance general", "Surgeon General. Mass General"
        bare = h.group("bare") is not None
        vocabulary = not bare and not h.group("visit")   # an agency's owner names no treatment either
        if weak and not (named and distinct and clinic_name(text[start:h.start()], vocabulary)) \
                and of_place(text, h.end()) > h.end():
            town = text[h.end():of_place(text, h.end())].split(None, 1)[1]   # "Nephrology Associates of Crestwood"
            at = of_place(text, h.end()) - len(town)
            out.append(mk(doc_id, at, at + len(town), listed_place_type(town) or "CITY"))
            continue
        if named and distinct and weak and not clinic_name(text[start:h.start()], vocabulary) \
                and _named_rehab(text, start, h):
            out.append(mk(doc_id, start, h.end(), "HOSPITAL"))
            continue
        if named and distinct and not (weak and not clinic_name(text[start:h.start()], vocabulary)
                                       and not (h.group("practice") and _place_name(text[start:h.start()]))
                                       and not (h.group("weak") and _town_of_words(text[start:h.start()]))):
            if bare:
                name = text[start:h.start()].rstrip()
                out.append(mk(doc_id, start, start + len(name), listed_place_type(name) or "ORGANIZATION"))
            else:
                out.append(mk(doc_id, start, max(of_place(text, h.end()), for_whom(text, h)),
                              "ORGANIZATION" if h.group("org") else "HOSPITAL"))
    return out


def _town_of_words(name: str) -> bool:
    """Whether ``name`` is a listed town of two words or more ("Three Rivers"), whose service a weak
    head names ("at Three Rivers Dialysis": icu_invented_p find f761) though a word of it is common."""
    return " " in name.strip() and listed_place_type(name) is not None


def closed_by_head(name: str, owned: bool = False) -> bool:
    """Whether a head word ("Hospital", "Rehab", "VNA") ends ``name``; ``owned``: with an owner's word
    before it ("Bayberry Point Rehab", not "LTACH" alone)."""
    return any(h.end() == len(name) and (h.start() > 0 or not owned) for h in HEAD.finditer(name))


# where a patient goes, comes from or is screened, before a rehab's name ("case mgr sending to
# Sheffield Spinal Rehab": icu_invented_p find f77)
_TO_REHAB = re.compile(r"(?i)(?<![\w])(?:to|at|from|by)[ \t]+(?:the[ \t]+)?$")


def _named_rehab(text: str, start: int, head: re.Match) -> bool:
    """A rehab named by its owner and the care it gives, after "to", "at", "from" or "by"
    ("sending to Sheffield Spinal Rehab"): the first word names it (no safe word, a place's or not
    common, no listed town: "Boston cardiac rehab" is a town's service), the words after it say
    what care it gives (safe words); "to acute rehab", "to spinal cord rehab" name none."""
    if not head.group().lower().startswith("rehab") or not _TO_REHAB.search(text[max(0, start - 12):start]):
        return False
    words = text[start:head.start()].split()
    if len(words) < 2 or listed_place_type(words[0]) or not clinic_name(words[0]):
        return False
    return all(is_safe_word(w) and w.lower() not in FUNCTION_WORDS for w in words[1:])


# whom a hospital is for, part of its name ("Riley Hospital for Children": psych_invented find f03;
# "Hospital for Special Surgery", "Hospital for Sick Children")
_FOR_WHOM = re.compile(r"(?i)[ \t]+for[ \t]+(?:sick[ \t]+children|children|women(?:[ \t]+(?:and|&)[ \t]+(?:children|infants|"
                       r"newborns))?|special[ \t]+(?:surgery|care)|joint[ \t]+diseases)\b")


def for_whom(text: str, head: re.Match) -> int:
    """Where a hospital's name ends when "for" and whom it treats follow its head word, or the
    head's end."""
    if not head.group().lower().startswith("hosp"):
        return head.end()
    m = _FOR_WHOM.match(text, head.end())
    return m.end() if m else head.end()


def _rare_name(name: str) -> bool:
    """Whether the words before a bare "General" name a hospital: one sentence, every word rare in
    English (Zipf < 3.5) or a place's ("Brightwater General", "Kessington General")."""
    words = name.split()
    return bool(words) and "." not in name and all((zipf(w) or 0.0) < 3.5 or looks_like_place(w, True) for w in words)


def _place_name(name: str) -> bool:
    """Whether the words before a practice's head ("Family Medicine", "Primary Care") name a place,
    though the safe vocabulary holds them ("Saguaro Family Medicine": notes_invented find f43): each
    a place's word, or no safe word and not common; "Geriatric Primary Care" says what it treats."""
    words = name.split()
    return bool(words) and all(looks_like_place(w, True) or (not is_safe_word(w) and (zipf(w) or 0.0) < 4.5)
                               for w in words if w.lower() not in GENERIC)


def after_head(name: str) -> bool:
    """Whether ``name`` already ends in a hospital's word ("Allapattah Health Center"), so a care
    word after it ("rehab", "hospice") is what it gives, not part of its name."""
    words = name.split()
    return bool(words) and words[-1].lower().rstrip(".") in INSTITUTION_TAIL | {"hosp", "ctr", "infirmary"}


def clinic_name(name: str, vocabulary: bool = True) -> bool:
    """Whether the words before "clinic", "hospice" or "medical group" name one ("Reilly Clinic",
    "green meadows hospice") rather than say what it treats ("Pain Clinic", "Lipid clinic"): no
    word of the safe vocabulary, one word at least not common. A service's bare head ("VNA", "SNF")
    names no treatment, so its owner's words ask the ward's stop set only (``vocabulary`` False:
    "coastline vna", icu_invented_f find f09)."""
    words = name.split()
    # a listed place's word names one though the wide vocabulary holds it ("at Lakeshore Dialysis in
    # Holland": spec_invented find f37); the ward's stop set still says no
    return bool(words) and not any(is_safe_word(w, vocabulary and not is_listed_place_word(w)) for w in words
                                   if w.lower() not in GENERIC) and any(
        (zipf(w) or 0.0) < 4.5 or looks_like_place(w, True) for w in words)


_OF_PLACE = re.compile(r"[ \t]+(?i:of)[ \t]+(?P<place>(?:[A-Za-z][A-Za-z'.-]*)(?:[ \t][A-Za-z][A-Za-z'.-]*){0,2})")


def of_place(text: str, end: int) -> int:
    """A hospital's name that goes on after its head word with "of" and a town ("University
    Hospital of Battle Creek"): where the town's words end (no function or ward word), or ``end``."""
    m = _OF_PLACE.match(text, end)
    if m is None:
        return end
    line = line_of(text, end)
    one_case = not (any(c.islower() for c in line) and any(c.isupper() for c in line))
    stop, distinct = end, False
    for w in re.finditer(r"\S+", m.group("place")):
        word = w.group().rstrip(".,")
        z = zipf(word)
        if word.lower() in FUNCTION_WORDS or is_safe_word(word, vocabulary=False) or z is None or not (
                looks_like_place(word, True) or (word[:1].isupper() and word[1:].islower() and z < 5.0)
                or (one_case and z < 5.6)):
            break
        distinct = distinct or z < 4.5 or looks_like_place(word, True)
        stop = m.start("place") + w.start() + len(word)
    return stop if distinct else end
