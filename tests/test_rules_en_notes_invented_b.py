"""English rules, tenth round: what the invented clinic and hospital notes' find half still missed
(``benchmarks/data/notes_invented/find``), each case tested as written, in capitals and in lower
case where case says nothing, with the ward words beside it that must stay unmarked."""
from __future__ import annotations

import pytest

from pipeline.detection.merge_policy import merge_model_first
from pipeline.spans import Span
from rules_en_case_helpers import CASES, detector, found, marked_phi, recase  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
def test_a_name_above_a_label_line_stays_a_name(detector, case):
    """An eponym or a label only on the name's own line: "Anesth: Leung" over "Procedure:" (f46)."""
    text = recase("Surgeon: Rafael Quintero   Anesth: Leung\nProcedure: Left below-knee amputation.", case)
    assert recase("Leung", case) in found(detector, text, "NAME")


@pytest.mark.parametrize("case", CASES)
def test_an_eponym_on_the_same_line_is_still_no_name(detector, case):
    assert found(detector, recase("Hx of Crohn's disease. Foley catheter changed.", case), "NAME") == []


@pytest.mark.parametrize("case", ("as", "lower"))
@pytest.mark.parametrize("line, name", [
    ("62 y/o woman w/ dm2, here w/ husband bill.", "bill"),
    ("family at bedside: dtr hope, son mark", "hope"),
])
def test_a_relatives_first_name_that_is_a_word_closing_its_sentence(detector, line, name, case):
    """After "husband", "dtr" a first name that is a common word and a stop or comma (f32)."""
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "husband aware. wife present, tearful.",
    "Plan: cc: will call back. d/w family.",
    "spoke with daughter today, son tomorrow.",
])
def test_a_relatives_word_before_a_stop_is_no_name(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("hospice referral. sw colleen to help w/ forms.", "colleen"),
    ("start glargine, teach with cde marisol.", "marisol"),
    ("Results called to Dr. Ashgrove's team (PA Lewandowski) at 22:10.", "Lewandowski"),
])
def test_staff_by_their_disciplines_shorthand(detector, line, name, case):
    """A social worker, an educator, a physician assistant by shorthand (f25, f09, f42)."""
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
def test_the_pulmonary_artery_and_a_social_work_plan_name_nobody(detector, case):
    text = recase("PA line placed, PA pressures 40/20, PA Catheter out. SW will follow. SW consult. CM aware.", case)
    assert found(detector, text, "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_town_the_safe_vocabulary_holds_before_a_written_out_state(detector, case):
    """"winter in Sarasota, Florida": the state written out vouches for the town (f21)."""
    text = recase("They spend the winter in Sarasota, Florida and return each May.", case)
    assert recase("Sarasota", case) in found(detector, text, "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_state_code_after_a_comma_vouches_for_no_ward_word(detector, case):
    assert marked_phi(detector, recase("Pt resting in bed, OR at 0800. Found in pain, ME to see.", case)) == []


def test_a_rule_span_a_model_span_only_partly_overlaps_keeps_both_readings():
    """English: the rule's characters join the model's (f22), the model keeping what lies outside."""
    text = "Pathology: 5/7/2090 Szabo, Erzsebet 3349102 colon"
    s = text.index("Szabo")
    model = [Span("d", text.index("Erzsebet"), text.index("3349102") + 7, "NAME", "PATIENT", "model:v")]
    rule = [Span("d", s, s + len("Szabo, Erzsebet"), "NAME", "PATIENT", "rule:context_names")]
    got = [text[x.start:x.end] for x in merge_model_first(model, rule, {}, rule_contains_wins=True, text=text)]
    assert got == ["Szabo, Erzsebet", "3349102"]
    # Spanish (no rule_contains_wins) and a call without the text keep the model's span alone
    assert [text[x.start:x.end] for x in merge_model_first(model, rule, {}, text=text)] == ["Erzsebet 3349102"]
    assert [text[x.start:x.end] for x in merge_model_first(model, rule, {}, rule_contains_wins=True)] \
        == ["Erzsebet 3349102"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, day", [
    ("Pt collapsed at a restaurant Sat evening, bystander started CPR.", "Sat"),
    ("fell at home Tues am, found by neighbor", "Tues"),
    ("last drink Fri night per wife", "Fri"),
])
def test_an_abbreviated_weekday_before_the_part_of_the_day(detector, line, day, case):
    """"Sat evening" is a day (icu_invented_f find f12), in every case."""
    assert recase(day, case) in found(detector, recase(line, case), "DATE")


@pytest.mark.parametrize("case", CASES)
def test_a_saturation_and_a_monitor_before_the_part_of_the_day_are_no_days(detector, case):
    text = recase("sat am 92% on 2L. O2 sat evening 90%. cont to mon overnight. will mon overnight.", case)
    assert found(detector, text, "DATE") == []
