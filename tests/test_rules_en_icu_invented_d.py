"""Fixes found on the "find" half of the fourth invented ICU set (``benchmarks/data/icu_invented_d``,
issue 30: 2000s New England ICU nursing notes): devices named by their maker alone, an ordinal day,
a five-digit extension, staff by a bracket or a pager, a credential's sign-off, workplaces by their
closing words. Each beside the ward lines it must leave alone; the lines are written for these
tests, no real person's."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked_phi, recase  # noqa: F401  (detector: a fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "R chest Hickman, both lumens flush w/ blood return.",
    "BC x2 from Hickman and periph. Quinton placed R IJ.",
    "Jackson-Pratt removed from groin by PA, Foley to gravity.",
])
def test_a_device_named_by_its_maker_alone_is_nophi(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


def test_a_title_keeps_the_person(detector):
    assert "Hickman" in found(detector, "Seen by Dr. Hickman today.", "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi", [
    ("pod 2 s/p cabg x4 (the 12th).", "12th"),
    ("Family meeting on the 3rd at 1400.", "3rd"),
    ("Screening sent per Shay (CM, x3-6120); wife prefers the other rehab.", "3-6120"),
    ("Screening sent per Shay (CM, x3-6120); wife prefers the other rehab.", "Shay"),
    ("SW Magaly (pgr 2291) to meet w/ her in am.", "Magaly"),
    ("Pt works at Lynnway Auto Body.", "Lynnway Auto Body"),
    ("Husband works overnights at Pawtucket Wire & Cable, sister staying.", "Pawtucket Wire & Cable"),
])
def test_dates_phones_staff_and_workplaces_by_their_shape(detector, line, phi, case):
    assert recase(phi, case) in marked_phi(detector, recase(line, case))


@pytest.mark.parametrize("case", ("as", "upper"))
def test_a_credentials_sign_off_names_its_writer(detector, case):
    assert recase("TD", case) in found(detector, recase("Plan: cont abx.\nRN/TD", case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "This is the 3rd dose. For the 2nd time. The 1st of 3 runs.",
    "SW consult (pgr 2291) placed. Per team (RN aware).",
    "Hx of Parkinson PD, on sinemet. CT tech aware. Pt ate pizza. IV wire out.",
])
def test_ward_lines_of_the_same_shapes_stay(detector, line, case):
    got = marked_phi(detector, recase(line, case))
    assert all(g.isdigit() for g in got), got   # the pager's number is a phone, nothing else


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi", [("PLAN: ?VALVULOPLASTY MON.", "MON"),
                                       ('SOCIAL: PT GOES BY "PAPO". STUDENT.', "PAPO"),
                                       ("Prefers to be called Bud.", "Bud")])
def test_a_plans_weekday_and_the_name_a_patient_goes_by(detector, line, phi, case):
    assert recase(phi, case) in marked_phi(detector, recase(line, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", ["Cont to mon.", "Will mon.", "O2 sat.", "Known as the quiet one."])
def test_a_monitor_and_a_common_word_stay(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []
