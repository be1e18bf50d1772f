"""The combination policy: union for recall, one span per stretch, never overlapping."""
from __future__ import annotations

import random

import pytest

from pipeline.detection.combine import CombinePolicy, clean_span, combine
from pipeline.detection.steps.registry import StepContext
from pipeline.detection.steps.splits import (add_bracketed_acronyms, hand_street_word_over, split_on_format_rules,
                                             split_relative_name, split_trailing_place)
from pipeline.detection.steps.trims import (strip_age_tail, strip_edge_separators, strip_glued_label,
                                            strip_leading_title, strip_trailing_full_stop,
                                            strip_trailing_function_word, strip_words_before_number)
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Span, SpanError


def S(text, piece, category, type_="", source="rule:x", score=0.9, nth=0):
    start = -1
    for _ in range(nth + 1):
        start = text.index(piece, start + 1)
    return Span("d", start, start + len(piece), category, type_, source, score)


def ctx(text, candidates=(), resolved=()):
    """A boundary step's context: Spanish words, MEDDOCAN's roles."""
    return StepContext.for_locale(text, MEDDOCAN, "es", candidates=candidates, resolved=resolved)


def one(step, span, text):
    """A trim step on one span."""
    return step([span], ctx(text))[0]


def T(text, spans):
    return [(text[s.start:s.end], s.label) for s in spans]


def test_same_category_adjacent_on_blanks_merge():
    text = "Seen in January 2071 for review."
    kept, alt = combine([S(text, "January", "DATE", "DATE", "model:v1", 0.7), S(text, "2071", "DATE", "DATE")], text)
    assert T(text, kept) == [("January 2071", "DATE")]
    assert kept[0].score == 0.9 and kept[0].source == "model:v1"  # best score kept, label from higher priority
    assert alt == []


def test_overlapping_same_category_spans_become_one_covering_span():
    text = "el 10 de octubre de 2016 ingresó"
    kept, _ = combine([S(text, "10 de octubre", "DATE", "FECHAS", "model:v1"),
                       S(text, "octubre de 2016", "DATE", "FECHAS", "rule:dates")], text)
    assert T(text, kept) == [("10 de octubre de 2016", "FECHAS")]


def test_names_do_not_merge_across_newlines_or_punctuation():
    text = "Nombre: Pedro\nApellidos: De Miguel Rivera. Juan, Luis"
    spans = [S(text, "Pedro", "NAME", "PATIENT"), S(text, "De Miguel", "NAME", "PATIENT", "dict:surnames", 1.0),
             S(text, "Rivera", "NAME", "PATIENT", "dict:surnames", 1.0),
             S(text, "Juan", "NAME", "PATIENT"), S(text, "Luis", "NAME", "PATIENT")]
    kept, _ = combine(spans, text)
    assert [t for t, _ in T(text, kept)] == ["Pedro", "De Miguel Rivera", "Juan", "Luis"]


def test_merging_on_blanks_is_configurable_per_category():
    text = "28036 Madrid and Pedro Rivera"
    spans = [S(text, "28036", "LOCATION", "ZIP"), S(text, "Madrid", "LOCATION", "CITY"),
             S(text, "Pedro", "NAME", "PATIENT"), S(text, "Rivera", "NAME", "PATIENT")]
    kept, _ = combine(spans, text)
    assert T(text, kept) == [("28036", "ZIP"), ("Madrid", "CITY"), ("Pedro Rivera", "PATIENT")]
    kept, _ = combine(spans, text, merge_whitespace=set())
    assert len(kept) == 4
    kept, _ = combine(spans, text, merge_whitespace={"NAME"}, max_gap=0)
    assert len(kept) == 4


def test_adjacent_name_parts_with_different_types_merge_into_one_name():
    text = "Dra. María José García López vino"
    spans = [S(text, "María José", "NAME", "DOCTOR", "dict:first_names", 1.0),
             S(text, "García", "NAME", "PATIENT", "dict:surnames", 1.0),
             S(text, "López", "NAME", "PATIENT", "dict:surnames", 1.0)]
    kept, alt = combine(spans, text)
    assert T(text, kept) == [("María José García López", "DOCTOR")]
    assert {t for t, _ in T(text, alt)} == {"García", "López"}  # the losing label stays reviewable


def test_different_categories_resolve_by_score_then_priority():
    text = "He lives in Clarkfield now."
    loc = S(text, "Clarkfield", "LOCATION", "CITY", "dict:cities", 1.0)
    name = S(text, "Clarkfield", "NAME", "PATIENT", "model:v3", 0.7)
    kept, alt = combine([name, loc], text)
    assert T(text, kept) == [("Clarkfield", "CITY")] and T(text, alt) == [("Clarkfield", "PATIENT")]
    # equal scores: source priority decides (human > model > rule > dict by default)
    name_hi = name.with_(score=1.0)
    kept, alt = combine([name_hi, loc], text)
    assert T(text, kept) == [("Clarkfield", "PATIENT")] and T(text, alt) == [("Clarkfield", "CITY")]
    kept, _ = combine([name_hi, loc], text, source_priority=("human", "dict", "model", "rule"))
    assert T(text, kept) == [("Clarkfield", "CITY")]
    kept, _ = combine([name, loc], text, resolve_by=("priority", "score"))
    assert T(text, kept) == [("Clarkfield", "PATIENT")]


def test_human_spans_win_ties_and_are_not_trimmed():
    text = "Dr. Smith, seen."
    human = Span("d", 0, 10, "NAME", "DOCTOR", "human:ana", 1.0)
    dictionary = S(text, "Smith", "LOCATION", "CITY", "dict:cities", 1.0)
    kept, alt = combine([dictionary, human], text)
    assert [(k.start, k.end, k.source) for k in kept] == [(0, 10, "human:ana")]
    assert T(text, alt) == [("Smith", "CITY")]


def test_a_span_inside_a_longer_trusted_span_of_another_category_loses():
    text = "Domicilio: Calle Miguel Benitez 90. Hospital Universitario de Madrid."
    street = S(text, "Calle Miguel Benitez 90", "LOCATION", "CALLE", "rule:streets", 0.85)
    first = S(text, "Miguel", "NAME", "NOMBRE_SUJETO_ASISTENCIA", "dict:first_names", 1.0)
    hosp = S(text, "Hospital Universitario de Madrid", "LOCATION", "HOSPITAL", "rule:hospitals", 0.8)
    city = S(text, "Madrid", "LOCATION", "TERRITORIO", "dict:cities", 1.0)
    surname = S(text, "Madrid", "NAME", "NOMBRE_SUJETO_ASISTENCIA", "dict:surnames", 0.95)
    kept, alt = combine([street, first, hosp, city, surname], text)
    assert T(text, kept) == [("Calle Miguel Benitez 90", "CALLE"), ("Hospital Universitario de Madrid", "HOSPITAL")]
    assert ("Miguel", "NOMBRE_SUJETO_ASISTENCIA") in T(text, alt)
    # a less trusted container does not swallow a model's span
    model_name = S(text, "Miguel Benitez", "NAME", "PATIENT", "model:v1", 0.6)
    dict_street = street.with_(source="dict:streets", score=1.0)
    kept, _ = combine([dict_street, model_name], text, policy=CombinePolicy(containment=True))
    assert T(text, kept) == [("Calle Miguel Benitez 90", "CALLE")]  # by score, not by containment
    kept, _ = combine([dict_street.with_(score=0.5), model_name], text)
    assert T(text, kept) == [("Miguel Benitez", "PATIENT")]


@pytest.mark.parametrize("piece, category, expected", [
    ("Dr. Smith", "NAME", "Smith"),
    ("Smith,", "NAME", "Smith"),
    ("Dra. María", "NAME", "María"),
    ("Mrs. Jones.", "NAME", "Jones"),
    ("Prof. Dr. Gabriel", "NAME", "Gabriel"),
    (" Madrid ", "LOCATION", "Madrid"),
    ("EE.UU.", "LOCATION", "EE.UU."),
    ("(Madrid)", "LOCATION", "Madrid"),
    ("Madrid)", "LOCATION", "Madrid"),
    ('"12 de Octubre"', "LOCATION", "12 de Octubre"),
    ("Hospital (HU12O)", "LOCATION", "Hospital (HU12O)"),
    ("Dr. Smith", "LOCATION", "Dr. Smith"),  # titles are stripped from names only
])
def test_cleaning_trims_titles_and_punctuation(piece, category, expected):
    text = f"x {piece} y"
    span = S(text, piece, category)
    cleaned = clean_span(span, text)
    assert text[cleaned.start:cleaned.end] == expected
    kept, _ = combine([span], text)
    assert T(text, kept)[0][0] == expected


def test_a_title_alone_is_dropped():
    text = "seen by Dr. today"
    assert combine([S(text, "Dr.", "NAME", "DOCTOR")], text) == ([], [])


def test_outputs_never_overlap_on_random_candidates():
    rng = random.Random(7)
    text = "".join(rng.choice("abcde fgh.,\n") for _ in range(400))
    cats = ["NAME", "DATE", "LOCATION", "ID"]
    sources = ["human:a", "model:v1", "rule:r", "dict:d"]
    for _ in range(30):
        spans = []
        for _ in range(40):
            a = rng.randrange(0, 399)
            b = rng.randrange(a + 1, min(400, a + 30) + 1)
            spans.append(Span("d", a, b, rng.choice(cats), "", rng.choice(sources), round(rng.random(), 2)))
        kept, alt = combine(spans, text)
        for x, y in zip(kept, kept[1:]):
            assert x.end <= y.start
        assert all(0 <= s.start < s.end <= len(text) for s in kept + alt)
        # nothing is lost silently: every cleaned candidate overlaps a kept span or an alternative
        for c in spans:
            cc = clean_span(c, text) if not c.source.startswith("human") else c
            if cc is not None:
                assert any(cc.start < o.end and o.start < cc.end for o in kept + alt)


def test_errors_name_offsets_not_text():
    text = "Juan"
    with pytest.raises(SpanError) as e:
        combine([Span("d", 0, 9, "NAME")], text)
    assert "Juan" not in str(e.value) and "0-9" in str(e.value)
    with pytest.raises(SpanError):
        combine([Span("d", 0, 2, "")], text)
    with pytest.raises(SpanError):
        combine([Span("a", 0, 2, "NAME"), Span("b", 0, 2, "NAME")], text)
    with pytest.raises(ValueError):
        combine([Span("d", 0, 2, "NAME")], text, resolve_by=("colour",))
    assert combine([], text) == ([], [])


@pytest.mark.parametrize("drawn, kept", [
    ("Doctora Marta García Torrelles", "Marta García Torrelles"),
    ("Doctor Pablo Garrido Abad", "Pablo Garrido Abad"),
    ("Dr. Nicolás Yanine", "Nicolás Yanine"),
    ("DOCTOR JUAN PÉREZ", "JUAN PÉREZ"),
    ("Doctorado Ruiz", "Doctorado Ruiz"),      # a word that starts like a title is no title
    ("Doctora", "Doctora"),                    # a span that is only a title is left to the caller
])
def test_strip_leading_title_from_names(drawn, kept):
    text = f"Remitido por: {drawn}. Servicio de Urología."
    s = one(strip_leading_title, Span("d", 14, 14 + len(drawn), "NAME", "DOCTOR"), text)
    assert text[s.start:s.end] == kept and s.end == 14 + len(drawn)


def test_strip_leading_title_only_in_names():
    text = "Hospital Doctor Peset, Valencia."
    hosp = Span("d", 9, 21, "LOCATION", "HOSPITAL")
    assert one(strip_leading_title, hosp, text) is hosp


@pytest.mark.parametrize("drawn, kept", [
    ("San Justo.", "San Justo"),                # the sentence's full stop after a town
    ("Villapresente.", "Villapresente"),
    ("México D.F.", "México D.F."),             # an abbreviation keeps its dot
    ("DIAVERUM. CERER, S.A.", "DIAVERUM. CERER, S.A."),
    ("Calle Rivadavia 12, 4 izq.", "Calle Rivadavia 12, 4 izq."),   # short floor words: the gold keeps both
    ("C/ Navarro 3102, Apto.", "C/ Navarro 3102, Apto."),
    ("BILBAO.", "BILBAO."),                     # capitals may be an acronym
    ("Sevilla", "Sevilla"),
])
def test_strip_trailing_full_stop_from_places(drawn, kept):
    text = f"Dirección: {drawn} Buenos Aires"
    s = one(strip_trailing_full_stop, Span("d", 11, 11 + len(drawn), "LOCATION", "TERRITORIO"), text)
    assert text[s.start:s.end] == kept and s.start == 11


def test_strip_trailing_full_stop_only_in_places():
    text = "Remitido por: Francisco Lara Medina. Servicio"
    name = Span("d", 14, 36, "NAME", "DOCTOR")
    assert one(strip_trailing_full_stop, name, text) is name


@pytest.mark.parametrize("drawn, label, kept", [
    ("padre de", "FAMILIARES_SUJETO_ASISTENCIA", "padre"),
    ("hermana gemela de", "FAMILIARES_SUJETO_ASISTENCIA", "hermana gemela"),
    ("Marzo a", "FECHAS", "Marzo"),
    ("Calle de la Paz y", "CALLE", "Calle de la Paz"),
    ("son of", "PATIENT", "son"),
    ("Hospital General de", "HOSPITAL", "Hospital General de"),       # an organisation's name goes on
    ("Universidad Central de", "INSTITUCION", "Universidad Central de"),
    ("Madrid y Alcalá de Henares", "TERRITORIO", "Madrid y Alcalá de Henares"),   # only at the end
    ("de", "FECHAS", "de"),                                          # a span that is only the word stays
])
def test_strip_trailing_function_word(drawn, label, kept):
    text = f"Texto: {drawn} 30 años"
    s = one(strip_trailing_function_word, Span("d", 7, 7 + len(drawn), "OTHER", label), text)
    assert text[s.start:s.end] == kept and s.start == 7


@pytest.mark.parametrize("text, drawn, kept", [
    ("Update given.\nKiniry, RN", "Kiniry,", "Kiniry"),                 # a name stops before ", RN"
    ("Seen by: Dr Okafor; plan as above", "Okafor;", "Okafor"),
    ("Lives in: Vallejo", ": Vallejo", "Vallejo"),
    ("C/ Casanova 101, 2º", "C/ Casanova 101,", "C/ Casanova 101"),
    ("Ward: Kiniry, Jane RN", "Kiniry, Jane", "Kiniry, Jane"),          # the comma inside a name stays
    ("BP 120/80, HR 88", "120/80", "120/80"),                           # no separator: the same span
    ("ED TRIAGE - Valencia Clinic", "- Valencia", "Valencia"),
    ("from home (Hutchinson, Kansas)", "(Hutchinson", "Hutchinson"),
    ("Kansas) after a fall", "Kansas)", "Kansas"),
    ("call (617) 555 0142 today", "(617) 555 0142", "(617) 555 0142"),  # a bracket closed inside stays
    ("seen by -ch at 0400", "-ch", "ch"),
    ("Mary Smith-Jones", "Mary Smith-Jones", "Mary Smith-Jones"),
])
def test_strip_edge_separators(text, drawn, kept):
    start = text.index(drawn)
    drawn_span = Span("d", start, start + len(drawn), "NAME", "DOCTOR", "model:v")
    s = one(strip_edge_separators, drawn_span, text)
    assert text[s.start:s.end] == kept
    if kept == drawn:
        assert s is drawn_span


@pytest.mark.parametrize("text, drawn, category, kept", [
    ("Accompanied by son Hezron; contact 774 555 0129.", "contact 774 555 0129", "CONTACT", "774 555 0129"),
    ("Tel. 91 555 01 02", "Tel. 91 555 01 02", "CONTACT", "91 555 01 02"),
    ("fax: (617) 555 0100", "fax: (617) 555 0100", "CONTACT", "(617) 555 0100"),
    ("Mobile +44 7700 900123", "Mobile +44 7700 900123", "CONTACT", "+44 7700 900123"),
    ("call 1-800-FLOWERS", "1-800-FLOWERS", "CONTACT", "1-800-FLOWERS"),
    ("plate ABC 1234 seen", "ABC 1234", "ID", "ABC 1234"),                 # not a contact: as drawn
    ("Seen on March 3 2070", "March 3 2070", "DATE", "March 3 2070"),
    ("contact", "contact", "CONTACT", "contact"),                           # nothing after the words
])
def test_strip_words_before_number(text, drawn, category, kept):
    start = text.index(drawn)
    s = one(strip_words_before_number, Span("d", start, start + len(drawn), category, "", "model:v"), text)
    assert text[s.start:s.end] == kept


def test_strip_edge_separators_drops_a_span_of_separators_only():
    text = "Kiniry, RN"
    assert strip_edge_separators([Span("d", 6, 7, "NAME", "DOCTOR", "model:v")], ctx(text)) == []


def test_every_western_pack_trims_model_spans_edges():
    from pipeline.detection.steps.registry import pack_for
    for locale in ("en", "es", "de"):
        names = [s.name for s in pack_for(locale).steps_in("model")]
        assert "strip_edge_separators" in names and "strip_words_before_number" in names


def _contact_line(text: str, model: list[str], rules: list[tuple[str, str, str]]):
    """Model spans (type NUMERO_TELEFONO) and format-rule spans (text, type, rule) found in ``text``."""
    ms = [Span("d", text.index(m), text.index(m) + len(m), "CONTACT", "NUMERO_TELEFONO", "model:v") for m in model]
    rs = [Span("d", text.index(t), text.index(t) + len(t), "CONTACT", ty, f"rule:{r}") for t, ty, r in rules]
    return ms, rs


def test_split_on_format_rules_never_leaves_overlaps():
    text = "Tlf. 609 518571 / Fax 93 2607982 Calle 93 2607982"
    ms = [Span("d", 5, 24, "CONTACT", "NUMERO_TELEFONO", "model:v"),       # "609 518571 / Fax 93"
          Span("d", 25, 32, "LOCATION", "TERRITORIO", "model:v")]          # "2607982", inside the fax
    rs = [Span("d", 5, 15, "CONTACT", "NUMERO_TELEFONO", "rule:phones"),
          Span("d", 22, 32, "CONTACT", "NUMERO_FAX", "rule:phones")]
    out = split_on_format_rules(ms, ctx(text, resolved=rs))
    assert [(text[s.start:s.end], s.label) for s in out] == [("609 518571", "NUMERO_TELEFONO"), ("93 2607982", "NUMERO_FAX")]
    # a model span that runs on past the rule's span is cut at its edge: every character stays covered
    ms2 = [ms[0], Span("d", 25, 38, "LOCATION", "CALLE", "model:v")]           # "2607982 Calle"
    out2 = split_on_format_rules(ms2, ctx(text, resolved=rs))
    assert [(text[s.start:s.end], s.label) for s in out2] == [
        ("609 518571", "NUMERO_TELEFONO"), ("93 2607982", "NUMERO_FAX"), ("Calle", "CALLE")]
    assert set(range(5, 38)) - {i for s in out2 for i in range(s.start, s.end)} <= {15, 16, 17, 18, 19, 20, 21, 32}


@pytest.mark.parametrize("text, model, rules, kept", [
    # numbers a model ran together, with separators and field labels between them
    ("Telfs.: 918823884 / 918823984 / 619128686. Correo", ["918823884 / 918823984 / 619128686"],
     [("918823884", "NUMERO_TELEFONO", "phones"), ("918823984", "NUMERO_TELEFONO", "phones"),
      ("619128686", "NUMERO_TELEFONO", "phones")],
     [("918823884", "NUMERO_TELEFONO"), ("918823984", "NUMERO_TELEFONO"), ("619128686", "NUMERO_TELEFONO")]),
    ("Tfno. 848428434 Fax 848422528", ["848428434 Fax 848422528"],
     [("848428434", "NUMERO_TELEFONO", "phones"), ("848422528", "NUMERO_FAX", "phones")],
     [("848428434", "NUMERO_TELEFONO"), ("848422528", "NUMERO_FAX")]),
    # the model's span starts at the label and stops inside the second number
    ("Barcelona Tlf. 609 518571 / Fax 93 2607982 E-mail", ["Tlf. 609 518571 / Fax 93"],
     [("609 518571", "NUMERO_TELEFONO", "phones"), ("93 2607982", "NUMERO_FAX", "phones")],
     [("609 518571", "NUMERO_TELEFONO"), ("93 2607982", "NUMERO_FAX")]),
    # a label the model took into an address
    ("Madrid E-mail-jdemiguel@geodental.com", ["-mail-jdemiguel@geodental.com"],
     [("jdemiguel@geodental.com", "CORREO_ELECTRONICO", "email")], [("jdemiguel@geodental.com", "CORREO_ELECTRONICO")]),
    # any other word in the model's span: kept as the model drew it
    ("Calle Mayor 5, 609518571", ["Calle Mayor 5, 609518571"], [("609518571", "NUMERO_TELEFONO", "phones")],
     [("Calle Mayor 5, 609518571", "NUMERO_TELEFONO")]),
    # a rule that reads words, not a format, never splits a model span
    ("Hospital Sur / Hospital Norte", ["Hospital Sur / Hospital Norte"],
     [("Hospital Sur", "HOSPITAL", "hospitals"), ("Hospital Norte", "HOSPITAL", "hospitals")],
     [("Hospital Sur / Hospital Norte", "NUMERO_TELEFONO")]),
    # a header field's values the model ran together are split as the rule splits them
    ("Localidad/ Provincia: San Lucas, Coyoacan, CDMX.", ["San Lucas, Coyoacan, CDMX"],
     [("San Lucas", "TERRITORIO", "header_fields"), ("Coyoacan", "TERRITORIO", "header_fields"),
      ("CDMX", "TERRITORIO", "header_fields")],
     [("San Lucas", "TERRITORIO"), ("Coyoacan", "TERRITORIO"), ("CDMX", "TERRITORIO")]),
    # but one value keeps the model's edges (the gold is split on "4 Izq.." and "4 Izq.")
    ("Domicilio: Calle Tudela, 27, 4 der..", ["Calle Tudela, 27, 4 der."],
     [("Calle Tudela, 27, 4 der", "CALLE", "header_fields")], [("Calle Tudela, 27, 4 der.", "NUMERO_TELEFONO")]),
    # the rule agrees with the model: nothing changes
    ("Tfno. 848428434", ["848428434"], [("848428434", "NUMERO_TELEFONO", "phones")], [("848428434", "NUMERO_TELEFONO")]),
])
def test_split_on_format_rules(text, model, rules, kept):
    ms, rs = _contact_line(text, model, rules)
    out = split_on_format_rules(ms, ctx(text, resolved=rs))
    assert [(text[s.start:s.end], s.label) for s in out] == kept
    assert all(not (a.start < b.end and b.start < a.end) for a, b in zip(out, out[1:]))


@pytest.mark.parametrize("text, org, town, kept", [
    # an affiliation the model ran into the town after it (MEDDOCAN's gold: two spans)
    ("Hospital Virgen Del Puerto Plasencia. Av. Paraje", "Hospital Virgen Del Puerto Plasencia", "Plasencia",
     [("Hospital Virgen Del Puerto", "HOSPITAL"), ("Plasencia", "TERRITORIO")]),
    ("Instituto Colombiano del Dolor Medellín, Colombia", "Instituto Colombiano del Dolor Medellín", "Medellín",
     [("Instituto Colombiano del Dolor", "INSTITUCION"), ("Medellín", "TERRITORIO")]),
    ("glicerina (Endoperox®, Septodont Francia).", "Septodont Francia", "Francia",
     [("Septodont", "INSTITUCION"), ("Francia", "PAIS")]),
    # the town is part of the name: after an article, a linking word, a generic or a street word,
    # or after "de"
    ("Hospital Universitario La Paz de Madrid", "Hospital Universitario La Paz", "Paz", None),
    ("Hospital Clinic i Provincial Barcelona", "Hospital Clinic i Provincial Barcelona", "Barcelona", None),
    ("Hospital Universitario Donostia, San Sebastián", "Hospital Universitario Donostia", "Donostia", None),
    ("Hospital de Getafe Carretera Toledo 28905", "Hospital de Getafe Carretera Toledo", "Toledo", None),
    ("Instituto de Medicina Legal de Málaga", "Instituto de Medicina Legal de Málaga", "Málaga", None),
    ("Hospital Torrevieja", "Hospital Torrevieja", "Torrevieja", None),
    # not an organisation: a street keeps its town for the other rules and the gold to decide
    ("Calle Mayor Sevilla", "Calle Mayor Sevilla", "Sevilla", None),
])
def test_split_trailing_place(text, org, town, kept):
    label = "CALLE" if org.startswith("Calle") else "HOSPITAL" if org.startswith("Hospital") else "INSTITUCION"
    model = [Span("d", text.index(org), text.index(org) + len(org), "LOCATION", label, "model:v")]
    t0 = text.rindex(town, 0, model[0].end)
    kind = ("PAIS", "dict:countries") if town == "Francia" else ("TERRITORIO", "dict:cities")
    towns = [Span("d", t0, t0 + len(town), "LOCATION", *kind),
             Span("d", t0, t0 + len(town), "LOCATION", "TERRITORIO", "rule:header_fields")]   # not a place list
    out = split_trailing_place(model, ctx(text, candidates=towns))
    if kept is None:
        assert out == model
        return
    assert [(text[s.start:s.end], s.label) for s in out] == kept
    assert out[1].source == kind[1]
    # nothing the model covered is left uncovered but the blank between the two
    covered = {i for s in out for i in range(s.start, s.end)}
    assert set(range(model[0].start, model[0].end)) - covered == {out[0].end}


def test_split_trailing_place_takes_the_longest_town():
    text = "Clínica Dental Sonrisa Alcalá Henares"       # both the town and its last word are listed
    org = Span("d", 0, len(text), "LOCATION", "HOSPITAL", "model:v")
    whole, tail = text.index("Alcalá"), text.index("Henares")
    towns = [Span("d", tail, len(text), "LOCATION", "TERRITORIO", "dict:provinces"),
             Span("d", whole, len(text), "LOCATION", "TERRITORIO", "dict:cities")]
    out = split_trailing_place([org], ctx(text, candidates=towns))
    assert [text[s.start:s.end] for s in out] == ["Clínica Dental Sonrisa", "Alcalá Henares"]


@pytest.mark.parametrize("text, span, category, kept", [
    ("Paciente de 5 años y 7 meses de edad, sin antecedentes", "5 años y 7 meses de edad", "AGE", "5 años y 7 meses"),
    ("a girl 7 years of age", "7 years of age", "AGE", "7 years"),
    ("una niña de 3 años", "3 años", "AGE", "3 años"),                       # nothing to strip
    ("de edad", "de edad", "AGE", "de edad"),                               # never emptied
    ("Residencia de edad avanzada", "Residencia de edad", "LOCATION", "Residencia de edad"),   # ages only
])
def test_strip_age_tail(text, span, category, kept):
    s = one(strip_age_tail, Span("d", text.index(span), text.index(span) + len(span), category, "T"), text)
    assert text[s.start:s.end] == kept


@pytest.mark.parametrize("text, span, name, kept", [
    ("acompañada de su madre Carmen y su hermano", "madre Carmen", "Carmen", ["madre", "Carmen"]),
    ("Su hermana mayor Maite no es portadora", "hermana mayor Maite", "Maite", ["hermana mayor", "Maite"]),
    # the name must end the span and be a first-name hit; the words before it lower-case
    ("su madre Carmen Ruiz vino", "madre Carmen Ruiz", "Carmen", ["madre Carmen Ruiz"]),
    ("la hermana Gemela", "hermana Gemela", None, ["hermana Gemela"]),
    ("Tía Carmen vino", "Tía Carmen", "Carmen", ["Tía Carmen"]),
])
def test_split_relative_name(text, span, name, kept):
    model = [Span("d", text.index(span), text.index(span) + len(span), "OTHER", "FAMILIARES_SUJETO_ASISTENCIA", "model:v")]
    names = [] if name is None else [
        Span("d", text.index(name), text.index(name) + len(name), "NAME", "NOMBRE_SUJETO_ASISTENCIA", "dict:first_names")]
    out = split_relative_name(model, ctx(text, candidates=names))
    assert [text[s.start:s.end] for s in out] == kept
    assert all(s.label == "FAMILIARES_SUJETO_ASISTENCIA" and s.source == "model:v" for s in out)
    # another type is never split
    other = [model[0].with_(category="NAME", type="NOMBRE_SUJETO_ASISTENCIA")]
    assert split_relative_name(other, ctx(text, candidates=names)) == other


@pytest.mark.parametrize("text, org, street, kept", [
    ("Hospital Sant Joan de Déu Passeig Sant Joan de Déu, 2 08950", "Hospital Sant Joan de Déu Passeig",
     "Sant Joan de Déu, 2", ["Hospital Sant Joan de Déu", "Passeig Sant Joan de Déu, 2"]),
    ("Hospital de Cantoblanco. Carr. Vía de Servicio, Km 14.500,", "Hospital de Cantoblanco. Carr",
     "Vía de Servicio, Km 14.500", ["Hospital de Cantoblanco", "Carr. Vía de Servicio, Km 14.500"]),
    # "Camino" ends hospital names too; a word that is not a street's opener stays
    ("Hospital Virgen del Camino Irunlarrea, 4 31008", "Hospital Virgen del Camino", "Irunlarrea, 4",
     ["Hospital Virgen del Camino", "Irunlarrea, 4"]),
    # no street span right after it: nothing moves
    ("Hospital Central Avda. y luego Mayor 5", "Hospital Central Avda", "Mayor 5", ["Hospital Central Avda", "Mayor 5"]),
    # a doctor's name that took the street's first word
    ("Remitido por: Igor Azurmendi Arin Apartado Calle Oria 9, 3D, 48080", "Igor Azurmendi Arin Apartado",
     "Calle Oria 9, 3D", ["Igor Azurmendi Arin", "Apartado Calle Oria 9, 3D"]),
    ("Remitido por:Josep Rubio Palau Paseo. Av. Vall d´Hebron, 119-129 08035", "Josep Rubio Palau Paseo",
     "Av. Vall d´Hebron, 119-129", ["Josep Rubio Palau", "Paseo. Av. Vall d´Hebron, 119-129"]),
])
def test_hand_street_word_over(text, org, street, kept):
    o, s0 = text.index(org), text.index(street, text.index(org) + len(org))
    first = ("NAME", "NOMBRE_PERSONAL_SANITARIO") if org.startswith(("Igor", "Josep")) else ("LOCATION", "HOSPITAL")
    model = [Span("d", o, o + len(org), *first, "model:v"),
             Span("d", s0, s0 + len(street), "LOCATION", "CALLE", "model:v")]
    out = hand_street_word_over(model, ctx(text))
    assert [text[s.start:s.end] for s in out] == kept
    assert [s.label for s in out] == [first[1], "CALLE"]
    assert out[0].end <= out[1].start
    # a date or any other type keeps its word
    other = [model[0].with_(category="DATE", type="FECHAS"), model[1]]
    assert hand_street_word_over(other, ctx(text)) == other


@pytest.mark.parametrize("text, model, kept", [
    ("Hospital Universitario La Paz (HULP). Paseo", [("Hospital Universitario La Paz", "HOSPITAL")],
     [("Hospital Universitario La Paz", "HOSPITAL"), ("HULP", "HOSPITAL")]),
    # a model span that took the bracket gives way to the acronym
    ("Complejo Hospitalario de Vigo (CHUVI). C/ Pizarro", [("Complejo Hospitalario de Vigo", "HOSPITAL"),
                                                           ("CHUVI)", "INSTITUCION")],
     [("Complejo Hospitalario de Vigo", "HOSPITAL"), ("CHUVI", "HOSPITAL")]),
    # not an acronym (one capital, lower case), not after an organisation, or a span running past it
    ("Hospital del Mar (Barcelona)", [("Hospital del Mar", "HOSPITAL")], [("Hospital del Mar", "HOSPITAL")]),
    ("Hospital del Mar (A)", [("Hospital del Mar", "HOSPITAL")], [("Hospital del Mar", "HOSPITAL")]),
    ("Calle Mayor (CM) 5", [("Calle Mayor", "CALLE")], [("Calle Mayor", "CALLE")]),
    ("Hospital Sur (HS) Calle Mayor", [("Hospital Sur", "HOSPITAL"), ("HS) Calle Mayor", "CALLE")],
     [("Hospital Sur", "HOSPITAL"), ("HS) Calle Mayor", "CALLE")]),
])
def test_add_bracketed_acronyms(text, model, kept):
    spans = [Span("d", text.index(t), text.index(t) + len(t), "LOCATION", label, "model:v", 0.8) for t, label in model]
    out = add_bracketed_acronyms(spans, ctx(text))
    assert [(text[s.start:s.end], s.label) for s in out] == kept
    assert all(s.source == "model:v" and s.score == 0.8 for s in out)


@pytest.mark.parametrize("text, span, kept", [
    ("Dra. Lucrecia Sánchez-Rubio FerrándezCorreo electrónico: l@r.es", "Lucrecia Sánchez-Rubio FerrándezCorreo",
     "Lucrecia Sánchez-Rubio Ferrández"),
    ("Juan PérezTfno. 600", "Juan PérezTfno", "Juan Pérez"),
    ("Calle del Correo 5", "Calle del Correo", "Calle del Correo"),        # a word of its own: kept
    ("Fax", "Fax", "Fax"),                                                  # never emptied
])
def test_strip_glued_label(text, span, kept):
    s = one(strip_glued_label, Span("d", text.index(span), text.index(span) + len(span), "NAME", "T"), text)
    assert text[s.start:s.end] == kept
