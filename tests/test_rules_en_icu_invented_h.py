"""Fixes found on the "find" half of the eighth invented set (``benchmarks/data/icu_invented_h``,
issue 30: Boston-area ICU nursing notes of many nurses' habits): a relative's first name that is a
word before a visit's words, the in-laws' shorthand, a rare name whose ending looks like a verb's,
a perfusionist and a consulting service with their names, a measure's range and "2/2" (secondary
to), a valve by its maker, an operation by its surgeon, "on the 4th floor", a student's college,
a day's word after a doctor's name. Each beside the PHI it must keep; the lines are written for
these tests, no real person's."""
from __future__ import annotations

import pytest

from pipeline.locales.en.ward_steps import strip_context_words
from pipeline.spans import Span
from rules_en_case_helpers import CASES, detector, found, marked_phi, recase, step_context  # noqa: F401  (detector: a fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "CI 2.0-2.3, SVR 900-1100, CVP 12, PAD 20.",
    "ESRD 2/2 IgA nephropathy, on PD x3 yrs.",
    "POD 2 s/p AVR (St Jude mech), A-paced 80.",
    "s/p ex lap, Hartmann's, POD 3, ostomy pink.",
    "Transferred to the 4th floor at 1600.",
    "wife desatting? no - pt desatting to 88% on 4L, wife at bedside.",
])
def test_ward_words_are_nophi(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


FOUND_IN_ANY_CASE = [
    ("SOC: girlfriend Autumn at bedside most of the day.", "Autumn", "NAME"),
    ("Son Andreas and DIL Joy at bedside, updated.", "Joy", "NAME"),
    ("Sister Meiqing in to visit, possible donor.", "Meiqing", "NAME"),
    ("Perfusionist Anatoly checked the IABP console at 0200.", "Anatoly", "NAME"),
    ("Paracentesis by hepatology (Okonjo), 4L removed.", "Okonjo", "NAME"),
    ("Lives w/ aunt, student at Bunker Hill CC.", "Bunker Hill CC", "LOCATION"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi, category", FOUND_IN_ANY_CASE)
def test_found_in_any_case(detector, line, phi, category, case):
    text = recase(line, case)
    assert any(recase(phi, case) in f for f in found(detector, text, category))


def test_a_day_after_a_doctors_name_is_no_part_of_it():
    text = "FAMILY MTG W/ DR. OYELARAN TOMORROW AT 1100."
    got = strip_context_words([Span("d", 18, 35, "NAME", "DOCTOR", source="model:m")],
                              step_context(text))
    assert [text[s.start:s.end] for s in got] == ["OYELARAN"]


def test_a_phone_is_still_a_phone_after_no_measure(detector):
    assert "555-0143" in found(detector, "Son's cell 555-0143, call with changes.", "CONTACT")
