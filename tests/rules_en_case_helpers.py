"""What the case-independent English rule tests share: the three copies of a line (as written, in
capitals, in lower case), the cold-start detector (rules, dictionaries and the ``en`` pack's steps)
and the texts it marks in one category, or in the categories a ward's PHI falls in."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document

CASES = ("as", "upper", "lower")
#: the copies whose case says nothing
ONE_CASE = ("upper", "lower")


def recase(line: str, case: str) -> str:
    return line if case == "as" else line.upper() if case == "upper" else line.lower()


@pytest.fixture(scope="module")
def detector():
    return Detector.without_model(I2B2_2014, "en")


def found(det, text: str, category: str) -> list[str]:
    return [text[s.start:s.end] for s in det.detect(Document("d", text)) if s.category == category]


def marked(det, text: str) -> list[str]:
    """Every text the detector marks in ``text``, whatever its category."""
    return [text[s.start:s.end] for s in det.detect(Document("d", text))]


def marked_phi(det, text: str) -> list[str]:
    """The texts marked as a name, a place, a date or a contact (what a ward's clean line must not hold)."""
    return [f for c in ("NAME", "LOCATION", "DATE", "CONTACT") for f in found(det, text, c)]


def step_context(text: str):
    """An English step's context for ``text`` (i2b2 2014 schema)."""
    from pipeline.detection.steps.registry import StepContext
    return StepContext.for_locale(text, "i2b2-2014", "en")
