"""Spanish rule pack: each recognizer on MEDDOCAN fixture documents (compared with their gold
spans) and on short lines written like MEDDOCAN's, with the boundaries MEDDOCAN uses.

Assertions compare offsets and labels; no document text is printed.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.detection.rules import get_pack, get_recognizer, register, run_rules, to_schema
from pipeline.detection.rules.typemap import map_type
from pipeline.schemas import I2B2_2014, MEDDOCAN, GERMAN
from pipeline.spans import Span

FIXTURE = Path(__file__).parent / "fixtures" / "meddocan" / "brat"


def _load(folder: Path) -> list[tuple[str, str, set[tuple[int, int, str]]]]:
    """(doc_id, text, gold) from brat files: a tiny reader so these tests stand on their own."""
    docs = []
    for txt in sorted(folder.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        gold = set()
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                label, start, end = line.split("\t")[1].split(" ")[:3]
                gold.add((int(start), int(end), label))
        docs.append((txt.stem, text, gold))
    return docs


@pytest.fixture(scope="module")
def fixture_docs():
    return _load(FIXTURE)


def _score(docs, rule: str) -> tuple[int, int, int, set[str]]:
    """tp, fp, fn (fn counted over the types the rule emitted at least once)."""
    tp = fp = 0
    emitted: set[str] = set()
    preds = []
    for doc_id, text, gold in docs:
        pred = {(s.start, s.end, s.type) for s in run_rules(text, doc_id, "es", MEDDOCAN, only={rule})}
        emitted |= {p[2] for p in pred}
        preds.append((pred, gold))
    fn = 0
    for pred, gold in preds:
        tp += len(pred & gold)
        fp += len(pred - gold)
        fn += len({g for g in gold if g[2] in emitted} - pred)
    return tp, fp, fn, emitted


def _texts(text: str, rule: str, schema=MEDDOCAN) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.type) for s in run_rules(text, "t", "es", schema, only={rule})]


# --- registry ---------------------------------------------------------------------------

def test_pack_lists_the_recognizers_and_sources():
    names = [r.name for r in get_pack("es")]
    for expected in ("header_fields", "doctor_names", "colegiado", "record_numbers", "dates", "ages", "sex",
                     "phones", "postal_codes", "streets", "hospitals", "maker_places", "email", "url", "ipaddr"):
        assert expected in names
    spans = run_rules("Fecha de nacimiento: 03/03/1946.", "d1", "es", MEDDOCAN)
    assert spans and all(s.source.startswith("rule:") and 0 < s.score <= 1 and s.doc_id == "d1" for s in spans)
    assert {s.source for s in spans} == {"rule:header_fields", "rule:dates"}
    for s in spans:
        assert s.score == get_recognizer("es", s.source.split(":", 1)[1]).score


def test_unknown_locale_is_a_key_error():
    with pytest.raises(KeyError):
        get_pack("xx")


def test_register_adds_and_replaces_a_rule():
    calls = []

    @register("es", "test_only_rule", "ID", score=0.5)
    def _rule(text, doc_id):
        calls.append(doc_id)
        return [Span(doc_id, 0, 3, "ID", "IDNUM")]

    try:
        out = run_rules("ABC123", "d", "es", MEDDOCAN, only={"test_only_rule"})
        assert [(s.start, s.end, s.type, s.source, s.score) for s in out] == [
            (0, 3, "OTRO_NUMERO_IDENTIF", "rule:test_only_rule", 0.5)]
        assert run_rules("ABC123", "d", "es", MEDDOCAN, exclude={"test_only_rule"}, only={"test_only_rule"}) == []
    finally:
        from pipeline.detection.rules import _PACKS
        _PACKS["es"].pop("test_only_rule", None)
    assert "test_only_rule" not in [r.name for r in get_pack("es")]


def test_generic_types_map_onto_each_schema():
    text = "Fax: 91 336 87 85. Fecha de Ingreso: 12/12/2016."
    med = {(text[s.start:s.end], s.type) for s in run_rules(text, "d", "es", MEDDOCAN)}
    i2b2 = {(text[s.start:s.end], s.category, s.type) for s in run_rules(text, "d", "es", I2B2_2014)}
    assert ("91 336 87 85", "NUMERO_FAX") in med and ("12/12/2016", "FECHAS") in med
    assert ("91 336 87 85", "CONTACT", "FAX") in i2b2 and ("12/12/2016", "DATE", "DATE") in i2b2
    assert map_type(MEDDOCAN, "ID", "HEALTHPLAN") == ("ID", "ID_ASEGURAMIENTO")
    assert map_type(MEDDOCAN, "LOCATION", "ZIP") == ("LOCATION", "TERRITORIO")
    assert map_type(I2B2_2014, "ID", "ENCOUNTER") == ("ID", "IDNUM")
    assert map_type(GERMAN, "NAME", "DOCTOR") == ("NAME", "Staff")
    # i2b2 has no OTHER category: the patient's sex is dropped, not mislabelled
    assert map_type(I2B2_2014, "OTHER", "SEX") is None
    assert to_schema([Span("d", 0, 1, "OTHER", "SEX")], I2B2_2014) == []


# --- each recognizer against the fixture gold ---------------------------------------------

@pytest.mark.parametrize("rule, min_tp, max_fp, max_fn", [
    ("header_fields", 170, 2, 120),  # misses are the same types in running text
    ("doctor_names", 24, 3, 8),
    ("colegiado", 16, 0, 0),
    ("record_numbers", 33, 1, 5),
    ("dates", 40, 1, 3),
    ("ages", 22, 1, 12),
    ("sex", 8, 1, 17),
    ("postal_codes", 26, 1, 35),
    ("streets", 16, 8, 14),
    ("hospitals", 3, 2, 3),
    ("email", 15, 0, 0),
    ("relatives", 4, 6, 6),
])
def test_recognizer_matches_fixture_gold(fixture_docs, rule, min_tp, max_fp, max_fn):
    tp, fp, fn, _ = _score(fixture_docs, rule)
    assert tp >= min_tp, (rule, tp, fp, fn)
    assert fp <= max_fp, (rule, tp, fp, fn)
    assert fn <= max_fn, (rule, tp, fp, fn)


def test_whole_pack_on_fixture_is_precise(fixture_docs):
    from pipeline.detection.combine import combine
    tp = fp = fn = 0
    for doc_id, text, gold in fixture_docs:
        kept, _ = combine(run_rules(text, doc_id, "es", MEDDOCAN), text)
        pred = {(s.start, s.end, s.type) for s in kept}
        tp += len(pred & gold)
        fp += len(pred - gold)
        fn += len(gold - pred)
    assert tp / (tp + fp) >= 0.95
    assert tp / (tp + fn) >= 0.80


# --- boundaries, on lines written like MEDDOCAN's -------------------------------------------

HEADER = (
    "Datos del paciente.\nNombre:  Ernesto.\nApellidos: Rivera Bueno.\nNHC: 368503.\nNASS: 26 63514095.\n"
    "Domicilio:  Calle Miguel Benitez 90.\nLocalidad/ Provincia: Madrid.\nCP: 28016.\nDatos asistenciales.\n"
    "Fecha de nacimiento: 03/03/1946.\nPaís: España.\nEdad: 70 años Sexo: H.\nFecha de Ingreso: 12/12/2016.\n"
    "Episodio: 7266589.\nMédico:  Ignacio Navarro Cuéllar NºCol: 28 28 70973.\n"
)


def test_header_fields_values_and_types():
    got = _texts(HEADER, "header_fields")
    assert got == [
        ("Ernesto", "NOMBRE_SUJETO_ASISTENCIA"), ("Rivera Bueno", "NOMBRE_SUJETO_ASISTENCIA"),
        ("368503", "ID_SUJETO_ASISTENCIA"), ("26 63514095", "ID_ASEGURAMIENTO"),
        ("Calle Miguel Benitez 90", "CALLE"), ("Madrid", "TERRITORIO"), ("28016", "TERRITORIO"),
        ("03/03/1946", "FECHAS"), ("España", "PAIS"), ("70 años", "EDAD_SUJETO_ASISTENCIA"),
        ("H", "SEXO_SUJETO_ASISTENCIA"), ("12/12/2016", "FECHAS"), ("7266589", "ID_CONTACTO_ASISTENCIAL"),
    ]


def test_header_fields_edge_cases():
    text = ("\ufeffNombre: Lucía.\nCIPA: nhc-743612.\nLocalidad/ Provincia: Santiago de Compostela, A Coruña.\n"
            "Domicilio: Av. de Jaén, 28.\nNombre: .\n")
    got = _texts(text, "header_fields")
    assert ("743612", "ID_SUJETO_ASISTENCIA") in got  # the "nhc-" prefix is not part of the number
    assert ("Santiago de Compostela", "TERRITORIO") in got and ("A Coruña", "TERRITORIO") in got
    assert ("Av. de Jaén, 28", "CALLE") in got  # the abbreviation's dot stays, the final one goes
    assert ("Lucía", "NOMBRE_SUJETO_ASISTENCIA") in got  # a BOM before the first label is no obstacle
    assert len([g for g in got if g[1] == "NOMBRE_SUJETO_ASISTENCIA"]) == 1  # empty value: no span


@pytest.mark.parametrize("value, places", [
    ("Santiago de Compostela, A Coruña", ["Santiago de Compostela", "A Coruña"]),
    ("Monterrey. Nvo León", ["Monterrey", "Nvo León"]),
    ("Puerto de Santa María (Cádiz)", ["Puerto de Santa María", "Cádiz"]),
    ("Sta. Coloma de Gramenet, Barcelona", ["Sta. Coloma de Gramenet", "Barcelona"]),   # "Sta." is no stop
    ("México D.F.", ["México D.F."]),
    ("Cdad. Real", ["Cdad. Real"]),                                                    # nor is "Cdad."
])
def test_town_and_province_in_one_field_are_two_spans(value, places):
    got = _texts(f"Localidad/ Provincia: {value}.\nCP: 11500.\n", "header_fields")
    assert [t for t, ty in got if ty == "TERRITORIO" and not t.isdigit()] == places


def test_a_record_number_key_written_with_a_slash_is_not_part_of_it():
    assert ("976421", "ID_SUJETO_ASISTENCIA") in _texts("CIPA: nhc/976421.\nNASS: 37 86974135 55.\n", "header_fields")


def test_doctor_names_without_titles():
    text = ("Médico:  Ignacio Navarro Cuéllar NºCol: 28 28 70973.\n"
            "Remitido por: Dra. María del Rosario García Luzardo. Hospital Ramon y Cajal Ctra. De Colmenar Viejo.\n"
            "Responsable clínico: Dr. Pedro Bolado Gutiérrez Servicio de Cirugía Plástica\n"
            "Domicilio: Calle del Dr. Esquerdo 99, Bajo A.\n")
    got = _texts(text, "doctor_names")
    assert got == [("Ignacio Navarro Cuéllar", "NOMBRE_PERSONAL_SANITARIO"),
                   ("María del Rosario García Luzardo", "NOMBRE_PERSONAL_SANITARIO"),
                   ("Pedro Bolado Gutiérrez", "NOMBRE_PERSONAL_SANITARIO")]


def test_colegiado_numbers_keep_inner_spaces():
    text = "Médico: Raquel Santesteban Muruzábal     NºCol: 31-20-25896.\nnº de colegiado 28 28 20943, y más."
    assert [t for t, _ in _texts(text, "colegiado")] == ["31-20-25896", "28 28 20943"]
    assert {ty for _, ty in _texts(text, "colegiado")} == {"ID_TITULACION_PERSONAL_SANITARIO"}


def test_record_numbers_in_running_text_and_dni_checksum():
    text = "Con NHC: 5684207/222 y NASS 28 43758925 33. DNI: 12345678Z. Otro 12345678A sin contexto."
    got = _texts(text, "record_numbers")
    assert ("5684207/222", "ID_SUJETO_ASISTENCIA") in got
    assert ("28 43758925 33", "ID_ASEGURAMIENTO") in got
    assert ("12345678Z", "NUMERO_IDENTIF") in got
    assert not any(t == "12345678A" for t, _ in got)  # wrong check letter, no label: not an ID


@pytest.mark.parametrize("text, expected", [
    ("Fecha de nacimiento: 10/10/1963.", ["10/10/1963"]),
    ("intervenido el 10 de octubre de 2016 en su hospital", ["10 de octubre de 2016"]),
    ("se mantuvo en DPA hasta agosto de 2002, momento", ["agosto de 2002"]),
    ("En abril del 2010 es sometida a", ["abril del 2010"]),
    ("una laparoscopia exploradora en Mayo 2003, con", ["Mayo 2003"]),
    ("pancolitis ulcerosa desde el año 2004, corticodependiente", ["año 2004"]),
    ("revisión el 12-abril-2005 y", ["12-abril-2005"]),
    ("En 1999 fue sometido a cirugía", ["1999"]),
    ("controlado desde primavera de 2004", ["primavera de 2004"]),
    ("fracturas en 4/66 y 3-3-46", ["4/66", "3-3-46"]),
    ("En diciembre-08 nuevo episodio; se retiró en sep-04 y en marzo/2009", ["diciembre-08", "sep-04", "marzo/2009"]),
    ("la dosis de mayo-10/12 pautada", []),
    ("tomaba 2000 mg al día y 120/80 de tensión", []),
    ("en el Hospital Universitario 12 de Octubre", []),
])
def test_dates(text, expected):
    assert [t for t, _ in _texts(text, "dates")] == expected


def test_first_character_lookaheads_change_no_match(fixture_docs):
    """The lookaheads on the date and IPv4 patterns only make them faster: each matches exactly
    where it did without."""
    import re

    from pipeline.detection.rules.es import dates_ages as es
    from pipeline.detection.rules.common import IPV4_RE

    texts = [t for _, t, _ in fixture_docs] + [
        "Navidades de 2004, NAVIDAD 2005, en 1999, desde 2000 mg, (2001), Hasta 1987; año 2004, "
        "12-ABR-05, Sep-04, 31/12/99, 2016-10-10, octubre de 2016, OCTUBRE del año 2016, otoño de 2001",
        "1/2/2003 01.02.03 4/66 0/12 32/13/2000 enero-2000 ene./2001 invierno del 1999",
        "IP 192.168.1.20, 10.0.0.256, 1.2.3.4.5, 255.255.255.255"]
    plain = [re.compile(p) for _, p in es._DATE_PATTERNS]
    plain.append(re.compile(es._BARE_YEAR.pattern.replace("(?=[12])", "", 1)))
    plain.append(re.compile(IPV4_RE.pattern.replace("(?=\\d)", "", 1)))
    fast = [*es._DATE_RES, es._BARE_YEAR, IPV4_RE]
    found = 0
    for a, b in zip(plain, fast):
        assert a.pattern != b.pattern
        for text in texts:
            got = [m.span() for m in b.finditer(text)]
            assert got == [m.span() for m in a.finditer(text)]
            found += len(got)
    assert found > 30


@pytest.mark.parametrize("text, expected", [
    ("Informe clínico del paciente: Paciente de 53 años de edad, minero", ["53 años"]),
    ("Historia Actual: Lactante de tres meses y medio de edad", ["tres meses y medio"]),
    ("Historia Actual: Niña de 3 años y 8 meses de edad.", ["3 años y 8 meses"]),
    ("cefalea desde hace 5 años, sin", []),
    ("artritis reumatoide de 20 años de evolución", []),
    ("Hermano mayor de 65 años con nefropatía", []),
    ("A los 2 meses se suspendió el tratamiento", []),
    ("un ciclo de 15 días de antibiótico", []),
    ("fumaba desde los 20 años", []),
    # the age at which something happened: "de vida" / "de edad" says it is the patient's age
    ("Al cuarto mes de vida es internado con fiebre", ["cuarto mes"]),
    ("A los 7 meses de edad inicia crisis", ["7 meses"]),
    ("Notaron la tumoración al mes de vida.", ["mes"]),
    ("ingresó a los 19 días de vida con ictericia", ["19 días"]),
    ("Su hermano falleció a los 3 meses de edad.", []),          # a relative's age
    ("A los 3 meses de la intervención estaba bien", []),        # an interval
    # a duration named a few words before the number
    ("se mantiene durante un periodo aproximado de 3 años.", []),
    ("El tiempo de evolución era de 3 años. La paciente", []),
    ("En el control realizado luego de 6 años, la paciente", []),
    ("La duración del tratamiento fue de un año y medio.", []),
    ("Paciente de 40 años de edad en tratamiento", ["40 años"]),
])
def test_ages(text, expected):
    assert [t for t, _ in _texts(text, "ages")] == expected


def test_sex_in_opening_description():
    text = "Informe clínico del paciente: Varón de 65 años que consulta. Su hermana de 60 años está sana."
    assert _texts(text, "sex") == [("Varón", "SEXO_SUJETO_ASISTENCIA")]


def test_phones_and_fax_lists():
    text = ("Telfs.: 918823884 / 918823984 / 619128686. Tfno: 956 203 145 y 956 203 146.\n"
            "Teléfono: 913 36 80 00. Fax: 985-27-36-14. Lleva 12 ml.")
    got = _texts(text, "phones")
    assert [t for t, ty in got if ty == "NUMERO_TELEFONO"] == [
        "918823884", "918823984", "619128686", "956 203 145", "956 203 146", "913 36 80 00"]
    assert [t for t, ty in got if ty == "NUMERO_FAX"] == ["985-27-36-14"]


@pytest.mark.parametrize("text, phones, faxes", [
    # the number runs to its last digit, and the "+" before the country code is left out
    ("España Tfno.+34 945007000 Fax: +34 945007359 E-mail", ["34 945007000"], ["34 945007359"]),
    ("Navarra Tfno.+34679802102 E-mail", ["34679802102"], []),
    ("Valencia 46010 FAX: + 34- 963864175 E-mail", [], ["34- 963864175"]),
    ("Tel: 34-607819141. Fax", ["34-607819141"], []),
])
def test_phones_with_a_country_code(text, phones, faxes):
    got = _texts(text, "phones")
    assert [t for t, ty in got if ty == "NUMERO_TELEFONO"] == phones
    assert [t for t, ty in got if ty == "NUMERO_FAX"] == faxes


def test_postal_codes_in_addresses():
    text = ("c/ del Abedul 5-7, 2º dcha 28036 Madrid, España. C.P. 02400. Hellín. "
            "Avda. Ronda Norte, s/n E-21006 Huelva. Tomó 12000 unidades. NHC: 28016 Madrid")
    got = [t for t, _ in _texts(text, "postal_codes")]
    assert got == ["28036", "02400", "E-21006"]
    # with the country prefix, a code before a full stop is a postal code too
    assert [t for t, _ in _texts("Avda. Manuel Siurot S/N. E-41013. Sevilla. (España)", "postal_codes")] == ["E-41013"]
    assert _texts("Lote E-41013.5 del fabricante", "postal_codes") == []


@pytest.mark.parametrize("text, expected", [
    ("Remitido por: Ignacio Navarro Cuéllar c/ del Abedul 5-7, 2º dcha 28036 Madrid", ["c/ del Abedul 5-7, 2º dcha"]),
    ("Domicilio: Calle Carmen Romero, 23, 1D.", ["Calle Carmen Romero, 23, 1D"]),
    ("Hospital Universitario 12 de Octubre, Av. Córdoba, s/n, 28041, Madrid", ["Av. Córdoba, s/n"]),
    ("Servicio de Cirugía Maxilofacial Pº de la Castellana 261 28046 Madrid", ["Pº de la Castellana 261"]),
    ("Domicilio: C/ Lavapiés, 94, 3, A.", ["C/ Lavapiés, 94, 3, A"]),
    ("la calle estaba mojada y se cayó", []),
    # the C of "C.P." (código postal) is no floor letter; separators before a postal code go
    ("Avda. Purísima Concepción 6, 1o A C.P. 45006. Toledo", ["Avda. Purísima Concepción 6, 1o A"]),
    ("Centro. C/ José Luis Gallo, 2. C.P. 45600 - Talavera", ["C/ José Luis Gallo, 2"]),
    ("Doctor Peset Avda. Gaspar Aguilar, 90 - 46017 Valencia", ["Avda. Gaspar Aguilar, 90"]),
    ("Domicilio: Avda. Reina Victoria, 5, 3º B. Madrid", ["Avda. Reina Victoria, 5, 3º B"]),
])
def test_streets(text, expected):
    assert [t for t, _ in _texts(text, "streets")] == expected


@pytest.mark.parametrize("text, expected", [
    ("Servicio de Urología. Hospital Universitario 12 de Octubre. Avenida de Córdoba", [("Hospital Universitario 12 de Octubre", "HOSPITAL")]),
    ("Servicio de Nefrología Complejo Hospitalario de Jaén Extremadura, 2", [("Complejo Hospitalario de Jaén Extremadura", "HOSPITAL")]),
    ("Servicio de Digestivo. Hospital Río Hortega. Rondilla de Santa Teresa", [("Hospital Río Hortega", "HOSPITAL")]),
    ("Acudió a su Centro de Salud Las Águilas por fiebre", [("Centro de Salud Las Águilas", "CENTRO_SALUD")]),
    ("ingresó en el Hospital de Día de Oncología", []),
    # the "E" of a prefixed postal code is no word of the name
    ("Servicio de Traumatología. Hospital San Juan de la Cruz E-23400 Ubeda (Jaén)",
     [("Hospital San Juan de la Cruz", "HOSPITAL")]),
    ("precisó ingreso en el hospital durante dos días", []),
])
def test_hospitals(text, expected):
    assert _texts(text, "hospitals") == expected


@pytest.mark.parametrize("text, expected", [
    ("Antecedentes familiares:\nHermano mayor de 65 años con nefropatía", ["Hermano mayor"]),
    ("enfermedad renal en una prima materna con trasplante", ["prima materna"]),
    ("acude con su madre y ambos progenitores refieren", ["madre", "ambos progenitores"]),
    ("Sin antecedentes personales ni familiares de interés. Calambres en gemelos.", []),
    ("La solución madre se diluyó", []),
])
def test_relatives(text, expected):
    got = _texts(text, "relatives")
    assert [t for t, _ in got] == expected
    assert all(ty == "FAMILIARES_SUJETO_ASISTENCIA" for _, ty in got)
    assert run_rules(text, "t", "es", I2B2_2014, only={"relatives"}) == []  # no such category in i2b2


@pytest.mark.parametrize("text, expected", [
    ("Departamento de Enfermería, Universidad de Granada. Avda. de la Ilustración", ["Universidad de Granada"]),
    ("Servicio de Urología. Fundació Puigvert. Cartagena, 340", ["Fundació Puigvert"]),
    ("travoprost 0,004% (Travatan®, Alcon, Fort Worth, Texas)", ["Alcon"]),
    ("la universidad de la vida", []),
])
def test_institutions(text, expected):
    got = _texts(text, "institutions")
    assert [t for t, _ in got] == expected
    assert all(ty == "INSTITUCION" for _, ty in got)


@pytest.mark.parametrize("text, makers, places", [
    # the town after a maker with a product mark is a town, not a second maker
    ("implante SRV2007 (Allergan®, Irvine, California, EE.UU.), de 750 cc", [], ["Irvine", "California"]),
    # a maker written first, then its town and country
    ("membrana BioGide® (Geistlich, Wolhusen, Suiza). A los 8 meses", ["Geistlich"], ["Wolhusen"]),
    ("(Ohio Medical Instrument Co, Inc., Cincinnati, Oh, USA)", [], ["Cincinnati", "Oh"]),
    # a state code closes the citation and is a place too (no list holds two-letter codes)
    ("Surgicel (Johnson & Johnson, Nuevo Brunswick, NJ) y", [], ["Nuevo Brunswick", "NJ"]),
    # a listed maker or a company word stops the places; a product with a number is no maker
    ("colirio (Tobradex®, Alcon-Cusí, Barcelona, España)", ["Alcon-Cusí"], ["Barcelona"]),
    ("balón (Rigiflex®, Microvasive, Boston Scientific, EE. UU.)", [], []),
    ("(Sonos 100 CF, Hewlett Packard, Andover, Massachusetts, USA)", [], ["Andover", "Massachusetts"]),
    # not a maker's citation: no country or state at the end, or too few items
    ("(Carmen, Laura, Pedro)", [], []),
    ("(Madrid, España)", [], []),
    ("(hipertensión, diabetes, España)", [], []),
    ("(, , ;) y (,)", [], []),
])
def test_maker_citations(text, makers, places):
    assert [t for t, _ in _texts(text, "maker_places")] == places
    assert all(ty == "TERRITORIO" for _, ty in _texts(text, "maker_places"))
    got = [t for t, ty in _texts(text, "institutions") if ty == "INSTITUCION"]
    for m in makers:
        assert m in got
    assert not set(got) & set(places)


def test_shared_recognizers():
    text = "E-mail: nnavcu@hotmail.com. Web: https://www.example.es/ruta. Servidor 192.168.10.254 o 10.0.0.300."
    got = {(t, ty) for r in ("email", "url", "ipaddr") for t, ty in _texts(text, r)}
    assert got == {("nnavcu@hotmail.com", "CORREO_ELECTRONICO"), ("https://www.example.es/ruta", "URL_WEB"),
                   ("192.168.10.254", "DIREC_PROT_INTERNET")}


@pytest.mark.parametrize("text, expected", [
    ("Navarra E-mail.hleonbrito@hotmail.com", ["hleonbrito@hotmail.com"]),     # a label written onto it
    ("Madrid E-mail-jdemiguel@geodental.com", ["jdemiguel@geodental.com"]),
    ("Email:agmorua@correo.es", ["agmorua@correo.es"]),
    ("contacto: maria.e-mail@uv.es", ["maria.e-mail@uv.es"]),                  # inside the address: kept
    ("e-mail: sonia.vazquez-cortes@gmail.com / jgraus@ya.com.", ["sonia.vazquez-cortes@gmail.com", "jgraus@ya.com"]),
    ("E-mail: marias.alfageme@ juntadeandalucia.es\n", ["marias.alfageme@ juntadeandalucia.es"]),   # wrapped
    ("escribe a @ hotmail o a x@  y.es", []),
])
def test_email_leaves_a_field_label_out(text, expected):
    assert [t for t, _ in _texts(text, "email")] == expected


def test_full_dev_split_strict_scores(meddocan_full):
    """The pack plus dictionaries on all of MEDDOCAN dev: the figures benchmarks/rules_meddocan.py prints."""
    from pipeline.detection.combine import combine
    from pipeline.detection.dictionaries import DictionaryMatcher
    matcher = DictionaryMatcher.shipped("es", MEDDOCAN)
    tp = fp = fn = 0
    for doc_id, text, gold in _load(meddocan_full / "dev"):
        cands = run_rules(text, doc_id, "es", MEDDOCAN) + matcher.match(text, doc_id)
        pred = {(s.start, s.end, s.type) for s in combine(cands, text)[0]}
        tp += len(pred & gold)
        fp += len(pred - gold)
        fn += len(gold - pred)
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert precision >= 0.93 and recall >= 0.89


def test_doctor_names_in_capitals_end_the_title_at_its_word_and_stop_at_a_service():
    """Found on MEDDOCAN train in capitals: "DRA." read as "DR" + "A.", "DRENAJE" as "DR" + "ENAJE",
    and a name running on into "SERVICIO DE UROLOGÍA"."""
    text = ("REMITIDO POR: DRA. ANA BELÉN SOTO RUIZ SERVICIO DE UROLOGÍA HOSPITAL DE LA VEGA\n"
            "SE COLOCÓ UN DRENAJE PERCUTÁNEO. TIPAJE HLA: DR1, DRX.\n")
    assert _texts(text, "doctor_names") == [("ANA BELÉN SOTO RUIZ", "NOMBRE_PERSONAL_SANITARIO")]
    mixed = "Remitido por: Dra. Ana Belén Soto Ruiz Servicio de Urología\nSe colocó un drenaje.\n"
    assert _texts(mixed, "doctor_names") == [("Ana Belén Soto Ruiz", "NOMBRE_PERSONAL_SANITARIO")]


def test_rules_read_a_note_written_in_capitals():
    """Found on MEDDOCAN train upper-cased: signature labels, the patient's sex, a record number
    written "NHC-" and a street named after a doctor, each as a note in capitals writes them
    (the lines are invented)."""
    text = ("MÉDICO: ANA BELÉN SOTO RUIZ NºCOL: 28 28 11111.\n"
            "RESPONSABLE CLÍNICO: DR. LUIS PRADO GIL\n"
            "CIPA: NHC-123456.\n"
            "DOMICILIO: CALLE DEL DR. FLEMING, 12.\n"
            "VARÓN DE 64 AÑOS QUE ACUDE POR DOLOR.\n")
    names = _texts(text, "doctor_names")
    assert ("ANA BELÉN SOTO RUIZ", "NOMBRE_PERSONAL_SANITARIO") in names
    assert ("LUIS PRADO GIL", "NOMBRE_PERSONAL_SANITARIO") in names
    assert not any(t == "FLEMING" for t, _ in names)                # a street, not a doctor
    assert ("VARÓN", "SEXO_SUJETO_ASISTENCIA") in _texts(text, "sex")
    assert ("123456", "ID_SUJETO_ASISTENCIA") in _texts(text, "record_numbers")
    # as written, the label in any case too ("Responsable Clínico:")
    assert _texts("Responsable Clínico: Luis Prado Gil. Servicio de Urología\n", "doctor_names") == \
        [("Luis Prado Gil", "NOMBRE_PERSONAL_SANITARIO")]


def test_hospitals_and_institutions_in_a_line_written_in_capitals():
    """Found on MEDDOCAN train upper-cased (hospitals found 0 of 195): the rule reads a title-case
    view of a line in capitals, where only a hospital's head word decides and function words end
    the name (invented lines)."""
    text = ("INGRESA EN EL HOSPITAL UNIVERSITARIO 12 DE OCTUBRE POR DOLOR.\n"
            "ACUDE A NUESTRO HOSPITAL POR MALA EVOLUCIÓN CLÍNICA.\n"
            "SIN SOSPECHA CLÍNICA NI RADIOLÓGICA.\n"
            "DEPARTAMENTO DE ENFERMERÍA, UNIVERSIDAD DE GRANADA.\n")
    assert _texts(text, "hospitals") == [("HOSPITAL UNIVERSITARIO 12 DE OCTUBRE", "HOSPITAL")]
    assert ("UNIVERSIDAD DE GRANADA", "INSTITUCION") in _texts(text, "institutions")
    mixed = "Ingresa en el Hospital Universitario 12 de Octubre por dolor.\n"
    assert _texts(mixed, "hospitals") == [("Hospital Universitario 12 de Octubre", "HOSPITAL")]


def test_a_relatives_modifier_in_capitals_stays_with_it():
    """Found on MEDDOCAN train upper-cased: "UN PRIMO MATERNO" gave "PRIMO" alone (invented line)."""
    got = _texts("ANTECEDENTES FAMILIARES: UN PRIMO MATERNO Y UNA TÍA PATERNA.\n", "relatives")
    assert [t for t, _ in got] == ["PRIMO MATERNO", "TÍA PATERNA"]
    assert [t for t, _ in _texts("Antecedentes familiares: un primo materno.\n", "relatives")] == ["primo materno"]


def test_streets_in_capitals_with_their_floor():
    """Found on MEDDOCAN train upper-cased: street words and floor words in capitals (invented
    lines); "PL." stays a lumbar puncture."""
    text = ("DOMICILIO: AVENIDA DE LOS OLMOS 14, 2º DCHA.\nSE REALIZÓ UNA PL. EN MAYO DE 2004.\n")
    got = [t for t, _ in _texts(text, "streets")]
    assert got == ["AVENIDA DE LOS OLMOS 14, 2º DCHA"]


def test_dates_in_capitals():
    """Found on MEDDOCAN train upper-cased: "AÑO 2004", "EN 2010", and the hospital "12 DE OCTUBRE"
    that is no date (invented lines)."""
    text = "INGRESÓ EN EL AÑO 2004 Y DE NUEVO EN 2010 EN EL HOSPITAL UNIVERSITARIO 12 DE OCTUBRE.\n"
    got = [t for t, _ in _texts(text, "dates")]
    assert "2004" in " ".join(got) and "2010" in got and not any("OCTUBRE" in t for t in got)
