"""English date rules found on the find halves of more Boston-area ICU nursing notes
(``icu_invented_p`` f49-f80): a year on a history's line, a course's first or last dose, a weekday
after the clock time it qualifies, and a list of clock times that holds no year. Lines are
rephrased from the find notes; each is checked as written, in capitals and in lower case, each
beside the text that must stay unmarked."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, recase  # noqa: F401


# a year anywhere on a line (or in a sentence) that a history's header opens: icu_invented_p find f51
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, year", [
    ("Few words of english. PMH: alzheimers dementia, HTN, hypothyroid, CVA 2001 w/ residual R sided weakness.",
     "2001"),
    ("Past medical history: DM2, HTN, osteoarthritis, hysterectomy, CVA 1998", "1998"),
    ("PSH: appy, lap chole, TKR L knee, R hip replacement 2015", "2015"),
    ("PMHx: COPD on home O2, prior intubations, ETOH, hep C treated, lap chole 2010", "2010"),
])
def test_a_year_on_a_history_s_line(detector, line, year, case):
    assert recase(year, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "PMH: HTN, DM2, OA knees, hypothyroid, GERD, anxiety. Pt arrived on unit 2100 via EMS.",
    "46 yo man, no known PMH, no PCP, presenting w/ 3 weeks of dyspnea, cough, fevers, came up to unit 2100.",
    "PMH: HTN, DM2, OA knees, hypothyroid, GERD, anxiety, ETOH, valium given at 2000.",
])
def test_a_clock_time_after_a_history_s_sentence_or_a_time_word_is_no_year(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


# a course's first or last day, though "dose" names a measure: icu_invented_p find f62
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [
    ("ABX: CIPRO 500 PO BID X 10 MORE DAYS (LAST DOSE 6/30), DOSE GIVEN HERE 0900.", "6/30"),
    ("First dose 6/24 in ED, cont x 7 days.", "6/24"),
    ("Last dose given 7/3 per pharmacy.", "7/3"),
    ("Vanco stop date 7/2 per ID.", "7/2"),
    ("Next dose due 7/1.", "7/1"),
    ("Abx thru 6/30, then re-culture.", "6/30"),
    ("Foley d/c'd on 6/28, voiding.", "6/28"),
])
def test_a_course_s_first_or_last_day(detector, line, day, case):
    assert day in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "MAE 5/5, pain 3/10, home BiPAP 12/5 at night.",
    "Dose 1/2 tab of home lorazepam, last dose 1/2 tab.",
    "Grimacing due to pain 3/10, dose 5/5 of the series given.",
])
def test_a_strength_a_score_or_a_setting_after_a_dose_is_no_day(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


# an abbreviated weekday right after its clock time, closing its clause: icu_invented_p find f67
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [
    ("afib (stopped her own coumadin in the fall per daughter), lkw 2200 sat. found on kitchen floor", "sat"),
    ("Last seen normal 1900 Sun, found down by son.", "Sun"),
    ("LKW 0600 Mon; EMS called by daughter.", "Mon"),
    ("Last known well 21:30 Thurs, EMS called by son.", "Thurs"),
])
def test_a_weekday_after_its_clock_time(detector, line, day, case):
    assert recase(day, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "SAT 94% on 2L, sat 88 on RA, O2 sat 92.",
    "0900 SAT, 1000 SBT passed.",
    "Events: 1015 desat to 89%, 1100 sat 95%.",
])
def test_a_saturation_or_an_awakening_trial_after_a_time_is_no_weekday(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


# a list of three or more clock times, one of which no year could be: icu_invented_p find f61
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Valium 10mg IV x5 doses (2000, 2200, 2330, 0130, 0400), CIWA 12-18.",
    "Ativan 2mg IV x3 (1900, 2100 and 2300) for agitation.",
    "Haldol given 2000/2130/0045, sitter at bedside.",
])
def test_a_list_of_clock_times_holds_no_year(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, years", [
    ("PMH: MI 2001, 2005, 2010, CHF.", ["2001", "2005", "2010"]),
    ("s/p PCI 2001, 2005 and 2010", ["2001", "2005", "2010"]),
])
def test_a_list_of_years_stays_years(detector, line, years, case):
    assert found(detector, recase(line, case), "DATE") == years
