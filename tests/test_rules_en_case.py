"""English rules on lines written for these tests as ward notes write them (issue 30, items 2-4):
ages and years in the shapes a presentation line and a history use, dictation initials and
logins in one case, names after a field label or a first name, streets and towns in any case;
each shape in the case written, in capitals and in lower case, and beside it the clinical lines
where it must not fire (vitals, doses, ranges, scores, times, devices and drugs in capitals)."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document

CASES = ("as", "upper", "lower")


def _recase(line: str, case: str) -> str:
    return line if case == "as" else line.upper() if case == "upper" else line.lower()


@pytest.fixture(scope="module")
def detector():
    return Detector.without_model(I2B2_2014, "en")


def _found(det, text: str, category: str) -> list[str]:
    return [text[s.start:s.end] for s in det.detect(Document("d", text)) if s.category == category]


AGE_LINES = [
    ("84M with PMH HTN, DM, presents with SOB", "84"),
    ("Pt is an 84 F s/p fall at home", "84"),
    ("HPI: 67 M w/ hx of afib on coumadin", "67"),
    ("71 yrs male, full code", "71"),
    ("59yr F from home with chest pain", "59"),
    ("Age/Sex: 84/M", "84"),
    ("DOB: 04-JAN-1950 (84 yrs)", "84"),
    ("Patient is 84. Lives alone.", "84"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,age", AGE_LINES)
def test_age_shapes(detector, line, age, case):
    assert age in _found(detector, _recase(line, case), "AGE")


NOT_AGES = [
    "16F foley placed, draining clear yellow urine",
    "14 F NGT to LIWS, placement confirmed",
    "walked 30 m with PT, tolerated well",
    "smoker x 40 yrs male pattern baldness noted",
    "Pt is 2 assist to chair. Pt is 1:1 with sitter.",
    "pt is 100% on NRB, RR 28",
    "HR 90 SR, BP 120/80, RR 18, SpO2 98% on 2L NC",
    "heparin gtt at 1200 units/hr, PTT 65",
    "FOLEY DRAINING 30-50 CC/HR, LASIX 40 MG IV GIVEN @ 2000",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_AGES)
def test_no_age_in_clinical_numbers(detector, line, case):
    assert _found(detector, _recase(line, case), "AGE") == []


YEAR_LINES = [
    ("s/p CABG in '98, stents x 2", "'98"),
    ("h/o MI 2005, s/p PCI to LAD", "2005"),
    ("PMH: DM dx'd 1999, HTN, CKD", "1999"),
    ("last colonoscopy 1998 normal", "1998"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,year", YEAR_LINES)
def test_history_years(detector, line, year, case):
    assert year.lstrip("'") in [d.lstrip("'") for d in _found(detector, _recase(line, case), "DATE")]


NOT_YEARS = [
    "Lasix given 2000, last dose 0800",
    "Last BM 2000 per report",
    "LAST K 3.9 AT 2000, repeat at 0400",
    "prior I/O +1960, goal even",
    "last UO 1960 cc over shift",
    "Pt 5'10\", 80 kg, BMI 25",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_YEARS)
def test_no_year_in_times_and_values(detector, line, case):
    assert _found(detector, _recase(line, case), "DATE") == []
