"""Towns and businesses in lines written in one case (issue 30, item 3): a traveller's town and an
obituary's "<age>, of <town>", a British town in capitals before its postcode, a business closed by
a trade no ward writes; lines written for these tests, in capitals and in lower case, beside
clinical lines in one case that stay unmarked."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import ONE_CASE, detector, found, recase  # noqa: F401  (detector: a fixture)

PLACE_LINES = [
    ("It has been years since we met in Lisbon", "Lisbon"),
    ("Come visit us in Tavira soon", "Tavira"),
    ("Obituary: Hester Vane, 88, of Cedar Falls, died", "Cedar Falls"),
    ("Welcome to Coastline Credit Union! Your member number", "Coastline Credit Union"),
    ("Paid by Harrowgate Plumbing, invoice attached", "Harrowgate Plumbing"),
    # a hospital named by ordinary words after "from", closed by its head word (icu_invented_p find f58)
    ("med flighted from West River Valley Hospital in Brattleboro VT, coiled", "West River Valley Hospital"),
    ("Called from Lakeside Hospital pharmacy re: dose", "Lakeside Hospital"),
    # a trade's word in capitals, and two more trades (icu_invented_b find f46, ed_invented find f10,
    # spec_invented find f45)
    ("Transport: BLS, arranged with Susquehanna Valley EMS for 1100", "Susquehanna Valley EMS"),
    ("49 yo M deckhand for Gulf Breeze Charters, injured this afternoon", "Gulf Breeze Charters"),
    ("6. PT - re-referral to Wiregrass Physical Therapy for core stabilization", "Wiregrass Physical Therapy"),
]


@pytest.mark.parametrize("case", ONE_CASE)
@pytest.mark.parametrize("line,place", PLACE_LINES)
def test_places_in_one_case(detector, line, place, case):
    assert recase(place, case) in found(detector, recase(line, case), "LOCATION")


def test_a_british_town_in_capitals_before_its_postcode(detector):
    text = "VISITED AT FLAT 2, COBDEN HOUSE, SALFORD M6 5FU. WOUND HEALING"
    assert "SALFORD" in found(detector, text, "LOCATION")
    # a ward's word before a postcode's shape is no town, in capitals either
    assert found(detector, "PT TO WARD B2 4AB, ICU B2 4AB", "LOCATION") == []


NOT_PLACES = [
    "PT FROM PACU, settled in chair, in lasix gtt", "to ccu, DR AWARE", "Pt settled in nicely overnight",
    "Met in family meeting with team", "Grew up in poverty", "Seen by cardiac surgery group",
    "Blood bank called, social services aware", "Visited by case management group", "Pt 84, of note: afib",
    "Settled in bed by window",
    # after "from", a hospital only its kind names, or an article before it (icu_invented_g find f27)
    "Came from outside hospital, records pending", "Came from rehab hospital, deconditioned",
    "Came from the medical center in town", "Returned from referring hospital yesterday",
    "Called EMS for transport, per EMS pt found down", "Goes on fishing charters on weekends",
    "Tolerated physical therapy well today",
]


@pytest.mark.parametrize("case", ONE_CASE)
@pytest.mark.parametrize("line", NOT_PLACES)
def test_no_place_in_clinical_lines_of_one_case(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", ONE_CASE)
def test_a_british_plate_after_its_vehicle_word_in_one_case(detector, case):
    text = recase("The tech drives a white van reg KM68 PXT tomorrow", case)
    assert recase("KM68 PXT", case) in found(detector, text, "ID")


@pytest.mark.parametrize("case", ("as",) + ONE_CASE)
def test_a_function_word_and_a_time_after_a_vehicle_word_are_no_plate(detector, case):
    assert found(detector, recase("Car seat ok, van at 10 am, truck in 20 min, pt to ccu", case), "ID") == []


@pytest.mark.parametrize("case", ONE_CASE)
def test_an_ethereum_address_in_one_case(detector, case):
    value = "0x52908400098527886E0F7030069857D2E4169EE7"
    assert recase(value, case) in found(detector, recase(f"ETH deposit from {value}.", case), "ID")
