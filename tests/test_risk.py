"""Risk scoring on constructed corpora whose answers are known, and on the MEDDOCAN fixture.

Tests compare offsets, labels, counts and colours; they never print document text.
"""
from __future__ import annotations

import pytest

from pipeline.risk import (AMBER, GREEN, RED, DeidDocument, DeidSpan, RiskConfig, RiskScorer, colour_for, derive,
                           extract_contexts, from_document, k_counts, rescore, score_run, to_rows, triage_order)
from pipeline.risk.embedders import LexicalEmbedder
from pipeline.risk.quasi import age_band, individual, sex_of
from pipeline.risk.types import (INFO, KEEP, MACHINE_ONLY_DIRECT, QUASI_IDENTIFIER, UNIQUE_CONTEXT,
                                 UNREVIEWED_LOW_CONFIDENCE)
from pipeline.spans import SpanError


def make_doc(doc_id: str, parts: list, *, human_seen: bool = True, patient_id: str | None = None,
             **span_defaults) -> DeidDocument:
    """Text from ``parts``: strings, or ``(surface, category, type, {overrides})`` entities."""
    text, spans = "", []
    defaults = {"action": "replace", "score": 1.0, "reviewed": True, **span_defaults}
    for p in parts:
        if isinstance(p, str):
            text += p
            continue
        surface, cat, typ, *rest = p
        kw = {**defaults, **(rest[0] if rest else {})}
        spans.append(DeidSpan(len(text), len(text) + len(surface), cat, typ, **kw))
        text += surface
    return DeidDocument(doc_id, text, spans, human_seen=human_seen, patient_id=patient_id)


TEMPLATE = ["El paciente ", ("[NOMBRE]", "NAME", "NOMBRE_SUJETO_ASISTENCIA"),
            " acude a la consulta de urgencias por dolor abdominal intenso. Fue atendido por el doctor ",
            ("[NOMBRE]", "NAME", "NOMBRE_PERSONAL_SANITARIO"), " en la planta de medicina interna del hospital."]

UNIQUE_PARTS = ["Zumbidos violáceos sobre cristalería antigua, ", ("[NOMBRE]", "NAME", "NOMBRE_SUJETO_ASISTENCIA"),
                " recolectó caracolas junto al faro septentrional mientras nevaba. Quince tambores de ",
                ("[NOMBRE]", "NAME", "NOMBRE_PERSONAL_SANITARIO"), " resonaron bajo puentes colgantes oxidados."]


def template_corpus(n: int = 6) -> list[DeidDocument]:
    return [make_doc(f"t{i}", TEMPLATE) for i in range(n)]


def by_id(reports):
    return {r.doc_id: r for r in reports}


# --------------------------------------------------------------------------- colours and scores

def test_colour_bands_follow_the_published_cut_points():
    assert colour_for(0) == GREEN and colour_for(24.99) == GREEN
    assert colour_for(25) == AMBER and colour_for(50) == AMBER
    assert colour_for(50.01) == RED and colour_for(100) == RED


def test_identical_contexts_everywhere_are_green():
    reports = score_run(template_corpus(6))
    assert len(reports) == 6
    for r in reports:
        assert r.colour == GREEN and r.score == 0 and r.n_unique == 0 and r.n_contexts == 2
        assert r.reasons == []


def test_unique_contexts_are_noted_but_do_not_colour_a_fully_replaced_document():
    docs = template_corpus(6) + [make_doc("odd", UNIQUE_PARTS)]
    reports = by_id(score_run(docs))
    odd = reports["odd"]
    assert odd.context_colour == RED and odd.colour == GREEN        # every identifier was replaced
    assert odd.n_unique == 2 and odd.scores["document-share"] == pytest.approx(100.0) and odd.score == 0
    assert odd.scores["corpus-share"] == pytest.approx(100.0 * 2 / 14)
    assert [(r.kind, r.level) for r in odd.reasons] == [(UNIQUE_CONTEXT, INFO)]
    assert "2 of the 2" in odd.reasons[0].message
    assert all(reports[f"t{i}"].colour == GREEN for i in range(6))


def test_corpus_share_shrinks_with_the_corpus_document_share_does_not():
    small = by_id(score_run(template_corpus(2) + [make_doc("odd", UNIQUE_PARTS)], RiskConfig(method="corpus-share")))
    big = by_id(score_run(template_corpus(30) + [make_doc("odd", UNIQUE_PARTS)], RiskConfig(method="corpus-share")))
    assert small["odd"].scores["corpus-share"] == pytest.approx(100 * 2 / 6)
    assert big["odd"].scores["corpus-share"] == pytest.approx(100 * 2 / 62)
    assert small["odd"].context_colour == AMBER and big["odd"].context_colour == GREEN  # greener in a bigger run
    assert small["odd"].scores["document-share"] == big["odd"].scores["document-share"] == pytest.approx(100)
    assert big["odd"].method == "corpus-share"


def test_threshold_decides_uniqueness():
    docs = template_corpus(3)
    # a word changed outside every window: contexts identical, nothing unique at any threshold
    far = list(TEMPLATE)
    far[2] = " acude a la consulta de urgencias por dolor torácico intenso. Fue atendido por el doctor "
    assert by_id(score_run(docs + [make_doc("far", far)], RiskConfig(threshold=0.9999)))["far"].n_unique == 0
    # one word changed inside the first window: similar (> 0.5) but not identical
    near = list(TEMPLATE)
    near[2] = " acude a la revisión de urgencias por dolor abdominal intenso. Fue atendido por el doctor "
    docs.append(make_doc("near", near))
    lenient = by_id(score_run(docs, RiskConfig(threshold=0.5)))["near"]
    strict = by_id(score_run(docs, RiskConfig(threshold=0.9999)))["near"]
    assert lenient.n_unique == 0
    assert strict.n_unique == 1 and strict.reasons[0].kind == UNIQUE_CONTEXT


def test_single_document_has_nothing_to_hide_among():
    r = score_run([make_doc("alone", TEMPLATE)])[0]
    assert r.context_colour == RED and r.n_unique == 2 and r.colour == GREEN


def test_group_by_patient_keeps_repeats_within_one_patient_unique():
    docs = [make_doc("a1", UNIQUE_PARTS, patient_id="p1"), make_doc("a2", UNIQUE_PARTS, patient_id="p1")]
    docs += template_corpus(3)
    plain = by_id(score_run(docs))
    grouped = by_id(score_run(docs, RiskConfig(group_by_patient=True)))
    assert plain["a1"].n_unique == 0                     # the other document has the same contexts
    assert grouped["a1"].n_unique == 2 and grouped["a1"].context_colour == RED


# --------------------------------------------------------------------------- quasi-identifiers

KEPT = {"action": "keep"}


def qi_doc(doc_id: str, age: str, city: str, job: str, date: str, sex: str, **kw) -> DeidDocument:
    """A note whose name was replaced and whose facts were kept as written (a profile keeping them)."""
    return make_doc(doc_id, [
        "Paciente ", ("[NOMBRE]", "NAME", "NOMBRE_SUJETO_ASISTENCIA"), " de ",
        (age, "AGE", "EDAD_SUJETO_ASISTENCIA", KEPT), ", sexo ", (sex, "OTHER", "SEXO_SUJETO_ASISTENCIA", KEPT),
        ", natural de ", (city, "LOCATION", "TERRITORIO", KEPT), ", trabaja como ",
        (job, "PROFESSION", "PROFESION", KEPT), ". Ingresa el ", (date, "DATE", "FECHAS", KEPT),
        " por fiebre."], **kw)


def qi_corpus() -> list[DeidDocument]:
    common = [qi_doc(f"c{i}", f"{31 + i} años", "Madrid", "enfermera", f"0{i + 1}/03/2016", "Mujer") for i in range(5)]
    return common + [qi_doc("rare", "47 años", "Teruel", "pescador", "12/05/2016", "Mujer")]


def test_rare_age_city_profession_tuple_is_flagged_with_its_tuple():
    reports = by_id(score_run(qi_corpus()))
    rare = reports["rare"]
    qi = [r for r in rare.reasons if r.kind == QUASI_IDENTIFIER]
    assert len(qi) == 1
    assert qi[0].k == 1
    assert qi[0].quasi_identifiers == {"age_band": "40-49", "location": "teruel", "profession": "pescador",
                                       "year": "2016", "sex": "female"}
    assert "(age, place, profession, year, sex)" in qi[0].message and "no other person" in qi[0].message
    assert "pescador" not in qi[0].message and "teruel" not in qi[0].message     # values only in the tuple
    assert qi[0].level == RED and rare.colour == RED
    for i in range(5):   # five share (30-39, madrid, enfermera, 2016, female): k = 5, not below 5
        assert not [r for r in reports[f"c{i}"].reasons if r.kind == QUASI_IDENTIFIER]


def test_quasi_fields_choose_the_tuple():
    reports = by_id(score_run(qi_corpus(), RiskConfig(quasi_fields=("age_band", "sex"))))
    qi = [r for r in reports["rare"].reasons if r.kind == QUASI_IDENTIFIER]
    assert qi[0].quasi_identifiers == {"age_band": "40-49", "sex": "female"} and qi[0].k == 1
    reports = by_id(score_run(qi_corpus(), RiskConfig(quasi_fields=("sex",))))
    assert not [r for r in reports["rare"].reasons if r.kind == QUASI_IDENTIFIER]      # six women: k = 6
    with pytest.raises(ValueError):
        RiskConfig(quasi_fields=("shoe_size",)).check()


def test_k_threshold_is_configurable_and_counts_individuals_not_documents():
    docs = qi_corpus()
    reports = by_id(score_run(docs, RiskConfig(k_threshold=6)))
    assert [r.k for r in reports["c0"].reasons if r.kind == QUASI_IDENTIFIER] == [5]
    # the same patient's five notes are one individual: k = 1
    same_patient = [qi_doc(f"p{i}", "33 años", "Madrid", "enfermera", "01/03/2016", "Mujer", patient_id="P1")
                    for i in range(5)]
    tuples = {d.doc_id: derive(d) for d in same_patient}
    assert set(k_counts(tuples, {d.doc_id: individual(d) for d in same_patient}).values()) == {1}


def test_quasi_identifier_values_generalise():
    assert age_band("38 años") == "30-39" and age_band("3 meses") == "0-9" and age_band("1 mes y 29 días") == "0-9"
    assert age_band("13 años y 7 meses") == "10-19" and age_band("93") == "90+" and age_band("[EDAD]") is None
    assert age_band("dos años") == "0-9" and age_band("Age 45") == "40-49"
    assert sex_of("H", "SEXO_SUJETO_ASISTENCIA") == "male" and sex_of("M", "SEXO_SUJETO_ASISTENCIA") == "female"
    assert sex_of("Varón", "SEXO_SUJETO_ASISTENCIA") == "male" and sex_of("niña", "SEXO_SUJETO_ASISTENCIA") == "female"
    assert sex_of("M", "SEX") == "male" and sex_of("[SEXO]", "SEXO_SUJETO_ASISTENCIA") is None
    doc = make_doc("x", [("28029", "LOCATION", "TERRITORIO"), " y ", ("Ávila", "LOCATION", "TERRITORIO"), " ",
                         ("Hospital Sur", "LOCATION", "HOSPITAL"), " ", ("10/10/1999 y 2001", "DATE", "FECHAS"),
                         " ", ("[PROFESION]", "PROFESSION", "PROFESION")], action="keep")
    q = derive(doc)
    assert q.location == "avila"             # postal codes and hospitals are not city/state level
    assert q.year == "1999,2001" and q.profession is None and q.age_band is None


def test_original_value_is_used_when_given_and_only_values_left_readable_count():
    doc = make_doc("v", ["Edad: ", ("[EDAD]", "AGE", "EDAD_SUJETO_ASISTENCIA", {"value": "71 años", "action": "none"}),
                         "."])
    assert derive(doc).age_band == "70-79"
    replaced = make_doc("v", ["Edad: ", ("54 años", "AGE", "EDAD_SUJETO_ASISTENCIA", {"value": "71 años"}), "."])
    assert derive(replaced).empty            # a replaced age is gone from the note: it identifies no one


def test_redacted_documents_have_no_tuple_to_assess():
    docs = [qi_doc(f"r{i}", "[EDAD]", "[TERRITORIO]", "[PROFESION]", "[FECHA]", "[SEXO]") for i in range(3)]
    for r in score_run(docs):
        assert not [x for x in r.reasons if x.kind == QUASI_IDENTIFIER]


# --------------------------------------------------------------------------- residual signals

def kinds(report):
    return [r.kind for r in report.reasons]


def test_keep_action_is_a_reason_and_a_kept_name_makes_the_document_red():
    kept_date = template_corpus(5) + [make_doc("kd", TEMPLATE[:3] + [("[NOMBRE]", "NAME", "NOMBRE_PERSONAL_SANITARIO")]
                                               + [" visto el ", ("2019", "DATE", "FECHAS", {"action": "keep"}), "."])]
    r = by_id(score_run(kept_date))["kd"]
    keep = [x for x in r.reasons if x.kind == KEEP]
    assert [(x.category, x.type, x.level) for x in keep] == [("DATE", "FECHAS", INFO)]
    # one kept fact (a year) no other note shows: amber, through the quasi-identifier count
    assert r.colour == AMBER and [x.level for x in r.reasons if x.kind == QUASI_IDENTIFIER] == [AMBER]
    name_parts = list(TEMPLATE)
    name_parts[1] = ("Juan Pérez", "NAME", "NOMBRE_SUJETO_ASISTENCIA", {"action": "keep"})
    r2 = by_id(score_run(template_corpus(5) + [make_doc("kn", name_parts)]))["kn"]
    assert KEEP in kinds(r2) and r2.context_colour == GREEN and r2.colour == RED and r2.score == 100
    ks = [x for x in r2.reasons if x.kind == KEEP][0]
    assert (ks.start, ks.end) == (12, 22)


def test_unreviewed_low_confidence_detection_is_noted_without_colouring():
    parts = list(TEMPLATE)
    parts[3] = ("[NOMBRE]", "NAME", "NOMBRE_PERSONAL_SANITARIO", {"score": 0.3, "reviewed": False})
    docs = template_corpus(5) + [make_doc("low", parts)]
    r = by_id(score_run(docs))["low"]
    low = [x for x in r.reasons if x.kind == UNREVIEWED_LOW_CONFIDENCE]
    assert len(low) == 1 and low[0].type == "NOMBRE_PERSONAL_SANITARIO" and "30%" in low[0].message
    assert low[0].level == INFO and r.colour == GREEN          # it was replaced: nothing of it is left
    parts[3] = ("[NOMBRE]", "NAME", "NOMBRE_PERSONAL_SANITARIO", {"score": 0.3, "reviewed": True})
    r = by_id(score_run(template_corpus(5) + [make_doc("low", parts)]))["low"]
    assert UNREVIEWED_LOW_CONFIDENCE not in kinds(r) and r.colour == GREEN
    r = by_id(score_run(docs, RiskConfig(confidence_threshold=0.2)))["low"]
    assert UNREVIEWED_LOW_CONFIDENCE not in kinds(r)


def test_a_machine_detected_and_replaced_name_in_an_unseen_document_is_not_a_risk():
    unseen = make_doc("m", TEMPLATE, human_seen=False, reviewed=False, source="model:v1")
    r = by_id(score_run(template_corpus(5) + [unseen]))["m"]
    assert MACHINE_ONLY_DIRECT not in kinds(r) and r.colour == GREEN


# --------------------------------------------------------------------------- triage, rows, re-scoring

def test_triage_order_is_red_amber_green_then_score():
    docs = template_corpus(6)
    for name, p in (("weak", 0.2), ("strong", 0.9), ("firm", 0.7)):
        d = make_doc(name, TEMPLATE + [" Visto por Herrera."])
        d.candidates = [DeidSpan(len(d.text) - 8, len(d.text) - 1, "NAME", "NOMBRE_PERSONAL_SANITARIO", action="none",
                                 score=p, source="model")]
        docs.append(d)
    order = triage_order(score_run(docs, RiskConfig(residual_amber=0.1, residual_red=0.5)))
    colours = [r.colour for r in order]
    assert colours == sorted(colours, key=[RED, AMBER, GREEN].index)
    assert [r.doc_id for r in order[:3]] == ["strong", "firm", "weak"] and order[2].colour == AMBER
    rows = to_rows(order)
    assert set(rows[0]) == {"doc_id", "method", "score", "colour", "reasons"}
    assert rows[0]["reasons"][0]["kind"] == "possible_missed_phi" and isinstance(rows[0]["reasons"][0], dict)
    assert rows[0]["reasons"][0]["level"] == RED


class CountingEmbedder(LexicalEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed(self, texts):
        self.embedded.extend(texts)
        return super().embed(texts)


def test_rescore_embeds_only_new_contexts_and_updates_other_documents():
    emb = CountingEmbedder()
    scorer = RiskScorer(RiskConfig(), embedder=emb)
    docs = template_corpus(1) + [make_doc("odd", UNIQUE_PARTS)]
    first = by_id(scorer.score(docs))
    assert first["t0"].n_unique == 2 and first["odd"].n_unique == 2       # two documents, nothing shared
    n_embedded = len(emb.embedded)
    assert n_embedded == len(set(emb.embedded)) == 4                     # each distinct context once
    # the odd document is edited into the template: both become green, only nothing new to embed
    after = by_id(rescore(scorer, [make_doc("odd", TEMPLATE)]))
    assert after["odd"].colour == GREEN and after["t0"].colour == GREEN   # t0 changed although not edited
    assert len(emb.embedded) == n_embedded
    after = by_id(scorer.rescore([make_doc("new", UNIQUE_PARTS)], removed=["odd"]))
    assert set(after) == {"t0", "new"} and after["new"].n_unique == 2


def test_duplicate_ids_and_bad_offsets_are_refused_without_text():
    with pytest.raises(ValueError, match="t0"):
        score_run(template_corpus(1) + template_corpus(1))
    bad = DeidDocument("b", "short", [DeidSpan(3, 40, "NAME")])
    with pytest.raises(SpanError, match=r"b: span 3-40"):
        score_run([bad])
    with pytest.raises(ValueError):
        RiskConfig(method="nope").check()


# --------------------------------------------------------------------------- contexts

def test_context_window_is_five_words_each_side_with_placeholders():
    doc = make_doc("c", ["uno dos tres cuatro cinco seis ", ("Juan", "NAME", "X"), " siete, ocho nueve diez once doce ",
                         ("2019", "DATE", "FECHAS"), " trece"])
    c0, c1 = extract_contexts(doc)
    assert c0.text == "dos tres cuatro cinco seis [name] siete ocho nueve diez once"
    assert doc.text[c0.start:c0.end].startswith("dos") and doc.text[c0.start:c0.end].endswith("once")
    assert c1.text == "ocho nueve diez once doce [date] trece" and c1.end == len(doc.text)
    # entities inside a window are placeholders too, whatever their surrogate
    doc2 = make_doc("d", [("Ana", "NAME", "X"), " y ", ("Luis", "NAME", "X")])
    assert [c.text for c in extract_contexts(doc2)] == ["[name] y [name]"] * 2
    assert extract_contexts(doc2, window=0)[0].text == "[name]"


def test_overlapping_spans_share_a_token():
    doc = DeidDocument("o", "visto por Juan Pérez hoy", [DeidSpan(10, 20, "NAME"), DeidSpan(15, 20, "NAME")])
    a, b = extract_contexts(doc)
    assert a.text == b.text == "visto por [name] hoy"


# --------------------------------------------------------------------------- MEDDOCAN fixture

def deidentified_fixture(meddocan_sample, *, keep_values: bool = False):
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN
    from pipeline.spans import Document, rewrite

    out, originals = [], {}
    for d in read_collection(meddocan_sample / "brat", "brat", MEDDOCAN):
        spans = [s for s in d.spans]
        new_text, moved = rewrite(d.text, [(s, f"[{s.type}]") for s in spans])
        doc = from_document(Document(d.doc_id, new_text, [s.with_(start=a, end=b) for s, a, b in moved]),
                            reviewed=True)
        if keep_values:     # detections not applied: their values are readable (the worst case)
            doc.spans = [ds.__class__(**{**ds.__dict__, "value": d.text[s.start:s.end], "action": "none"})
                         for ds, s in zip(doc.spans, spans)]
        originals[d.doc_id] = [d.text[s.start:s.end] for s in spans]
        out.append(doc)
    return out, originals


def test_meddocan_fixture_reports_point_inside_the_text_and_quote_nothing(meddocan_sample):
    docs, originals = deidentified_fixture(meddocan_sample, keep_values=True)
    reports = by_id(score_run(docs))
    assert set(reports) == {d.doc_id for d in docs}
    for d in docs:
        r = reports[d.doc_id]
        assert r.n_contexts == len(d.spans) and 0 <= r.score <= 100
        values = [v for v in originals[d.doc_id] if len(v) >= 4]
        for x in r.reasons:
            if x.start is not None:
                assert 0 <= x.start < x.end <= len(d.text)
            if x.context_start is not None:
                assert x.context_start <= x.start and x.end <= x.context_end <= len(d.text)
            assert not any(v in x.message for v in values)
    # sixteen documents cannot hide a detailed tuple among five: most carry a quasi-identifier reason
    flagged = [r for r in reports.values() if any(x.kind == QUASI_IDENTIFIER for x in r.reasons)]
    assert len(flagged) >= 12
    assert all(set(x.quasi_identifiers) <= {"age_band", "location", "profession", "year", "sex"}
               for r in flagged for x in r.reasons if x.kind == QUASI_IDENTIFIER)


def test_meddocan_fixture_quasi_identifiers_from_values(meddocan_sample):
    docs, _ = deidentified_fixture(meddocan_sample, keep_values=True)
    tuples = [derive(d) for d in docs]
    assert sum(q.sex is not None for q in tuples) >= 12
    assert sum(q.age_band is not None for q in tuples) >= 12
    assert all(q.sex in (None, "male", "female") for q in tuples)
    # without values the de-identified surface is a placeholder: nothing to derive
    plain, _ = deidentified_fixture(meddocan_sample)
    assert all(derive(d).empty for d in plain)


def test_report_to_dict_shape():
    parts = list(TEMPLATE)
    parts[1] = ("Juan Pérez", "NAME", "NOMBRE_SUJETO_ASISTENCIA", {"action": "keep"})
    r = score_run(template_corpus(2) + [make_doc("odd", parts)])[-1]
    d = r.to_dict()
    assert d["id"] == "odd" and d["colour"] == RED and set(d["scores"]) == {"document-share", "corpus-share"}
    assert {"kind", "message", "level", "start", "end", "category", "type", "strength"} <= set(d["reasons"][0])
