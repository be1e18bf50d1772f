"""English cold start recall (issue 30): dates, ages, extensions and staff names as ward notes
write them, in any case, with precision guards (vitals, ranges, doses, "per protocol"). Lines
written for these tests from how ICU nursing notes read; no real note was read."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.detection.rules import run_rules
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document


def _texts(text: str, rule: str) -> list[str]:
    return [text[s.start:s.end] for s in run_rules(text, "t", "en", I2B2_2014, only={rule})]


def _detected(text: str, category: str) -> list[str]:
    det = Detector.without_model(I2B2_2014, "en")
    return [text[s.start:s.end] for s in det.detect(Document(doc_id="t", text=text)) if s.category == category]


def _cases(text: str) -> list[str]:
    return [text, text.upper(), text.lower()]


# --- dates: month abbreviations with a day in any case, month-day with a dash --------------------
@pytest.mark.parametrize("text, expected", [
    ("Admitted SEP 27 with chest pain.", "SEP 27"), ("Cath on 27-Sep, stent to RCA.", "27-Sep"),
    ("Surgery Sept. 27th, doing well since.", "Sept. 27th"), ("Follow up appt Oct 3 at 1400.", "Oct 3"),
    ("Last seen in clinic 11-6, started on lasix.", "11-6"), ("Lines placed 03-14 in MICU.", "03-14"),
    ("Prior MI 9/27/98, CABG in 2001.", "2001"),
])
def test_ward_dates_in_any_case(text, expected):
    for t in _cases(text):
        got = _texts(t, "dates")
        assert t[text.index(expected):text.index(expected) + len(expected)] in got, (t, got)


@pytest.mark.parametrize("text", [
    "RR 12-14, HR 60-70, assist of 1-2.", "UO 30-50 cc/hr, goal neg 1-2 L.", "DEC 2 UNITS INSULIN PER SCALE",
    "MAR 5 ITEMS REVIEWED", "Oxygen weaned 4-2 L NC.", "ambulated 2-3 times with PT", "GCS 11-6 overnight",
    "pain 7-3 after dilaudid", "SAT 92 ON 4L", "ps 10-5 overnight",
])
def test_ranges_and_abbreviations_are_no_dates(text):
    for t in _cases(text):
        assert _texts(t, "dates") == [], t


# --- ages -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("Pt resting comfortably, now eighty-five woman.", "eighty-five"), ("85 yo M with CHF", "85"),
    ("Pt is 85y male, DNR", "85"), ("age 85, full code", "85"), ("an 85 year old man", "85"),
])
def test_ages_in_any_case(text, expected):
    for t in _cases(text):
        assert t[text.index(expected):text.index(expected) + len(expected)] in _texts(t, "ages"), t


@pytest.mark.parametrize("text", ["two women at bedside", "one man visiting", "HR 85, MAP 70, 90 % of feeds"])
def test_number_words_and_values_are_no_ages(text):
    for t in _cases(text):
        assert _texts(t, "ages") == [], t


def test_extension_after_a_pager_survives_the_detector():
    text = "Discussed with Dr. Mokua, pager #20744 or x5248. Plan: telemetry."
    assert "x5248" in _detected(text, "CONTACT")


# --- names: first names after kinship in any case, staff sign-offs, "paged"/"replaced by" -------
def _names(text: str) -> list[str]:
    return _texts(text, "context_names")


@pytest.mark.parametrize("text, expected", [
    ("Dispo/family: spouse Ricardo in to visit this evening.", ["Ricardo"]),
    ("SON MIKE AT BEDSIDE, UPDATED ON POC.", ["MIKE"]),
    ("Message left for spouse erik re: family meeting.", ["erik"]),
    ("Dtr Adrianna asking to speak with MD.", ["Adrianna"]),
    ("addendum: paged keenaghan at 555-0164 re: uo < 30", ["keenaghan"]),
    ("Pt pulled out NGT, replaced by Deady, placement confirmed by CXR.", ["Deady"]),
    ("Esther Dickens, RRT", ["Esther Dickens"]),
])
def test_names_after_kinship_and_roles_in_any_case(text, expected):
    assert _names(text) == expected
    for t in (text.upper(), text.lower()):
        assert [n.lower() for n in _names(t)] == [e.lower() for e in expected], t


@pytest.mark.parametrize("text, expected", [
    ("Plan: wean vent as tolerated.\nD. Fraher RN\n", ["D. Fraher"]),
    ("Plan: wean vent.\nSN A. Field\n", ["A. Field"]),
    ("Nebs given per RT.\nStarr R RRT\n", ["Starr R"]),
    ("Cont current plan of care.\nLaila C SN", ["Laila C"]),
    ("plan to extubate in am per team.\n-ch\n", ["ch"]),
    ("cont to monitor, f/u am labs.\nRDK:mcallister", ["RDK", "mcallister"]),
])
def test_staff_sign_offs(text, expected):
    assert _names(text) == expected


@pytest.mark.parametrize("text", [
    "Wife aware of plan, son brought in home meds.", "SON UPDATED BY RN, WIFE STATES PT WAS FINE.",
    "Lasix 40 mg IV given with good effect.", "Insulin gtt per protocol, FS 120-150.",
    "RN aware\n", "Plan: cont to monitor\nRN\n", "MD notified\n", "daughter will call in am",
    "paged covering MD re: low UO", "Foley replaced by night RN.", "pt with comfort care only",
    "NGT replaced by MD at bedside.", "-no\n", "Labs:\n-CBC\n", "RRT following\n", "Family meeting held.",
])
def test_no_names_in_clinical_lines(text):
    for t in (text, text.upper(), text.lower()):
        assert _names(t) == [], t
