"""English cold-start gaps on text outside a ward (letters, forms, messages): ages after a name,
phones after "text me on", field labels that a list holds as a town, car makes read as names,
towns after "in"/"from"/"near" in prose. Each on lines such texts have, and each
with the clinical lines it must leave alone. Every value is invented."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.detection.rules.en.bare_names import bare_full_names
from pipeline.detection.rules.en.contact import phones
from pipeline.detection.rules.en.numbers import phone_context
from pipeline.detection.rules.en.places import ward_places
from pipeline.detection.steps.registry import StepContext
from pipeline.locales.en.prose_steps import ages_after_names, drop_field_label_spans, drop_vehicle_spans
from pipeline.locales.en.ward_steps import drop_numbers_without_context
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span


@pytest.fixture(scope="module")
def detector():
    return Detector.without_model(I2B2_2014, "en")


def detected(detector, text):
    """``(value, type)`` of every span the rules and dictionaries keep on ``text``."""
    [spans] = detector.detect_many([Document("d", text)])
    return [(text[s.start:s.end], s.type) for s in spans]


def values(detector, text, category):
    [spans] = detector.detect_many([Document("d", text)])
    return [text[s.start:s.end] for s in spans if s.category == category]


# --- ages right after a name ---------------------------------------------------------------

@pytest.mark.parametrize("text,age", [
    ("Hospice referral: patient Marigold Esterhuizen, 87, metastatic breast ca.", "87"),
    ("Spoke to Mr Okafor (91) this morning about his fall.", "91"),
    ("Missing person: Delphine Arceneaux, 16, last seen near the station.", "16"),
    ("Spoke to Mrs Abernathy, 78.", "78"),
])
def test_an_age_after_a_name_is_marked(detector, text, age):
    assert values(detector, text, "AGE") == [age]


@pytest.mark.parametrize("text", [
    "HR 90, BP 120/80 (90), SpO2 95% on 2L.",
    "MAP 65 (70), CVP 12, UO 30 cc/hr.",
    "Foley (16) draining clear yellow urine.",
    "Lasix 40 mg IV, K 3.9, Mg 2.0 (2.1).",
    "Pt seen by Dr. Hale, 4 West, at 1400.",
])
def test_a_ward_number_is_no_age(detector, text):
    assert values(detector, text, "AGE") == []


def test_the_step_needs_a_persons_name_before_the_number():
    text = "Mr Okafor (91). Foley (16). @user (22). Okafor, 130,"
    ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    spans = [Span("d", 3, 9, "NAME", "PATIENT", source="rule:x"), Span("d", 16, 21, "NAME", "PATIENT", source="model:m"),
             Span("d", 28, 33, "NAME", "USERNAME", source="rule:x"), Span("d", 40, 46, "NAME", "PATIENT", source="rule:x")]
    ages = [text[s.start:s.end] for s in ages_after_names(spans, ctx) if s.category == "AGE"]
    assert ages == ["91"]   # not a catheter's size, not a user name's count, not 130


# --- phones after "text me on", toll-free lines ----------------------------------------------

@pytest.mark.parametrize("text,phone", [
    ("Any problems, text me on 07823 441096.", "07823 441096"),
    ("If urgent ring me on 07700 900123 after six.", "07700 900123"),
    ("You can reach me at 07700 900871 most evenings.", "07700 900871"),
])
def test_a_phone_after_call_me_on_is_kept(detector, text, phone):
    assert values(detector, text, "CONTACT") == [phone]


@pytest.mark.parametrize("text", [
    "HR 90-100, RR 18-22, on 40% FiO2.",
    "Called pharmacy re: vanco level 15.2, reach goal 15-20.",
    "Ring of erythema 3 cm around the site on 11/4.",
])
def test_a_reading_after_a_call_is_no_phone(detector, text):
    assert values(detector, text, "CONTACT") == []


def test_phone_context_reads_the_request():
    text = "text me on 0782344 and HR 90 on 0782344; will call her at 1400"
    assert phone_context(text, 11, 18) and not phone_context(text, 32, 39)
    assert not phone_context(text, len(text) - 4, len(text))   # a time


def test_a_toll_free_line_is_a_phone_number_like_any_other(detector):
    """i2b2 marks every telephone number (a clinic's, a helpline's): so do the rules and the step."""
    text = "Fraud alert: call us at 1-800-555-0100 or the branch on 1 (888) 555-0111. Her cell 617-555-0134."
    assert "617-555-0134" in [v for v, _ in detected(detector, text)]
    assert "1-800-555-0100" in [text[s.start:s.end] for s in phones(text, "d")]
    text = "Call us at 1-800-555-0100, cell 617-555-0134."
    ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    got = drop_numbers_without_context([Span("d", 11, 25, "CONTACT", "PHONE", source="model:m"),
                                        Span("d", 32, 44, "CONTACT", "PHONE", source="model:m")], ctx)
    assert [text[s.start:s.end] for s in got] == ["1-800-555-0100", "617-555-0134"]


# --- a field label is no place and no name ---------------------------------------------------

@pytest.mark.parametrize("text", [
    "Gym membership application\nMobile: 07700 900461\nHome: 020 7946 0958",
    "Event registration: Hildegard Wainscott. Mobile +1 646 555 0124.",
    '{"mobile": "07700 900461", "city": "Leeds"}',
])
def test_a_field_label_is_no_city(detector, text):
    assert "Mobile" not in [v.title() for v in values(detector, text, "LOCATION")]


def test_a_place_before_a_colon_after_a_preposition_stays():
    text = "We moved to Mobile: it is hot.\nMobile: 07700 900461"
    ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    spans = [Span("d", 12, 18, "LOCATION", "CITY", source="dict:cities"),
             Span("d", 31, 37, "LOCATION", "CITY", source="dict:cities"),
             Span("d", 31, 37, "LOCATION", "CITY", source="human:ann")]
    got = drop_field_label_spans(spans, ctx)
    assert [(s.start, s.source) for s in got] == [(12, "dict:cities"), (31, "human:ann")]


# --- car makes are not people -----------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Vehicle: 2019 Toyota Camry, licence plate LMN-4821.",
    "She drives a Kia Sorento to the clinic.",
    "Parked my Honda Civic in bay 4.",
])
def test_a_car_is_no_name(text):
    assert bare_full_names(text, "d") == []


@pytest.mark.parametrize("text,name", [
    ("The account of Sofia Rossi was charged twice.", "Sofia Rossi"),
    ("He said that Hannah Whitfield would call back.", "Hannah Whitfield"),
])
def test_a_person_is_still_a_name(text, name):
    assert [text[s.start:s.end] for s in bare_full_names(text, "d")] == [name]


@pytest.mark.parametrize("text", [
    "Classified ad: Selling 2012 Ford Focus, 98k miles. Ask for Mr. Hale.",
    "Vehicle: 2019 Toyota Camry, licence plate LMN-4821. Driver: Mr. Hale.",
])
def test_no_car_reaches_the_output_as_a_name(detector, text):
    assert values(detector, text, "NAME") == ["Hale"]


def test_the_vehicle_step_keeps_people_named_like_a_make():
    text = "Dr. Ford aware. Kia Johnson visited. 2012 Ford Focus. Lincoln Burrows, RN."
    ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    spans = [Span("d", 4, 8, "NAME", "DOCTOR", source="rule:titled_names"),
             Span("d", 16, 27, "NAME", "PATIENT", source="model:m"),
             Span("d", 42, 46, "NAME", "PATIENT", source="dict:surnames"),
             Span("d", 54, 69, "NAME", "PATIENT", source="model:m")]
    got = [text[s.start:s.end] for s in drop_vehicle_spans(spans, ctx)]
    assert got == ["Ford", "Kia Johnson", "Lincoln Burrows"]


# --- towns after "in", "from", "near" in prose ---------------------------------------------------

@pytest.mark.parametrize("text,place", [
    ("It has been forty years since we met in Lisbon.", "Lisbon"),
    ("Come visit us in Tavira soon.", "Tavira"),
    ("She moved from Leeds in 1990.", "Leeds"),
    ("They live near Boston with their son.", "Boston"),
    ("My brother grew up in Tralee and works there.", "Tralee"),
    ("Obituary: Eleanor Whitcombe, 92, of Cedar Falls, passed away peacefully.", "Cedar Falls"),
])
def test_a_town_in_prose(text, place):
    assert [text[s.start:s.end] for s in ward_places(text, "d")] == [place]


def test_a_listed_town_after_a_move_is_a_town_not_a_hospital():
    text = "She moved from Leeds in 1990."
    assert [s.type for s in ward_places(text, "d")] == ["CITY"]


@pytest.mark.parametrize("text", [
    "Pt in Lasix drip, came from PACU at 1400.",
    "Family met in Conference Room 3 with the team.",
    "Started in March, restarted in Rehab.",
    "Pt remains in Afib, in NSR by 0400.",
    "Care plan reviewed in Epic.",
    "Patient arrived from Radiology in Stable condition.",
    "K 3.9, of note Mg 2.0. MAP 60, of Levophed 0.1 mcg/kg/min, of Concern.",
])
def test_a_clinical_word_after_in_or_from_is_no_town(text):
    assert ward_places(text, "d") == []
