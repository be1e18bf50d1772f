"""English rules and steps found on the clinic notes' find half (``clinic_invented/find``:
telephone encounters, refill and prior-authorization requests, home-health and referral notes),
each beside the text that must stay unmarked. Lines are rephrased from the find notes."""
from __future__ import annotations

import pytest

from pipeline.spans import Span
from rules_en_case_helpers import CASES, detector, found, recase, step_context  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
def test_a_name_written_with_its_accents_is_read_as_the_same_name_without(detector, case):
    """"Tomasz Wójcik 49M called" (f02), "GRANDDAUGHTER YAZMÍN CASTILLO" (f03): the rules' ASCII
    patterns and unaccented lists read the folded letters; the span stands on the accented text."""
    text = recase("Triage 0812 - Tomasz Wójcik 49M called, 3 days of dysuria. CB 414-555-0127.", case)
    assert recase("Tomasz Wójcik", case) in found(detector, text, "NAME")
    text = recase("CAREGIVER: granddaughter Yazmín Castillo, cell 915-555-0168.", case)
    assert recase("Yazmín Castillo", case) in found(detector, text, "NAME")


def test_the_fold_keeps_every_offset_and_leaves_letters_without_one_base():
    from pipeline.detection.rules.en.ascii_view import fold_accents

    text = "Zoë Müller, JOSÉ, Nguyễn, Straße, Søren, 5 °C"
    folded = fold_accents(text)
    assert len(folded) == len(text)
    assert folded == "Zoe Muller, JOSE, Nguyen, Straße, Søren, 5 °C"


@pytest.mark.parametrize("case", CASES)
def test_two_whole_dates_joined_by_a_dash_are_two_dates(detector, case):
    """"APPROVED 6/27/2025-6/26/2026" (f05)."""
    text = recase("Status: APPROVED 6/27/2025-6/26/2026 for 3 sensors per 30 days.", case)
    assert found(detector, text, "DATE") == ["6/27/2025", "6/26/2026"]
    assert found(detector, recase("BP 120/80-130/90, HR 70-80, pain 3/10-5/10.", case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, value", [
    ("Re: J. Sinclair   DOB 23/04/1961   PHIN 118 205 774", "118 205 774"),        # f07
    ("Re: L. Nadeau, DOB 1999-11-02, PHN 9871 442 013", "9871 442 013"),          # f15
    ("OHIP 1234-567-890-AB on file", "1234-567-890-AB"),
    ("Health card 7734-118-906-MB", "7734-118-906-MB"),                            # f01
    ("critical K 6.4, ACCESSION 113-448-2071-0, read back.", "113-448-2071-0"),   # f14
    ("APPROVED, auth 88201-5530. Mother notified.", "88201-5530"),                # f05
    ("prior auth # PA-20250611-0043 pending", "PA-20250611-0043"),
    ("PATIENT: CASTILLO   MR LSH-77260   76 Y/O", "LSH-77260"),                    # f03
    ("Patient: C. Rich   63 M   MIH ID TMH-4021", "TMH-4021"),                     # f13
])
def test_identifiers_after_their_clinic_labels(detector, line, value, case):
    assert recase(value, case) in found(detector, recase(line, case), "ID")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "auth for 12 visits approved, needs auth x 6 wks more.",
    "MR 2+ on echo, MR murmur louder.",
    "Accession of the sample pending; ID consult called.",
])
def test_a_labels_word_without_an_identifier_marks_nothing(detector, line, case):
    assert found(detector, recase(line, case), "ID") == []


def test_a_state_after_the_comma_of_a_models_town():
    """"Coastal Pediatric Endocrinology, Savannah, GA   NPI ..." (f05), "Kelowna, BC" (f16): the
    model's town, then its state's or its province's code, marked as the rules mark it after theirs."""
    from pipeline.locales.en.address_steps import states_after_towns

    text = "Prescriber: M. Iyer, MD, Coastal Peds, Savannah, GA   NPI 1639274418\nHospice, Kelowna, BC\n"
    ctx = step_context(text)
    towns = [Span("d", text.index("Savannah"), text.index("Savannah") + 8, "LOCATION", "CITY", source="model:m"),
             Span("d", text.index("Kelowna"), text.index("Kelowna") + 7, "LOCATION", "CITY", source="model:m")]
    got = states_after_towns(towns, ctx)
    assert [(text[s.start:s.end], s.type) for s in got if s.type == "STATE"] == [("GA", "STATE"), ("BC", "STATE")]


@pytest.mark.parametrize("text, town", [
    ("Went to Boston, OR at 1400 for ORIF.", "Boston"),
    ("Seen in Halifax, NS 1L bolus given.", "Halifax"),
    ("BOSTON, PA LINE PLACED", "BOSTON"),
])
def test_a_word_code_after_a_towns_comma_stays_a_word(text, town):
    from pipeline.locales.en.address_steps import states_after_towns

    span = Span("d", text.index(town), text.index(town) + len(town), "LOCATION", "CITY", source="model:m")
    assert [s.type for s in states_after_towns([span], step_context(text))] == ["CITY"]


@pytest.mark.parametrize("credential", ["CCFP", "CWOCN", "PharmD", "FNP-C", "CCRN"])
def test_a_models_span_that_is_only_a_credential_goes(credential):
    """"Aisha Mohammed, MD CCFP", "Tamsin Grant, RN, CWOCN" (f07, f08): the cold start's model
    took the credential for a name."""
    from pipeline.detection.steps.registry import pack_for

    text = f"Thanks for the referral.\nAisha Mohammed, MD {credential}\n"
    start = text.index(credential)
    name = Span("d", text.index("Aisha"), text.index("Aisha") + 14, "NAME", "DOCTOR", source="model:m")
    cred = Span("d", start, start + len(credential), "NAME", "DOCTOR", source="model:m")
    got = pack_for("en").run("merged", [name, cred], step_context(text))
    assert [text[s.start:s.end] for s in got] == ["Aisha Mohammed"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, street", [
    ("Visit at pt home, 4471 County Road 12, Hinton. Gravel road, 2nd farm on left.", "4471 County Road 12"),   # f08
    ("Lives at 1190 State Route 9 near the elevator.", "1190 State Route 9"),
    ("Home is 221 Highway 61, trailer behind the shop.", "221 Highway 61"),
])
def test_a_house_number_on_a_numbered_road(detector, line, street, case):
    assert recase(street, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_wards_numbers_before_its_abbreviations_are_no_road(detector, case):
    assert found(detector, recase("BUN 20 CR 1.2, HR 90 RR 18, 70 SR, given 2 route changed to PO.", case),
                 "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_a_relatives_name_before_an_eponyms_word_is_the_relatives(detector, case):
    """"now does the books for his brother Wendell's operation" (f08): the kinship word says a person;
    an eponym follows none ("s/p Whipple's operation")."""
    assert recase("Wendell", case) in found(detector, recase("Now does the books for his brother Wendell's operation.",
                                                             case), "NAME")
    assert found(detector, recase("S/p Whipple's operation, Hartmann's procedure.", case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_kinship_first_in_brackets_with_more_after_it(detector, case):
    """"msg from joyce king (daughter, poa)" (f12): the kinship need not close the brackets."""
    assert recase("Mary", case) in found(detector, recase("Called Mary (daughter/HCP) re plan of care.", case), "NAME")
    assert found(detector, recase("Pain med (son, pharmacy) given at 0900.", case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_weekday_before_a_month_first_date_is_one_date(detector, case):
    """'Submitted Thursday, June 26, 2025 11:10' (f05): the weekday, its comma and the date are one
    span; a saturation's 'Sat' before a number stays."""
    text = recase("Submitted Thursday, June 26, 2025 11:10", case)
    assert recase("Thursday, June 26, 2025", case) in found(detector, text, "DATE")
    assert found(detector, recase("Sat 98% on RA, O2 sat 92 at rest.", case), "DATE") == []
