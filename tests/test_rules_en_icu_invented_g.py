"""Fixes found on the "find" half of the seventh invented set (``benchmarks/data/icu_invented_g``,
issue 30: notes physicians write around an ICU stay): hyphenated given names and surnames, a
resident's year after a name, a day's time or a stay's day beside a month/day, an appointment's
day, durations and counts after a range, the sedation trial "SAT", scores named for their
authors, a relative's first name that is a word before an aside, a practice's whole name, trades
closing an employer's name, initials after two dashes, a town where a doctor practises, a model's
span over a form's column gap or a piece of a word. Each beside the PHI it must keep; the lines
are written for these tests, no real person's."""
from __future__ import annotations

import pytest

from pipeline.locales.en.line_steps import cut_model_spans_at_lines
from pipeline.spans import Span
from rules_en_case_helpers import CASES, detector, found, marked_phi, recase, step_context  # noqa: F401  (detector: a fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Neuro: SAH, Hunt-Hess grade 2, Fisher 3. Plan SBT after SAT.",
    "Wells 6.5, Caprini 8; GLASGOW-BLATCHFORD SCORE 12, Child-Pugh B.",
    "EtOH: 10-14 beers/d x 20 yrs. Repeat CT in 1-2 wks.",
    "Anti-Xa 0900: 0.22 (goal 0.3-0.7), e.g. with ECMO.",
    "pain 4/10 0800 after oxycodone. 3/6 SEM at RUSB.",
])
def test_physician_words_are_nophi(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


@pytest.mark.parametrize("line, phi, category", [
    ("Patient name: Park, Ji-Woo\nMRN: 0031-55182\n", "Park, Ji-Woo", "NAME"),
    ("Jean-Baptiste Okoro, MD, MICU fellow\n", "Jean-Baptiste Okoro", "NAME"),
    ("T. Alvarez-Reyes PGY-2, d/w Dr. Stone\n", "T. Alvarez-Reyes", "NAME"),
    ("Hospital day #4 (2/11). Vanco trough 2/11 0500: 17.2", "2/11", "DATE"),
    ("- Cardiology clinic (Dr. Amato), 4/2, with echo", "4/2", "DATE"),
    ("family: son frank (lives in maine) and daughter joan.", "frank", "NAME"),
    ("Screening through Kennebec Family Health Center.", "Kennebec Family Health Center", "LOCATION"),
    ("Social: works at big sky drilling, wife at bedside.", "big sky drilling", "LOCATION"),
    ("anticoagulation reviewed.\n-- RK (clin pharm)\n", "RK", "NAME"),
    ("started by his nephrologist dr. sato in tulare.", "tulare", "LOCATION"),
])
def test_phi_of_physician_notes_is_found(detector, line, phi, category):
    assert any(phi in f for f in found(detector, line, category))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Dr. Okonkwo in clinic tomorrow; dr. lee in icu aware.",
    "Followed by dr. brandt at the infusion clinic.",
])
def test_where_a_doctor_works_is_no_town_when_a_ward_word(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


def test_an_everyday_name_is_not_repeated_as_the_word():
    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014
    from pipeline.spans import Document
    det = Detector.without_model(I2B2_2014, "en")
    text = "family: son will (lives on the farm). son will call tmrw."
    got = [text[s.start:s.end] for s in det.detect(Document("d", text, []))]
    assert got == ["will"]


@pytest.mark.parametrize("text, start, end, kept", [
    ("Attending: Dr. Hardesty   Written by: C. Ng, PA-C", 15, 33, ["Hardesty", "Written"]),
    ("Anti-Xa 0900: 0.18", 5, 7, []),
    ("if needed (e.g., ECMO)", 13, 15, []),
])
def test_model_spans_end_at_column_gaps_and_pieces_of_words_go(text, start, end, kept):
    got = cut_model_spans_at_lines([Span("d", start, end, "NAME", "DOCTOR", source="model:m")], step_context(text))
    assert [text[s.start:s.end] for s in got] == kept
