"""Places of care as ICU notes write them, in any case (issue 30; found on the find half of the
invented ICU notes): a facility named before "rehab", "assisted living", "LTAC", "SNF", "VNA"; a
saint's or a holy name after "from"/"to"; the town after a facility; a workplace after "is an MD
at"; a surname alone after "d/w" in a line of one case. Each with the ward lines it must leave
alone ("to rehab when stable", "dc to floor", "d/w team"). The lines are written for these tests;
no real person's."""
from __future__ import annotations

import pytest

from pipeline.detection.rules import run_rules
from pipeline.schemas import I2B2_2014
from rules_en_case_helpers import CASES, detector, found, recase  # noqa: F401  (detector: a fixture)


def _rule(text: str, rule: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.type) for s in run_rules(text, "t", "en", I2B2_2014, only={rule})]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, place", [
    ("pt is a 96 yo woman admitted from hebrew rehab w/ resp distress.", "hebrew rehab"),
    ("PT WILL GO TO BRAINTREE REHAB ON 12/3, REPORT CALLED.", "BRAINTREE REHAB"),
    # (the VNA with its town: most of the invented sets' writers count it part of the name,
    # pipeline/locales/en/institution_steps.py)
    ("PT ADMITTED 4/28 FROM MELROSE VNA, FOUND W/ BS 40 AT HOME.", "MELROSE VNA"),
    ("pt admitted to micu from st. elizabeths for higher level of care.", "st. elizabeths"),
    ("PT ORIGINALLY PRESENTED TO HOLY FAMILY IN METHUEN W/ CP.", "HOLY FAMILY"),
    ("PT ORIGINALLY PRESENTED TO HOLY FAMILY IN METHUEN W/ CP.", "METHUEN"),
    ("Pt transferred from Cape Cod Hosp in Falmouth via medflight.", "Falmouth"),
    ("Pt's son Jeffrey is an MD at Baystate, asking many questions.", "Baystate"),
    ("Pt is a student at Holy Cross.", "Holy Cross"),
    ("Plan to discharge to Hebrew Rehab tomorrow.", "Hebrew Rehab"),
    ("Pt accepted at Spaulding, will transfer tomorrow.", "Spaulding"),
    ("Pt is a pleasant 91 yo gentleman, followed by Dr. Ahmed at South Shore.", "South Shore"),
    ("ONC: DR HOROWITZ FROM DANA FARBER FOLLOWING. CHEMO DAY 3.", "DANA FARBER"),
    ("PT TO BE DISCHARGED HOME TODAY WITH VNA OF CAPE COD SERVICES.", "VNA OF CAPE COD"),
    ("Pt screened by Braintree today, bed offer pending.", "Braintree"),
])
def test_facilities_and_their_towns_in_any_case(detector, line, place, case):
    assert recase(place, case) in found(detector, recase(line, case), "LOCATION")


def test_where_a_facility_name_ends():
    got = _rule("Pt is 94, lives at Briarwood assisted living in Needham.", "ward_places")
    assert ("Briarwood assisted living", "HOSPITAL") in got and ("Needham", "CITY") in got
    got = _rule("PT ADMITTED FROM MELROSE VNA.", "ward_places")
    assert got == [("MELROSE", "ORGANIZATION")]   # a service: its town or owner alone
    got = _rule("Disposition: Discharged to Allapattah Health Center rehab in stable condition.", "ward_places")
    assert got == [("Allapattah Health Center", "HOSPITAL")]   # the care a named hospital gives is no name


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, category", [
    ("Plan: dc to floor when bed available, to rehab when stable.", "LOCATION"),
    ("Pt will need cardiac rehab and pulmonary rehab after discharge.", "LOCATION"),
    ("Screened by case management for acute rehab vs SNF.", "LOCATION"),
    ("Dispo: discharge to SNF vs home with VNA services.", "LOCATION"),
    ("Pt d/c'd home with VNA, assisted living next month per family.", "LOCATION"),
    ("Pt will go to inpatient rehab, dc'd to rehab facility tomorrow.", "LOCATION"),
    ("Pt's son is an RN at bedside, updated on plan.", "LOCATION"),
    ("Pt denies drug or alcohol use, no prior drug rehab.", "LOCATION"),
    ("Screened by case management and PT for acute rehab.", "LOCATION"),
    ("Pt accepted by micu team, accepted to CCU.", "LOCATION"),
    ("Plan to discharge to floor when stable, discharge to home with services.", "LOCATION"),
    ("Dr. Smith at bedside, aware of BP. Paged Dr. Patel at 2200, Dr. Lee at this time.", "LOCATION"),
    ("Pt at Baseline per wife, at Rest now, sats 95% at Night.", "LOCATION"),
    ("Dr. Smith from cardiology here, Dr Lee from ortho to see pt, dr. kim from the ICU team.", "LOCATION"),
    ("Home with VNA of note, VNA of the area, VNA of course.", "LOCATION"),
    ("Pt evaluated by PT and OT, evaluated at bedside by MD.", "LOCATION"),
    ("Cards fellow paged, d/w team, plan for cath in am.", "NAME"),
    ("D/w cards, will hold heparin.", "NAME"),
    ("d/w resident, MD aware of BP.", "NAME"),
    ("Labs d/w pharmacy.", "NAME"),
])
def test_ward_lines_are_left_alone(detector, line, category, case):
    """Care words alone are no place; "d/w" a role is no name."""
    assert found(detector, recase(line, case), category) == []


@pytest.mark.parametrize("case", ("upper", "lower"))
def test_surname_after_discussed_with_in_one_case(detector, case):
    line = recase("Cards fellow paged x2, d/w Nussbaum, plan for cath in am.", case)
    assert recase("Nussbaum", case) in found(detector, line, "NAME")
