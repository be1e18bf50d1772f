"""English rules found on twenty-four more blind find batches of New England ICU nursing notes
(``icu_invented_p`` f1169-f1552): a date after an operation named by its ending, a trach or a PEG,
a weekday after "earliest", before "noon" or after "sent in", the year someone emigrated or came
to the US, staff named before what they come to do ("to see", "to help"), after a title or with
an initial in brackets, a lactation consultant, a relative's first name before their phone number,
a country's consulate or embassy by its people's adjective, a brothers' firm by its trade, a
form's year after "dated". Lines are
rephrased from the find notes, each beside text that must stay unmarked; most cases are checked as
written, in capitals and in lower case."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked, recase  # noqa: F401


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, date", [
    ("Mechanical fall w/ R hip fx, R hemiarthroplasty 3/6, transferred to MICU.", "3/6"),
    ("Last drink Sat noon per pt, CIWA 18.", "Sat"),
    ("Trying to get a flight but says earliest is Sat. Gave her the unit #.", "Sat"),
    ("Best reached on cell. Emigrated 1996, husband died in the war.", "1996"),
    ("Pt born in Vietnam, came to US 1991, hx of lung spot.", "1991"),
    ("Difficult airway, s/p trach 12/29 and PEG 1/3. HD#62.", "1/3"),
    ("Nonverbal per NH, sent in Sat w/ fever and hypoxia.", "Sat"),
    ("Dtr brought in signed HCP form (dated 2003) naming her as agent.", "2003"),
])
def test_a_date_after_an_operation_an_arrival_or_an_emigration(detector, line, date, case):
    assert recase(date, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Pain 3/6 after colostomy; s/p colectomy, strength 4/5.",
    "Foley cath 1/2 way in, reinserted.",
    "PEG 1/2 strength feeds, then PEG 1/2 tab crushed.",
])
def test_a_score_or_a_fraction_beside_an_operation_is_no_date(detector, line, case):
    assert found(detector, recase(line, case), "DATE") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("Diabetes educator Joy to see pt tomorrow re: insulin.", "Joy"),
    ("Pt's job is line cook; SW Kerri to help w/ FMLA paperwork.", "Kerri"),
    ("Lactation consultant Ines in, pt ok to save milk.", "Ines"),
    ("Speaks Haitian Creole, interpreter Mr. Delva used for am rounds.", "Delva"),
    ("Social: husband Bill cell 978-555-0143, works days.", "Bill"),
    ("VAD coordinator (P. Lindqvist) aware of transfer, will f/u.", "P. Lindqvist"),
])
def test_staff_or_a_relative_by_name(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "SW to help w/ placement; interpreter phone used.",
    "Husband will cell phone the unit when he lands.",
])
def test_a_role_or_a_relative_without_a_name(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, org", [
    ("A staff member from the Korean Consulate called the unit.", "Korean Consulate"),
    ("The Italian Consulate called asking if the couple needs help.", "Italian Consulate"),
    ("Asked about a letter for the Nigerian Embassy if she has to stay.", "Nigerian Embassy"),
])
def test_a_countrys_mission_by_its_peoples_adjective(detector, line, org, case):
    assert recase(org, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_brothers_firm_by_its_trade(detector, case):
    line = recase("Lives w/ wife, works for Pratt Brothers Logging, says he needs to be back.", case)
    assert recase("Pratt Brothers Logging", case) in found(detector, line, "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_brothers_alone_name_no_firm(detector, case):
    assert found(detector, recase("His brothers drove up from home, brothers at bedside.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_an_embassy_alone_names_none(detector, case):
    assert found(detector, recase("The embassy called; a mutual decision w/ family.", case), "LOCATION") == []
