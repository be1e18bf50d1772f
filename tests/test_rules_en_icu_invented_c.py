"""Fixes found on the "find" half of the third invented ICU set (``benchmarks/data/icu_invented_c``,
issue 30: 2000s Midwest ICU nursing notes): people named by their role (a coordinator, an
interpreter, a therapist in brackets; a detective), a street's town and ZIP with no state. Each
beside the ward lines it must leave alone; the lines are written for these tests, no real person's."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, recase  # noqa: F401  (detector: a fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("Transplant coordinator (Ngozi) called @ 1030, needs echo.", "Ngozi"),
    ("Interpreter (Pheng) used for all teaching.", "Pheng"),
    ("INTERPRETER ABELARDO USED FOR ASSESSMENT AND TEACHING.", "ABELARDO"),
    ("RT (Vandenberg) at bedside for the extubation.", "Vandenberg"),
    ("Police report taken in ED, Det. Quackenbush assigned.", "Quackenbush"),
    ("Officer Wisniewski at bedside with the family.", "Wisniewski"),
])
def test_people_named_by_their_role(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Interpreter (Spanish) used. Interpreter (phone) used for consent.",
    "RT (prn) neb given. PT (eval) pending. Coordinator (transplant) aware.",
    "Officer present at bedside. Resident (night float) notified.",
    "PA (systolic) 40s. Nurse (float) assisted with turn. Interpreter present for rounds.",
])
def test_a_role_before_a_ward_word_names_no_one(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_streets_town_and_zip_without_a_state(detector, case):
    text = recase("Pt lives at 1147 Oakwood Ave, Port Clinton 43452 w/ her 2 children.", case)
    assert "43452" in found(detector, text, "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_lab_line_number_is_no_zip(detector, case):
    assert found(detector, recase("K 4.1, Na 140, Cl 102, sent on 12345 tube.", case), "LOCATION") == []


@pytest.mark.parametrize("line, place, cases", [
    ("Flew home from Tokyo last weekend, febrile since.", "Tokyo", CASES),
    # a one-word list entry is not read in lower case (the dictionary's lower-case rule)
    ("Screened for LTACH, Kindred in Toledo has a bed Friday.", "Kindred", ("as", "upper")),
])
def test_world_cities_and_post_acute_chains(detector, line, place, cases):
    for case in cases:
        assert recase(place, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_diet_line_names_no_city(detector, case):
    assert found(detector, recase("Diet: soft, lima beans and rice tolerated.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Goal is independence with ADLs, able to bend knee to 90.",
    "Gave orange juice for BG 60. Pt on mobile cardiac monitor.",
    "Buffalo hump noted. To surprise family for bday.",
])
def test_a_city_that_is_an_ordinary_word_needs_a_places_context(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, place", [
    ("Pt from Buffalo, NY. Lives in Mobile now.", "Buffalo"),
    ("Pt from Buffalo, NY. Lives in Mobile now.", "Mobile"),
    ("Home: Orange", "Orange"),
])
def test_the_same_city_with_a_places_context(detector, line, place, case):
    assert recase(place, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi, category", [
    ("SOCIAL: GRANDDTR SHANICE VISITED, STATES PT WAS SHARP.", "SHANICE", "NAME"),
    ("Pt is 54 yo M, adm 1/8 via ED w/ RLL PNA.", "1/8", "DATE"),
])
def test_a_wards_shorthand_for_family_and_admission(detector, line, phi, category, case):
    assert recase(phi, case) in found(detector, recase(line, case), category)


@pytest.mark.parametrize("case", CASES)
def test_fractions_of_a_diet_stay_fractions(detector, case):
    assert found(detector, recase("Diet: 1/2 strength tube feeds, 1/8 tsp salt. Grandma at bedside.", case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
def test_an_employer_the_vocabulary_holds_but_english_seldom_writes(detector, case):
    text = recase("Husband Quang here, works for Delphi in Kokomo, taking FMLA.", case)
    assert recase("Delphi", case) in found(detector, text, "LOCATION")


def test_a_common_word_after_works_for_is_no_employer(detector):
    assert found(detector, "Wife works for Medicare billing. Son works in Construction.", "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_the_patients_pharmacy_is_no_business(detector, case):
    text = recase("Called pt's pharmacy for med list. Pt's insurance pending. Wife's employer aware.", case)
    assert found(detector, text, "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, login", [("RT:dpostma  pager 7716", "dpostma"),
                                         ("plan to wean as tol. RN:kwojcik", "kwojcik")])
def test_a_charting_login_after_a_discipline(detector, line, login, case):
    assert recase(login, case) in found(detector, recase(line, case), "NAME") + found(detector, recase(line, case), "ID") \
        + found(detector, recase(line, case), "CONTACT")


@pytest.mark.parametrize("case", CASES)
def test_a_wards_word_after_a_discipline_is_no_login(detector, case):
    text = recase("RN:aware of plan. MD:notified. RT:none\nPT:sleepng, OT:consult.", case)
    assert [f for c in ("NAME", "ID", "CONTACT") for f in found(detector, text, c)] == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [("GI: NPO d/t dysphagia, speech to see Mon.", "Mon"),
                                       ("Family meeting on Thu at 1400.", "Thu"),
                                       ("Dialysis Mon/Wed/Fri at the unit.", "Wed")])
def test_an_abbreviated_weekday_by_its_cue(detector, line, day, case):
    assert recase(day, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
def test_a_monitor_a_saturation_and_the_sun_are_no_weekdays(detector, case):
    text = recase("Cont to mon closely. Mon BP q1h. O2 sat on RA 92%. Pt on sat monitor. Sun exposure.", case)
    assert found(detector, text, "DATE") == []
