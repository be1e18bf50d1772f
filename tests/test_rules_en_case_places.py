"""English rules on places in lines written for these tests (issue 30, item 4): towns after a town's
context in one case, listed places in lower case, hospitals of ordinary words, clinics by a name,
"Hospital of <town>", streets with units and their towns; in the case written, in capitals and in
lower case, beside homes and services that are no place ("halfway house", "Pain Clinic")."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found as _found, recase as _recase  # noqa: F401  (detector: a fixture)


PLACE_LINES = [
    ("Lives with daughter in Brooklyn. Retired.", "Brooklyn"),
    ("Lives with dtr in West Oak Lane. Retired.", "West Oak Lane"),
    ("Discharged to extended care facility in De Pere.", "De Pere"),
    ("PCP Dr. Stone in Santa Paula, appt on 3/4", "Santa Paula"),
    ("HPI: 43 y.o. F from Mililani Town, transferred via med flight", "Mililani Town"),
    ("Pt lives alone in Temple Terrace", "Temple Terrace"),
    ("PCP Dr. Kinner in Lehigh Acres", "Lehigh Acres"),
    ("Seen at Hollis Street Health Center yesterday", "Hollis Street Health Center"),
    ("Med flighted from Cape Cod Hospital", "Cape Cod Hospital"),
    ("Discharged to St. Kelsi's rehab in stable condition", "St. Kelsi's rehab"),   # a named rehab: its head word too
    ("Family from out of state, live in Maine", "Maine"),
    ("Daughter flying in from Texas tonight", "Texas"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,place", PLACE_LINES)
def test_towns_and_hospitals_in_any_case(detector, line, place, case):
    assert _recase(place, case) in _found(detector, _recase(line, case), "LOCATION")


NOT_PLACES = [
    "Lives in halfway house, sober x 2 yrs",
    "Lives in trailer park with son",
    "Lives with wife in senior housing",
    "Lives in group home, staff aware",
    "Lives alone in apartment complex",
    "Pt from home with VNA services",
    "Pt is from nursing home, baseline demented",
    "Pt lives in assisted living",
    "Lives in section 8 housing",
    "Discharged to facility in good condition",
    "Pt went to the hospital by ambulance",
    "Big hospital, small room",
    "First hospital admission in years",
    "Teaching hospital protocol followed",
    "Day 3 of hospital stay",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_PLACES)
def test_no_place_in_homes_and_hospital_words(detector, line, case):
    assert _found(detector, _recase(line, case), "LOCATION") == []


ADDRESS_LINES = [
    ("Patient lives at 2245 Dolly St., Apt 16, Abington and worked as a roofer", ["2245 Dolly St., Apt 16", "Abington"]),
    ("Lives alone at 1593 Olive Branch Lane in Thornton; wife died", ["1593 Olive Branch Lane", "Thornton"]),
    ("Address: 2777 Sayreville Ave. #4c, Merrimack, NH 56996", ["2777 Sayreville Ave. #4c", "Merrimack"]),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,places", ADDRESS_LINES)
def test_streets_with_units_and_their_towns(detector, line, places, case):
    got = _found(detector, _recase(line, case), "LOCATION")
    assert all(_recase(p, case) in got for p in places)


NOT_STREETS = [
    "took 3 times in a row, tolerated",
    "walked 20 ft down the hall way",
    "pt walked 100 feet to the end of the hall and back",
    "10 mg in the way of pain control",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_STREETS)
def test_no_street_in_walks_and_counts(detector, line, case):
    assert _found(detector, _recase(line, case), "LOCATION") == []


def test_no_town_after_a_street_from_ordinary_words(detector):
    assert _found(detector, "lives at 12 elm st, near the park", "LOCATION") == ["12 elm st"]
    assert _found(detector, "LIVES AT 45 OAK AVE, HOMELESS AT TIMES", "LOCATION") == ["45 OAK AVE"]


INSTITUTION_LINES = [
    ("Seen at Reilly Clinic on 9/18", "Reilly Clinic"),
    ("referring provider: pushti roslowe, green meadows hospice", "green meadows hospice"),
    ("outside study from Dunmore Medical Group dated 3/4", "Dunmore Medical Group"),
    ("Transferred back to University Hospital of Battle Creek for care", "University Hospital of Battle Creek"),
    ("Lives with her husband in Quincy", "Quincy"),
    ("a 42-year-old construction worker from Isla Vista, whom I saw", "Isla Vista"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,place", INSTITUTION_LINES)
def test_clinics_hospitals_of_towns_and_homes_with_someone(detector, line, place, case):
    assert _recase(place, case) in _found(detector, _recase(line, case), "LOCATION")


NOT_INSTITUTIONS = [
    "f/u in Pain Clinic next week", "f/u lipid clinic", "Coumadin clinic to follow INR", "Wound Clinic appt",
    "Memory clinic referral", "Hospital of the University", "from the hospital of origin",
    "lives with son in the basement apartment",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_INSTITUTIONS)
def test_no_place_in_services_and_homes(detector, line, case):
    assert _found(detector, _recase(line, case), "LOCATION") == []


LANDMARK_LINES = [
    ("a retired janitor who enjoys walks at Cafferky Park.", "Cafferky Park"),
    ("Fell at Logan Airport, brought by EMS", "Logan Airport"),
    ("lives near the Bergenfield Zoo", "Bergenfield Zoo"),
    ("Enjoys fishing at Mount MacAloon. No tobacco", "Mount MacAloon"),
    ("walks by Lake Chaney daily", "Lake Chaney"),
    ("found at Revere Beach by EMS", "Revere Beach"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,place", LANDMARK_LINES)
def test_parks_lakes_airports_by_name(detector, line, place, case):
    assert _recase(place, case) in _found(detector, _recase(line, case), "LOCATION")


NOT_LANDMARKS = [
    "walk in the park after discharge", "Family fun park visit", "Hospital library has books", "Pt walked to the mall",
    "LAKE OF FLUID IN PLEURAL SPACE", "mt. valve replaced", "Lake effect snow", "Beach chair position in OR",
    "Car park attendant", "Pt fell at the airport", "Ommaya reservoir accessed", "Pump library updated",
    "Alaris drug library in use",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_LANDMARKS)
def test_no_landmark_in_ordinary_words(detector, line, case):
    assert _found(detector, _recase(line, case), "LOCATION") == []


def test_a_landmark_ends_with_its_sentence(detector):
    assert _found(detector, "Enjoys fishing at Lake Brandt. Smokes 1/2 ppd", "LOCATION") == ["Lake Brandt"]
