"""English rules found on the ninth and tenth blind sets' find halves (``icu_invented_i/find``,
``icu_invented_j/find``): each case as written, in capitals and in lower case, beside the ward
text that must stay unmarked."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked_phi, recase  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("NGT D/C'D PER SAMUELS AT 1100. SIPS.", "SAMUELS"),               # i f02
    ("Extubated per Kowalski, ok to advance diet.", "Kowalski"),
    ("NEIGHBOR MRS DAY CALLED ASKING FOR PT", "DAY"),                  # i f05
    ("500 LR bolus. Chandrasekhar PA aware. Neo restarted.", "Chandrasekhar"),   # i f06
    ("Coordinator Beth met w/ pt + wife x1 hr", "Beth"),               # j f20
    ("CT SURGEON DR BAPTISTE MET W/ PT AND FAMILY", "BAPTISTE"),        # j f17
])
def test_staff_and_neighbours_named_as_nurses_write_them(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "per protocol. per cards ok. per MAR. per renal, per neuro. per orders. per team. per ortho.",
    "echo today: ef 35%, mod mr, la dilated. troponin neg.",           # i f04: mitral regurgitation
    "Teaching re: sternal precautions started.",                       # i f06: a topic, no addressee
    "MR DAY 2 OF ABX. MS CHANGES RESOLVED. PA line out, PA pressures 40/20.",
])
def test_ward_shorthand_before_a_word_names_nobody(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_verb_after_a_titled_surname_stays_out_of_it(detector, case):
    text = recase("CT SURGEON DR BAPTISTE MET W/ PT AND FAMILY AT 1300", case)
    assert found(detector, text, "NAME") == [recase("BAPTISTE", case)]


def test_a_letters_re_line_still_names_its_patient(detector):
    assert "Jane Doe" in found(detector, "Re: Mrs Jane Doe\nThank you for seeing her.", "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, date", [
    ("On methadone since 2002 (160 mg), also recent cipro.", "2002"),    # j f14
    ("Cipro started the 14th x 14 days total.", "14th"),                 # i f09
])
def test_a_year_since_and_a_day_before_a_course(detector, line, date, case):
    assert recase(date, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "CK 2200 -> 3100 (NOON) -> 2650 (1800).",                            # j f01: six o'clock
    "NPO since 2000. sleeping since 2130. awake since 2003 hrs.",
    "has 3 kids (ages 9-17). Wife is worried about finances.",           # i f12
    "the 3rd dose given. the 2nd x-ray clear. the 2nd time today.",
])
def test_times_ranges_and_counts_are_no_dates(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
def test_a_specialists_hospital_abbreviated(detector, case):
    """"sees a cardiologist at brch" (i f04), in every case."""
    text = recase("pt also sees a cardiologist at brch - dr pappas, son will bring list.", case)
    assert recase("brch", case) in found(detector, text, "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_specialist_at_the_bedside_names_no_place(detector, case):
    assert found(detector, recase("surgeon at bedside. cardiologist at this time feels ok.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_a_zip_alone_after_its_street(detector, case):
    """"2217 Brownsville Rd, 15210," (i f18)."""
    text = recase("Mail goes to his sister's, 2217 Brownsville Rd, 15210, per pt.", case)
    assert "15210" in found(detector, text, "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_shivering_time_is_no_german_street(detector, case):
    """"SHIVERING 2030 -> NIMBEX" read as a "-ring" street and its number (j f11)."""
    assert marked_phi(detector, recase("SHIVERING 2030 -> NIMBEX BOLUS + GTT.", case)) == []


def test_a_german_ring_street_still_is_one(detector):
    assert "Kaiserring 12" in found(detector, "lives at Kaiserring 12, Mannheim", "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_fracture_class_named_for_its_author_names_nobody(detector, case):
    """"facial fx (LeFort II)" (j f18)."""
    assert marked_phi(detector, recase("multiple facial fx (LeFort II), ankle fx Weber B, R orbital fx.", case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi, category", [
    ("concerned about workers comp, gloria from sw met w/ family at 1400", "gloria", "NAME"),   # i f12
    ("83 YO F POD 3 S/P AVR FOR CRITICAL AS, SURGERY MON. DNR PER PT", "MON", "DATE"),          # j f17
    ("HUSBAND AT BS TIL 2300, LIVES 1 HR AWAY IN LIBERTY. ASKED ABOUT RINGS", "LIBERTY", "LOCATION"),   # j f15
])
def test_a_service_a_surgery_day_and_a_town_an_hour_away(detector, line, phi, category, case):
    assert recase(phi, case) in found(detector, recase(line, case), category)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "nurse from sw called. someone from pharmacy. help from pt/ot. call from hospice.",
    "1230 MEDIASTINAL CT PULLED BY PA, CXR AFTER NO PTX.",        # i f06: a chest tube
    "SECURITY AWARE OF BELONGINGS - SENT TO CASHIER.",             # i f18
    "PERFORATED DUODENAL ULCER S/P GRAHAM PATCH THERE.",           # i f16
    "HD SAT 95% ON 2L. SAT 92% AFTER SURGERY.",
])
def test_ward_words_after_those_contexts_stay_unmarked(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


def test_a_models_lone_sign_and_childrens_ages_are_dropped():
    """The cold start's CRF marked "+" a name and "9-17" a date (j f09, i f12); the steps drop both."""
    from pipeline.locales.en.ward_steps import drop_numbers_without_context
    from pipeline.spans import Span
    from rules_en_case_helpers import step_context
    text = "wife + son at bs 1600. has 3 kids (ages 9-17). seen 3/14."
    plus, ages, seen = text.index("+"), text.index("9-17"), text.index("3/14")
    spans = [Span("d", plus, plus + 1, "NAME", "PATIENT", "model:v"), Span("d", ages, ages + 4, "DATE", "DATE", "model:v"),
             Span("d", seen, seen + 4, "DATE", "DATE", "model:v")]
    assert [text[s.start:s.end] for s in drop_numbers_without_context(spans, step_context(text))] == ["3/14"]
