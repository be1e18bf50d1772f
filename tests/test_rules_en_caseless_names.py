"""Names in lines written in one case with no context a ward rule reads (issue 30, item 3): a
listed first name with a rare surname, and a titled name a colon closes; lines written for these
tests, each in capitals and in lower case, beside clinical and ordinary lines in one case where
nothing is a name."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import ONE_CASE, detector, found, recase  # noqa: F401  (detector: a fixture)

NAME_LINES = [
    ("Dear parent/guardian, Eliana Castellanos (grade 4) was absent today", "Eliana Castellanos"),
    ("GPS log: driver Ruben Salcedo, truck plate 7XYZ302", "Ruben Salcedo"),
    ("Attendees: Oren Bialik (eng), Fatima Zahedi (design)", "Oren Bialik"),
    ("Account holder Gideon Marchetti, account 220418876", "Gideon Marchetti"),
    ("Fraud alert for Mr. Oyelaran: card used abroad", "Oyelaran"),
    ("Spoke with dr. kessler, will call back", "kessler"),
    ("This is to certify that Aurelio M. Santos has been employed", "Aurelio M. Santos"),
    ("Obituary: Eleanor Mae Whitcombe, 92, passed away", "Eleanor Mae Whitcombe"),
    ("Procedure done. Patient Thurgood Benson, MRN MR-5520914", "Thurgood Benson"),
    ("Loan officer: Tamika Rowe, NMLS 1928374", "Tamika Rowe"),
]


@pytest.mark.parametrize("case", ONE_CASE)
@pytest.mark.parametrize("line,name", NAME_LINES)
def test_names_in_one_case(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


NOT_NAMES = [
    "PT FROM PACU, in lasix gtt, to ccu", "DR AWARE of K 3.1", "Mae 5/5 strength", "Pat dry, dressing changed",
    "Will call back re: labs", "Grace period ends Friday", "Mark Twain Elementary School field trip",
    "Lives in Temple Terrace", "Drove a Toyota Corolla", "Mr. Coffee machine broken: replaced",
    "Dr. Notified: aware", "Hope Springs Lake", "Austin Flint murmur heard", "Bill sent, paid in full",
    "Heparin Drip titrated", "Foley Catheter draining", "Crohn Disease flare", "Pt Mae 5/5, Pat dry", "Ed Green stool noted",
]


@pytest.mark.parametrize("case", ONE_CASE)
@pytest.mark.parametrize("line", NOT_NAMES)
def test_no_name_in_ordinary_lines_of_one_case(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


def test_a_mixed_case_line_is_left_to_the_cased_rules(detector):
    from pipeline.detection.rules.en.caseless_names import caseless_full_names, caseless_titled_names

    text = "Dear parent, Eliana Castellanos was absent. Fraud alert for Mr. Oyelaran: card"
    assert caseless_full_names(text, "d") == [] and caseless_titled_names(text, "d") == []
