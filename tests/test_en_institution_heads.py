"""An institution's head word belongs to its name (``pipeline/locales/en/institution_steps.py``):
a place the rules or the model found up to the word that says what kind of place it is ("VNA",
"Hotel", "Service", "Manor", "PD", "Lake") takes that word, in any case; a town before such a word
becomes the place it names. What stays as it was: a head that is an adjective before a clinical
noun, a town before an ordinary noun, a person's name, a person's own span, a line break. Lines are
rephrased from the invented sets' find notes, each beside text that must not move."""
from __future__ import annotations

import pytest

from pipeline.locales.en.institution_steps import extend_over_institution_heads, head_after
from pipeline.spans import Span
from rules_en_case_helpers import CASES, detector, found, recase, step_context  # noqa: F401


def _step(text: str, start: int, end: int, gtype: str, source: str = "rule:x") -> list[tuple[str, str]]:
    span = Span("d", start, end, "LOCATION" if gtype != "PATIENT" else "NAME", gtype, source=source)
    return [(text[s.start:s.end], s.type) for s in extend_over_institution_heads([span], step_context(text))]


def _at(text: str, name: str) -> tuple[int, int]:
    i = text.index(name)
    return i, i + len(name)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name, whole", [
    ("Home tomorrow w/ Harbor Point VNA for wound care.", "Harbor Point", "Harbor Point VNA"),
    ("Husband is staying at the Wharfside Plaza Hotel tonight.", "Wharfside Plaza", "Wharfside Plaza Hotel"),
    ("Son drives a truck for Ridgeway Laundry Service, off tonight.", "Ridgeway Laundry", "Ridgeway Laundry Service"),
    ("Worked 30 yrs at Dunmore Box Co before retiring.", "Dunmore Box", "Dunmore Box Co"),
    ("Case worker from North Coast Elder Services called.", "North Coast", "North Coast Elder Services"),
    ("Pastor from Morning Star Baptist Church visited.", "Morning Star", "Morning Star Baptist Church"),
    ("Seen at Brookfield Health Clinic last week.", "Brookfield Health", "Brookfield Health Clinic"),
    ("Her oncologist at Quarry Hill Oncology Assoc called.", "Quarry Hill", "Quarry Hill Oncology Assoc"),
])
def test_an_organisations_head_word_joins_its_name(case, line, name, whole):
    text = recase(line, case)
    start, end = _at(text, recase(name, case))
    assert _step(text, start, end, "ORGANIZATION") == [(recase(whole, case), "ORGANIZATION")]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, town, whole, gtype", [
    ("Came by ambulance from Fairmont Manor, baseline confused.", "Fairmont", "Fairmont Manor", "HOSPITAL"),
    ("Officer from Kingsbury PD here to speak w/ pt.", "Kingsbury", "Kingsbury PD", "ORGANIZATION"),
    ("Fell through the ice on Hartwell Lake while fishing.", "Hartwell", "Hartwell Lake", "LOCATION-OTHER"),
    ("Daughter is a nurse at Ashby Regional.", "Ashby", "Ashby Regional", "HOSPITAL"),
    ("Sent to Ashby General ED by ambulance.", "Ashby", "Ashby General", "HOSPITAL"),
    ("Brought in by Kingsbury Police after a fall.", "Kingsbury", "Kingsbury Police", "ORGANIZATION"),
])
def test_a_town_before_a_head_becomes_the_place_it_names(case, line, town, whole, gtype):
    text = recase(line, case)
    start, end = _at(text, recase(town, case))
    assert _step(text, start, end, "CITY") == [(recase(whole, case), gtype)]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, town", [
    ("Lives in a Melford house w/ 3 steps to enter.", "Melford"),
    ("Grew up near Melford center, moved away at 18.", "Melford"),
    ("Seen at Ashby regional anesthesia clinic last yr.", "Ashby"),
    ("Went to Melford general surgery clinic for f/u.", "Melford"),
    ("Lives in Melford with wife and son.", "Melford"),
])
def test_a_town_before_an_ordinary_noun_or_a_clinical_one_stays_a_town(case, line, town):
    text = recase(line, case)
    start, end = _at(text, recase(town, case))
    assert _step(text, start, end, "CITY") == [(recase(town, case), "CITY")]


def test_a_capitalised_name_does_not_take_a_lower_case_word_in_a_mixed_line():
    text = "Pt was at Harbor Point vna visit per wife."
    start, end = _at(text, "Harbor Point")
    assert _step(text, start, end, "ORGANIZATION") == [("Harbor Point", "ORGANIZATION")]


def test_a_head_on_the_next_line_a_persons_span_and_a_name_stay_as_they_were():
    text = "Transferred from Fairmont\nManor unit staff aware."
    start, end = _at(text, "Fairmont")
    assert _step(text, start, end, "CITY") == [("Fairmont", "CITY")]
    text = "Home w/ Harbor Point VNA tomorrow."
    start, end = _at(text, "Harbor Point")
    assert _step(text, start, end, "ORGANIZATION", source="human:lead") == [("Harbor Point", "ORGANIZATION")]
    text = "Met w/ the Jones house staff."
    start, end = _at(text, "Jones")
    assert _step(text, start, end, "PATIENT") == [("Jones", "PATIENT")]


@pytest.mark.parametrize("case", CASES)
def test_a_name_made_of_its_head_and_its_place_and_whose_house_it_is_take_nothing(case):
    text = recase("Home today with VNA of Harwich services, daughter aware.", case)
    start, end = _at(text, recase("VNA of Harwich", case))
    assert _step(text, start, end, "ORGANIZATION") == [(recase("VNA of Harwich", case), "ORGANIZATION")]
    text = recase("Call from house manager at pt's sober house re: bed.", case)
    start, end = _at(text, recase("pt's sober", case))
    assert _step(text, start, end, "ORGANIZATION") == [(recase("pt's sober", case), "ORGANIZATION")]


def test_a_head_already_marked_by_another_span_is_left_to_it():
    text = "Home w/ Harbor Point VNA tomorrow."
    a, b = _at(text, "Harbor Point")
    c, d = _at(text, "VNA")
    spans = [Span("d", a, b, "LOCATION", "ORGANIZATION", source="rule:x"),
             Span("d", c, d, "LOCATION", "ORGANIZATION", source="model:m")]
    got = extend_over_institution_heads(spans, step_context(text))
    assert [(text[s.start:s.end]) for s in got] == ["Harbor Point", "VNA"]


def test_a_span_of_blanks_takes_nothing():
    assert head_after("at   VNA today", 2, 5, False) is None


def test_head_after_reads_at_most_three_words_and_no_function_word():
    text = "at Bay Linen Towel Dryer Supply today"
    assert head_after(text, 3, 6, False) is None   # four words before the head
    text = "at Bay Linen and Towel Supply Service today"
    assert head_after(text, 3, 6, False) == (text.index(" today"), "ORGANIZATION")
    text = "at Bay of Fundy Hotel today"
    assert head_after(text, 3, 6, False) is None
    text = "at Bay Heart & Vascular Institute today"
    assert head_after(text, 3, 6, False) == (text.index(" today"), "ORGANIZATION")


@pytest.mark.parametrize("case", CASES)
def test_the_cold_start_keeps_a_home_care_agencys_head(detector, case):
    text = recase("Plan home w/ Nashoba Ridge VNA for RN visits, daughter aware.", case)
    assert recase("Nashoba Ridge VNA", case) in found(detector, text, "LOCATION")
