"""English names: after a title (``Dr. Smith``), and as nurses write them (:mod:`.context_names`)."""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk, trim
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.name_words import is_safe_word
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

# an initial without its full stop before a surname, as UK letters write one ("Dr A Okonjo":
# notes_invented find f16)
_NAME_TOKEN = r"[A-Z](?:[a-z]+(?:[-'][A-Z][a-z]+)?|'[A-Z][a-z]+|\.|(?= [A-Z][a-z]))"
_TITLED = re.compile(
    rf"(?<![\w.])(?P<title>Dr|Drs|Mr|Mrs|Ms|Miss|Prof|Doctor)\.?\s+(?P<name>{_NAME_TOKEN}(?: {_NAME_TOKEN}){{0,2}})")
_NOT_NAMES = {"The", "He", "She", "His", "Her", "They", "We", "I", "In", "On", "At", "To", "For", "And", "Of", "Office",
              "Clinic", "Hospital", "Service", "Team", "Note", "Department"}


@register(LOCALE, "titled_names", "NAME", score=0.85)
def titled_names(text: str, doc_id: str) -> list[Span]:
    """Names after titles, without the title: ``Dr. Smith`` -> DOCTOR "Smith";
    ``Mrs. Jones`` -> PATIENT "Jones"."""
    out: list[Span] = []
    for m in _TITLED.finditer(text):
        tokens = m.group("name").split()
        keep = []
        for tkn in tokens:
            if tkn in _NOT_NAMES or (len(tkn) > 1 and is_safe_word(tkn)):
                break
            keep.append(tkn)
        if keep and len(keep[-1]) == 1:
            keep.pop()   # an initial without its stop only before a surname ("Dr A Fib" is none)
        if not keep:
            continue
        s = m.start("name")
        e = s + len(" ".join(keep))   # one blank between words: a column's gap ends the name
        s, e = trim(text, s, e)
        if e <= s:
            continue
        gtype = "DOCTOR" if m.group("title") in ("Dr", "Drs", "Prof", "Doctor") else "PATIENT"
        out.append(mk(doc_id, s, e, gtype))
    return out
