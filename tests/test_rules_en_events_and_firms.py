"""English rules found on eight more blind find batches of New England ICU nursing notes
(``icu_invented_p`` f913-f1040): the day of an arrival in the ED or of an intubation written as a
fraction's look, a weekday after an arrival or a return to work or before "when", "xmas eve"
whole; and what stays unmarked: a storm's "nor'easter", an above-knee amputation's "AKA", a body's
position, a limb's side, a drain's fluid and the nurses' desk after a place's context, a police
rank alone, a bracket that gives a relative's part in a crash. Then the
people and firms: a respiratory therapist before "to bedside" or "will", an officer after "ofc",
a family firm with its trade after "& Sons", a company's "Co." before its town, a fishery. Lines are
rephrased from the find notes, each beside text that must stay unmarked; most cases are checked
as written, in capitals and in lower case."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked, recase  # noqa: F401


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [
    ("Severe COPD, adm from ED 2/3 w/ AECOPD +/- LLL PNA.", "2/3"),
    ("Drinking through New Year's, presented to ED 1/2 am w/ tremors.", "1/2"),
    ("Gallstone pancreatitis -> ARDS, intubated 3/4. Hx CAD.", "3/4"),
])
def test_a_fractions_look_after_an_arrival_or_an_intubation_is_a_date(detector, line, day, case):
    assert recase(day, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Gave 1/2 amp D50 from ED stock, then 3/4 strength TF.",
    "Pt took 2/3 of tray, intubated for airway at OSH.",
])
def test_a_fraction_elsewhere_stays_unmarked(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [
    ("Drove down from home and has to go back to work Mon. Wife does not drive.", "Mon"),
    ("Parents got emergency visas, earliest arrival Sat. Pt tearful.", "Sat"),
    ("She will try to come Sun when roads are clear.", "Sun"),
    ("Wife and 3 kids visited for xmas eve until 2100.", "xmas eve"),
])
def test_a_weekday_or_a_holiday_as_a_family_writes_it(detector, line, day, case):
    assert recase(day, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Power was out x3 days after the nor'easter, house got down to 50.",
    "Sat when on RA 88%, back on 2L.",
    "L AKA stump well healed, no drainage.",
])
def test_a_storm_a_saturation_and_an_amputation_are_no_date_or_name(detector, line, case):
    text = recase(line, case)
    assert found(detector, text, "DATE") == [] and found(detector, text, "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_an_alias_still_names_after_aka(detector, case):
    assert recase("Bobby", case) in found(detector, recase("Pt aka Bobby per wife, prefers it.", case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Desat to 78% w/ turn to L side, returned to supine, FiO2 to 1.0.",
    "Admitted w/ septic shock from RLE cellulitis, r/o nec fasc.",
    "JP output 90cc in 1 hr serosang, fellow at bedside.",
    "No sitter available, moved to room near desk. HOH.",
    "Boyfriend (driver) also injured, in other unit.",
    ])
def test_a_wards_words_after_a_context_name_no_one_and_no_place(detector, line, case):
    text = recase(line, case)
    assert found(detector, text, "LOCATION") == [] and found(detector, text, "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_police_rank_alone_is_no_name(detector, case):
    text = recase("Trooper came to unit asking to speak w/ pt - pt declined. Trooper left card.", case)
    assert found(detector, text, "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("Placed on cool neb face tent, RT Okafor to bedside, assessed.", "Okafor"),
    ("Trach care done. RT Hollis will put back on vent at 2200.", "Hollis"),
    ("Shelter has no contact #. Ofc Delacroix from Quincy PD came by 1400.", "Delacroix"),
])
def test_a_therapist_or_an_officer_by_name(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "RT will see pt at 2200 for neb.",
    "RN will f/u w/ team re: drips.",
])
def test_a_discipline_before_will_names_no_one(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, firm", [
    ("34 y/o M, plow driver for Gagnon & Sons Paving, found by coworker.", "Gagnon & Sons Paving"),
    ("Crew met ambulance at the gate. Employer Nadeau & Sons Logging.", "Nadeau & Sons Logging"),
    ("Funeral home: Conway & Sons.", "Conway & Sons"),
    ("Boat owner from Rebelo Fisheries visited, asking about injury.", "Rebelo Fisheries"),
])
def test_a_family_firm_with_its_trade_and_a_fishery(detector, line, firm, case):
    assert recase(firm, case) in found(detector, recase(line, case), "LOCATION")


def test_a_companys_stop_before_its_town(detector):
    assert "Wallace Shoe Co." in found(detector, "Retired after 38 yrs at Wallace Shoe Co. in Avon.", "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Thermodilution CO, CI wnl, SVR 1100.",
    "CVP 12, CO 4.5, CI 2.1 after fluid.",
])
def test_a_cardiac_output_is_no_company(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, town", [
    ("Parents in Hanoi, do not speak English; college notified.", "Hanoi"),
    ("Lives alone, daughter 30 min away in Gardner but works full time.", "Gardner"),
    ("48 yo F, slipped on ice in her driveway in Sandwich 1/20, L ankle fx.", "Sandwich"),
])
def test_a_town_after_parents_a_relatives_distance_or_a_driveway(detector, line, town, case):
    assert recase(town, case) in found(detector, recase(line, case), "LOCATION") + found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Parents in agreement w/ plan, in room, updated.",
    "Son in law visiting; backyard in good shape per wife.",
])
def test_parents_in_agreement_and_a_backyard_name_no_town(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []
