"""English rules and steps found on the find halves of ICU nursing notes from three regions (the US
South, ``icu_invented_r``; the US West and Pacific, ``icu_invented_s``; more Boston-area notes,
``icu_invented_p`` f17-f48), each beside the text that must stay unmarked. Lines are rephrased
from the find notes; each case is checked as written, in capitals and in lower case where case
should not matter."""
from __future__ import annotations

import pytest

from pipeline.locales.en.date_steps import drop_impossible_dates
from pipeline.spans import Span
from rules_en_case_helpers import CASES, detector, found, marked, marked_phi, recase, step_context  # noqa: F401


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Pt transferred from CVICU yesterday, uneventful night.",
    "Admitted from EW with COPD flare.",                       # a Boston hospital's emergency ward
    "IVF at KVO, tube feeds held.",
    "Was independent in ADLs before admission.",
    "Pt from med-surg brought up at 1505.",
    "Echo in AM to look at RV function.",
    "SAH from ACOM aneurysm, coiled.",
    "CSF from EVD sent this am.",
    "Restraint loosened from bedrail, knot slipped.",
    "Spine to decide collar vs halo.",
    "DNR status written on whiteboard.",
])
def test_units_and_devices_are_no_place_or_name(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, town", [
    ("Lives on a ranch outside Pie Town with her son.", "Pie Town"),
    ("He worked at the mine in Beckley until last year.", "Beckley"),
    ("Family farm outside of Lamesa, about two hours away.", "Lamesa"),
])
def test_a_town_after_a_ranch_outside_or_a_mine_in(detector, line, town, case):
    assert recase(town, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Lives on a farm outside of town with his son.",
    "Mine is in the drawer, per wife.",
])
def test_outside_of_town_is_no_town(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


def test_a_journey_needs_its_travel_word_in_the_same_sentence(detector):
    line = "1658 PEA -> VT, shocked -> SR 90s. Wife called by chaplain, arrived 1730."
    assert found(detector, line, "LOCATION") == []
    assert found(detector, "Flight from Braga to Recife departs 0915.", "LOCATION") == ["Braga", "Recife"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Chest tube to -20 sxn, airleak 2/7, serosang drainage.",
    "Ambulated 300 ft with walker, RPE 11-13.",
    "PSV trial 1400 10/5 x 2 hrs, tolerated.",
])
def test_scales_and_settings_are_no_date_or_identifier(detector, line, case):
    assert marked(detector, recase(line, case)) == []


@pytest.mark.parametrize("line, day", [
    ("Continue current care through Sat to allow the other son to arrive.", "Sat"),
    ("Plans to come in Sat w/ her brother.", "Sat"),
    ("82 yo M, fall at home Sat w/ R hip fx.", "Sat"),
    ("WILL COME IN SAT W/ DTR", "SAT"),
])
def test_an_abbreviated_weekday_a_visit_or_an_event_is_set_for(detector, line, day):
    assert day in found(detector, line, "DATE")


@pytest.mark.parametrize("line", [
    "O2 sat to 88% on 2L, sat w/ good pleth.",
    "Plan SBT after SAT w/ RT in AM.",
    "in sat 88%, on sat monitor",
])
def test_a_saturation_or_an_awakening_trial_is_no_weekday(detector, line):
    assert found(detector, line, "DATE") == []


@pytest.mark.parametrize("case", CASES)
def test_the_year_a_habit_was_quit(detector, case):
    assert "2001" in found(detector, recase("Former smoker 50 pk-yr, quit 2001. NKDA.", case), "DATE")
    assert found(detector, recase("Heparin gtt stopped 2000, restarted 2300.", case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Now in Miami J collar, log roll only.",
    "ICP bolt (Camino) placed in ER.",
])
def test_a_device_named_for_a_town(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("A-paced at 80 via temp wires per Dr de la Cruz.", "de la Cruz"),
    ("Clipped by Dr. van der Molen, coiled.", "van der Molen"),
])
def test_a_surname_s_particles_after_a_title(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


def _spans(text, *pieces, label="CITY", category="LOCATION"):
    out = []
    for piece in pieces:
        i = text.index(piece)
        out.append(Span("d", i, i + len(piece), category, label, source="model:v"))
    return out


@pytest.mark.parametrize("text, dropped, kept", [
    ("repeat vbg 7.30/34. seen 3/14.", "30/34", "3/14"),
    ("IHS coordinator to call. back Sundays.", "IHS", "Sundays"),
    ("temp 36.8-37.0 since 12/3", "8-37", "12/3"),
])
def test_a_model_s_date_inside_a_decimal_or_without_digit_and_calendar_word_goes(text, dropped, kept):
    got = drop_impossible_dates(_spans(text, dropped, kept, label="DATE", category="DATE"), step_context(text))
    assert [text[s.start:s.end] for s in got] == [kept]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, place", [
    ("Transferring back. From Delta Oaks Nursing Ctr in Marked Tree, baseline confused.", "Delta Oaks Nursing Ctr"),
])
def test_a_nursing_centre_by_its_ctr(detector, line, place, case):
    assert recase(place, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Pt to nursing ctr tomorrow.",
])
def test_a_nursing_centre_needs_its_name(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_a_town_that_shares_a_car_maker_s_name(detector, case):
    assert recase("Plymouth", case) in found(detector, recase("Social: lives with girlfriend in Plymouth, works construction.", case), "LOCATION")
    assert found(detector, recase("He drives a Plymouth Voyager to work.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, parts", [
    ("CM note says address updated to 418 Silver St Elko 89801 for the application.", ["418 Silver St", "Elko", "89801"]),
    ("Lives at 12 Elm St Salem OR 97301 with wife.", ["12 Elm St", "Salem", "OR", "97301"]),
])
def test_a_street_its_town_and_zip_without_commas(detector, line, parts, case):
    got = found(detector, recase(line, case), "LOCATION") + found(detector, recase(line, case), "CONTACT")
    assert all(recase(p, case) in got for p in parts)
