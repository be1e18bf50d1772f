"""A surname right after a first name on a line written in one case (the English pack's
``surname_after_one_case_first_name`` step): found on find notes in UPPER and lower case
(``icu_invented_c`` f02, f22; ``psych_invented`` f15), where the same lines as written had both
words marked. Each line is run through rules and dictionaries as written, in UPPER and in lower
case; what a relative is or does after the first name stays unmarked."""
from __future__ import annotations

import pytest

from pipeline.locales.en.name_steps import is_one_case_surname
from rules_en_case_helpers import ONE_CASE, detector, found, recase  # noqa: F401  (detector: a fixture)


def _marked(det, text: str) -> list[str]:
    """The names marked in ``text``, in lower case (the lines come in every case)."""
    return [f.lower() for f in found(det, text, "NAME")]


@pytest.mark.parametrize("line,name", [
    ("Social: neighbor Velma Root (has key) is emergency contact.", "velma root"),
    ("VA pension with help of service officer Carl Lovelady. Former welder.", "carl lovelady"),
    ("Parents Alvin and Irma Finch at bedside, from Celina.", "irma finch"),
    ("Nephew Marcus Root called, will visit tomorrow.", "marcus root"),
])
@pytest.mark.parametrize("case", ONE_CASE)
def test_the_surname_after_a_first_name_in_one_case(detector, line, name, case):
    assert name in _marked(detector, recase(line, case))


@pytest.mark.parametrize("line,first", [
    ("son John fine, updated on plan of care.", "john"),
    ("wife Mary well informed of plan.", "mary"),
    ("daughter Susan aware of transfer to floor.", "susan"),
    ("son Mike anxious, many questions answered.", "mike"),
    ("daughter Ann teary at times, support given.", "ann"),
    ("wife Jane updated by phone at 1900.", "jane"),
    ("son Joe visiting, brought clothes.", "joe"),
    ("husband Tom home for the night.", "tom"),
    ("wife Linda tearful but coping.", "linda"),
    ("Social: wife Fatima speaks Portuguese only, phone interpreter.", "fatima"),
])
@pytest.mark.parametrize("case", ONE_CASE)
def test_what_a_relative_is_or_does_is_no_surname(detector, line, first, case):
    marked = _marked(detector, recase(line, case))
    assert first in marked, marked
    assert not any(m.startswith(first + " ") for m in marked), marked


@pytest.mark.parametrize("line", ["CC: PASSED OUT AT CHURCH SUPPER, NO PRODROME.", "D10W BOLUS AND IVF, MAX GIR 7, WEANED"])
def test_a_common_word_or_an_abbreviation_is_no_name_pair(detector, line):
    for text in (line, line.lower()):
        assert not any(" " in m for m in _marked(detector, text)), _marked(detector, text)


def test_a_mixed_case_line_is_left_to_its_capitals(detector):
    # the step reads one-case lines only: in a mixed line the capital decides
    assert "velma root" in _marked(detector, "Neighbor Velma Root (has key).")
    assert "joe" in _marked(detector, "son Joe pale and diaphoretic.")
    assert not any(m.startswith("joe ") for m in _marked(detector, "son Joe pale and diaphoretic."))


@pytest.mark.parametrize("word,ok", [
    ("ROOT", True), ("FINCH", True), ("LOVELADY", True), ("HILL", True), ("WARSAME", True),
    ("LOVE", False), ("FINE", False), ("UPDATED", False), ("TEARY", False), ("SLEEPY", False),
    ("AT", False), ("RN", False), ("HOME", False), ("TODAY", False), ("VISITING", False), ("MAY", False),
    ("SPEAKS", False), ("GIR", False), ("LEE", True),
])
def test_which_word_is_a_surname_after_a_first_name(word, ok):
    assert is_one_case_surname(word) is ok
