"""English model spans at the edges of what people draw: a kinship word alone is no name."""
from __future__ import annotations

import pytest

from pipeline.detection.steps.registry import StepContext
from pipeline.locales.en.ward_steps import strip_context_words
from pipeline.spans import Span


def _model(text: str, piece: str, type_: str = "DOCTOR", source: str = "model:v") -> Span:
    start = text.index(piece)
    return Span("d", start, start + len(piece), "NAME", type_, source, 0.8)


@pytest.mark.parametrize("text, piece", [
    ("Accompanied by husband Fredrick; contact 774 555 0129.", "husband"),
    ("693. Accompanied by daughter Pelurlowe; to call back", "daughter"),
    ("PT'S WIFE AT BEDSIDE, UPDATED.", "WIFE"),
    ("spoke with son's wife by phone", "son's"),
])
def test_a_kinship_word_alone_is_dropped(text, piece):
    ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    assert strip_context_words([_model(text, piece)], ctx) == []


@pytest.mark.parametrize("text, piece, kept", [
    ("Accompanied by husband Fredrick; contact", "husband Fredrick", "Fredrick"),   # the name stays
    ("Family meeting with Dr Sonny Kiniry today", "Sonny Kiniry", "Sonny Kiniry"),
])
def test_a_name_beside_a_kinship_word_stays(text, piece, kept):
    ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    [s] = strip_context_words([_model(text, piece)], ctx)
    assert text[s.start:s.end] == kept


def test_a_person_drew_it_so_it_stays():
    text = "Accompanied by husband Fredrick"
    ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    span = _model(text, "husband", source="human:bea")
    assert strip_context_words([span], ctx) == [span]
