"""The English model-stage step that drops a model's lower-case name or place of ordinary words in
a line with capitals (pipeline/locales/en/common_word_steps.py), on lines rephrased from the
emergency notes' find half, beside what it must keep."""
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
    ("PT THREATENED HER WITH A KITCHEN KNIFE.", "KITCHEN KNIFE", "LOCATION"),   # one case: case says nothing
    ("pt threatened her with a kitchen knife.", "kitchen knife", "LOCATION"),
    ("Seen 3/14 with a kitchen knife wound.", "3/14", "DATE"),       # not a name or a place
])
def test_a_name_a_capital_one_case_or_another_category_stays(text, piece, category):
    assert _kept(text, piece, category, "PATIENT" if category == "NAME" else "HOSPITAL")
