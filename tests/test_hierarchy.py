"""The hierarchical join of a category model and a type model (pipeline.detection.hierarchy)."""
from __future__ import annotations

from pipeline.detection.hierarchy import UNCERTAIN_SCORE, combine_hierarchical, other_type, uncertain_label
from pipeline.schemas import GERMAN, I2B2_2014, MEDDOCAN
from pipeline.spans import Span

TEXT = "Pat. Hans Meier, geb. 12.03.1961, Station 4B, Tel. 0341 97 0, Fall-Nr. 88231"
#       0    5    10   15   20   25   30   35   40   45   50   55   60   65   70   75


def at(word: str, nth: int = 0) -> tuple[int, int]:
    i = -1
    for _ in range(nth + 1):
        i = TEXT.index(word, i + 1)
    return i, i + len(word)


def cat(word: str, category: str, score: float = 0.9) -> Span:
    s, e = at(word)
    return Span("n1", s, e, category, "", "model:cat", score)


def typ(word: str, category: str, type_: str, score: float = 0.8) -> Span:
    s, e = at(word)
    return Span("n1", s, e, category, type_, "model:typ", score)


def labels(result) -> list[tuple[str, str, str]]:
    return [(TEXT[s.start:s.end], s.category, s.type) for s in result.spans]


def test_agreeing_models_give_the_type_model_its_type_on_the_category_models_extent():
    c = [cat("Hans Meier", "NAME")]
    t = [typ("Meier", "NAME", "Patient")]                 # the type model found only the surname
    r = combine_hierarchical(c, t, GERMAN)
    assert labels(r) == [("Hans Meier", "NAME", "Patient")]
    assert r.flagged == [] and r.counts["type"] == 1
    assert r.spans[0].score == 0.8                        # the weaker of the two decisions


def test_category_without_a_type_gets_its_other_type():
    c = [cat("Hans Meier", "NAME"), cat("88231", "ID"), cat("Station 4B", "LOCATION")]
    r = combine_hierarchical(c, [], GERMAN)
    assert labels(r) == [("Hans Meier", "NAME", "Name_Other"), ("Station 4B", "LOCATION", "Location_Other"),
                         ("88231", "ID", "ID_Other")]
    assert r.flagged == [] and r.counts["category_other"] == 3


def test_disagreement_becomes_other_and_is_flagged_for_review():
    c = [cat("Hans Meier", "NAME"), cat("12.03.1961", "DATE")]
    t = [typ("Hans Meier", "LOCATION", "City"), typ("12.03.1961", "DATE", "Birthdate")]
    r = combine_hierarchical(c, t, GERMAN)
    assert labels(r) == [("Hans Meier", "OTHER", "Other"), ("12.03.1961", "DATE", "Birthdate")]
    assert r.flagged == [0] and r.spans[0].score == UNCERTAIN_SCORE
    assert r.counts == {"type": 1, "category_other": 0, "disagree": 1, "type_only": 0, "dropped": 0}


def test_type_model_only_spans_are_kept_for_recall_or_dropped_when_asked():
    t = [typ("0341 97 0", "CONTACT", "Phone")]
    assert labels(combine_hierarchical([], t, GERMAN)) == [("0341 97 0", "CONTACT", "Phone")]
    r = combine_hierarchical([], t, GERMAN, keep_type_only=False)
    assert r.spans == [] and r.counts["dropped"] == 1


def test_schema_without_other_category_keeps_the_category_and_flags():
    # i2b2 has no OTHER category: a disagreement keeps the category model's category with its
    # other type (LOCATION-OTHER), flagged; NAME has no other type: the fallback names one.
    c = [cat("Station 4B", "LOCATION"), cat("Hans Meier", "NAME")]
    t = [typ("Station 4B", "DATE", "DATE"), typ("Hans Meier", "ID", "MEDICALRECORD")]
    assert uncertain_label(I2B2_2014) is None
    r = combine_hierarchical(c, t, I2B2_2014, fallback_types={"NAME": "PATIENT"})
    assert labels(r) == [("Hans Meier", "NAME", "PATIENT"), ("Station 4B", "LOCATION", "LOCATION-OTHER")]
    assert r.flagged == [0, 1]


def test_category_without_other_type_and_no_fallback_is_flagged_not_guessed_silently():
    c = [cat("Hans Meier", "NAME")]
    r = combine_hierarchical(c, [], MEDDOCAN)
    assert labels(r) == [("Hans Meier", "NAME", "NOMBRE_SUJETO_ASISTENCIA")]
    assert r.flagged == [0] and r.spans[0].score == UNCERTAIN_SCORE
    r = combine_hierarchical(c, [], MEDDOCAN, fallback_types={"NAME": "NOMBRE_PERSONAL_SANITARIO"})
    assert labels(r) == [("Hans Meier", "NAME", "NOMBRE_PERSONAL_SANITARIO")] and r.flagged == []


def test_the_best_overlapping_type_wins_and_flags_follow_the_sorted_order():
    c = [cat("Fall-Nr. 88231", "ID"), cat("Hans", "NAME")]
    t = [typ("Fall-Nr.", "ID", "StudyID", 0.6), typ("88231", "ID", "PatientID", 0.9), typ("Hans", "DATE", "Date")]
    r = combine_hierarchical(c, t, GERMAN)
    assert labels(r) == [("Hans", "OTHER", "Other"), ("Fall-Nr. 88231", "ID", "StudyID")]
    assert r.flagged == [0]


def test_other_type_lookup():
    assert other_type(GERMAN, "ID") == "ID_Other"
    assert other_type(MEDDOCAN, "OTHER") == "OTROS_SUJETO_ASISTENCIA"
    assert other_type(I2B2_2014, "AGE") == "AGE"              # one type: it is the category
    assert other_type(I2B2_2014, "NAME", {"NAME": "NOT-A-TYPE"}) is None
