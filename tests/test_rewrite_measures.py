"""Corpus BLEU (pipeline.metrics.bleu) against NLTK's published values, and the rewriting
member's figures (pipeline.metrics.rewriting) on invented notes."""
from __future__ import annotations

import math

import pytest

from pipeline.metrics.bleu import (bleu_tokens, brevity_penalty, closest_ref_length, corpus_bleu, modified_precision,
                                   text_bleu)
from pipeline.metrics.rewriting import content_preservation, measure_rewrites, without_spans
from pipeline.spans import Span

# The examples of NLTK's nltk.translate.bleu_score docstrings (from Papineni et al. 2002).
HYP1 = ("It is a guide to action which ensures that the military always obeys the commands of the party").split()
REF1A = "It is a guide to action that ensures that the military will forever heed Party commands".split()
REF1B = ("It is the guiding principle which guarantees the military forces always being under the command of "
         "the Party").split()
REF1C = "It is the practical guide for the army always to heed the directions of the party".split()
HYP2 = "he read the book because he was interested in world history".split()
REF2A = "he was interested in world history because he read the book".split()


def test_corpus_bleu_matches_nltk_published_values():
    assert corpus_bleu([[REF1A, REF1B, REF1C], [REF2A]], [HYP1, HYP2]) == pytest.approx(0.5920778868801042, abs=1e-12)
    assert corpus_bleu([[REF1A, REF1B, REF1C]], [HYP1]) == pytest.approx(0.5045666840058485, abs=1e-12)
    refs, hyps = [[REF1A, REF1B, REF1C], [REF2A]], [HYP1, HYP2]
    assert corpus_bleu(refs, hyps, weights=(1, 0, 0, 0)) == pytest.approx(0.9655172413793104, abs=1e-12)
    assert corpus_bleu(refs, hyps, weights=(0.5, 0.5, 0, 0)) == pytest.approx(0.8242803277698696, abs=1e-12)


def test_the_pieces_match_nltk_published_values():
    refs = [REF1A, REF1B, REF1C]
    a, b = modified_precision(refs, HYP1, 1)
    assert a / b == pytest.approx(0.9444444444444444)
    a, b = modified_precision(refs, HYP1, 2)
    assert a / b == pytest.approx(0.5882352941176471)
    a, b = modified_precision(["the cat is on the mat".split(), "there is a cat on the mat".split()],
                              "the the the the the the the".split(), 1)
    assert a / b == pytest.approx(0.2857142857142857)
    assert brevity_penalty(closest_ref_length([["a"] * 28, ["a"] * 28], 12), 12) == pytest.approx(0.2635971381157267)
    assert brevity_penalty(closest_ref_length([["a"] * 13, ["a"] * 2], 12), 12) == pytest.approx(0.9200444146293233)
    assert brevity_penalty(closest_ref_length([["a"] * 11, ["a"] * 8], 7), 7) == pytest.approx(0.8668778997501817)
    assert closest_ref_length([["a"] * 13, ["a"] * 11], 12) == 11


def test_edge_cases():
    assert corpus_bleu([[REF2A]], [REF2A]) == 1.0
    assert corpus_bleu([[REF2A]], [[]]) == 0.0
    assert corpus_bleu([[["a", "b", "c"]]], [["a", "b", "c"]]) == 0.0   # no 4-gram at all: unsmoothed BLEU is 0
    with pytest.raises(ValueError):
        corpus_bleu([[REF2A]], [HYP2, HYP2])
    assert bleu_tokens("Dr. Ruiz, 12/03!") == ["Dr", ".", "Ruiz", ",", "12", "/", "03", "!"]


NOTE = "Paciente Lucía Ferrer, 67 años, ingresa el 14/02/2019 por disnea de esfuerzo progresiva.\n"
PHI_TEXT = ["Lucía Ferrer", "67", "14/02/2019"]


def _spans(text: str, phrases: list[str], doc: str = "d") -> list[Span]:
    out, at = [], 0
    for p in phrases:
        k = text.index(p, at)
        out.append(Span(doc, k, k + len(p), "OTHER"))
        at = k + len(p)
    return out


def test_content_preservation_is_100_for_a_faithful_rewrite_and_falls_with_damage():
    gold = _spans(NOTE, PHI_TEXT)
    perfect = "Paciente [PHI], [PHI] años, ingresa el [PHI] por disnea de esfuerzo progresiva.\n"
    assert without_spans(NOTE, gold).split() == perfect.replace("[PHI]", " ").split()
    texts, ref = {"d": NOTE}, {"d": gold}
    assert content_preservation(texts, ref, {"d": perfect}) == pytest.approx(100.0)
    reworded = perfect.replace("disnea de esfuerzo progresiva", "falta de aire al caminar")
    leaked = perfect.replace("[PHI] años", "67 años")
    scores = [content_preservation(texts, ref, {"d": r}) for r in (perfect, leaked, reworded)]
    assert scores[0] > scores[1] > scores[2] > 0
    typed = perfect.replace("[PHI]", "[NAME]", 1)
    assert content_preservation(texts, ref, {"d": typed}, "[{label}]") == pytest.approx(100.0)
    assert math.isclose(content_preservation(texts, ref, {}), 0.0)


def test_measure_rewrites_reports_note_span_and_token_figures():
    other = "Sin hallazgos. Control en Teruel el 02/03/2020.\n"
    texts = {"a": NOTE, "b": other, "c": "Nada que destacar.\n"}
    ref = {"a": _spans(NOTE, PHI_TEXT, "a"), "b": _spans(other, ["Teruel", "02/03/2020"], "b"), "c": []}
    found = {"a": ref["a"], "b": ref["b"][:1]}             # note b: the date missed
    rewrites = {d: t for d, t in texts.items()}
    m = measure_rewrites(texts, ref, found, rewrites, seconds=2.0)
    assert m.notes == 3 and m.notes_with_phi == 2
    assert m.note_recall == 0.5
    assert m.span_recall == pytest.approx(4 / 5) and m.span_precision == 1.0
    assert m.token_precision == 1.0 and 0 < m.token_recall < 1
    assert m.notes_per_s == 1.5
    assert 0 < m.bleu < 100                                  # the rewrites kept the PHI: extra n-grams
    assert set(m.to_dict()) >= {"note_recall", "span_recall", "bleu", "notes_per_s"}
    assert text_bleu(["a b c d e"], ["a b c d e"]) == 1.0
