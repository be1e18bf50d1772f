"""English rules found on the emergency department notes' find half (``ed_invented/find``: run
sheets, triage, trauma and boarder notes), each beside the text that must stay unmarked. Lines are
rephrased from the find notes."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, recase  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, road", [
    ("MVC on I-94 near exit 12, restrained driver.", "I-94"),
    ("Rollover on Hwy 20 eastbound, extricated by fire.", "Hwy 20"),
    ("Found down off Route 9.", "Route 9"),
    ("Northbound Interstate 81 at mile marker 40.", "Interstate 81"),
])
def test_a_road_by_its_number_where_a_journey_names_it(detector, line, road, case):
    assert recase(road, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "s/p I-131 ablation for Graves, euthyroid now.",   # an isotope
    "EKG: SR 70s, no ectopy.",                          # a sinus rhythm's rate
    "US 4 cm mass in the RUQ.",                         # an ultrasound
    "Given via route 2 of the protocol.",
])
def test_a_number_after_a_road_word_that_is_no_road_stays(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_the_streets_of_an_intersection_and_the_street_a_highway_crosses(detector, case):
    """'HAMPTON BLVD AT W 43RD ST' (f05), 'the overpass at I-25 and Lomas' (f06)."""
    text = recase("Pedestrian struck by car, Hampton Blvd at W 43rd St, near campus.", case)
    assert {recase("Hampton Blvd", case), recase("W 43rd St", case)} <= set(found(detector, text, "LOCATION"))
    text = "Pt has been sleeping under the overpass at I-25 and Lomas for 2 months."
    assert {"I-25", "Lomas"} <= set(found(detector, text, "LOCATION"))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Urine hcg sent from triage. To room 17 when clean.",   # f03
    "Pain started periumbilical, moved to RLQ.",
    "88 yo F, lives independently, fell in her kitchen.",   # f08
])
def test_an_eds_places_and_adverbs_after_a_move_are_no_town(detector, line, case):
    text = recase(line, case)
    assert [f for f in found(detector, text, "LOCATION") if not f.isdigit()] == []


@pytest.mark.parametrize("case", CASES)
def test_a_crew_signs_with_its_emt_levels(detector, case):
    """'CREW: D. YAZZIE EMT-P, K. MORROW EMT-I' (f01)."""
    text = recase("Crew: D. Yazzie EMT-P, K. Morrow EMT-I", case)
    assert {recase("D. Yazzie", case), recase("K. Morrow", case)} <= set(found(detector, text, "NAME"))
    assert found(detector, recase("EMT-P aware of the change.", case), "NAME") == []


def test_an_officer_named_by_a_word_after_the_title():
    """'CORRECTIONAL OFFICER STERLING' (f15): in a mixed-case line the capital says it; an officer's
    verb stays."""
    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014

    det = Detector.without_model(I2B2_2014, "en")
    assert "Sterling" in found(det, "Correctional Officer Sterling rode in the unit.", "NAME")
    assert "KING" in found(det, "OFFICER KING AT BEDSIDE.", "NAME")
    assert found(det, "Officer arrived with pt, officer present in room.", "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_what_coworkers_know_a_patient_as_and_an_inmates_number(detector, case):
    """'COWORKERS KNOW HIM AS "CHUY"' (f01), 'INMATE, 207731' (f15)."""
    text = recase('Pt has no ID. Coworkers know him as "Chuy," no last name.', case)
    assert recase("Chuy", case) in found(detector, text, "NAME")
    assert found(detector, recase("Coworkers know him as a hard worker.", case), "NAME") == []
    assert "207731" in found(detector, recase("PT: 24 yo M inmate, 207731", case), "ID")


@pytest.mark.parametrize("case", CASES)
def test_a_range_of_years_is_a_date_and_a_volume_is_not(detector, case):
    """'served in the Army 1974-77' (f06); 'TF goal 1800-2000 cc', 'UO 1900-2000 over shift' stay."""
    assert recase("1974-77", case) in found(detector, recase("Served in the Army 1974-77, Vietnam era.", case), "DATE")
    assert "1998-2003" in found(detector, recase("Lived in Tulsa from 1998-2003.", case), "DATE")
    for line in ("TF goal 1800-2000 cc today.", "UO 1900-2000 over shift.", "Plt 1990-10 per lab",
                 "From 1900-30 slept, from 2000-2030 restless."):
        assert found(detector, recase(line, case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
def test_a_listed_surname_after_an_article_or_onto_is_the_thing(detector, case):
    """'PT THROWN ONTO HOOD AND WINDSHIELD' (f05); 'seen by Hood' and 'reports that Mary called' keep the person."""
    assert found(detector, recase("Pt thrown onto hood and windshield, hit the hood of the car.", case), "NAME") == []
    if case != "lower":   # (a lower-case first name needs a context either way)
        assert recase("Mary", case) in found(detector, recase("Pt reports that Mary called her.", case), "NAME")
