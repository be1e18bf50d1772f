"""Lexical evidence of PHI left (:mod:`pipeline.risk.lexical`) on real-looking released lines in
Spanish and English: a relative's kinship word, a rare capitalised word beside a replaced span,
an identifier-shaped token; each turns the note amber with a reason in words. Tests compare
offsets, kinds and levels; they never print note text."""
from __future__ import annotations

import pytest

from pipeline.risk import AMBER, GREEN, DeidDocument, DeidSpan, RiskConfig, score_run
from pipeline.risk.lexical import LexicalConfig, LexicalWords, lexical_candidates
from pipeline.schemas import I2B2_2014, MEDDOCAN
from services.risk_evidence import kinship_words, lexical_words

ES = lexical_words(MEDDOCAN, "es")
EN = lexical_words(I2B2_2014, "en")
ALL = LexicalConfig(kinship=True, kinship_any=False, rare_near_zipf=2.0, id_digits=6)


def released(parts: list) -> DeidDocument:
    """Plain strings and ``(surrogate, category, type)`` spans de-identification wrote."""
    text, spans = "", []
    for p in parts:
        if isinstance(p, str):
            text += p
            continue
        surface, cat, typ = p
        spans.append(DeidSpan(len(text), len(text) + len(surface), cat, typ, action="replace", score=0.97,
                              source="model:v1"))
        text += surface
    return DeidDocument("d1", text, spans)


def found(doc: DeidDocument, words: LexicalWords, cfg: LexicalConfig = ALL) -> list[tuple[str, str]]:
    return [(doc.text[c.start:c.end], c.source) for c in lexical_candidates(doc, words, cfg)]


def test_the_locale_pack_gives_kinship_words_and_the_schema_the_relatives_type():
    assert "madre" in kinship_words("es") and "wife" in kinship_words("en") and kinship_words("de") == ""
    assert ES.relative_type == "FAMILIARES_SUJETO_ASISTENCIA"
    assert EN.relative_type == ""   # i2b2 has no relatives type: kinship is not looked for
    assert "hypertension" in EN.safe


def test_spanish_kinship_word_with_possessive_left_as_written_is_evidence():
    doc = released(["Acude a urgencias acompañada de su madre por dolor torácico. Vive con ",
                    ("Ana", "NAME", "NOMBRE_SUJETO_ASISTENCIA"), "."])
    assert found(doc, ES) == [("madre", "lexical:kinship")]
    c = lexical_candidates(doc, ES, ALL)[0]
    assert c.type == "FAMILIARES_SUJETO_ASISTENCIA" and c.category == "OTHER"


def test_spanish_kinship_word_replaced_or_generic_is_not_evidence():
    replaced = released(["Acude acompañada de ", ("su hermana", "OTHER", "FAMILIARES_SUJETO_ASISTENCIA"), "."])
    assert found(replaced, ES) == []
    generic = released(["Refiere que la madre padece cefaleas."])   # no possessive, no name after
    assert found(generic, ES) == []
    assert found(generic, ES, LexicalConfig(kinship=True, kinship_any=True, rare_near_zipf=0, id_digits=0)) == [
        ("madre", "lexical:kinship")]


def test_english_kinship_word_is_looked_for_only_where_the_schema_has_relatives():
    doc = released(["Pt seen with his wife Maria at bedside; plan discussed."])
    assert found(doc, EN) == []
    with_relatives = LexicalWords(kinship=kinship_words("en"), relative_type="FAMILY", safe=EN.safe)
    assert ("wife", "lexical:kinship") in found(doc, with_relatives)


def test_rare_capitalised_word_beside_a_surrogate_is_evidence_a_common_one_is_not():
    es = released(["Paciente: ", ("Lucía", "NAME", "NOMBRE_SUJETO_ASISTENCIA"), " Etxeberria Zubizarreta, 54 años."])
    assert [k for _, k in found(es, ES)] == ["lexical:rare_word"]
    en = released(["Seen by ", ("Dr. Lena Ortiz", "NAME", "DOCTOR"), " Cardiology on rounds."])
    assert found(en, EN) == []   # a common word beside a surrogate
    en_rare = released(["Seen by ", ("Lena", "NAME", "DOCTOR"), " Quagliarello on rounds."])
    assert found(en_rare, EN) == [("Quagliarello", "lexical:rare_word")]


def test_rare_word_opening_a_sentence_or_far_from_spans_is_not_evidence():
    doc = released(["Tratamiento con ", ("Hospital Sur", "LOCATION", "HOSPITAL"), ". Zolpidem 10 mg por la noche."])
    assert found(doc, ES) == []


def test_identifier_shaped_tokens_left_as_written():
    es = released(["DNI 12345678Z. NHC: ", ("5551234", "ID", "ID_SUJETO_ASISTENCIA"), ". Dosis 500 mg."])
    assert found(es, ES) == [("12345678Z", "lexical:id_shape")]
    en = released(["MRN 40817256-A recorded; BP 120/80, 2 tabs."])
    assert found(en, EN) == [("40817256-A", "lexical:id_shape")]


@pytest.mark.parametrize("level, colour", [(AMBER, AMBER), ("info", GREEN)])
def test_lexical_evidence_colours_the_note_at_its_level_with_a_reason_in_words(level, colour):
    doc = released(["Ingresa ", ("Juan", "NAME", "NOMBRE_SUJETO_ASISTENCIA"), " con su padre tras caída. NHC 40817256X."])
    doc.candidates = lexical_candidates(doc, ES, ALL)
    report = score_run([doc], RiskConfig(lexical_level=level))[0]
    assert report.colour == colour
    if level == AMBER:
        messages = [r.message for r in report.reasons if r.level == AMBER]
        assert any("kinship word" in m for m in messages) and any("shape of an identifier" in m for m in messages)
        assert all("padre" not in m and "40817256" not in m for m in messages)   # offsets, never the text


def test_the_default_looks_for_identifier_shapes_only():
    doc = released(["Ingresa con su padre. Paciente ", ("Lena", "NAME", "NOMBRE_SUJETO_ASISTENCIA"),
                    " Quagliarello, DNI 12345678Z."])
    assert [k for _, k in found(doc, ES, LexicalConfig())] == ["lexical:id_shape"]


def test_unknown_words_need_a_safe_vocabulary():
    cfg = LexicalConfig(id_digits=0, unknown_words=True)
    en = released(["Note typed by ", ("Lena Ortiz", "NAME", "DOCTOR"), " / qzxwvlogin; patient has hypertension."])
    assert found(en, EN, cfg) == [("qzxwvlogin", "lexical:unknown_word")]
    es = released(["Usuario qzxwvlogin; paciente con hipertensión."])
    assert found(es, ES, cfg) == []   # Spanish ships no clinical safe vocabulary: not looked for


def test_a_clean_note_has_no_lexical_evidence():
    doc = released(["Paciente de ", ("54 años", "AGE", "EDAD_SUJETO_ASISTENCIA"),
                    " con hipertensión arterial. Se pauta enalapril 10 mg cada 12 horas."])
    assert lexical_candidates(doc, ES, ALL) == []
