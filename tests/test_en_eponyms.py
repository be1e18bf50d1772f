"""Devices, positions, scores and signs named after people or towns are not PHI; the people and
towns themselves still are (English pack, ``drop_eponyms``)."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document


@pytest.fixture(scope="module")
def detector():
    return Detector.without_model(I2B2_2014, "en")


def _found(detector, text):
    return [text[s.start:s.end] for s in detector.detect_many([Document("d", text)])[0]]


@pytest.mark.parametrize("line", [
    "Hickman line site c/d/i.",
    "Dobhoff tube placed, Salem sump to LIWS.",
    "Miami J collar on at all times, Philadelphia collar for transport.",
    "Jackson-Pratt drain with 30cc serosang, Penrose drain removed.",
    "Denver shunt functioning. Boston brace when OOB.",
    "Pt placed in Sims position for enema, then Fowler's position.",
    "Quinton catheter for HD. Minnesota tube in place.",
    "Ottawa rules negative. Richmond Agitation Sedation Scale -1.",
    "Cheyne-Stokes resp noted overnight.",
    "HICKMAN LINE SITE C/D/I. SALEM SUMP TO LIWS.",
])
def test_a_device_or_score_named_after_someone_is_no_phi(detector, line):
    assert _found(detector, line) == []


@pytest.mark.parametrize("line, kept", [
    ("Pt lives in Salem with wife.", "Salem"),
    ("Transferred from Boston this am.", "Boston"),
    ("Dr. Hickman aware of K 3.1.", "Hickman"),
    ("Family from Miami, FL, arriving tonight.", "Miami"),
    ("Lives in Reinholds, PA with her son.", "Reinholds"),     # a town of the GeoNames gazetteer
])
def test_the_people_and_towns_themselves_stay(detector, line, kept):
    assert kept in _found(detector, line)


def test_a_context_rule_beats_the_town_gazetteer_on_the_same_word(detector):
    """"Bruton" is a town of the gazetteer; after "wife" it is the wife's name (the gazetteer's
    weight, ``dictionary_lists.SHIPPED_WEIGHTS``, lets the rule's type win)."""
    text = "Wife Bruton at bedside, updated on plan."
    spans = detector.detect_many([Document("d", text)])[0]
    assert [(text[s.start:s.end], s.category) for s in spans] == [("Bruton", "NAME")]
