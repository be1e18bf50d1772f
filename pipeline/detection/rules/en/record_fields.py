"""Values a record's keys name: a JSON object's or a key=value line's fields (``"full_name":
"Graciela Irarrázaval"``, ``"card_last4": "5501"``, ``name=Oluwaseun Adebanjo;``) and the cells of
a CSV table under a header that names its columns (``name,job,company,city``).

Why: exports, logs and API payloads (the public synthetic PII sets hold many) name each value by
its key, where no sentence stands around it; the value's own shape seldom tells a name from a
company, or a city from a surname. The key is the evidence, so only keys that say what the value
is count (``full_name``, ``city``, ``zip``; never ``id``, ``status`` or ``plan``), and a value must
be short and hold a letter (a name, a city, a company, a job) or a digit (a ZIP, a card's last
four). JSON keys stand in quotes before a colon, ``key=value`` pairs end at ``;``, ``|``, ``&``,
``,`` or the line's end; a CSV header is a line of three or more plain keys, one of them known,
and only the lines after it with as many cells are read. Clinical notes write no such records,
so ward lines ("BP 120/80", "PT FROM PACU") never meet these shapes. Found on the second invented
PII set's find half (benchmarks/pii_invented.py --set b: f_json_31, f_csv_32).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

# a key, normalised (lower case, no "_", "-" or spaces), and the type of what it names
_KEYS: dict[str, str] = {
    **dict.fromkeys("name fullname firstname lastname surname middlename givenname familyname customername "
                    "clientname accountholder holdername contactname patientname first last".split(), "PATIENT"),
    **dict.fromkeys("city town".split(), "CITY"),
    **dict.fromkeys("zip zipcode postcode postalcode".split(), "ZIP"),
    **dict.fromkeys("street address address1 streetaddress addressline1".split(), "STREET"),
    **dict.fromkeys("state province".split(), "STATE"),
    **dict.fromkeys("country".split(), "COUNTRY"),
    **dict.fromkeys("dob birthdate dateofbirth birthday".split(), "DATE"),
    **dict.fromkeys("phone mobile tel telephone phonenumber cell".split(), "PHONE"),
    **dict.fromkeys("email emailaddress mail".split(), "EMAIL"),
    **dict.fromkeys("cardlast4 last4 acct account accountnumber iban cardnumber".split(), "ACCOUNT"),
    **dict.fromkeys("ssn".split(), "SSN"),
    **dict.fromkeys("ip ipaddress ipv4 ipv6".split(), "IPADDR"),
    **dict.fromkeys("company employer organisation organization".split(), "ORGANIZATION"),
    **dict.fromkeys("job jobtitle occupation position".split(), "PROFESSION"),
}
_QUOTED = re.compile(r"[\"'](?P<key>[A-Za-z][\w -]{0,30})[\"'][ \t]*:[ \t]*[\"'](?P<value>[^\"'\n]{1,60})[\"']")
_PAIR = re.compile(r"(?<![\w.])(?P<key>[A-Za-z][\w-]{0,30})[ \t]*=[ \t]*(?P<value>[^;|&,=\n]{1,60}?)[ \t]*(?=[;|&,\n]|$)")
_CELL_KEY = re.compile(r"[A-Za-z][\w -]{0,30}")


def key_type(key: str) -> str | None:
    """The type of value a record's key names ("full_name" -> PATIENT), or None."""
    return _KEYS.get(re.sub(r"[\s_-]+", "", key).lower())


def _value_ok(value: str, gtype: str) -> bool:
    """A value worth marking: a letter in a name, place, company or job; a digit in the rest."""
    v = value.strip()
    if not v or v.lower() in ("null", "none", "n/a", "true", "false", "unknown"):
        return False
    if gtype in ("PATIENT", "CITY", "STATE", "COUNTRY", "ORGANIZATION", "PROFESSION"):
        return any(c.isalpha() for c in v) and not any(c.isdigit() for c in v)
    return any(c.isdigit() for c in v) or gtype == "EMAIL"


def _cell_spans(text: str, start: int, line: str, gtype: str, doc_id: str) -> list[Span]:
    stripped = line.strip()
    if not _value_ok(stripped, gtype):
        return []
    off = start + line.index(stripped)
    return [mk(doc_id, off, off + len(stripped), gtype)]


def _csv_tables(text: str, doc_id: str) -> list[Span]:
    """Cells under a CSV header of three or more plain keys, one of them known."""
    out: list[Span] = []
    header: list[str | None] | None = None
    pos = 0
    for line in text.split("\n"):
        cells = line.split(",")
        if len(cells) >= 3 and all(_CELL_KEY.fullmatch(c.strip()) for c in cells) \
                and any(key_type(c) for c in cells):
            header = [key_type(c) for c in cells]
        elif header and len(cells) == len(header):
            at = pos
            for cell, gtype in zip(cells, header):
                if gtype:
                    out += _cell_spans(text, at, cell, gtype, doc_id)
                at += len(cell) + 1
        else:
            header = None
        pos += len(line) + 1
    return out


@register(LOCALE, "record_fields", "NAME", score=0.86)
def record_fields(text: str, doc_id: str) -> list[Span]:
    """Values under a JSON key, a ``key=value`` pair's key or a CSV header that says what they are."""
    out: list[Span] = []
    for rx in (_QUOTED, _PAIR):
        for m in rx.finditer(text):
            gtype = key_type(m.group("key"))
            if gtype and _value_ok(m.group("value"), gtype):
                out += _cell_spans(text, m.start("value"), m.group("value"), gtype, doc_id)
    return dedupe(out + _csv_tables(text, doc_id))
