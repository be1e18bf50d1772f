"""English rules found on sixteen more blind find batches of New England ICU nursing notes
(``icu_invented_p`` f657-f912): a dialysis unit named by a town of two words, a treatment centre, a
shelter and a service agency closed by their head word, an interpreter's name and number in the
shapes notes write them, a relative's nickname quoted in brackets or told by "calls her", a
respiratory therapist by a listed surname, a liaison before where they came from, a court's docket
number; then a year's two digits after an apostrophe, an extension right after its phone number, a
weekday after a visit's "come", a missed session or a last dose, a state's code after "lives in",
ward words after "from" that are no place, a community service and a mill by their closing word.
Lines are rephrased from the find notes, each beside text that must stay unmarked; most cases are
checked as written, in capitals and in lower case."""
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


# the second round's fixes (find f785-f912)

@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, year", [
    ("Hx HTN, DM2, CAD s/p stent '02, admitted w/ LLL PNA.", "'02"),
    ("50 pk-yr smoker, quit '99. On BiPAP since ED.", "'99"),
])
def test_a_years_two_digits_after_an_apostrophe(detector, line, year, case):
    assert recase(year, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Ht 5'10\" wt 80kg, pt said 'no' then 'yes'.",
    "Pt is 5' 10'' tall, wt 92 kg.",
])
def test_feet_and_quotes_are_no_year(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
def test_an_extension_right_after_its_phone_number(detector, case):
    text = recase("Report: called to RN at rehab, 555-0123 x2145, report given 1150.", case)
    assert recase("x2145", case) in found(detector, text, "CONTACT")
    assert found(detector, recase("K 3.2, wbc 12.5 x1000, RN x4472 aware.", case), "CONTACT") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [
    ("Daughter updated, she will come sat. SW to see today.", "sat"),
    ("Missed HD Sat - per daughter she didn't feel well.", "Sat"),
    ("Methadone 90mg daily, last dosed Sat am per clinic.", "Sat"),
])
def test_a_weekday_after_a_visits_come_a_missed_session_or_a_last_dose(detector, line, day, case):
    assert recase(day, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
def test_a_saturation_after_come_is_no_weekday(detector, case):
    assert found(detector, recase("Pt coming sat 92% on 2L, will come off BiPAP.", case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
def test_a_states_code_after_lives_in(detector, case):
    text = recase("Daughter Margery is HCP, lives in CT, called at 2100.", case)
    assert recase("CT", case) in found(detector, text, "LOCATION")
    assert found(detector, recase("PT LIVES IN NH X 2 YRS, SON IN CT W/ PT.", case), "LOCATION") == []


@pytest.mark.parametrize("line", [
    "CV: ST 100-118, likely from nebs. BP 140-160/70s.",
    "Adm 10/22 w/ upper GI bleed from duodenal ulcer, s/p EGD.",
    "Interpreter from interp svcs here for am rounds.",
])
def test_ward_words_after_from_in_a_line_of_both_cases_are_no_place(detector, line):
    assert found(detector, line, "LOCATION") == []


@pytest.mark.parametrize("line, place", [
    ("Transferred from MGH for cath.", "MGH"),
    ("Dispo: ?return to Bayberry on oral regimen.", "Bayberry"),
])
def test_a_hospitals_letters_and_a_strong_contexts_place_stay(detector, line, place):
    assert place in found(detector, line, "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, org", [
    ("Lives in group home run by Meridian Community Services in Framingham.", "Meridian Community Services"),
    ("Pt works 2nd shift at Spicket River Knitting, worried about missing work.", "Spicket River Knitting"),
])
def test_a_community_service_and_a_mill_by_their_closing_word(detector, line, org, case):
    assert recase(org, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_whose_house_it_is_names_no_organisation(detector, case):
    text = recase("Call from Gil, house manager at pt's sober house, asking for update.", case)
    assert not any("sober house" in f.lower() for f in found(detector, text, "LOCATION"))
