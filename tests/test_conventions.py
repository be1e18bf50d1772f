"""The identifiers a detector suggests (:mod:`pipeline.detection.conventions`): HIPAA's Safe Harbor
leaves ages under 90 and professions out, on real-looking ICU lines, whatever the span's source."""
import pytest

from pipeline.detection.conventions import CONVENTIONS, age_value, apply_convention, get_convention
from pipeline.detection.detector import Detector
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span


@pytest.mark.parametrize("text, value", [
    ("67", 67), ("93 yo", 93), ("sixty-seven", 67), ("Ninety two", 92), ("EIGHTY-NINE", 89),
    ("nineteen", 19), ("one hundred and one", 100), ("in her 80s", 80), ("90s", 90), ("elderly", None),
])
def test_age_value_reads_digits_and_words(text, value):
    assert age_value(text) == value


def _spans(text: str, parts: list[tuple[str, str]]) -> list[Span]:
    out = []
    for piece, label in parts:
        start = text.index(piece)
        cat = {"AGE": "AGE", "PROFESSION": "PROFESSION", "PATIENT": "NAME", "DATE": "DATE"}[label]
        out.append(Span("d", start, start + len(piece), cat, label, "rule:test"))
    return out


def test_safe_harbor_keeps_old_ages_names_and_dates():
    text = "72 YO RETIRED WELDER, WIFE MAUREEN (NINETY-ONE) AT BS. ADM 3/14."
    spans = _spans(text, [("72", "AGE"), ("WELDER", "PROFESSION"), ("MAUREEN", "PATIENT"),
                          ("NINETY-ONE", "AGE"), ("3/14", "DATE")])
    kept = [text[s.start:s.end] for s in apply_convention(spans, text, "safe-harbor")]
    assert kept == ["MAUREEN", "NINETY-ONE", "3/14"]
    assert apply_convention(spans, text, "all") == spans
    assert apply_convention(spans, text, None) == spans


def test_an_age_it_cannot_read_is_kept():
    # a missed PHI is a breach; an age span without a number it can read stays suggested
    text = "pt is of advanced age"
    spans = [Span("d", 9, 21, "AGE", "AGE", "model:m")]
    assert apply_convention(spans, text, "safe-harbor") == spans


def test_unknown_convention_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="safe-harbor"):
        get_convention("gdpr")
    with pytest.raises(ValueError, match="unknown convention"):
        Detector.without_model(I2B2_2014, "en", convention="gdpr")
    assert set(CONVENTIONS) == {"all", "safe-harbor"}


def test_detector_applies_it_to_rule_spans():
    doc = Document("d", "Pt is a 67 yo man, works as a roofer. Mother is 94 yo.", [])
    rules = Detector.without_model(I2B2_2014, "en")
    safe = Detector.without_model(I2B2_2014, "en", convention="safe-harbor")
    ages = lambda det: [doc.text[s.start:s.end] for s in det.detect(doc) if s.category == "AGE"]  # noqa: E731
    assert ages(rules) == ["67", "94"]
    assert ages(safe) == ["94"]
    assert rules.convention == "all"
