"""The English rules on lines as ICU nurses write them, in the case written, in capitals and in
lower case: every common date shape, hospitals and towns after a transfer or an age, rooms,
wards by building and floor, employers, and the clinical lines that must stay unmarked."""
from __future__ import annotations

import pytest

from pipeline.detection.rules import run_rules
from pipeline.schemas import I2B2_2014

CASES = ("as", "upper", "lower")


def _recase(line: str, case: str) -> str:
    return line if case == "as" else line.upper() if case == "upper" else line.lower()


def _found(line: str, category: str | None = None) -> list[tuple[str, str]]:
    return [(line[s.start:s.end], s.type) for s in run_rules(line, "d", "en", I2B2_2014)
            if category is None or s.category == category]


def _detected(text: str) -> list:
    """The full cold-start detector's spans (rules, dictionaries and the pack's steps)."""
    from pipeline.detection.detector import Detector
    from pipeline.spans import Document

    return Detector.without_model(I2B2_2014, "en").detect(Document("d", text))


# every common English date shape: (the line, the date i2b2 marks)
DATE_LINES = [
    ("admitted 01/20/2071 from home", "01/20/2071"),
    ("admitted 1/20/71 from home", "1/20/71"),
    ("admitted 01-20-2071 from home", "01-20-2071"),
    ("admitted 01.20.2071 from home", "01.20.2071"),
    ("admitted 2071-01-20 from home", "2071-01-20"),
    ("admitted 2071/01/20 from home", "2071/01/20"),
    ("admitted 2071.01.20 from home", "2071.01.20"),
    ("admitted 20/01/2071 from home", "20/01/2071"),
    ("admitted Jan 20, 2071 from home", "Jan 20, 2071"),
    ("admitted January 20th, 2071 from home", "January 20th, 2071"),
    ("admitted 20 Jan 2071 from home", "20 Jan 2071"),
    ("admitted 20-Jan-2071 from home", "20-Jan-2071"),
    ("admitted 20JAN2071 from home", "20JAN2071"),
    ("admitted Jan-20-2071 from home", "Jan-20-2071"),
    ("admitted Jan/20/2071 from home", "Jan/20/2071"),
    ("admitted 2071-Jan-20 from home", "2071-Jan-20"),
    ("admitted Jan-2071 from home", "Jan-2071"),
    ("admitted Nov-71 from home", "Nov-71"),
    ("admitted January of 2071 from home", "January of 2071"),
    ("admitted the 20th of January, 2071", "20th of January, 2071"),
    ("seen in clinic Jan. 5th for f/u", "Jan. 5th"),
    ("f/u appt Sun 1/5 with pcp", "1/5"),
    ("Admission Date: 3/22    Discharge Date: 4/2", "4/2"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,date", DATE_LINES)
def test_every_common_date_shape_in_any_case(line: str, date: str, case: str) -> None:
    text, want = _recase(line, case), _recase(date, case)
    assert (want, "DATE") in _found(text, "DATE")


# ward lines with numbers that are no dates, ages or phone numbers, and ward words that are no places
CLEAN_LINES = [
    "HR 88 SR, BP 120/60, RR 18, SAT 95% 2L NC",
    "MAE 5/5 strength, pain 3/10, pulses 2/4",
    "levophed @ 0.1 mcg/kg/min, propofol 20 mcg/kg/min, on levo 2 micu team aware",
    "TRANSFERRED FROM OSH FOR CATH",
    "transferred to micu from osh, then to the floor",
    "pt came from rehab; transferred from home",
    "remains in bed x 2 days, OOB to chair",
    "Lasix 40 mg iv given with good effect",
    "seen in peds ED, vent settings AC 500x12/5/40%",
    "RR 12-14, PEEP 5, K 4.1, ranges 120-130",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", CLEAN_LINES)
def test_clinical_lines_stay_unmarked(line: str, case: str) -> None:
    assert _found(_recase(line, case)) == []


# (line, span, type): hospitals, towns, rooms, wards and employers in any case
PLACE_LINES = [
    ("Pt transferred via med flight from Hilo General, MRN 4008279", "Hilo General", "HOSPITAL"),
    ("transferred via ambulance from University Hospital today", "University Hospital", "HOSPITAL"),
    ("pt is a 74yo from Poughkeepsie with pmh htn", "Poughkeepsie", "CITY"),
    ("Lives with daughter in Long Beach. Retired.", "Long Beach", "CITY"),
    ("discharged to extended care facility in Foothill Farms.", "Foothill Farms", "CITY"),
    ("lives alone in South Boston with wife", "South Boston", "CITY"),
    ("seen in NEBH ED yesterday", "NEBH", "HOSPITAL"),
    ("419 McCorkill Row, Biloxi, MS 91089", "Biloxi", "CITY"),
    ("Pt: Daudi Gulati (MR# 937-26-95)   Room 1006", "1006", "ROOM"),
    ("Unit: Colgan 17 Medicine, Room 1026", "Colgan 17 Medicine", "DEPARTMENT"),
    ("Unit: Golding Wing 17, Bed 5", "Golding Wing 17", "DEPARTMENT"),
    ("worked as a welder for Drew Dental Group until 2070", "Drew Dental Group", "ORGANIZATION"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,span,gtype", PLACE_LINES)
def test_places_in_any_case(line: str, span: str, gtype: str, case: str) -> None:
    text, want = _recase(line, case), _recase(span, case)
    assert (want, gtype) in _found(text, "LOCATION")


def test_an_acronym_in_mixed_case_before_ed_and_lower_case_one_english_does_not_use() -> None:
    assert ("sjh", "HOSPITAL") in _found("went to sjh er last night", "LOCATION")
    assert _found("went to the er last night", "LOCATION") == []


def test_a_ward_name_needs_a_service_or_a_wing_after_its_floor() -> None:
    assert _found("ON LEVO 2 MICU TEAM AWARE", "LOCATION") == []
    assert _found("titrating levo 2 mcg per protocol", "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,name", [
    ("pt seen by dr smith this am", "smith"),
    ("Accepting physician Dorine Gole, MD. She is retired", "Dorine Gole"),
    ("Emergency contact: Corrine Spillane (spouse)", "Corrine Spillane"),
])
def test_names_after_roles_and_contacts_in_any_case(line: str, name: str, case: str) -> None:
    text = _recase(line, case)
    assert _recase(name, case) in [s for s, _ in _found(text, "NAME")]


def test_a_listed_first_name_lets_a_common_word_be_a_signing_nurses_surname() -> None:
    assert ("Earl Major", "DOCTOR") in _found("Earl Major, RN", "NAME")
    assert _found("Will Continue, RN", "NAME") == []
    assert _found("Monitor closely, RN aware", "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_month_day_after_date_of_service(case: str) -> None:
    assert (_recase("Mar 14", case), "DATE") in _found(_recase("Date of Service: Mar 14", case), "DATE")
    assert _found(_recase("MAR reviewed, DEC 2 units given", case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
def test_a_word_ending_in_d_dot_is_no_title_before_a_device(case: str) -> None:
    """"REMOVED. FOLEY": the "D." of a word's end was read as the title "D." and kept the
    surname list's "FOLEY" (found on ward train-part notes in capitals)."""
    assert _detected(_recase("GU: HD done today, 3L removed. Foley patent, UO adequate.", case)) == []


@pytest.mark.parametrize("line,value,gtype", [
    ("Account #: 0044 1804 1676", "0044 1804 1676", "ACCOUNT"),
    ("Genetic sample on file: BB-60-281711.", "BB-60-281711", "IDNUM"),
    ("Home CPAP (serial JSV1302369F) checked.", "JSV1302369F", "DEVICE"),
    ("Blood cultures (Encounter ID E164312789) no growth", "E164312789", "ACCOUNT"),
    ("DOB: 09/09/1964   Age: 89+   Sex: M", "89+", "AGE"),
])
def test_identifiers_and_ages_after_their_labels(line: str, value: str, gtype: str) -> None:
    assert (value, gtype) in _found(line)


def test_serial_exams_are_no_serial_numbers() -> None:
    assert _found("serial abgs q4h, serial exams, serial 2 troponins") == []


@pytest.mark.parametrize("line,login", [
    ("Julianna Giles, resident / jgiles", "jgiles"),
    ("Requested by Dr. Hunter Dayal (hd275)", "hd275"),
    ("signed by Dr. Kenyatta K. Henson [kh309] on 2082-09-10", "kh309"),
])
def test_a_login_made_from_a_name_on_its_line(line: str, login: str) -> None:
    assert (login, "USERNAME") in _found(line, "NAME")


@pytest.mark.parametrize("line", ["RT/ca", "AP/mk", "given tylenol (prn)", "Metoprolol 25 mg (metop)"])
def test_no_login_without_a_name_it_is_made_from(line: str) -> None:
    assert [t for _, t in _found(line)] == []


@pytest.mark.parametrize("line,abbr", [("transferred from BC for cath", "BC"), ("TRANSFERRED FROM UH TODAY", "UH")])
def test_a_two_letter_hospital_acronym_in_capitals_after_a_transfer(line: str, abbr: str) -> None:
    assert (abbr, "HOSPITAL") in _found(line, "LOCATION")


@pytest.mark.parametrize("line", ["transferred to IP", "TRANSFERRED TO IR FOR EMBO", "transferred from bc", "sent to CT",
                                  "ADMITTED TO ED", "TRANSFERRED TO EP LAB", "transferred to PT"])
def test_two_letter_ward_words_after_a_transfer_stay(line: str) -> None:
    assert _found(line, "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,name", [("son john called, updated", "john"), ("wife mary and son paul visited", "paul"),
                                       ("SON DAVID AT BEDSIDE", "DAVID")])
def test_the_commonest_first_names_after_kinship(line: str, name: str, case: str) -> None:
    assert _recase(name, case) in [s for s, _ in _found(_recase(line, case), "NAME")]


def test_a_common_first_name_after_a_weak_context_stays() -> None:
    assert _found("per john, ok", "NAME") == [] and _found("with james", "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", ["Relevant history: Graves' disease treated with radioactive iodine",
                                  "NSAID use for osteoarthritis, Barrett's esophagus, GERD",
                                  "Insurance: Medicare member ID N14-984001-22"])
def test_eponyms_and_insurers_are_no_names_or_places(line: str, case: str) -> None:
    got = _detected(_recase(line, case))
    assert [s.category for s in got if s.category in ("NAME", "LOCATION")] == []
