"""How the full English detector joins a model's spans with the rules' in lines in one case
(issue 30, item 3): the rules alone must never find more than rules and model together. Each
case is a line written for these tests, as written, in capitals and in lower case, with the model
span a cold-start CRF gave on such a line, beside clinical lines in one case that must stay
unmarked whatever the model said there ("PT FROM PACU", "in lasix gtt", "to ccu", "DR AWARE")."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.detection.merge_policy import merge_model_first
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span

from rules_en_case_helpers import CASES, recase


@pytest.fixture(scope="module")
def det():
    return Detector.without_model(I2B2_2014, "en")


def _model(text: str, piece: str, label: str, category: str = "NAME", nth: int = 0) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(piece, start + 1)
    return Span("d", start, start + len(piece), category, label, "model:v", 0.9)


def _joined(det, text: str, model: list[Span]) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.category) for s in det._combine(Document("d", text), model)]


@pytest.mark.parametrize("case", CASES)
def test_a_rule_span_comes_back_when_a_step_drops_the_model_span_that_took_its_place(det, case):
    # the model ran the name into the phone; a name holding a bare number is dropped afterwards
    text = recase("Emergency contact: Freja Lindgren 07700 900462", case)
    got = _joined(det, text, [_model(text, recase("Freja Lindgren 07700", case), "PATIENT")])
    assert (recase("Freja Lindgren", case), "NAME") in got


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,piece,label,category", [
    ("PT FROM PACU", "PACU", "HOSPITAL", "LOCATION"),
    ("in lasix gtt", "lasix", "PATIENT", "NAME"),
    ("to ccu", "ccu", "HOSPITAL", "LOCATION"),
    ("DR AWARE", "AWARE", "DOCTOR", "NAME"),
])
def test_nothing_comes_back_on_a_clinical_line_where_the_model_span_is_dropped(det, case, line, piece, label,
                                                                                category):
    text = recase(line, case)
    assert _joined(det, text, [_model(text, recase(piece, case), label, category)]) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,rule_piece,model_piece,label", [
    ("Our solicitors, Lindqvist & Partners Solicitors, wrote.", "Lindqvist & Partners Solicitors", "Lindqvist",
     "PATIENT"),
    ("Landed at Logan Airport, then home", "Logan Airport", "Logan", "HOSPITAL"),
])
def test_a_rule_span_holding_a_model_word_of_another_type_replaces_it(det, case, line, rule_piece, model_piece,
                                                                      label):
    text = recase(line, case)
    got = _joined(det, text, [_model(text, recase(model_piece, case), label,
                                     "NAME" if label == "PATIENT" else "LOCATION")])
    assert [t for t, _ in got] == [recase(rule_piece, case)]


def test_spanish_keeps_the_models_type_inside_a_wider_rule_span():
    """Only English lets a rule span replace a model span of another type it holds: on MEDDOCAN
    the model's type was the right one."""
    model = [Span("d", 6, 12, "LOCATION", "TERRITORIO", "model:v")]
    wider = [Span("d", 0, 12, "LOCATION", "PAIS", "rule:x")]
    assert [(s.start, s.end) for s in merge_model_first(model, wider, {})] == [(6, 12)]
    assert [(s.start, s.end) for s in merge_model_first(model, wider, {}, rule_contains_wins=True)] == [(0, 12)]


@pytest.mark.parametrize("case", CASES)
def test_a_name_the_model_agreed_with_is_repeated_like_the_rules(det, case):
    text = recase("Dr. Lindgren paged re: BP. Lindgren aware. DR AWARE of K 3.1", case)
    got = _joined(det, text, [_model(text, recase("Lindgren", case), "DOCTOR")])
    assert [t for t, c in got if c == "NAME"] == [recase("Lindgren", case)] * 2


@pytest.mark.parametrize("case", CASES)
def test_a_model_span_over_a_line_break_is_cut_so_the_address_below_stays(det, case):
    text = recase("Cordelia Fairweather\nRose Cottage\nLittle Hadham", case)
    got = _joined(det, text, [_model(text, recase("Cordelia Fairweather\nRose", case), "PATIENT")])
    assert (recase("Cordelia Fairweather", case), "NAME") in got
    assert (recase("Rose Cottage", case), "LOCATION") in got


@pytest.mark.parametrize("case", CASES)
def test_clinical_lines_a_model_ran_together_stay_unmarked(det, case):
    text = recase("to ccu\nin lasix gtt\nPT FROM PACU", case)
    got = _joined(det, text, [_model(text, recase("ccu\nin lasix", case), "HOSPITAL", "LOCATION")])
    assert got == []
