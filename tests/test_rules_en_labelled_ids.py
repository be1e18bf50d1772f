"""Identifiers and logins a sentence names (:mod:`pipeline.detection.rules.en.labelled_ids`), on
lines written for this test (every value invented), and the clinical and everyday uses of the
same label words that must stay unmarked."""
from __future__ import annotations

import pytest

from pipeline.detection.rules.en.labelled_ids import sentence_ids

FOUND = [
    ("Her passport number is 533380006 and it expires soon.", "533380006", "IDNUM"),
    ("Customer ID 558203917 belongs to the caller.", "558203917", "IDNUM"),
    ("Employee Marcus Bell (badge 40718) works nights.", "40718", "IDNUM"),
    ("His driver's license is D1234-56789-01234.", "D1234-56789-01234", "LICENSE"),
    ("Please wire it to account 0047 1123 9981 today.", "0047 1123 9981", "ACCOUNT"),
    ("claim number 2023-0045512 was denied", "2023-0045512", "IDNUM"),
    ("Insurance ID: W123456789", "W123456789", "HEALTHPLAN"),
    ("Username: lily_chen92, password reset requested", "lily_chen92", "USERNAME"),
    ("his login was jdoe_44 yesterday", "jdoe_44", "USERNAME"),
]

NOT_FOUND = [
    "username is required", "license is pending", "account is overdue", "member since 2019", "claim 2019",
    "policy is 2024", "insurance 2000 deductible", "card 2000 units", "order 1234 mg", "Case 2 of 3",
    "badge 3 was lost", "ID: Tmax 101.2", "Heparin 25000 units, PTT 65",
]


@pytest.mark.parametrize("text,value,gtype", FOUND)
def test_a_named_identifier_is_found_in_any_case(text, value, gtype):
    for copy in (str, str.upper, str.lower):
        t = copy(text)
        assert [(t[s.start:s.end], s.type) for s in sentence_ids(t, "d")] == [(copy(value), gtype)]


@pytest.mark.parametrize("text", NOT_FOUND)
def test_the_label_words_used_otherwise_are_not(text):
    for copy in (str, str.upper, str.lower):
        assert sentence_ids(copy(text), "d") == []
