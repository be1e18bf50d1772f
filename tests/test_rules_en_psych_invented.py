"""English rules and steps found on the psychiatric notes' find half (``psych_invented/find``:
intakes, collateral calls, inpatient notes), each beside the text that must stay unmarked. Lines
are rephrased from the find notes."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, recase  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
def test_a_nickname_in_quotes_between_a_first_name_and_a_surname(detector, case):
    """'Tyrone "Ty" Washington (20)' (f11), 'PATRICIA "PATTY" BAKER' (f04)."""
    text = recase('Collateral from father of patient Tyrone "Ty" Washington (20), with consent.', case)
    assert recase('Tyrone "Ty" Washington', case) in found(detector, text, "NAME")
    assert found(detector, recase('pt feels "ok" today, "just tired" lately.', case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Admitted with catatonia (Bush-Francis 18 on admission), lorazepam challenge given.",   # f13
    "HAM-D: Hamilton 24, Beck 21, Yale-Brown 28 at intake.",
    "Stool Bristol 4 this am.",
])
def test_a_rating_scale_named_for_its_authors_is_no_person_and_no_place(detector, line, case):
    text = recase(line, case)
    assert found(detector, text, "NAME") == [] and found(detector, text, "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_a_title_before_an_authors_name_keeps_the_person(detector, case):
    assert recase("Hamilton", case) in found(detector, recase("Dr. Hamilton 24 hr call back.", case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [
    ("DRINKING DAILY SINCE ST. PATRICK'S DAY, ESTRANGED FROM EX-WIFE.", "ST. PATRICK'S DAY"),   # f09
    ("Family gathering on Canada Day went poorly.", "Canada Day"),
    ("Fasting through Eid al-Fitr, lithium level stable.", "Eid al-Fitr"),
])
def test_more_of_the_years_named_days_are_dates(detector, line, day, case):
    assert recase(day, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Sober 14 months, goes to AA meetings on the road, NA on Fridays.",        # f06, f12
    "14 yo F sent from pediatrician's office for HR 42 and weight loss.",       # f03
    "Seen first at the dentist's office, then referred.",
])
def test_a_fellowship_and_a_callings_office_are_no_hospital(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_a_saints_or_a_shops_possessive_place_is_still_one(detector, case):
    assert recase("St. Mary's", case) in found(detector, recase("Transferred from St. Mary's last night.", case),
                                                "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_hospital_named_for_whom_it_treats_keeps_for_whom(detector, case):
    """'referral to Riley Hospital for Children' (f03); a hospital for children in words stays."""
    text = recase("Family-based treatment referral to Riley Hospital for Children after discharge.", case)
    assert recase("Riley Hospital for Children", case) in found(detector, text, "LOCATION")
    assert found(detector, recase("Needs a hospital for children with eating disorders.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_a_street_with_a_direction_and_its_full_stop(detector, case):
    """'212 e. pine st, apt 3, missoula' (f06), in any case; 'e. coli' is no direction."""
    text = recase("Home visit to client's apartment at 212 E. Pine St, Apt 3, Missoula.", case)
    assert recase("212 E. Pine St, Apt 3", case) in found(detector, text, "LOCATION")
    assert found(detector, recase("Urine grew 2 E. coli strains, sensitive to cipro.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_a_header_line_names_its_patient_surname_first_before_age_and_sex(detector, case):
    """'MURPHY, SEAMUS   52 M   MR# 5120076' (f09); a systems line with an age stays unmarked."""
    text = recase("Murphy, Seamus   52 M   MR# 5120076\nSeen on the unit today.", case)
    assert recase("Murphy, Seamus", case) in found(detector, text, "NAME")
    assert found(detector, recase("Neuro, alert 52 M on the scale", case), "NAME") == []
