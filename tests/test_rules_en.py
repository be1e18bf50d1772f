"""English rule pack: each recognizer on short clinical lines with i2b2 2014 boundaries
(ages are the number alone, record numbers the value after the label)."""
from __future__ import annotations

import pytest

from pipeline.detection.rules import get_pack, run_rules
from pipeline.schemas import I2B2_2014, MEDDOCAN


def _texts(text: str, rule: str, schema=I2B2_2014) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.type) for s in run_rules(text, "t", "en", schema, only={rule})]


def test_pack_contents():
    names = {r.name for r in get_pack("en")}
    assert {"dates", "ages", "phones", "ssn", "record_numbers", "postal_codes", "streets", "titled_names",
            "email", "url", "ipaddr"} <= names
    assert get_pack("en-US") == get_pack("en")  # a regional tag falls back to the language's pack


@pytest.mark.parametrize("text, expected", [
    ("Admitted on 01/20/2071 and discharged 1/24.", ["01/20/2071", "1/24"]),
    ("History of MI in 4/66, CABG 2069-03-01.", ["4/66", "2069-03-01"]),
    ("Seen on January 5, 2071 and again Jan. 12th 2071.", ["January 5, 2071", "Jan. 12th 2071"]),
    ("Return in January 2071 for follow up.", ["January 2071"]),
    ("Surgery on the 5th of March; visit 5-Jan-2071.", ["5th of March", "5-Jan-2071"]),
    ("Last colonoscopy Spring 2070, flu shot in 2069.", ["Spring 2070", "2069"]),
    ("He will come back Monday, around Christmas.", ["Monday", "Christmas"]),
    ("She may call back. Plan made May 3.", ["May 3"]),
    ("Takes 2000 mg daily, BP 120/80, dose 1/2 tab.", []),
])
def test_dates(text, expected):
    got = _texts(text, "dates")
    assert [t for t, _ in got] == expected
    assert all(ty == "DATE" for _, ty in got)


@pytest.mark.parametrize("text, expected", [
    ("45 yo male with CP", ["45"]),
    ("A 67-year-old woman presents", ["67"]),
    ("72 y/o F, 80 year old M, 55 yr old", ["72", "80", "55"]),
    ("Patient aged 70. Onset at age 12.", ["70", "12"]),
    ("He was 300 years old", []),
    ("received 45 units", []),
])
def test_ages_are_numbers_only(text, expected):
    got = _texts(text, "ages")
    assert [t for t, _ in got] == expected
    assert all(ty == "AGE" for _, ty in got)


def test_phones_fax_and_pagers():
    text = "Call (617) 555-1234 x12 or 617.555.4321; fax: 617-555-9876. Pager #12345. p 1234 mg."
    got = _texts(text, "phones")
    assert got == [("(617) 555-1234 x12", "PHONE"), ("617.555.4321", "PHONE"), ("617-555-9876", "FAX"),
                   ("12345", "PHONE")]


def test_ssn_valid_only():
    text = "SSN 123-45-6789; ref 000-12-3456; social security number: 234 56 7890."
    assert _texts(text, "ssn") == [("123-45-6789", "SSN"), ("234 56 7890", "SSN")]


def test_record_numbers_after_labels():
    text = "MRN: 1234567. Acct # 55-1234. Medical Record Number 88776655. DEA AB1234563. Member ID: XQZ12345678."
    assert _texts(text, "record_numbers") == [
        ("1234567", "MEDICALRECORD"), ("55-1234", "ACCOUNT"), ("88776655", "MEDICALRECORD"),
        ("AB1234563", "LICENSE"), ("XQZ12345678", "HEALTHPLAN")]


def test_postal_codes_with_state():
    text = "Lives in Boston, MA 02114-1234. ZIP: 90210. Took MS 04 mg."
    assert _texts(text, "postal_codes") == [("Boston", "CITY"), ("MA", "STATE"), ("02114-1234", "ZIP"), ("90210", "ZIP")]


@pytest.mark.parametrize("text, expected", [
    ("Lives at 123 Main Street, Apt 4B, Boston.", ["123 Main Street, Apt 4B", "Boston"]),
    ("Address: 45 W. Elm St. in town", ["45 W. Elm St."]),
    ("Mail to P.O. Box 1234.", ["P.O. Box 1234"]),
    ("Walked 3 blocks down the street.", []),
])
def test_streets(text, expected):
    assert [t for t, _ in _texts(text, "streets")] == expected


def test_titled_names_without_titles():
    text = "Seen by Dr. Jane Doe and Dr Smith. Mrs. O'Neil reports pain. Dr. The patient."
    assert _texts(text, "titled_names") == [("Jane Doe", "DOCTOR"), ("Smith", "DOCTOR"), ("O'Neil", "PATIENT")]


def test_contacts_shared_with_other_packs():
    text = "Email j.smith@example.org or visit http://example.com/a?b=1. Host 10.1.2.3."
    got = {(t, ty) for r in ("email", "url", "ipaddr") for t, ty in _texts(text, r)}
    assert got == {("j.smith@example.org", "EMAIL"), ("http://example.com/a?b=1", "URL"), ("10.1.2.3", "IPADDR")}


def test_english_rules_typed_for_meddocan():
    text = "fax: 617-555-9876, MRN: 1234567, on 01/20/2071"
    got = {ty for _, ty in [(text[s.start:s.end], s.type) for s in run_rules(text, "t", "en", MEDDOCAN)]}
    assert got == {"NUMERO_FAX", "ID_SUJETO_ASISTENCIA", "FECHAS"}
