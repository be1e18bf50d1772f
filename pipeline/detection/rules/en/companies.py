"""Organisations by the word that ends their name ("Achterberg Carpentry LLC", "Northwind
Traders", "Coastline Credit Union", "Lindqvist & Partners Solicitors") or by a form's label
("Company: Atelier Quist", "Employer: Vireo Biotech", "company=Brightwater Analytics": the label
vouches for any title-case words but a lone safe word, "Employer: Retired").

Why: employers, banks, shops, schools and landlords name who someone is (i2b2 2014 counts them as
ORGANIZATION), and forms, e-mails and letters name them everywhere, not only after "works at"
(:mod:`.workplaces`). A business's name is title-case words closed by a legal form (LLC, Inc,
Ltd, GmbH: enough alone) or by a trade's word (Traders, Foods, Plumbing, Analytics, Credit
Union); before a trade's word at least one word must be no safe word, so a ward's "Blood Bank",
"Social Services" or "Case Management Group" stays. Clinics, practices and homes closed by "Dental",
"Family Medicine", "Medical Center", "Assisted Living" or "Nursing Home" are HOSPITAL. In a line
written in one case ("OSTRANDER PLUMBING", "coastline credit union") the patterns read
:func:`.caseless.titled`'s view, and the closing word no longer vouches alone: one word before it
must be a word a ward does not use and no common English word ("PT SEEN BY CARDIAC SURGERY
GROUP", "co 4.5, ci 2.1 co." stay). Found on the invented PII texts' "find" half
(benchmarks/pii_invented.py) and its UPPER and lower copies. A veterans' post and a union's local
by their number ("VFW Post 4417", "Carpenters Local 1187") are organisations too.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at, titled
from pipeline.detection.rules.en.towns import listed_place_type
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_first_name, is_listed_name, is_safe_word, zipf
from pipeline.detection.rules.en.ward_vocabulary import CONTEXT
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

# the trades a family firm names after "& Sons" or "Brothers" ("GAGNON & SONS PAVING", "pratt brothers
# logging": icu_invented_p find f964, f1026, f1386)
_FAMILY_TRADE = r"Paving|Logging|Excavating|Construction|Trucking|Plumbing|Roofing|Landscaping|Lumber|Farms?"
_LEGAL = (r"LLC|L\.L\.C\.|Inc\.?|Ltd\.?|Corp\.?|Corporation|PLC|plc|GmbH|S\.A\.|SARL|LLP|Pty[ \t]+Ltd|"
          # (and "Co." before the town it is in: "at Wallace Shoe Co. in Avon": icu_invented_p find f990)
          r"Co\.(?=[ \t]*(?:[,;)]|$))|Co\.(?=[ \t]+(?i:in|of)[ \t])|"
          # a family firm after its ampersand ("FUNERAL HOME: CONWAY & SONS": icu_invented_p find f204),
          # with its trade after it ("PLOW DRIVER FOR GAGNON & SONS PAVING", "EMPLOYER NADEAU & SONS
          # LOGGING": icu_invented_p find f964, f1026)
          rf"(?<=& )(?:Sons?|Daughters?|Brothers|Bros\.?)(?:[ \t]+(?:{_FAMILY_TRADE}))?")
_TRADE = (r"(?:Freight|Bus|Truck|Steamship)[ \t]+Lines|Group|Partners|Solicitors|Associates|Holdings|Bank|Credit[ \t]+Union|Building[ \t]+Society|Savings|Traders|"
          r"Foods|Energy|Transit|Plumbing|Carpentry|Analytics|Biotech|Robotics|Systems|Media|Labs|Laboratories|Studio|"
          r"Realty|Insurance|Brewing|Brewery|Freight|Logistics|Marine|Shipping|Technologies|Software|Consulting|"
          r"Properties|Motors|Construction|Electric|Airlines|Trust|Foundation|Food[ \t]+Bank|Industries|Enterprises|"
          r"Solutions|Capital|Bakery|Trucking|Landscaping|Roofing|Catering|Apparel|Outfitters|Supply|Supplies|"
          r"Hardware|Pharmacy|Pharmacies|Cafe|Café|Restaurant|Hotel|Resort|Academy|College|University|School|"
          r"Library|Gym|Fitness|Yoga[ \t]+Studio|Salon|Garage|Dealership|Agency|Firm|Bakers|"
          # services, employers and congregations a social worker's note names ("Lancaster Ambulance",
          # "Susquehanna Valley EMS", "Grace Bible Fellowship", "Kreider's Drug Store", "Bethlehem
          # Steel", "the Hampton Inn"; found on icu_invented_b find f15, f33, f34, f37, f46, f49)
          r"Ambulance|Ambulance[ \t]+Service|EMS|Rescue[ \t]+Squad|Fire[ \t]+Company|Church|Chapel|Fellowship|"
          r"Parish|Cathedral|Synagogue|Mosque|Drug[ \t]+Store|Drugstore|Drugs|Steel|Inn|Motel|"
          # places of work a social history names ("Bellamy's Steakhouse", "Acushnet Textile", "Fall
          # Creek Mall"; notes_invented find f14, f49, f55)
          r"Steakhouse|Diner|Tavern|Grill|Pizzeria|Bistro|Textile|Textiles|Mall|Club|Elder[ \t]+Services|"
          # a shop's, a mill's and a school's closing words ("Lynnway Auto Body", "Pawtucket Wire &
          # Cable", "Mystic Valley Tech"; icu_invented_d find f07, f09, f20)
          r"Auto[ \t]+Body|Auto[ \t]+Repair|Auto[ \t]+Parts|Body[ \t]+Shop|Cable|Wire|Pizza|Tech|"
          # a heart monitor's service ("MONITORING SERVICE: CARDIOLINK DIAGNOSTICS": rad_invented find f12)
          r"Diagnostics|"
          # a boat's and a therapist's business ("DECKHAND FOR GULF BREEZE CHARTERS", "RE-REFERRAL TO
          # WIREGRASS PHYSICAL THERAPY": ed_invented find f10, spec_invented find f45, in UPPER)
          r"Charters|Physical[ \t]+Therapy|"
          # a mover's and a machine shop's ("WAREHOUSE AT KILBRIDE MOVING & STORAGE", "MACHINIST AT
          # BLACKSTONE VALLEY TOOL & DIE"), a congregation's ("GRACE TABERNACLE OF GOD MINISTRIES"):
          # icu_invented_p find f135, f38, icu_invented_r find f31
          r"Moving[ \t]+(?:&|and)[ \t]+Storage|Movers|Tool[ \t]+(?:&|and)[ \t]+Die|Machine[ \t]+Shop|"
          r"Tabernacle|Ministries|"
          # a boat owner's business ("boat owner from rebelo fisheries": icu_invented_p find f917)
          r"Fisheries|"
          # a family firm of brothers by its trade ("works for pratt brothers logging": icu_invented_p find f1386)
          rf"(?:Brothers|Bros\.?)[ \t]+(?:{_FAMILY_TRADE})|"
          # where a patient is held or tried ("INMATE AT ASHCROFT COUNTY HOUSE OF CORRECTION", "HELD AT PEMBERTON
          # STREET JAIL": icu_invented_p find f471, f479)
          r"House[ \t]+of[ \t]+Correction|Jail|Prison|Correctional[ \t]+(?:Center|Facility|Institution)")
_CLINIC = (r"Dental|Dentistry|Family[ \t]+Medicine|Medical[ \t]+(?:Center|Centre|Group|Practice)|Health|Clinic|"
           r"Assisted[ \t]+Living|Senior[ \t]+Living|Nursing[ \t]+Home|Care[ \t]+(?:Home|Center|Centre)|Retirement[ \t]+Home|"
           r"Hospice|"
           # a cardiologist's practice ("PCP AND CARDIOLOGIST AT CABOT STREET CARDIOLOGY", "last cath at
           # North Shore Heart and Vascular": icu_invented_p find f192, f189)
           r"Cardiology|Heart[ \t]+(?:and|&)[ \t]+Vascular|Cardiovascular[ \t]+Associates|Family[ \t]+Practice")
#: trades' words no ward writes, after which, in a line in one case, a word of the safe vocabulary
#: that is no ward's stop word may name the business ("COASTLINE CREDIT UNION": the vocabulary,
#: built from general English too, holds "coastline"; found on the invented PII texts' find half in
#: UPPER and lower case, email_03); "Group", "Labs", "Systems", "Health" stay strict
_BUSINESS = re.compile(r"Credit[ \t]+Union|Building[ \t]+Society|Solicitors|Realty|Brewery|Brewing|Plumbing|Carpentry|"
                       r"Trucking|Landscaping|Roofing|Outfitters|Dealership|Bakery|Catering|Rescue[ \t]+Squad|"
                       r"Fire[ \t]+Company|Fellowship|Synagogue|Mosque|Drug[ \t]+Store|Drugstore|"
                       r"Moving[ \t]+(?:&|and)[ \t]+Storage|Movers|Tool[ \t]+(?:&|and)[ \t]+Die|Tabernacle|Ministries", re.I)
#: common words a business's own name ends in before its trade's word ("ANACORTES HIGH SCHOOL",
#: "KENYON HILL COLLEGE", "WHITCOMBE GOLF CLUB": notes_invented find f07, f16, f56), unlike a ward's
#: "alaris drug library", whose last word before the trade's is a clinical one
_NAME_TAILS = frozenset("""high middle elementary junior senior golf country community hill hills valley lake river
park point ridge creek springs falls heights bay grove meadow meadows green oak pine""".split())
#: a congregation's closing words, and the words of a faith that name none alone ("the Lutheran
#: church", "Greek Orthodox Church", "Catholic Chapel": which church a patient goes to is named
#: by another word, "St. Ann's", "Grace Bible")
_FAITH_CLOSER = re.compile(r"Church|Chapel|Fellowship|Parish|Cathedral|Synagogue|Mosque|Tabernacle|Ministries", re.I)
FAITHS = frozenset("""catholic roman methodist baptist lutheran presbyterian episcopal episcopalian mennonite amish
brethren orthodox greek russian coptic anglican evangelical pentecostal apostolic adventist unitarian reformed
christian jewish muslim islamic hindu sikh buddhist community bible united first second free new old local""".split())
# a name's words hold no full stop: "Spokane Valley. Insurance ID" is two sentences
_WORD = r"(?:[A-Z][\w'’-]*|&|and|of|the|de|du|la)"
_ORG = re.compile(rf"(?<![\w&-])(?P<org>(?:The[ \t]+)?[A-Z][\w'’-]*(?:[ \t]+{_WORD}){{0,4}}[ \t]+"
                  rf"(?:(?P<legal>{_LEGAL})|(?P<trade>{_TRADE})|(?P<clinic>{_CLINIC})))(?![\w-])")
_LABEL = re.compile(r"(?m)(?:^|[|;,][ \t]*)(?i:company|company[ \t]+name|business[ \t]+name|employer|current[ \t]+employer|"
                    r"organi[sz]ation|school|college|university|branch|bank|landlord)[ \t]*(?:[:=][ \t]*|[ \t]+is[ \t]+)"
                    r"(?P<org>[A-Z][\w'’.&-]*(?:[ \t]+(?:[A-Z][\w'’.&-]*|&|of|the|and)){0,5})(?=[ \t]*(?:[,;|\"]|\.(?:\s|$)|$))")
# words a name's match may start with that are not the business's ("Dear", "The", "To")
# (and the employer's own word: "Employer Nadeau & Sons Logging": icu_invented_p find f1026)
_LEAD = frozenset("dear hi hello to from at with welcome thanks the via and or called call paged contacted notified owns "
                  "employer".split())
# legal forms as a one-case line's view must spell them for ``_LEGAL``
# (a line in one case is read in title case, so a trade's word in capitals needs its spelling back:
# "ARRANGED WITH SUSQUEHANNA VALLEY EMS FOR 1100", icu_invented_b find f46 in UPPER)
_CANON = {"llc": "LLC", "plc": "PLC", "gmbh": "GmbH", "llp": "LLP", "sarl": "SARL", "ems": "EMS"}


#: a shop's closing word, which an owner's possessive name may open alone in one case
_SHOP = re.compile(r"(?i)Pharmacy|Drug[ \t]+Store|Drugstore|Drugs|Hardware|Bakery|Diner|Pizzeria|Garage")
_KIN_WORDS = frozenset(CONTEXT)
#: a school's closing word, which a state's or a town's name before it vouches for in one case
_SCHOOL = re.compile(r"(?i)College|University|School|Academy")


def _shop_owner(view: str, start: int, closer: int) -> int | None:
    """Where a shop's name starts in a line of one case when an owner's possessive name stands right
    before its word ("PT USES COSTA'S PHARMACY": icu_invented_p find f182; "costa" is also a rib, so
    the vocabulary refuses it): no function, kinship or ward word ("PT'S PHARMACY", "WIFE'S PHARMACY"
    stay), not among English's commonest words."""
    m = re.search(r"(?<![\w'’])([A-Za-z][A-Za-z-]{2,})['’][sS][ \t]+$", view[start:closer])
    if m is None:
        return None
    owner = m.group(1)
    if owner.lower() in FUNCTION_WORDS or owner.lower() in _KIN_WORDS or is_safe_word(owner, vocabulary=False) \
            or (zipf(owner) or 0.0) >= 4.5:
        return None
    return start + m.start(1)


def _name_words(words: list[str], kind: str, caseless: bool = False, closer: str = "") -> bool:
    """Whether ``words`` (a name's words before its last word, or, ``caseless``, before its
    closing words of ``kind``: "legal", "trade", "business" (a :data:`_BUSINESS` trade) or "clinic")
    read as a business's name: a legal form vouches for any words; a trade's word needs
    one word that is no safe word and no function word. In a line in one case (``caseless``) all
    need one word that is no ward's word, no function word and no common English word (Zipf < 4);
    before a trade's word the last word no very common one (Zipf >= 4.5: "alaris drug library"),
    and before a trade's or a clinic's word, no word of the safe vocabulary either ("abnl labs",
    "lipid clinic", "wound clinic": a note's words; a legal form or a :data:`_BUSINESS` word is
    evidence enough)."""
    if kind == "legal" and not caseless:
        return True
    # a possessive's owner is the word ("PT'S PHARMACY", "pt's insurance": the patient's, no
    # business; icu_invented find f12, f33, f37)
    words = [re.sub(r"['’]s$", "", w.strip(".,'’"), flags=re.I) for w in words]
    if not caseless:
        return any(w and w.lower() not in FUNCTION_WORDS and not is_safe_word(w) for w in words)
    if kind == "trade" and words and (zipf(words[-1]) or 0.0) >= 4.5 and not re.fullmatch(_TRADE, words[-1], re.I) \
            and words[-1].lower() not in _NAME_TAILS:
        return False
    if kind == "trade" and closer and _SCHOOL.fullmatch(closer) and any(
            w.lower() not in FUNCTION_WORDS and listed_place_type(w) in ("STATE", "CITY") for w in words):
        return True   # a school named by its state or town ("CONTACT TEXAS HILL COUNTRY COLLEGE STUDENT
        # HEALTH": icu_invented_q find f13; "SALEM STATE COLLEGE"): a place's name is evidence in one case
    vocabulary = kind not in ("legal", "business")
    # the rare word is a word: "C1D1 PLANNED NEXT MON PENDING INSURANCE" names no insurer (spec_invented find f16)
    return any(w and w.lower() not in FUNCTION_WORDS and not is_safe_word(w, vocabulary=vocabulary)
               and (zipf(w) or 0.0) < 4.0 and re.search(r"[A-Za-z]{2}", w) and not re.search(r"\d", w) for w in words)


def _past_common_words(view: str, start: int, closer: int, kind: str, closing: str = "") -> int:
    """Where a one-case line's name starts once its leading ordinary words are left out
    ("AUTHORISE GREENFIELD ENERGY", "PAID ..."; the view's capitals took them in): a word of the
    safe vocabulary or a very common one goes while the words left still make a name."""
    while True:
        first = re.match(r"([^ \t]+)[ \t]+", view[start:closer])
        w = first.group(1) if first else ""
        if not first or not (is_safe_word(w) or (zipf(w) or 0.0) >= 4.8) \
                or not _name_words(view[start + first.end():closer].split(), kind, True, closing):
            return start
        start += first.end()


# a veterans' or fraternal post by its number ("Active in VFW Post 4417 in Globe": ltc_invented find
# f07; "American Legion Post 12", "Elks Lodge #1021"): the number names one hall in one town
_VETERANS_POST = re.compile(r"(?i)(?<![\w-])(?:vfw|american[ \t]+legion|amvets|dav|elks|moose|eagles|knights[ \t]+of[ \t]+columbus)"
                            r"[ \t]+(?:post|lodge|chapter|aerie|council)[ \t]*(?:no\.?|#)?[ \t]*\d{1,5}(?![\w-])")


# a country's mission by its people's adjective ("A staff member from the Korean Consulate called", "THE
# ITALIAN CONSULATE CALLED", "a letter for the Nigerian Embassy": icu_invented_p find f1252, f1263, f1257)
_CONSULATE = re.compile(r"(?i)(?<![\w-])(?P<org>[a-z]+(?:an|ese|ian|ish|ch|i)[ \t]+(?:consulate|embassy)(?:[ \t]+general)?)(?![\w-])")


# a union's local by its number ("member of Carpenters Local 1187": icu_invented_p find f66; "IBEW Local
# 103", "Teamsters Local 25", "SEIU Local 1199", "Sheet Metal Workers Local 17"): the word before
# "Local" names the union (a trade's plural, an acronym English does not use, or in a mixed-case line
# a capitalised word before a capitalised "Local"), so "local 1% lidocaine", "applied local x2" stay
_UNION_LOCAL = re.compile(r"(?<![\w'-])(?P<last>[A-Za-z][A-Za-z'-]*)[ \t]+(?P<local>(?i:local))[ \t]+(?:(?i:no)\.?[ \t]*|#[ \t]*)?"
                          r"(?P<num>\d{1,5})(?:[A-Za-z]{1,2}\b)?(?![\w%/-]|[.,]\d)")
_NOT_A_LOCAL_AFTER = re.compile(r"(?i)[ \t]*(?:%|mg|mcg|ml|cc|cm|mm|g\b|units?\b|x\b|times|mins?\b|hrs?\b|hours?|days?|weeks?)")
_TRADE_PLURAL = re.compile(r"(?i)[a-z]{3,}(?:ers|ors|ists|ians|men|workers)")


def _union_name(text: str, m: re.Match) -> int | None:
    """Where a union's name starts before its "Local": the word before it a union's (see
    :data:`_UNION_LOCAL`), then up to two more words before it that are no function or ward word
    and, in a mixed-case line, capitalised ("Sheet Metal Workers")."""
    last, caseless = m.group("last"), one_case_at(text, m.start())
    if last.lower() in FUNCTION_WORDS or is_safe_word(last, vocabulary=False) or _NOT_A_LOCAL_AFTER.match(text, m.end("num")):
        return None
    acronym = re.fullmatch(r"[A-Za-z]{2,6}", last) is not None and (zipf(last) or 0.0) < 3.0 and not is_safe_word(last)
    if caseless:
        ok = _TRADE_PLURAL.fullmatch(last) is not None or acronym
    else:
        ok = last[:1].isupper() and m.group("local")[:1] == "L" and (
            _TRADE_PLURAL.fullmatch(last) is not None or (acronym and last.isupper()) or not is_safe_word(last))
    if not ok:
        return None
    start = m.start("last")
    for _ in range(2):
        w = re.search(r"(?<![\w'-])([A-Za-z][A-Za-z'-]*)[ \t]+$", text[max(0, start - 30):start])
        if w is None:
            break
        word = w.group(1)
        if word.lower() in FUNCTION_WORDS or is_safe_word(word, vocabulary=False) or word.lower() in _LEAD \
                or (not caseless and not word[:1].isupper()) or (caseless and (zipf(word) or 0.0) >= 5.0):
            break
        start -= len(w.group())
    return start


# a second trade joined to a business's trade word by an ampersand ("Kowalski Roofing & Gutters")
_AMPERSAND_WORD = re.compile(r"[ \t]+&[ \t]+(?P<w>[A-Za-z][A-Za-z'-]*[A-Za-z])(?![\w'-])")


def _joined_word_ok(word: str, caseless: bool) -> bool:
    """The word after a business's ampersand: no function or ward word; capitalised in a mixed-case line."""
    return word.lower() not in FUNCTION_WORDS and not is_safe_word(word, vocabulary=False) \
        and (caseless or word[:1].isupper())


@register(LOCALE, "companies", "LOCATION", score=0.78)
def companies(text: str, doc_id: str) -> list[Span]:
    """Businesses, banks, schools and clinics by the last word of their name, and any title-case
    name after a company's label; lines in one case read in title case (:func:`.caseless.titled`)."""
    out: list[Span] = []
    view = titled(text, _CANON)
    for m in _ORG.finditer(view):
        start, end = m.start("org"), m.end("org")
        while True:
            first = re.match(r"[^ \t]+[ \t]+", view[start:end])
            if not first or first.group().strip().lower() not in _LEAD or (first.group().strip() == "The"
                                                                         and m.group("legal")):
                break
            start += first.end()
        caseless = one_case_at(text, start)
        kind = next(k for k in ("legal", "trade", "clinic") if m.group(k))
        if kind == "trade" and _BUSINESS.fullmatch(m.group("trade")):
            kind = "business"
        closer = m.start("trade" if kind == "business" else kind)
        if caseless:
            start = _past_common_words(view, start, closer, kind, m.group("trade") or "")
        # as written, the words before the name's last word decide ("Coastline Credit"); in one
        # case, the words before the closing word or words ("coastline")
        words = text[start:closer].split() if caseless else text[start:end].split()[:-1]
        named_faith = False
        if kind in ("trade", "business") and _FAITH_CLOSER.fullmatch(m.group("trade")):
            kept = [w for w in words if w.strip(".,'’").lower() not in FAITHS]
            # a faith's word and a name before it (a listed name or a word English seldom writes) name a
            # congregation in one case too ("REV. PRINCE FROM GRACE EPISCOPAL CHURCH": icu_invented_p find
            # f204); "ATTENDS RUSSIAN ORTHODOX CHURCH", "THE ARMENIAN APOSTOLIC CHURCH" name none
            named_faith = caseless and len(kept) < len(words) and any(
                w.isalpha() and w.lower() not in FUNCTION_WORDS and not is_safe_word(w, vocabulary=False)
                and (is_listed_name(w) or is_first_name(w) or (zipf(w) or 0.0) < 3.0) for w in kept)
            words = kept
        owner = _shop_owner(view, start, closer) if caseless and kind == "trade" and _SHOP.fullmatch(m.group("trade")) else None
        if owner is not None:
            out.append(mk(doc_id, owner, end, "ORGANIZATION"))
        elif start < end and (named_faith or _name_words(words, kind, caseless, m.group("trade") or "")):
            if kind in ("trade", "business") and (joined := _AMPERSAND_WORD.match(text, end)) is not None \
                    and _joined_word_ok(joined.group("w"), caseless):
                end = joined.end()   # "employer kowalski roofing & gutters" (icu_invented_p find f324)
            out.append(mk(doc_id, start, end, "HOSPITAL" if m.group("clinic") else "ORGANIZATION"))
    out += [mk(doc_id, *m.span(), "ORGANIZATION") for m in _VETERANS_POST.finditer(text)]
    out += [mk(doc_id, *m.span("org"), "ORGANIZATION") for m in _CONSULATE.finditer(text)]
    for m in _UNION_LOCAL.finditer(text):
        if (start := _union_name(text, m)) is not None:
            out.append(mk(doc_id, start, m.end(), "ORGANIZATION"))
    for m in _LABEL.finditer(view):
        words = m.group("org").split()
        if not all(w.lower() in FUNCTION_WORDS for w in words) and not (len(words) == 1 and is_safe_word(words[0])):
            out.append(mk(doc_id, *m.span("org"), "ORGANIZATION"))
    return dedupe(out)
