"""English rules found on the seventy-third round of blind find batches of New England ICU nursing
notes (``icu_invented_p`` f1041-f1168): a state's older abbreviation after a town's comma, the
relative a note names as the proxy, a group home's or a residence's staff by first name, a boat's
home port, a relative's age over 89 after "is", a weekday after "early" or after a transfer "here",
the year a relative died, a street named without a house number before its town. Lines are
rephrased from the find notes, each beside text that must stay unmarked; most cases are checked as
written, in capitals and in lower case."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked, recase  # noqa: F401


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, state", [
    ("Pt's sister coming up tomorrow from Enfield, Conn. Workers comp CM called.", "Conn"),
    ("Sister flying in from Lowell, Mass tomorrow. Full code.", "Mass"),
])
def test_a_states_older_abbreviation_after_a_town(detector, line, state, case):
    assert recase(state, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_mass_is_no_state(detector, case):
    assert found(detector, recase("CT: mass in RUL, mass effect on L, no shift.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("He has said many times he is ready to go. Rose is HCP.", "Rose"),
    ("Lives w/ dtr and son-in-law. Grace is hcp, lives upstairs.", "Grace"),
    ("Other daughter in NC calls weekends. Hope is HCP, asked today re: trach.", "Hope"),
    ("Social: Group home staff Marisol stayed until 2200, very helpful.", "Marisol"),
    ("Residential staff Devon here most of day, brought meds.", "Devon"),
    ("Late entry for 1600\nGroup home staff (Joy) brought in pt's med sheets.", "Joy"),
    ("Guardian updated, group home house manager Bev aware.", "Bev"),
    ("Calls: 2100 group home night staff Maria called to check on pt.", "Maria"),
])
def test_a_proxy_or_a_group_homes_staff_by_name(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Son is HCP (verbal, form to be done). Who is HCP for wife?",
    "Pt is own guardian. Sister is health care proxy.",
    "Group home staff called, aware. Group home staff will bring meds.",
])
def test_a_relatives_word_or_a_staffs_verb_is_no_name(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, town", [
    ("A commercial fisherman, works on boat out of Gloucester for a marine co.", "Gloucester"),
    ("Still goes out on a dragger out of Point Judith 3-4 days a wk.", "Point Judith"),
])
def test_a_boats_home_port(detector, line, town, case):
    assert recase(town, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Went fishing out of state for a week; boat out of the water.",
    "Got out of boat at dock, slipped.",
])
def test_out_of_elsewhere_names_no_town(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, age", [
    ("Full bath on 2nd floor. Husband is 91 and uses a walker.", "91"),
    ("Social: Mother is 92, lives at a nursing home.", "92"),
])
def test_a_relatives_age_over_89(detector, line, age, case):
    assert age in found(detector, recase(line, case), "AGE")


@pytest.mark.parametrize("case", CASES)
def test_a_relatives_share_is_no_age(detector, case):
    assert found(detector, recase("Wife is 100% supportive, sister is 2 hrs away.", case), "AGE") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [
    ("Car vs jersey barrier on the bridge early Sat am, ETOH 212.", "Sat"),
    ("1 night at the OSH, transferred here Sun. Vent day 4.", "Sun"),
    ("Son here, lives locally, wife passed 2005. Son's cell on file.", "2005"),
])
def test_a_weekday_or_a_year_as_a_family_gives_it(detector, line, day, case):
    assert recase(day, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Early sat 88% on RA, up to 4L.",
    "Pt passed 2000 ml urine after lasix.",
])
def test_a_saturation_and_a_volume_are_no_date(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, street", [
    ("Est 40-50 y/o M found down on sidewalk Union St in Lynn ~0500.", "Union St"),
    ("83 yo M struck by a car while crossing Centre St in Newton.", "Centre St"),
    ("Trench collapse at a sewer job on Washington St in Canton 8/11.", "Washington St"),
])
def test_a_street_without_a_house_number_before_its_town(detector, line, street, case):
    assert recase(street, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Pt lives on a dead end st in town.",
    "Drain st in place, no output.",
])
def test_a_streets_word_without_a_town_names_no_street(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []
