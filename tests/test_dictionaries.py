"""Dictionary matching (offsets through normalisation, whole words, case/accents, stop-lists,
titles, uploads) and the shipped locale lists it reads."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.detection.dictionaries import DictionaryMatcher
from pipeline.detection.dictionary_lists import DictionaryList, make_list, shipped_lists
from pipeline.detection.dictionary_text import normalize
from pipeline.locales import available_lists, load_list
from pipeline.schemas import I2B2_2014, MEDDOCAN, SchemaError


def _lst(name, category, type_, entries, proper=True):
    return DictionaryList(name=name, category=category, type=type_, entries=tuple(entries), proper_noun=proper)


def _hits(matcher, text):
    return [(text[s.start:s.end], s.type, s.source, s.score) for s in matcher.match(text, "d")]


# --- shipped lists ---------------------------------------------------------------------------

@pytest.mark.parametrize("locale, region", [("en", "states"), ("es", "provinces")])
def test_shipped_lists_exist_and_are_sizeable(locale, region):
    names = set(available_lists(locale))
    assert {"first_names", "surnames", "cities", region, "countries", "hospitals", "organizations",
            "streets", "professions"} <= names
    assert len(load_list(locale, "first_names")) >= 300 and len(load_list(locale, "surnames")) >= 300
    assert len(load_list(locale, "cities")) >= 100 and len(load_list(locale, "countries")) >= 100
    assert len(load_list(locale, "hospitals")) >= 50 and len(load_list(locale, "professions")) >= 50
    for name in names:
        entries = load_list(locale, name)
        assert entries and not any(e.startswith("#") or not e.strip() for e in entries)
        assert len(entries) == len(set(entries))


def test_load_list_skips_header_and_knows_aliases():
    raw = (Path(__file__).parents[1] / "pipeline" / "locales" / "es" / "cities.txt").read_text(encoding="utf-8")
    assert raw.startswith("# source: compiled for this project")
    assert "Madrid" in load_list("es", "cities") and "Málaga" in load_list("es", "cities")
    assert load_list("es", "states") == load_list("es", "provinces")  # regions under either name
    assert "España" in load_list("es", "countries") and "Spain" in load_list("en", "countries")
    with pytest.raises(KeyError):
        load_list("es", "no_such_list")
    with pytest.raises(KeyError):
        load_list("es", "../en/cities")
    first = load_list("en", "cities")
    first.append("mutated")
    assert "mutated" not in load_list("en", "cities")


def test_professions_are_shipped_but_not_matched_by_default():
    assert "professions" not in {lst.name for lst in shipped_lists("es")}
    assert "professions" in {lst.name for lst in shipped_lists("es", names=["professions"])}


# --- normalisation and offsets ------------------------------------------------------------------

def test_normalize_offset_map_handles_length_changes():
    text = "Straße ﬁne  Jose\u0301"
    norm, owner = normalize(text)
    assert norm == "strasse fine jose"
    assert len(owner) == len(norm)
    assert owner[norm.index("ss")] == owner[norm.index("ss") + 1] == text.index("ß")
    assert norm[-1] == "e" and owner[-1] == text.index("e\u0301")


def test_matches_map_back_to_exact_original_offsets():
    m = DictionaryMatcher.from_lists([
        _lst("streets", "LOCATION", "STREET", ["Hauptstrasse"]),
        _lst("names", "NAME", "PATIENT", ["José", "Fine", "Josefina"]),
    ])
    text = "Vive en Hauptstraße 5; José y Jose\u0301 y JOSEFINA; ﬁne."
    got = {(text[s.start:s.end], s.start, s.end) for s in m.match(text, "d")}
    assert ("Hauptstraße", 8, 19) in got
    assert ("José", text.index("José"), text.index("José") + 4) in got
    decomposed = text.index("Jose\u0301")
    assert ("Jose\u0301", decomposed, decomposed + 5) in got  # the combining accent is inside the span
    assert ("JOSEFINA", text.index("JOSEFINA"), text.index("JOSEFINA") + 8) in got
    assert not any(t == "ﬁne" for t, _, _ in got)  # lower-case word against a proper noun


def test_whole_words_only_and_case_accent_insensitive():
    m = DictionaryMatcher.from_lists([_lst("cities", "LOCATION", "CITY", ["Málaga", "León"])], schema=MEDDOCAN)
    text = "Vive en MALAGA y en Malaga; Málagas no; nació en Leónidas; trabaja en León."
    got = _hits(m, text)
    assert [(t, sc) for t, _, _, sc in got] == [("MALAGA", 0.9), ("Malaga", 0.9), ("León", 1.0)]
    assert {ty for _, ty, _, _ in got} == {"TERRITORIO"} and {src for _, _, src, _ in got} == {"dict:cities"}


def test_multiword_entries_tolerate_extra_blanks_but_not_newlines():
    m = DictionaryMatcher.from_lists([_lst("cities", "LOCATION", "CITY", ["Santa Cruz de Tenerife"])])
    text = "En Santa  Cruz de Tenerife y en Santa Cruz\nde Tenerife"
    got = [(s.start, s.end) for s in m.match(text, "d")]
    assert got == [(3, 3 + len("Santa  Cruz de Tenerife"))]


def test_longest_nested_hit_wins_within_a_category():
    m = DictionaryMatcher.from_lists([_lst("cities", "LOCATION", "CITY", ["Santa Cruz", "Santa Cruz de Tenerife"])])
    text = "Santa Cruz de Tenerife"
    assert [(s.start, s.end) for s in m.match(text, "d")] == [(0, len(text))]


# --- stop-words and proper nouns ------------------------------------------------------------

def test_english_stop_words_need_capitals_mid_sentence():
    m = DictionaryMatcher.from_lists([_lst("first_names", "NAME", "PATIENT", ["Will", "May", "Hope"]),
                                      _lst("surnames", "NAME", "PATIENT", ["Smith"])], schema=I2B2_2014, locale="en")
    text = "Will you call? He will. Patient Will Smith may go in May. Her friend Hope came."
    got = [t for t, *_ in _hits(m, text)]
    assert got.count("Will") == 1 and text[text.index("Will Smith"):].startswith("Will")
    assert "May" not in got and "may" not in got and "will" not in got
    assert "Hope" in got and "Smith" in got


def test_spanish_common_words_are_not_names():
    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    text = "Dolores abdominales. Presenta un nódulo blanco. La paciente, Dolores Blanco, acude. Test de ELISA."
    got = [t for t, *_ in _hits(m, text)]
    assert got == ["Dolores", "Blanco"]
    start = text.index("Dolores Blanco")
    assert [s.start for s in m.match(text, "d")] == [start, start + len("Dolores ")]


def test_acronyms_in_capitals_are_not_first_names():
    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    assert _hits(m, "Anticuerpos ANA negativos, EVA 8/10.") == []
    assert [t for t, *_ in _hits(m, "Apellidos: GARCÍA LÓPEZ.")] == ["GARCÍA", "LÓPEZ"]


def test_manufacturers_beside_a_drug_or_device_are_institutions():
    """Case reports name the maker in brackets; MEDDOCAN's guideline counts makers as institutions."""
    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    text = ("Prednisona 1 mg/kg/día (Dacortin 30 mg, Merck, Barcelona), lente de Alcon Cusí y prótesis "
            "(Boston Scientific). Tinción de Diff-Quick (Merck).")
    got = {(text[s.start:s.end], s.type, s.source) for s in m.match(text, "d")}
    assert {("Merck", "INSTITUCION", "dict:manufacturers"), ("Alcon Cusí", "INSTITUCION", "dict:manufacturers"),
            ("Boston Scientific", "INSTITUCION", "dict:manufacturers")} <= got
    assert [text[s.start:s.end] for s in m.match(text, "d")].count("Merck") == 2
    # the English pack ships the same makers, typed for the i2b2 schema
    en = DictionaryMatcher.shipped("en", I2B2_2014)
    assert [(s.type, s.source) for s in en.match("Stent by Boston Scientific was placed.", "d")] == [
        ("ORGANIZATION", "dict:manufacturers")]


def test_official_country_names_are_found_whole_but_never_drawn_as_surrogates():
    """An official name ("República Argentina") is one country in MEDDOCAN's gold, not a word and a
    country; the long names are for detection only: not CRF features, and surrogates draw from
    ``countries``, which does not hold them."""
    from models.crf_tags import Gazetteer
    from pipeline.locales import load_list

    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    text = "Policía de la Provincia de Buenos Aires (República Argentina). Vivió en Guinea Bissau."
    got = [(text[s.start:s.end], s.type) for s in m.match(text, "d") if s.type == "PAIS"]
    assert got == [("República Argentina", "PAIS"), ("Guinea Bissau", "PAIS")]
    names = {n for ns in Gazetteer.for_locale("es").table.values() for n in ns}
    assert "countries" in names and "countries_official" not in names
    assert "República Argentina" not in load_list("es", "countries")


# --- titles ------------------------------------------------------------------------------------

def test_titles_are_never_part_of_names_and_mark_doctors():
    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    text = "Remitido por: Dra. Lucía Romero. La Sra. Romero acude."
    got = [(text[s.start:s.end], s.type) for s in m.match(text, "d")]
    assert ("Lucía", "NOMBRE_PERSONAL_SANITARIO") in got
    assert got[-1] == ("Romero", "NOMBRE_SUJETO_ASISTENCIA")
    assert not any(t.startswith(("Dr", "Sr")) for t, _ in got)
    up = make_list("NAME", "DOCTOR", "staff", ["Dr. Ana Ruiz", "  Prof. Luis Gil  "], schema=I2B2_2014)
    assert up.entries == ("Ana Ruiz", "Luis Gil")


# --- uploaded lists -------------------------------------------------------------------------

def test_make_list_validates_label_and_cleans_entries():
    lst = make_list("LOCATION", "HOSPITAL", "local clinics", ["# comment", "Clínica Sur", "clinica sur", "", "X"],
                    schema=MEDDOCAN)
    assert lst.entries == ("Clínica Sur",) and lst.origin == "uploaded" and lst.proper_noun
    with pytest.raises(SchemaError) as e:
        make_list("LOCATION", "WARD", "wards", ["Ward 5"], schema=MEDDOCAN)
    assert "Ward 5" not in str(e.value)
    with pytest.raises(ValueError) as e:
        make_list("NAME", "PATIENT", "roster", ["Al", "  "], schema=I2B2_2014)
    assert "Al" not in str(e.value).split("'")[0]
    with pytest.raises(ValueError):
        make_list("NAME", "PATIENT", "bad/name", ["Anna"])


def test_uploaded_list_in_matcher_uses_schema_types():
    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    m.add_list("LOCATION", "CENTRO_SALUD", "centros", ["Centro de Salud Las Águilas"])
    text = "Acude al centro de salud las aguilas y al Centro de Salud Las Águilas."
    got = [(text[s.start:s.end], s.type, s.source, s.score) for s in m.match(text, "d") if s.source == "dict:centros"]
    # a lower-case word is not the proper noun; the capitalised one is an exact hit
    assert got == [("Centro de Salud Las Águilas", "CENTRO_SALUD", "dict:centros", 1.0)]
    m.add_list("LOCATION", "CENTRO_SALUD", "centros", ["Consultorio Norte"])  # replaces the list
    assert not [s for s in m.match(text, "d") if s.source == "dict:centros"]


def test_non_proper_noun_lists_match_lower_case():
    m = DictionaryMatcher.from_lists([_lst("professions", "PROFESSION", "PROFESSION", ["minero", "albañil"], proper=False)],
                                     schema=MEDDOCAN)
    text = "Paciente minero jubilado; antes ALBAÑIL."
    assert _hits(m, text) == [("minero", "PROFESION", "dict:professions", 1.0), ("ALBAÑIL", "PROFESION", "dict:professions", 0.9)]


def test_empty_matcher_and_text():
    assert DictionaryMatcher.from_lists([]).match("Madrid", "d") == []
    assert DictionaryMatcher.shipped("es").match("", "d") == []


def test_fixture_places_are_found(meddocan_sample):
    """Countries and towns of the fixture documents: the shipped lists find most, with types for MEDDOCAN."""
    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    tp = fp = gold_n = 0
    for txt in sorted((meddocan_sample / "brat").glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        gold = set()
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                label, a, b = line.split("\t")[1].split(" ")[:3]
                if label == "PAIS":
                    gold.add((int(a), int(b), label))
        gold_n += len(gold)
        pred = {(s.start, s.end, s.type) for s in m.match(text, txt.stem) if s.type == "PAIS"}
        tp += len(pred & gold)
        fp += len(pred - gold)
    assert gold_n >= 20 and tp / gold_n >= 0.9 and fp <= 3


def test_in_a_line_written_in_capitals_a_lone_surname_needs_company():
    """Case says nothing in capitals: "OJO IZQUIERDO" and "POLO SUPERIOR" hold words that are also
    surnames; beside another name, after a doctor's title or a field label they stay names."""
    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    assert _hits(m, "EXPLORACIÓN DEL OJO IZQUIERDO Y DEL POLO SUPERIOR DEL RIÑÓN.") == []
    got = [t for t, *_ in _hits(m, "PACIENTE REMITIDA A CONSULTA DEL DR. POLO POR DOLOR EN EL OJO IZQUIERDO.")]
    assert got == ["POLO"]
    assert [t for t, *_ in _hits(m, "NOMBRE: ROSA IZQUIERDO PAREDES, VISTA EN URGENCIAS.")] == \
        ["ROSA", "IZQUIERDO", "PAREDES"]
    assert [t for t, *_ in _hits(m, "APELLIDOS: CORTES.\nACUDE POR DOLOR EN EL OJO IZQUIERDO.")] == ["CORTES"]
    # as written, case still decides: the mixed-case line keeps its capitalised surname
    assert [t for t, *_ in _hits(m, "Vista por el servicio; la paciente Izquierdo refiere dolor.")] == ["Izquierdo"]
    # a list the lead uploaded (a staff roster) is trusted in capitals too
    m.add_list("NAME", "NOMBRE_PERSONAL_SANITARIO", "roster", ["Polo"])
    assert any(t == "POLO" for t, *_ in _hits(m, "EXPLORACIÓN DEL POLO SUPERIOR DEL RIÑÓN IZQUIERDO."))
