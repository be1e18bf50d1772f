"""The English pack's model-stage guards against a ward's codes read as places and a reporting verb
read as a relative's name (found on icu_invented_c find f08, f15): each on ward lines it must clean
and on addresses it must keep; the lines are written for these tests."""
from __future__ import annotations

import pytest

from pipeline.detection.steps.registry import StepContext
from pipeline.locales.en.code_steps import drop_ward_codes
from pipeline.locales.en.ward_steps import strip_context_words
from pipeline.spans import Span


def _model_spans(text: str, pieces: list[tuple[str, str, str]]) -> list[Span]:
    out = []
    for piece, category, gtype in pieces:
        at = text.index(piece)
        out.append(Span("d", at, at + len(piece), category, gtype, source="model:test"))
    return out


def _kept(step, text: str, pieces) -> list[str]:
    ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    return [text[s.start:s.end] for s in step(_model_spans(text, pieces), ctx)]


@pytest.mark.parametrize("text, piece", [
    ("0400 PSV 10/PEEP 5, VT 380-450, RR 18-24.", "VT"),
    ("BASELINE DEMENTIA PER NH, PT USUALLY CONVERSANT.", "NH"),
    ("pa line pulled, ms improving", "pa"),
])
def test_a_wards_code_is_no_state(text, piece):
    assert _kept(drop_ward_codes, text, [(piece, "LOCATION", "STATE")]) == []


@pytest.mark.parametrize("text, piece", [
    ("Lives in Portland, ME with his wife.", "ME"),
    ("FROM CONCORD, NH 03301.", "NH"),
    ("Moved here from Austin, TX last year.", "TX"),
])
def test_a_state_in_an_address_stays(text, piece):
    assert _kept(drop_ward_codes, text, [(piece, "LOCATION", "STATE")]) == [piece]


def test_a_three_digit_zip_goes_and_a_postcode_stays():
    text = "VT 380-450. Mail to 2000 Sydney NSW, or 02114 Boston."
    got = _kept(drop_ward_codes, text, [("380", "LOCATION", "ZIP"), ("2000", "LOCATION", "ZIP"),
                                        ("02114", "LOCATION", "ZIP")])
    assert got == ["2000", "02114"]


@pytest.mark.parametrize("text, piece", [("SON STATES PT IS DNR.", "STATES"), ("wife reports pt fell", "reports")])
def test_a_reporting_verb_after_a_relative_is_no_name(text, piece):
    assert _kept(strip_context_words, text, [(piece, "NAME", "PATIENT")]) == []


def test_a_relatives_name_stays():
    assert _kept(strip_context_words, "Son Stavros states pt is DNR.", [("Stavros", "NAME", "PATIENT")]) == ["Stavros"]


@pytest.mark.parametrize("text, piece, category", [("Sitter at bedside, pt calm.", "Sitter", "NAME"),
                                                   ("Son in law Ed also called.", "law", "LOCATION"),
                                                   ("SON-IN-LAW AT BS.", "LAW", "NAME")])
def test_a_role_alone_and_an_in_laws_law_are_no_phi(text, piece, category):
    assert _kept(strip_context_words, text, [(piece, category, "HOSPITAL" if category == "LOCATION" else "DOCTOR")]) == []


def test_a_relative_in_law_keeps_the_name():
    assert _kept(strip_context_words, "Son in law Ed also called.", [("Ed", "NAME", "PATIENT")]) == ["Ed"]
