"""The English model-stage step that drops a model's name or place of ordinary words written in lower
case in a line with capitals, or in any case in a line of one case, and the ward's own words in any
line (pipeline/locales/en/common_word_steps.py), on lines rephrased from the emergency and Boston ICU
notes' find halves, beside what it must keep."""
from __future__ import annotations

import pytest

from pipeline.detection.steps.registry import StepContext
from pipeline.locales.en.common_word_steps import drop_lower_common_words
from pipeline.spans import Span


def _kept(text: str, piece: str, category: str = "LOCATION", gtype: str = "HOSPITAL") -> bool:
    start = text.index(piece)
    span = Span("d", start, start + len(piece), category, gtype, source="model:crf")
    return bool(drop_lower_common_words([span], StepContext.for_locale(text, "i2b2-2014", "en")))


@pytest.mark.parametrize("text, piece", [
    ("Pt threatened her with a kitchen knife when she opened the door.", "kitchen knife"),
    ("Hit by a falling tree limb while cutting wood.", "falling tree limb"),
    ("Brought in under police escort, cooperative.", "police escort"),
])
def test_a_lower_case_phrase_of_ordinary_words_among_capitals_goes(text, piece):
    assert not _kept(text, piece)


@pytest.mark.parametrize("text, piece, category", [
    ("Spoke with son jim by phone.", "jim", "NAME"),                 # a first name typed in lower case
    ("Transferred from Kitchen Hospital overnight.", "Kitchen", "LOCATION"),   # written with its capital
    ("SPOKE WITH SON JIM BY PHONE.", "JIM", "NAME"),                 # one case: a listed first name
    ("transferred from manomet community hospital.", "manomet", "LOCATION"),   # one case: a rare word
    ("Seen 3/14 with a kitchen knife wound.", "3/14", "DATE"),       # not a name or a place
])
def test_a_name_a_capital_one_case_or_another_category_stays(text, piece, category):
    assert _kept(text, piece, category, "PATIENT" if category == "NAME" else "HOSPITAL")


@pytest.mark.parametrize("text, piece", [
    ("TEMP 35.2. BAIR HUGGER APPLIED.", "BAIR HUGGER"),               # one case: clinical words
    ("temp 35.2. bair hugger applied.", "bair hugger"),
    ("HANDS ELEVATED ON PILLOWS, RESTING SPLINTS ON.", "PILLOWS"),   # icu_invented_p find f114
    ("Plan: CIWA q1h (scores in Carevue), benzos per scale.", "Carevue"),   # the ward's word, capitalised
])
def test_ordinary_words_in_one_case_and_the_wards_words_anywhere_go(text, piece):
    assert not _kept(text, piece)


@pytest.mark.parametrize("text, piece", [
    ("PT WORKS AT TARGET, WIFE ASKING FOR NOTE.", "TARGET"),          # a place's cue before it
    ("PER HEME FELLOW DR. MARROW, WHO WILL F/U.", "MARROW"),          # a title before it
    ("PT WORKS AT MARKET BASKET.", "MARKET BASKET"),                  # words no clinical vocabulary holds
    ("FAMILY: WIFE PERLA AT BEDSIDE.", "PERLA"),                      # a relative's name that is a ward word
    ("Family: wife Perla at bedside.", "Perla"),                      # (PERLA, the pupils': icu_invented_l find f13)
])
def test_in_one_case_a_cue_or_a_name_of_everyday_words_stays(text, piece):
    assert _kept(text, piece)


@pytest.mark.parametrize("text, piece", [
    ("Cont abx, f/u cultures.\n-cn\n", "cn"),                         # a writer's initials alone on a line
    ("CONT ABX, F/U CULTURES.\n-CN\n", "CN"),
])
def test_in_one_case_a_signing_line_or_two_letters_stay(text, piece):
    assert _kept(text, piece, "NAME", "DOCTOR")


@pytest.mark.parametrize("text, piece", [
    ("works for the town road crew (plows in winter). says his boss calls.", "winter"),   # icu_invented_p find f292
    ("IRONWORKER S/P FALL APPROX 25 FT FROM STEEL AT JOB SITE.", "STEEL"),                 # f322
    ("agrees w/ rehab plan, first choice is close to home.", "first"),                      # f354
])
def test_in_one_case_a_very_common_word_after_in_from_or_a_comma_is_no_place(text, piece):
    assert not _kept(text, piece, "LOCATION", "CITY")


@pytest.mark.parametrize("text, piece, category", [
    ("LIVES ALONE IN READING, SON NEARBY.", "READING", "LOCATION"),      # a gazetteer's town that is a word
    ("DAUGHTER DRIVING IN FROM DOVER TONIGHT.", "DOVER", "LOCATION"),    # a listed place
    ("PT WORKS AT TARGET, WIFE ASKING FOR NOTE.", "TARGET", "LOCATION"), # after "at" an employer may be a word
    ("SEEN IN CLINIC BY DR. WINTER.", "WINTER", "NAME"),                 # a name that is a word stays a name
])
def test_a_listed_place_an_employer_or_a_name_that_is_a_word_stays(text, piece, category):
    assert _kept(text, piece, category, "DOCTOR" if category == "NAME" else "CITY")


@pytest.mark.parametrize("text, piece", [
    ("BURNS: est 27% TBSA (Lund-Browder per burn attending): face, neck.", "Lund-Browder"),   # icu_invented_p find f321
    ("EXTUBATED PBD#4. PARKLAND RESUSC, REQUIRED ~5.5CC/KG/%.", "PARKLAND"),                  # f330
    ("C5-6 fx w/ C5 incomplete SCI (ASIA B), s/p closed reduction.", "ASIA"),                 # f335
])
def test_a_burn_charts_and_a_spinal_grades_eponym_is_no_name_or_place(text, piece):
    from pipeline.locales.en.eponym_steps import drop_eponyms

    start = text.index(piece)
    span = Span("d", start, start + len(piece), "LOCATION", "HOSPITAL", source="model:crf")
    assert drop_eponyms([span], StepContext.for_locale(text, "i2b2-2014", "en")) == []
