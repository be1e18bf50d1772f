"""Fixes found on the "find" half of the sixth invented ICU set (``benchmarks/data/icu_invented_f``,
issue 30: shorter notes of four US regions, neonatal notes among them): a newborn's gestation and
scores, an intake line's volumes, a ward's moments after "at" and "from" ("at DC", "8% from BW"),
a past participle cut short ("rec'd"), a NICU note's sections, a workplace described after "the",
a service named by an ordinary word ("Coastline VNA"), clergy by "Fr.", "New Year's", a staff
surname opening "... aware" in a lower-case note, and a model's faiths, languages, insurers,
described places and role titles. Each beside the PHI it must keep; the lines are written for
these tests, no real person's."""
from __future__ import annotations

import pytest

from pipeline.locales.en.code_steps import strip_slashed_with
from pipeline.locales.en.description_steps import (drop_described_places, drop_faiths_and_languages,
                                                    strip_role_titles)
from pipeline.locales.en.eponym_steps import drop_eponyms
from pipeline.locales.en.ward_steps import strip_context_words
from pipeline.spans import Span
from rules_en_case_helpers import CASES, detector, found, marked_phi, recase, step_context  # noqa: F401  (detector: a fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Baby girl, born at 30 wks, now 33 5/7 CGA, DOL 21, in open crib.",
    "GA 35 2/7 weeks by dates. Apgars 7/9, cord gases sent.",
    "Feeds: 30 ml q3h, wt 1985 g, down 6% from BW, voiding and stooling.",
    "I&O: IN 2100, OUT 1850 (UOP 1600, drain 250).",
    "Intake 1950 / output 1700 over 24 hrs.",
    "Resp: RA, no A/B/D.\nFEN: ad lib feeds.\nDev: swaddled, tolerates handling.\nSocial: parents in at 1900.",
    "Pt given flu shot and Narcan kit at DC, instructions reviewed.",
    "Sats 94% at RA overnight.",
    "EMS gave 4 of morphine, rec'd 2 L NS at OSH before transfer.",
    "Daughter is HCP (verbal only, paperwork pending).",
    "Husband worried about missing shifts at the lumber mill.",
])
def test_ward_words_are_nophi(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


@pytest.mark.parametrize("line, phi, category", [
    ("Baby seen in clinic on 4/7 for weight check.", "4/7", "DATE"),     # a date word before keeps the day
    ("Pt born in 1931, lives alone.", "1931", "DATE"),
    ("Pt born in 1935, out of state since.", "1935", "DATE"),   # no intake line: "in ..., out" is prose
    ("Lives in DC with his partner.", "DC", "LOCATION"),                 # the district after "lives in"
    ("Transferred from BW for higher level of care.", "BW", "LOCATION"),  # a hospital's letters after a transfer
    ("Works at Hollingsworth Lumber, on disability since fall.", "Hollingsworth", "LOCATION"),
])
def test_phi_beside_them_is_kept(detector, line, phi, category):
    assert any(phi in f for f in found(detector, line, category))


# PHI of this round's shapes, in every case
FOUND_IN_ANY_CASE = [
    ("Fr. Obiageli in at 2100 to pray with family.", "Obiageli", "NAME"),
    ("Intentional ingestion on New Year's Eve, found by roommate.", "New Year's Eve", "DATE"),
    ("Overdose on New Year's, intubated in the field.", "New Year's", "DATE"),
    ("Home with Seabrook VNA 3x/wk.", "Seabrook", "LOCATION"),
    ("Has Harborview VNA already, will call them.", "Harborview", "LOCATION"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi, category", FOUND_IN_ANY_CASE)
def test_found_in_any_case(detector, line, phi, category, case):
    text = recase(line, case)
    assert any(recase(phi, case) in f for f in found(detector, text, category))


def test_staff_surname_opening_aware_in_lower_case(detector):
    text = "bp soft overnight, maps 60s.\nhuang aware, no new orders.\n"
    assert "huang" in found(detector, text, "NAME")
    assert found(detector, "bp soft overnight.\nteam aware, no new orders.\n", "NAME") == []


def _kept(step, text, spans):
    return [text[s.start:s.end] for s in step(spans, step_context(text))]


def test_faiths_languages_and_insurers_of_a_model_go():
    text = "Pt is Russian Orthodox, speaks Cantonese. On MassHealth. Dr. English aware."
    spans = [Span("d", 6, 22, "LOCATION", "ORGANIZATION", source="model:m"),
             Span("d", 24, 40, "NAME", "PATIENT", source="model:m"),
             Span("d", 45, 55, "LOCATION", "HOSPITAL", source="model:m"),
             Span("d", 61, 68, "NAME", "DOCTOR", source="rule:titled_names"),   # a rule's name stays
             Span("d", 6, 13, "LOCATION", "CITY", source="human")]               # and a person's
    assert _kept(drop_faiths_and_languages, text, spans) == ["English", "Russian"]


def test_described_places_go_and_named_ones_stay():
    text = "F/u at the community health center.\nTHEIR MOSQUE TO VISIT.\nTo the University Hospital ED."
    spans = [Span("d", 7, 34, "LOCATION", "HOSPITAL", source="model:m"),
             Span("d", 36, 48, "LOCATION", "ORGANIZATION", source="model:m"),
             Span("d", 66, 85, "LOCATION", "HOSPITAL", source="model:m")]
    assert _kept(drop_described_places, text, spans) == ["University Hospital"]


def test_role_titles_and_relatives_leave_a_models_place_as_a_name():
    text = "Sgt Delacroix from county police in. ONLY SON MARCUS MAY VISIT."
    got = strip_role_titles([Span("d", 0, 13, "LOCATION", "ORGANIZATION", source="model:m")], step_context(text))
    assert [(text[s.start:s.end], s.category) for s in got] == [("Delacroix", "NAME")]
    got = strip_context_words([Span("d", 42, 56, "LOCATION", "ORGANIZATION", source="model:m")], step_context(text))
    assert [(text[s.start:s.end], s.type) for s in got] == [("MARCUS", "PATIENT")]


def test_slashed_with_is_no_part_of_a_place():
    text = "admitted from maple grove nursing home w/ pna"
    got = strip_slashed_with([Span("d", 14, 40, "LOCATION", "HOSPITAL", source="model:m")], step_context(text))
    assert [text[s.start:s.end] for s in got] == ["maple grove nursing home"]


def test_a_patients_name_is_no_eponym_elsewhere():
    text = "Pt Graves is 71 and has hx Graves disease."
    got = drop_eponyms([Span("d", 3, 9, "NAME", "PATIENT", source="model:m")], step_context(text))
    assert [text[s.start:s.end] for s in got] == ["Graves"]


# a model's spans over a sentence's end, with its full stop, and relatives inside them (found on
# the first invented ICU set's find half: f14, f20, f36, f56, f58, f60, f94)
@pytest.mark.parametrize("text, start, end, category, kept", [
    ("Pt is a student at UMass Boston. Mother Gloria notified.", 19, 46, "LOCATION", ["UMass Boston", "Gloria"]),
    ("Lives in an assisted living in Woburn. Grandson Tyler is HCP.", 31, 47, "LOCATION", ["Woburn"]),
    ("PT IS A TEACHER AT BELMONT HIGH SCHOOL.\n", 19, 39, "LOCATION", ["BELMONT HIGH SCHOOL"]),
    ("plan: wean iabp in am per dr wexler.\n", 29, 36, "NAME", ["wexler"]),
    ("Seen at St. Anne's in Fall River.", 8, 18, "LOCATION", ["St. Anne's"]),
    ("f/u with J. Smith in clinic.", 9, 17, "NAME", ["J. Smith"]),
    ("PT'S NIECE JOANNE DELUCA IS HCP.", 2, 24, "LOCATION", ["JOANNE DELUCA"]),
    ("Daughter-in-law Suzanne visited.", 12, 23, "LOCATION", ["Suzanne"]),
    ("discussed w/ family (wife joyce, sons dennis and mark).", 26, 44, "NAME", ["joyce", "dennis"]),
])
def test_model_spans_end_at_sentences_and_leave_relatives_words(text, start, end, category, kept):
    from pipeline.locales.en.line_steps import cut_model_spans_at_lines
    spans = [Span("d", start, end, category, "ORGANIZATION" if category == "LOCATION" else "PATIENT",
                  source="model:m")]
    ctx = step_context(text)
    got = strip_context_words(cut_model_spans_at_lines(spans, ctx), ctx)
    assert [text[s.start:s.end] for s in got] == kept
