"""English rules found on eight more blind find batches of New England ICU nursing notes
(``icu_invented_p`` f657-f784): a dialysis unit named by a town of two words, a treatment centre, a
shelter and a service agency closed by their head word, an interpreter's name and number in the
shapes notes write them, a relative's nickname quoted in brackets or told by "calls her", a
respiratory therapist by a listed surname, a liaison before where they came from, and a court's
docket number. Lines are rephrased from the find notes, each beside text that must stay unmarked;
each case is checked as written, in capitals and in lower case."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked, recase  # noqa: F401


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, place", [
    ("Outpt HD: back to her usual chair at Three Rivers Dialysis, 2nd shift.", "Three Rivers Dialysis"),
    ("Per pt he is staying at the Greenhouse Shelter in Athol on and off.", "Greenhouse Shelter"),
    ("Lives in group home (Ashgrove Residential Services). Sent in by staff.", "Ashgrove Residential Services"),
])
def test_a_named_unit_shelter_or_agency_with_its_head(detector, line, place, case):
    assert recase(place, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "D/c home with VNA services, SNF vs LTAC discussed, no LTACH bed yet.",
    "Homeless, staying at the shelter, was at a women's shelter last month.",
    "Family asked about residential treatment center after detox.",
    "The rivers were high, transfer by ground to the dialysis unit.",
])
def test_a_services_head_alone_names_no_place(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name, number", [
    ("Explained need for BiPAP - interp Joaquim #3318, pt agreeable.", "Joaquim", "3318"),
    ("Interpreter Marie-Claude (in person, id 2207) came at 1000 for rounds.", "Marie-Claude", "2207"),
    ("We used staff interpreter (Rosario, #118) for all teaching.", "Rosario", "118"),
    ("In-person Haitian Creole interpreter Jean-Ronel (ID 7719) for wife.", "Jean-Ronel", "7719"),
])
def test_an_interpreters_name_and_number(detector, line, name, number, case):
    text = recase(line, case)
    assert recase(name, case) in found(detector, text, "NAME")
    assert recase(number, case) in found(detector, text, "ID")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Interpreter for ID 2000 consult, interp called at 2100 re 1400 meds.",
    "Interp paged x2, pt moved to rm #512 now.",
])
def test_an_interpreters_line_without_their_number_marks_no_identifier(detector, line, case):
    assert found(detector, recase(line, case), "ID") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, nick", [
    ('Pt\'s son Tuan ("Tony") called from Texas for update.', "Tony"),
    ('Social: wife Lyudmila ("Luda") at bedside until 2100.', "Luda"),
    ('Son Manuel ("Manny") is HCP, arrived 1700.', "Manny"),
    ("Name on chart is Sofya, family calls her Sonya.", "Sonya"),
])
def test_a_relatives_nickname_in_brackets_or_after_calls_her(detector, line, nick, case):
    assert recase(nick, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Pt calls her daughter every day, calls him back after rounds.",
    'Wife ("upset") called twice, will call back.',
])
def test_calls_her_and_a_quoted_feeling_name_no_one(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("Trach came out ~2cm, RT Gustafson at bedside within 1 min, suctioned.", "Gustafson"),
    ("Code called, Dr Przybylski (fellow). RT Marco on vent. Nsg supervisor aware.", "Marco"),
])
def test_a_respiratory_therapist_by_a_listed_name(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
def test_a_side_before_a_verb_names_no_therapist(detector, case):
    assert found(detector, recase("RT leg in splint, RT hand on vent tubing, RT brown at bedside.", case),
                 "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_courts_docket_number(detector, case):
    text = recase("Rogers petition hearing is 7/9 (docket # MI08P2214GD, copy in legal section).", case)
    assert recase("MI08P2214GD", case) in found(detector, text, "ID")
    assert found(detector, recase("Docket 2 of the petition is pending.", case), "ID") == []


@pytest.mark.parametrize("case", CASES)
def test_a_liaison_named_before_where_they_came_from(detector, case):
    text = recase("Dispo: liaison Marisol from Whitcomb Rehab screened pt, bed likely Mon.", case)
    assert recase("Marisol", case) in found(detector, text, "NAME")
    assert found(detector, recase("Interpreter from language line used, liaison from rehab here.", case),
                 "NAME") == []
