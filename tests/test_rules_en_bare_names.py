"""A full name with no context around it (:mod:`pipeline.detection.rules.en.bare_names`): lines
written for this test in the shapes of letters, forms and e-mails (every name invented), and the
title-case words of clinical notes and place names that must stay unmarked."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.detection.rules.en.bare_names import bare_full_names
from pipeline.spans import Document

FOUND = [
    ("The account of Sofia Rossi was charged on Monday.", "Sofia Rossi"),
    ("Please update the billing address for Hannah Whitfield today.", "Hannah Whitfield"),
    ("My name is Tomasz Kowalczyk and I need a copy of my records.", "Tomasz Kowalczyk"),
    ("The claim was filed by Aiden O'Connell last week.", "Aiden O'Connell"),
    ("Customer Fatima Al-Sayed called about the invoice.", "Fatima Al-Sayed"),
    ("reported the incident to Officer James Tanaka at noon", "James Tanaka"),
    ("Seen in clinic with Arthur Salquist, MD (cardiology).", "Arthur Salquist"),
    ("forwarded to Greta Lindqvist for review", "Greta Lindqvist"),
]

NOT_FOUND = [
    "Patient seen at Glen Burnie Community Hospital for chest pain.",
    "We had a picnic at Fenway Park on Sunday.",
    "She lives in Temple Terrace with her sister.",
    "Transferred from Santa Clarita, CA by ambulance.",
    "Family walked around Lake Kiplagat before the visit.",
    "Austin Flint murmur heard at the apex.",
    "Foley Catheter draining clear yellow urine.",
    "Lasix Given with good effect, Alert and Oriented x3.",
    "Tylenol Extra Strength given for Headache, Good Effect.",
    "Neuro Exam: Pupils Equal, Reactive to Light.",
    "HANNAH WHITFIELD CALLED ABOUT THE BILL.",          # no lower case: case says nothing here
    "hannah whitfield called about the bill.",
]


@pytest.mark.parametrize("text,name", FOUND)
def test_a_first_name_and_a_rare_surname_are_a_name(text, name):
    assert [text[s.start:s.end] for s in bare_full_names(text, "d")] == [name]


@pytest.mark.parametrize("text", NOT_FOUND)
def test_places_eponyms_clinical_words_and_caseless_lines_are_not(text):
    assert bare_full_names(text, "d") == []


def test_the_whole_name_reaches_the_detectors_output():
    """The dictionaries alone took "Hannah" and left the surname in the release."""
    text = "Please update the billing address for Hannah Whitfield to the new one."
    spans = Detector.without_model("i2b2-2014", "en").detect(Document(doc_id="d", text=text))
    assert [(text[s.start:s.end], s.category) for s in spans] == [("Hannah Whitfield", "NAME")]
