"""The risk colours on real-looking released notes: red where PHI is likely left, green where
everything was replaced, and the reasons in words. Tests compare colours, kinds, levels and
offsets; they never print note text."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pipeline.risk import AMBER, GREEN, RED, DeidDocument, DeidSpan, RiskConfig, score_run
from pipeline.risk.types import (INFO, PHI_LIKE_TEXT, POSSIBLE_MISSED_PHI, QUASI_IDENTIFIER, colour_of)

CFG = RiskConfig(residual_amber=0.1, residual_red=0.5)


def released(doc_id: str, parts: list, *, candidates: list | None = None) -> DeidDocument:
    """A released note from ``parts``: plain strings, or ``(surrogate, category, type[, action])``
    spans that de-identification wrote; ``candidates``: ``(surface, category, probability[, source])``
    stretches of plain text a detector read as PHI (found by surface in the text)."""
    text, spans = "", []
    for p in parts:
        if isinstance(p, str):
            text += p
            continue
        surface, cat, typ, *rest = p
        spans.append(DeidSpan(len(text), len(text) + len(surface), cat, typ, action=rest[0] if rest else "replace",
                              score=0.97, source="model:v1"))
        text += surface
    doc = DeidDocument(doc_id, text, spans)
    for surface, cat, p, *src in candidates or []:
        at = text.index(surface)
        doc.candidates.append(DeidSpan(at, at + len(surface), cat, "", action="none", score=p,
                                       source=src[0] if src else "model"))
    return doc


def discharge(doc_id: str, doctor: str | tuple = ("Dr. Lena Ortiz", "NAME", "DOCTOR"), **kw) -> DeidDocument:
    return released(doc_id, [
        "DISCHARGE SUMMARY\nPatient: ", ("Marvin Keller", "NAME", "PATIENT"), "   MRN: ", ("40817256", "ID", "MEDICALRECORD"),
        "\nAdmitted: ", ("03/14/2071", "DATE", "DATE"), "\n\n", "Mr. ", ("Keller", "NAME", "PATIENT"),
        " is a ", ("67", "AGE", "AGE"), "-year-old retired machinist admitted with chest pain. Troponin 0.04, "
        "ECG without acute changes. Seen in cardiology clinic by ", doctor,
        ".\nPlan: aspirin 81 mg daily, follow up in 2 weeks.\n"], **kw)


def by_id(reports):
    return {r.doc_id: r for r in reports}


def test_a_fully_replaced_note_is_green():
    docs = [discharge(f"n{i}", candidates=[("retired", "PROFESSION", 0.04)]) for i in range(3)]
    for r in score_run(docs, CFG):
        assert r.colour == GREEN and r.score == 0
        assert all(x.level == INFO for x in r.reasons)


def test_a_missed_name_after_a_title_is_red_even_without_a_model():
    doc = discharge("miss", doctor="Dr. Whitfield")
    r = by_id(score_run([discharge("ok"), doc], CFG))["miss"]
    assert r.colour == RED
    [reason] = [x for x in r.reasons if x.level == RED]
    assert reason.kind == PHI_LIKE_TEXT and reason.category == "NAME"
    assert doc.text[reason.start:reason.end] == "Whitfield"
    assert "left as written" in reason.message and "title" in reason.message
    assert "Whitfield" not in reason.message                  # offsets, never the text


def test_a_missed_name_the_model_saw_below_its_threshold_is_red_and_says_so():
    doc = released("es", ["Paciente ", ("Rosa Campos Vidal", "NAME", "NOMBRE_SUJETO_ASISTENCIA"), " de ",
                          ("54 años", "AGE", "EDAD_SUJETO_ASISTENCIA"), ", remitida por su médico de familia, "
                          "Herrera Gómez, por disnea progresiva.\n"],
                  candidates=[("Herrera Gómez", "NAME", 0.62)])
    r = score_run([doc], CFG)[0]
    assert r.colour == RED and r.score == pytest.approx(62.0)
    [reason] = [x for x in r.reasons if x.kind == POSSIBLE_MISSED_PHI]
    assert reason.level == RED and "a name" in reason.message and "62%" in reason.message
    assert (reason.start, reason.end) == (doc.candidates[0].start, doc.candidates[0].end)


def test_candidate_levels_follow_the_thresholds_and_spans_cover_candidates():
    def one(p, **kw):
        return score_run([discharge("x", candidates=[("machinist", "PROFESSION", p)])], CFG)[0]
    assert one(0.05).colour == GREEN and one(0.2).colour == AMBER and one(0.8).colour == RED
    assert score_run([discharge("d", candidates=[("machinist", "PROFESSION", 0.1)])])[0].colour == AMBER  # defaults
    covered = discharge("c")
    at = covered.text.index("Keller")          # a candidate on a surrogate is not text left as written
    covered.candidates.append(DeidSpan(at, at + 6, "NAME", "", action="none", score=0.99, source="model"))
    assert score_run([covered], CFG)[0].colour == GREEN


def test_a_function_word_between_two_names_is_not_evidence():
    doc = released("glue", ["Case discussed with Dr. ", ("Patel", "NAME", "DOCTOR"), " of ",
                            ("Psychiatry Unit", "LOCATION", "DEPARTMENT"), " today.\n"],
                   candidates=[(" of ", "NAME", 0.28)])
    assert score_run([doc], CFG)[0].colour == GREEN


def test_a_rule_hit_detection_dropped_is_amber_by_default():
    doc = discharge("rule", candidates=[("2 weeks", "DATE", 1.0, "rule:date")])
    r = score_run([doc], CFG)[0]
    assert r.colour == AMBER and "a rule for a date" in r.reasons[0].message
    assert score_run([doc], RiskConfig(rule_level=INFO))[0].colour == GREEN
    # a surname list matches "Graves' disease": list hits are noted only, unless asked
    listed = discharge("list", candidates=[("machinist", "NAME", 1.0, "dict:surnames")])
    assert score_run([listed], CFG)[0].colour == GREEN
    assert score_run([listed], RiskConfig(list_level=AMBER))[0].colour == AMBER


@pytest.mark.parametrize("left, colour, category", [
    ("Contact: k.mendez@northfield-clinic.org", RED, "CONTACT"),
    ("Record 4471-2290-18 on file", AMBER, "ID"),
    ("Seen 12/03/2069 in clinic", AMBER, "DATE"),
    ("Potassium 4.1, creatinine 1.3, 120 mg twice daily", GREEN, None),
    ("Signed, J. Pruitt, M.D.\nSurgery follow-up", GREEN, None),        # "M.D." is no title before a name
])
def test_phi_shaped_text_left_as_written(left, colour, category):
    doc = released("s", ["Patient ", ("Ana Ruiz", "NAME", "PATIENT"), ". " + left + ".\n"])
    r = score_run([doc], CFG)[0]
    assert r.colour == colour
    if category:
        assert [x.category for x in r.reasons if x.kind == PHI_LIKE_TEXT] == [category]


def kept_facts(doc_id: str, age: str, town: str, job: str) -> DeidDocument:
    return released(doc_id, ["Paciente ", ("Rosa Campos", "NAME", "NOMBRE_SUJETO_ASISTENCIA"), " de ",
                             (age, "AGE", "EDAD_SUJETO_ASISTENCIA", "keep"), ", natural de ",
                             (town, "LOCATION", "TERRITORIO", "keep"), ", trabaja como ",
                             (job, "PROFESSION", "PROFESION", "keep"), ".\n"])


def test_a_rare_combination_of_kept_facts_is_red_with_its_reason_and_a_common_one_green():
    docs = [kept_facts(f"c{i}", f"{41 + i} años", "Madrid", "enfermera") for i in range(5)]
    docs.append(kept_facts("rare", "93 años", "Alcañiz", "farero"))
    reports = by_id(score_run(docs, CFG))
    rare = reports["rare"]
    [qi] = [x for x in rare.reasons if x.kind == QUASI_IDENTIFIER]
    assert rare.colour == RED and qi.level == RED and qi.k == 1
    assert qi.quasi_identifiers == {"age_band": "90+", "location": "alcaniz", "profession": "farero"}
    assert "(age, place, profession)" in qi.message and "no other person" in qi.message
    assert all(reports[f"c{i}"].colour == GREEN for i in range(5))      # five share 40-49, madrid, enfermera


def test_one_kept_fact_nobody_else_shows_is_amber_and_replaced_facts_count_for_nothing():
    lone = released("lone", ["Natural de ", ("Alcañiz", "LOCATION", "TERRITORIO", "keep"), ".\n"])
    other = released("other", ["Natural de ", ("Teruel", "LOCATION", "TERRITORIO", "replace"), ".\n"])
    reports = by_id(score_run([lone, other], CFG))
    assert reports["lone"].colour == AMBER and reports["other"].colour == GREEN


def test_colour_is_the_highest_level():
    from pipeline.risk import Reason
    assert colour_of([]) == GREEN and colour_of([Reason("x", "m", level=INFO)]) == GREEN
    assert colour_of([Reason("x", "m", level=INFO), Reason("y", "m", level=AMBER)]) == AMBER
    assert colour_of([Reason("y", "m", level=AMBER), Reason("z", "m", level=RED)]) == RED


def test_thresholds_are_checked():
    with pytest.raises(ValueError):
        RiskConfig(residual_amber=0.6, residual_red=0.4).check()
    with pytest.raises(ValueError):
        RiskConfig(rule_level="purple").check()


# --------------------------------------------------------------------------- candidates from a model

class StubEnsemble:
    """Probabilities for the tokens of a text: "Herrera" 0.7 a name, everything else outside."""

    uses_rule_hits = False

    def __init__(self) -> None:
        from models.decode import LabelIndex
        from pipeline.schemas import MEDDOCAN
        self.index = LabelIndex.of(["O", "B-NOMBRE_SUJETO_ASISTENCIA", "I-NOMBRE_SUJETO_ASISTENCIA"])
        self.schema = MEDDOCAN

    def combined_probs(self, items, rule_hits=None):
        out = []
        for _, words in items:
            p = np.zeros((len(words), 3), dtype=np.float32)
            p[:, 0] = 1.0
            for j, tok in enumerate(words.tokens):
                if tok in ("Herrera", "Gómez"):
                    p[j] = (0.3, 0.5, 0.2) if tok == "Herrera" else (0.4, 0.1, 0.5)
            out.append(p)
        return out


def test_model_candidates_are_stretches_outside_the_spans_with_their_best_probability():
    from services.risk_evidence import with_candidates

    doc = released("m", ["Paciente ", ("Herrera", "NAME", "NOMBRE_SUJETO_ASISTENCIA"),
                         ", remitida por Herrera Gómez hoy.\n"])
    det = SimpleNamespace(ensemble=StubEnsemble(), locale="es", rules=False, dictionaries=False,
                          text_for_model=lambda text: text)
    [out] = with_candidates(det, [doc])
    assert len(out.candidates) == 1                     # the surrogate "Herrera" is inside a span
    c = out.candidates[0]
    assert doc.text[c.start:c.end] == "Herrera Gómez" and c.score == pytest.approx(0.7) and c.category == "NAME"
    assert score_run([out], CFG)[0].colour == RED
