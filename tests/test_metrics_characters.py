"""Character-level PHI scores (pipeline.metrics.characters) on notes as wards and MEDDOCAN write them."""
from __future__ import annotations

import pytest

from pipeline.metrics import evaluate
from pipeline.metrics.characters import by_label, character_counts, corpus_counts
from pipeline.spans import Span

NURSE = "Pt is 78 yo woman, daughter Mary at bedside. Seen by DR. HOLMES at BIDMC on 3/14. BP 120/70."


def at(text: str, words: str, label: str, nth: int = 0) -> tuple[int, int, str]:
    i = -1
    for _ in range(nth + 1):
        i = text.index(words, i + 1)
    return (i, i + len(words), label)


GOLD = [at(NURSE, "78", "AGE"), at(NURSE, "Mary", "NAME"), at(NURSE, "HOLMES", "NAME"),
        at(NURSE, "BIDMC", "LOCATION"), at(NURSE, "3/14", "DATE")]


def test_a_name_cut_in_two_or_run_over_a_blank_is_still_all_found():
    gold = [at(NURSE, "DR. HOLMES", "NAME")]
    split = [at(NURSE, "DR.", "NAME"), at(NURSE, "HOLMES", "NAME")]
    c = character_counts(NURSE, split, gold)
    assert (c.micro.tp, c.micro.fp, c.micro.fn) == (9, 0, 0)       # "DR.HOLMES": blanks are not counted
    assert c.document_recall == 1.0


def test_missed_and_flagged_characters_on_a_nursing_line():
    system = [at(NURSE, "Mary", "NAME"), at(NURSE, "DR. HOLMES", "NAME"), at(NURSE, "120/70", "DATE"),
              at(NURSE, "3/14", "DATE")]
    c = character_counts(NURSE, system, GOLD)
    # gold characters: 78 (2) Mary (4) HOLMES (6) BIDMC (5) 3/14 (4) = 21; found Mary, HOLMES, 3/14 = 14
    assert (c.micro.tp, c.micro.fn) == (14, 7)
    # flagged: "DR." (3) and the blood pressure (6)
    assert c.micro.fp == 9
    assert c.micro.recall == pytest.approx(14 / 21) and c.micro.precision == pytest.approx(14 / 23)
    assert c.per_label["LOCATION"].recall == 0.0 and c.per_label["AGE"].recall == 0.0
    assert c.per_label["NAME"].recall == 1.0
    assert c.per_label["NAME"].precision == pytest.approx(10 / 13)   # "DR." is not PHI
    assert c.per_label["DATE"].precision == pytest.approx(4 / 10)    # 120/70 is a vital, not a date
    assert c.document_recall == 0.0


def test_label_does_not_matter_for_coverage_but_files_precision_under_the_system_label():
    system = [at(NURSE, "BIDMC", "NAME")]                  # right characters, wrong label
    c = character_counts(NURSE, system, [at(NURSE, "BIDMC", "LOCATION")])
    assert c.micro.recall == 1.0 and c.micro.precision == 1.0
    assert c.per_label["LOCATION"].recall == 1.0 and c.per_label["NAME"].precision == 1.0


def test_overlapping_spans_of_one_side_count_each_character_once():
    system = [at(NURSE, "HOLMES", "NAME"), at(NURSE, "HOLMES", "NAME"), at(NURSE, "DR. HOLMES", "NAME")]
    c = character_counts(NURSE, system, [at(NURSE, "HOLMES", "NAME")])
    assert (c.micro.tp, c.micro.fp, c.micro.fn) == (6, 3, 0)


def test_document_recall_over_notes():
    notes = [NURSE, "Paciente: Ana Pérez, 45 años. Hospital Clínic.", "No PHI here at all."]
    gold = [GOLD, [at(notes[1], "Ana Pérez", "NAME"), at(notes[1], "45 años", "AGE")], []]
    system = [[g for g in GOLD if g[2] != "LOCATION"], [at(notes[1], "Ana Pérez", "NAME"),
                                                        at(notes[1], "45 años", "AGE")], []]
    c = corpus_counts(notes, system, gold)
    assert (c.documents_with_phi, c.documents_all_found) == (2, 1) and c.document_recall == 0.5
    assert c.summary()["support"] == 21 + 8 + 6          # blanks in "Ana Pérez", "45 años" left out
    rows = by_label(c.per_label, c.micro)
    assert rows["LOCATION"] == {"recall": 0.0, "precision": None, "support": 5}
    assert rows["ALL"]["precision"] == 1.0


def test_evaluate_reports_characters_per_category_and_type():
    gold = [Span("n", s, e, "LOCATION" if t == "LOCATION" else t, {"NAME": "DOCTOR"}.get(t, t)) for s, e, t in GOLD]
    system = [Span("n", s, e, "NAME", "PATIENT") for s, e, _ in [at(NURSE, "Mary", ""), at(NURSE, "BIDMC", "")]]
    r = evaluate({"n": system}, {"n": gold}, {"n": NURSE})
    ch = r.characters
    assert ch.micro.tp == 9 and ch.micro.fn == 12 and ch.micro.fp == 0
    assert ch.per_category["LOCATION"].recall == 1.0       # found, under another label
    assert ch.per_category["NAME"].tps == 9 and ch.per_category["NAME"].precision == 1.0
    assert ch.per_type["DOCTOR"].recall == pytest.approx(4 / 10)
    j = r.to_json()["characters"]
    assert j["micro"]["recall"] == pytest.approx(9 / 21) and "LOCATION" in j["per_category"]
