"""The English rules that read capitals, on lines written all in capitals or all in lower case:
each finds its value in both copies (the line's words and context decide, not its case), and each
leaves a clinical line of the same shape alone in both copies. Every value is invented."""
from __future__ import annotations

import pytest

from pipeline.detection.rules.en.address_parts import address_parts
from pipeline.detection.rules.en.caseless import one_case, titled
from pipeline.detection.rules.en.companies import companies
from pipeline.detection.rules.en.coordinates import coordinates
from pipeline.detection.rules.en.form_fields import form_fields
from pipeline.detection.rules.en.handles import handles
from pipeline.detection.rules.en.letters_chat import letters_chat
from pipeline.detection.rules.en.weekday_dates import weekday_dates
from pipeline.detection.rules.en.workplaces import workplaces

CASES = ("upper", "lower")


def recase(text: str, case: str) -> str:
    return text.upper() if case == "upper" else text.lower()


def texts(fn, text: str) -> list[str]:
    return sorted(text[s.start:s.end] for s in fn(text, "d"))


# (rule, line, what it must find as written in mixed case); each line is then read in capitals
# and in lower case and must give the same values in that case
FOUND = [
    (letters_chat, "Hi Lucinda, your refill is ready.", ["Lucinda"]),
    (letters_chat, "hey Lena can u send the form", ["Lena"]),
    (letters_chat, "Kind regards,\nThurlow Penhaligon", ["Thurlow Penhaligon"]),
    (companies, "Payment to Ostrander Plumbing for the boiler.", ["Ostrander Plumbing"]),
    (companies, "Welcome to Halvorsen Credit Union! Your card", ["Halvorsen Credit Union"]),
    (companies, "Direct debit to Greenfield Energy each month", ["Greenfield Energy"]),
    (companies, "business name Achterberg Carpentry LLC, SSN", ["Achterberg Carpentry LLC"]),
    (form_fields, "Customer: Percival Ngcobo, account 4471", ["Percival Ngcobo"]),
    (form_fields, "Surname: Oyelowo", ["Oyelowo"]),
    (address_parts, "Flat 22, Cobden House, Salford", ["Cobden House", "Flat 22"]),
    (address_parts, "84 Riverside Gardens, Leeds", ["84 Riverside Gardens", "Leeds"]),   # the town after the street too
    (address_parts, "Level 3, 340 Harbourside Quay", ["340 Harbourside Quay", "Level 3"]),
    (address_parts, "we met near Magazine Street", ["Magazine Street"]),
    (address_parts, "Grew up in Cedar Falls, Iowa", ["Cedar Falls", "Iowa"]),
    (address_parts, "Office: Melbourne VIC 3000", ["3000", "Melbourne", "VIC"]),
    (address_parts, "Tulsa County court notice", ["Tulsa County"]),
    (handles, "withdrawal by satoshi_fan21 blocked", ["satoshi_fan21"]),
    (weekday_dates, "See you Friday 21st at the hall", ["Friday 21st"]),
    (coordinates, "found at 40°26′46″N 79°58′56″W by", ["40°26′46″N 79°58′56″W"]),
    (workplaces, "Pt is a 19 yo student at UMass Lowell. Mother aware.", ["UMass Lowell"]),
    (workplaces, "works as a roofer for Szymanski, 3 days a week", ["Szymanski"]),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fn,line,values", FOUND)
def test_rules_find_values_in_one_case_lines(fn, line, values, case):
    assert texts(fn, line) == sorted(values)   # as written: the behaviour one-case lines now share
    assert texts(fn, recase(line, case)) == sorted(recase(v, case) for v in values)


# clinical lines of the same shapes (a greeting's "Hi", a closing "Group"/"Clinic"/"Library",
# "Flat"/"Level" and a number, "Dr"/"St" after a number, a speaker-like label, a constant)
CLINICAL = [
    "Hi, pt comfortable overnight. Thanks, RN aware.",
    "Pt seen by Cardiac Surgery Group this am.",
    "f/u lipid clinic next week; wound clinic appt",
    "Alaris drug library in use for heparin gtt",
    "CO 4.5, CI 2.1 per swan. CO.",
    "Pt lying flat 30 min post cath, level 3 40 mg given",
    "HR 110 sinus st, BP stable",
    "Sent in by PCP for abnl labs, K 6.0",
    "Given 2 tabs percocet dr smith aware",
    "2 via peg q6h",
    "Neuro: A+Ox3.\nPlan: wean vent.\nGI: tolerating TF.",
    "Lines, monitor at bedside, alarms on",
    "MAX_DOSE reached per pharmacy",
    "Sat 98% on 2L, Sun exposure none",
    "Position: supine, HOB 30. Temp 38.5°C at 0400.",
    "Works at night, works for the city; works with PT and case mgmt.",
    "Pt is a poor historian at baseline. Pt is a smoker at home.",
]


@pytest.mark.parametrize("case", ("as",) + CASES)
@pytest.mark.parametrize("line", CLINICAL)
def test_clinical_lines_keep_no_hit_in_any_case(line, case):
    text = line if case == "as" else recase(line, case)
    for fn in (letters_chat, companies, form_fields, address_parts, handles, weekday_dates, coordinates, workplaces):
        assert texts(fn, text) == [], (fn.__name__, text)


def test_form_labels_in_capitals_are_no_chat_speakers():
    # a form in capitals: "IBAN:" and "ACCOUNT HOLDER:" look like a chat's speakers
    form = "ACCOUNT HOLDER: MR ALISTAIR J PENHALIGON\nIBAN: GB94BARC20457743018866\nSORT CODE: 20-45-77"
    assert "IBAN" not in texts(letters_chat, form)
    assert texts(letters_chat, "odile: did the plumber come?\nhenri: yes") == ["henri", "odile"]


def test_title_case_view_keeps_offsets_and_mixed_lines():
    text = "DEAR THEO,\nThanks, Kenzie\nachterberg carpentry llc, o'hara straße"
    view = titled(text, {"llc": "LLC"})
    assert len(view) == len(text)
    assert view.split("\n") == ["Dear Theo,", "Thanks, Kenzie", "Achterberg Carpentry LLC, O'Hara Straße"]
    assert titled("Mixed Case only") == "Mixed Case only"
    assert one_case("BP 120/80") and one_case("pt calm") and not one_case("Pt calm") and not one_case("120/80")
