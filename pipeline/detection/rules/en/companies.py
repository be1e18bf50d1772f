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
"Family Medicine", "Medical Center", "Assisted Living" or "Nursing Home" are HOSPITAL. Found on the invented PII texts' "find"
half (benchmarks/pii_invented.py).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_LEGAL = (r"LLC|L\.L\.C\.|Inc\.?|Ltd\.?|Corp\.?|Corporation|PLC|plc|GmbH|S\.A\.|SARL|LLP|Pty[ \t]+Ltd|"
          r"Co\.(?=[ \t]*(?:[,;)]|$))")
_TRADE = (r"Group|Partners|Solicitors|Associates|Holdings|Bank|Credit[ \t]+Union|Building[ \t]+Society|Savings|Traders|"
          r"Foods|Energy|Transit|Plumbing|Carpentry|Analytics|Biotech|Robotics|Systems|Media|Labs|Laboratories|Studio|"
          r"Realty|Insurance|Brewing|Brewery|Freight|Logistics|Marine|Shipping|Technologies|Software|Consulting|"
          r"Properties|Motors|Construction|Electric|Airlines|Trust|Foundation|Food[ \t]+Bank|Industries|Enterprises|"
          r"Solutions|Capital|Bakery|Trucking|Landscaping|Roofing|Catering|Apparel|Outfitters|Supply|Supplies|"
          r"Hardware|Pharmacy|Pharmacies|Cafe|Café|Restaurant|Hotel|Resort|Academy|College|University|School|"
          r"Library|Gym|Fitness|Yoga[ \t]+Studio|Salon|Garage|Dealership|Agency|Firm|Bakers")
_CLINIC = (r"Dental|Dentistry|Family[ \t]+Medicine|Medical[ \t]+(?:Center|Centre|Group|Practice)|Health|Clinic|"
           r"Assisted[ \t]+Living|Senior[ \t]+Living|Nursing[ \t]+Home|Care[ \t]+(?:Home|Center|Centre)|Retirement[ \t]+Home|"
           r"Hospice")
# a name's words hold no full stop: "Spokane Valley. Insurance ID" is two sentences
_WORD = r"(?:[A-Z][\w'’-]*|&|and|of|the|de|du|la)"
_ORG = re.compile(rf"(?<![\w&-])(?P<org>(?:The[ \t]+)?[A-Z][\w'’-]*(?:[ \t]+{_WORD}){{0,4}}[ \t]+"
                  rf"(?:(?P<legal>{_LEGAL})|(?P<trade>{_TRADE})|(?P<clinic>{_CLINIC})))(?![\w-])")
_LABEL = re.compile(r"(?m)(?:^|[|;,][ \t]*)(?i:company|company[ \t]+name|business[ \t]+name|employer|current[ \t]+employer|"
                    r"organi[sz]ation|school|college|university|branch|bank|landlord)[ \t]*(?:[:=][ \t]*|[ \t]+is[ \t]+)"
                    r"(?P<org>[A-Z][\w'’.&-]*(?:[ \t]+(?:[A-Z][\w'’.&-]*|&|of|the|and)){0,5})(?=[ \t]*(?:[,;|\"]|\.(?:\s|$)|$))")
# words a name's match may start with that are not the business's ("Dear", "The", "To")
_LEAD = frozenset("dear hi hello to from at with welcome thanks the via and or".split())


def _name_words(org: str, has_legal: bool) -> bool:
    """Whether ``org`` reads as a business's name: a legal form vouches for any words; a trade's
    word needs one word before it that is no safe word and no function word."""
    if has_legal:
        return True
    words = [w.strip(".,'’") for w in org.split()[:-1]]
    return any(w and w.lower() not in FUNCTION_WORDS and not is_safe_word(w) for w in words)


@register(LOCALE, "companies", "LOCATION", score=0.78)
def companies(text: str, doc_id: str) -> list[Span]:
    """Businesses, banks, schools and clinics by the last word of their name, and any title-case
    name after a company's label."""
    out: list[Span] = []
    for m in _ORG.finditer(text):
        start, end = m.start("org"), m.end("org")
        while True:
            first = re.match(r"[^ \t]+[ \t]+", text[start:end])
            if not first or first.group().strip().lower() not in _LEAD or (first.group().strip() == "The"
                                                                         and m.group("legal")):
                break
            start += first.end()
        if start < end and _name_words(text[start:end], bool(m.group("legal"))):
            out.append(mk(doc_id, start, end, "HOSPITAL" if m.group("clinic") else "ORGANIZATION"))
    for m in _LABEL.finditer(text):
        words = m.group("org").split()
        if not all(w.lower() in FUNCTION_WORDS for w in words) and not (len(words) == 1 and is_safe_word(words[0])):
            out.append(mk(doc_id, *m.span("org"), "ORGANIZATION"))
    return dedupe(out)
