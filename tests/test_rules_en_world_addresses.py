"""Postcodes and national phone numbers of other English-speaking countries
(:mod:`pipeline.detection.rules.en.world_addresses`), on invented addresses and numbers, and the
doses, times and codes of notes that share their shapes."""
from __future__ import annotations

import pytest

from pipeline.detection.rules.en.world_addresses import trunk_phones, world_postcodes

FOUND = [
    ("Send it to 88 King Street West, Toronto, ON M5H 1A1, Canada.", [("ON", "STATE"), ("M5H 1A1", "ZIP")]),
    ("vancouver, bc v6b 4y8", [("bc", "STATE"), ("v6b 4y8", "ZIP")]),
    ("write to 221B Baker Street, London NW1 6XE.", [("London", "CITY"), ("NW1 6XE", "ZIP")]),
    # a town in capitals counts in a line of capitals when it may be a place (issue 30, one case)
    ("LEEDS, LS1 4AP", [("LEEDS", "CITY"), ("LS1 4AP", "ZIP")]),
    ("VISITED AT COBDEN HOUSE, SALFORD M6 5FU", [("SALFORD", "CITY"), ("M6 5FU", "ZIP")]),
    # in lower case, the town vouches for the shape (no word of the safe vocabulary)
    ("will arrive at 77 wellington road, harrogate hg2 0lr", [("harrogate", "CITY"), ("hg2 0lr", "ZIP")]),
    ("postcode: SW1A 1AA", [("SW1A 1AA", "ZIP")]),
    ("Call me at 020 7946 0958 after six.", [("020 7946 0958", "PHONE")]),
    ("call her on 07700 900123 tonight", [("07700 900123", "PHONE")]),
    ("tel: 0161 496 0000", [("0161 496 0000", "PHONE")]),
]

NOT_FOUND = [
    "tylenol q2 4hr prn", "meds q4 6hr, pain q2 4hr", "PAIN Q2 4HR, TYLENOL Q4 6HR", "Ward B2 4AB bay", "Pt given 0.5 mg at 0800 1200 1600", "A1C 6.5, HgbA1c 7.1",
    "Bed 0123 456 7890", "PT TO ICU B2 4AB", "MOVED TO WARD B2 4AB", "UO 0200 0300 0400 cc", "K 3.9 Mg 2.0 Phos 3.1", "GCS 14 (E3V5M6), PERRL",
]


@pytest.mark.parametrize("text,found", FOUND)
def test_other_countries_postcodes_and_numbers(text, found):
    spans = sorted(world_postcodes(text, "d") + trunk_phones(text, "d"), key=lambda s: s.start)
    assert [(text[s.start:s.end], s.type) for s in spans] == found


@pytest.mark.parametrize("text", NOT_FOUND)
def test_doses_times_and_codes_are_not(text):
    for copy in (str, str.upper, str.lower):
        assert world_postcodes(copy(text), "d") == [] and trunk_phones(copy(text), "d") == []
