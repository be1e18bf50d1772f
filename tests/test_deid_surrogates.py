"""Surrogate generators: type-true, format-preserving, keyed and consistent, never the original.

Values here are made up for the test (or taken from the shipped word lists), not document text.
"""
from __future__ import annotations

import re

import pytest

from pipeline.deid.ages import AgeParseError, shift_age
from pipeline.deid.context import DeidContext, DocState, Original, SurrogateContext
from pipeline.deid.keys import choose, keyed_offset
from pipeline.deid.normalize import norm_key
from pipeline.deid.profile import builtin_profiles
from pipeline.deid.surrogate_kit import GENERATORS, NoSurrogate, Unparseable
from pipeline.deid.surrogates import REGISTRY, generator_for, generator_name
from pipeline.locales import load_list
from pipeline.schemas import GERMAN, I2B2_2014, MEDDOCAN

SECRET = b"test-secret-0123456789abcdef"
PROFILE = builtin_profiles()["replace"]


def sctx(category: str, type_: str, *, locale: str = "en", pid: str = "P1", values=(), secret: bytes = SECRET,
         deid: DeidContext | None = None) -> SurrogateContext:
    deid = deid or DeidContext(secret=secret, locale=locale)
    state = DocState([Original(c, t, v) for c, t, v in values])
    return SurrogateContext(deid, PROFILE, pid, category, type_, locale, state)


def gen(category: str, type_: str, original: str, **kw) -> str:
    fn = generator_for(category, type_)
    assert fn is not None
    return fn(original, sctx(category, type_, **kw))


# -- registry ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("schema", [I2B2_2014, MEDDOCAN, GERMAN])
def test_every_schema_type_maps_to_a_generator_or_is_redacted_on_purpose(schema):
    redacted_on_purpose = {"SEXO_SUJETO_ASISTENCIA", "FAMILIARES_SUJETO_ASISTENCIA", "OTROS_SUJETO_ASISTENCIA",
                           "Other", "Status"}
    for cat, types in schema.categories.items():
        for t in types:
            name = generator_name(cat, t)
            if t in redacted_on_purpose:
                continue
            assert name in GENERATORS, (schema.name, t)
            assert REGISTRY[t] is GENERATORS[name]


def test_i2b2_and_meddocan_types_share_generators():
    assert REGISTRY["PATIENT"] is REGISTRY["NOMBRE_SUJETO_ASISTENCIA"]
    assert REGISTRY["DATE"] is REGISTRY["FECHAS"]
    assert REGISTRY["PHONE"] is REGISTRY["NUMERO_TELEFONO"]
    assert REGISTRY["MEDICALRECORD"] is REGISTRY["ID_SUJETO_ASISTENCIA"]
    assert REGISTRY["COUNTRY"] is REGISTRY["PAIS"]


# -- keyed choice -----------------------------------------------------------------------------------

def test_choose_is_deterministic_and_redraws_when_refused():
    items = [f"v{i}" for i in range(50)]
    a = choose(items, SECRET, ("P1", "CITY", "boston"), lambda c: True)
    assert a == choose(items, SECRET, ("P1", "CITY", "boston"), lambda c: True)
    b = choose(items, SECRET, ("P1", "CITY", "boston"), lambda c: c != a)
    assert b != a and b in items
    assert choose(items, SECRET, ("P1", "CITY", "boston"), lambda c: False) is None


def test_keyed_offset_is_never_zero_and_respects_the_minimum():
    seen = {keyed_offset(SECRET, -5, 5, "p", str(i)) for i in range(300)}
    assert 0 not in seen and seen == set(range(-5, 6)) - {0}
    big = {keyed_offset(SECRET, -1095, 1095, "p", str(i), min_abs=365) for i in range(300)}
    assert all(365 <= abs(v) <= 1095 for v in big)
    assert any(v < 0 for v in big) and any(v > 0 for v in big)


# -- names --------------------------------------------------------------------------------------

def test_name_parts_are_consistent_across_full_name_surname_and_initial():
    deid = DeidContext(secret=SECRET, locale="en")
    full = gen("NAME", "PATIENT", "John Smith", deid=deid)
    surname = gen("NAME", "PATIENT", "Smith", deid=deid)
    initial = gen("NAME", "PATIENT", "J. Smith", deid=deid)
    shouting = gen("NAME", "PATIENT", "SMITH, JOHN", deid=deid)
    first, last = full.split()
    assert surname == last
    assert initial.endswith(" " + last) and re.fullmatch(r"[A-Z]\. \S+", initial) and initial[0] != "J"
    assert shouting == f"{last.upper()}, {first.upper()}"
    assert first != "John" and last != "Smith"
    assert first in load_list("en", "first_names") and last in load_list("en", "surnames")


def test_names_keep_titles_particles_case_and_hyphens():
    out = gen("NAME", "DOCTOR", "Dr. Mary O'Brien-Lee")
    assert out.startswith("Dr. ") and "-" in out
    assert gen("NAME", "DOCTOR", "dr. smith").split()[0] == "dr." and gen("NAME", "DOCTOR", "dr. smith").islower()
    es = gen("NAME", "NOMBRE_PERSONAL_SANITARIO", "Natalia del Valle González", locale="es")
    assert " del " in es and "Valle" not in es and "Natalia" not in es


def test_a_name_that_is_only_a_particle_or_initials_is_still_replaced():
    for original in ("Le", "jr", "ST", "du"):
        out = gen("NAME", "DOCTOR", original)
        assert norm_key(out) != norm_key(original)


def test_same_name_differs_between_patients_and_secrets():
    a = gen("NAME", "PATIENT", "John Smith", pid="P1")
    b = gen("NAME", "PATIENT", "John Smith", pid="P2")
    c = gen("NAME", "PATIENT", "John Smith", pid="P1", secret=b"another-secret-0123456789")
    assert a != b and a != c
    assert norm_key(a) == norm_key(gen("NAME", "PATIENT", "john   SMITH", pid="P1"))


def test_surrogate_avoids_every_real_value_of_the_document():
    real = [("NAME", "PATIENT", "John Smith"), ("NAME", "DOCTOR", "Anna Page")]
    deid = DeidContext(secret=SECRET, locale="en")
    # find which names the patient's "Smith" would get, then declare that one real as well
    first_pick = gen("NAME", "PATIENT", "Smith", deid=deid, values=real)
    out = gen("NAME", "PATIENT", "Smith", deid=deid, values=[*real, ("NAME", "PATIENT", f"Bob {first_pick}")])
    assert out != first_pick and out != "Smith"


# -- patterns ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("category,type_,original", [
    ("ID", "MEDICALRECORD", "123-45-678A"),
    ("ID", "ID_TITULACION_PERSONAL_SANITARIO", "28 28 20943"),
    ("ID", "ID_ASEGURAMIENTO", "92-91-90-8443-1"),
    ("CONTACT", "PHONE", "(617) 555-0123"),
    ("CONTACT", "NUMERO_TELEFONO", "986413144 ext 1530"),
    ("LOCATION", "ZIP", "02139"),
    ("LOCATION", "TERRITORIO", "28035"),
    ("NAME", "USERNAME", "jsmith12"),
])
def test_pattern_surrogates_keep_the_shape_and_change_every_digit(category, type_, original):
    out = gen(category, type_, original)
    assert len(out) == len(original)
    for a, b in zip(original, out):
        if a.isdigit():
            assert b.isdigit() and a != b
        elif a.isalpha():
            assert b.isalpha() and a.isupper() == b.isupper()
            if type_ in ("PHONE", "NUMERO_TELEFONO"):
                assert a == b          # "ext" stays
        else:
            assert a == b
    assert out == gen(category, type_, original)   # keyed: the same every time


def test_email_and_url_keep_their_shape():
    email = gen("CONTACT", "EMAIL", "john.smith42@hospital-north.org")
    assert re.fullmatch(r"[a-z]+\.[a-z]+\d\d@[a-z]+-[a-z]+\.org", email)
    assert "smith" not in email and "hospital" not in email
    webmail = gen("CONTACT", "CORREO_ELECTRONICO", "eromeroselas@yahoo.es", locale="es")
    assert webmail.endswith("@yahoo.es") and not webmail.startswith("eromeroselas")
    url = gen("CONTACT", "URL", "https://www.smithclinic.example.com/patients/4411")
    assert re.fullmatch(r"https://www\.[a-z]+\.[a-z]+\.com/[a-z]+/\d{4}", url)
    assert "smithclinic" not in url
    ip = gen("CONTACT", "IPADDR", "203.0.113.141")
    assert re.fullmatch(r"(\d{1,3}\.){3}\d{1,3}", ip) and ip != "203.0.113.141"
    assert all(1 <= int(x) <= 254 for x in ip.split("."))


# -- locations and professions ------------------------------------------------------------------

@pytest.mark.parametrize("locale,type_,original,list_name", [
    ("en", "CITY", "Springfield", "cities"),
    ("en", "HOSPITAL", "Mercy General Hospital", "hospitals"),
    ("en", "COUNTRY", "Canada", "countries"),
    ("en", "ORGANIZATION", "Acme Corp", "organizations"),
    ("en", "STATE", "Ohio", "states"),
    ("es", "HOSPITAL", "Hospital Universitario La Paz", "hospitals"),
    ("es", "PAIS", "España", "countries"),
    ("es", "INSTITUCION", "Universidad de Granada", "organizations"),
    ("es", "TERRITORIO", "Madrid", "cities"),
    ("es", "TERRITORIO", "Navarra", "provinces"),
])
def test_location_surrogates_are_of_the_same_type(locale, type_, original, list_name):
    category = "LOCATION"
    out = gen(category, type_, original, locale=locale, values=[(category, type_, original)])
    assert out in load_list(locale, list_name)
    assert norm_key(out) != norm_key(original)


def test_profession_and_state_abbreviation():
    prof = gen("PROFESSION", "PROFESSION", "carpenter")
    assert prof in load_list("en", "professions") and prof != "carpenter"
    assert gen("PROFESSION", "PROFESSION", "CARPENTER").isupper()
    abbr = gen("LOCATION", "STATE", "MA")
    assert len(abbr) == 2 and abbr.isupper() and abbr != "MA"


@pytest.mark.parametrize("locale,original,pattern", [
    ("es", "Calle Carmen Romero, 23, 1D", r"Calle [^\d,]+, \d\d, \dD"),
    ("es", "C/ Irunlarrea, 3", r"C/ [^\d,]+, \d"),
    ("es", "Avda. Gaspar Aguilar 90", r"Avda\. [^\d]+ \d\d"),
    ("es", "Hermanos Falcó, s/n", r"[^\d,]+, s/n"),
    ("en", "742 Evergreen Terrace", r"\d{3} [A-Z][^\d]+"),
])
def test_streets_keep_layout_and_redraw_numbers(locale, original, pattern):
    out = gen("LOCATION", "STREET", original, locale=locale)
    assert re.fullmatch(pattern, out)
    assert out != original
    for word in re.findall(r"[A-Za-zÁÉÍÓÚáéíóúñ]{4,}", original):
        if word.lower() not in ("calle", "avda"):
            assert word not in out


def test_missing_list_raises_no_surrogate():
    deid = DeidContext(secret=SECRET, locale="en", list_loader=lambda loc, name: (_ for _ in ()).throw(KeyError(name)))
    ctx = SurrogateContext(deid, PROFILE, "P1", "LOCATION", "CITY", "en", DocState([]))
    with pytest.raises(NoSurrogate):
        GENERATORS["city"]("Boston", ctx)


def test_lead_can_extend_lists():
    deid = DeidContext(secret=SECRET, locale="en", extra_lists={"departments": ["Ward Zeta"]},
                       list_loader=lambda loc, name: [] if name == "departments" else load_list(loc, name))
    ctx = SurrogateContext(deid, PROFILE, "P1", "LOCATION", "DEPARTMENT", "en", DocState([]))
    assert GENERATORS["department"]("Cardiology", ctx) == "Ward Zeta"


# -- dates and ages through the registry ----------------------------------------------------------

def test_date_generator_uses_the_patients_offset_and_flags_unparseable():
    from pipeline.deid.date_parse import parse_date

    deid = DeidContext(secret=SECRET, locale="en")
    a = gen("DATE", "DATE", "2070-12-01", deid=deid)
    b = gen("DATE", "DATE", "12/11/2070", deid=deid)
    other = gen("DATE", "DATE", "2070-12-01", pid="P2", deid=deid)
    pa, pb = parse_date(a), parse_date(b)
    assert pb.ordinal() - pa.ordinal() == 10
    offset = pa.ordinal() - parse_date("2070-12-01").ordinal()
    assert 365 <= abs(offset) <= 1095
    assert other != a
    with pytest.raises(Unparseable):
        gen("DATE", "DATE", "Christmas", deid=deid)


@pytest.mark.parametrize("original,offset,expected", [
    ("45 años", 2, "47 años"),
    ("45-year-old", 2, "47-year-old"),
    ("45", -3, "42"),
    ("sesenta y tres años", 2, "sesenta y cinco años"),
    ("siete años", -3, "cuatro años"),
    ("1 año", 2, "3 años"),
    ("2 meses", -1, "1 mes"),
    ("un mes y medio", 2, "tres meses y medio"),
    ("92 años", -2, "90+ años"),
    ("88 years old", 2, "90+ years old"),
    ("89+", -2, "90+"),
    ("thirty-one years old", 2, "thirty-three years old"),
    ("NUEVE AÑOS", 2, "ONCE AÑOS"),
    ("1", -3, "4"),
])
def test_ages_shift_and_keep_wording(original, offset, expected):
    assert shift_age(original, offset=offset) == expected


def test_age_band_mode_stays_in_band_and_differs():
    for age in (40, 41, 44, 45, 49, 88):
        for pick in range(6):
            out = int(shift_age(str(age), offset=2, mode="band", band=5, band_pick=pick))
            assert out != age and out // 5 == age // 5 and out <= 89


def test_age_without_a_number_is_unparseable():
    with pytest.raises(AgeParseError):
        shift_age("Recién nacido", offset=2)
    with pytest.raises(Unparseable):
        gen("AGE", "EDAD_SUJETO_ASISTENCIA", "Adolescente", locale="es")


def test_age_offset_avoids_turning_one_real_age_into_another():
    values = [("AGE", "AGE", str(a)) for a in (16, 17, 18, 19, 20, 21)]
    outs = {}
    for a in (16, 17, 18, 19, 20, 21):
        try:
            outs[a] = gen("AGE", "AGE", str(a), values=values)
        except NoSurrogate:     # 18 and 19: every offset in +-2 lands on a real age; the engine redacts
            pass
    # 16..21 are all real: whatever the offsets, a shifted age must not be one of them
    assert outs and all(out not in {str(a) for a in range(16, 22)} for out in outs.values())
    assert 16 in outs and 21 in outs


@pytest.mark.parametrize("category,type_,original", [
    ("CONTACT", "PHONE", "555-123-4567 (Quintanilla mobile)"),
    ("AGE", "AGE", "53 y/o Quintanilla"),
    ("LOCATION", "STREET", "Calle Mayor 5, Quintanilla"),
    ("LOCATION", "CALLE", "Av. Galaxia 6, esc. 2, Residencial Quintanilla"),
])
def test_format_preserving_surrogates_never_pass_other_words_through(category, type_, original):
    """A name caught in an over-wide span must not survive a digit-by-digit surrogate."""
    try:
        out = gen(category, type_, original, locale="es" if type_ == "CALLE" else "en")
    except (NoSurrogate, Unparseable):
        return                                    # the engine redacts the span instead
    assert "Quintanilla" not in out


def test_email_with_words_around_it_replaces_every_word():
    out = gen("CONTACT", "EMAIL", "juan@example.org Quintanilla")
    assert "Quintanilla" not in out and "juan" not in out
    assert gen("CONTACT", "EMAIL", "x@clinic.smithfamily").split(".")[-1] != "smithfamily"


@pytest.mark.parametrize("original", ["55-123-4567 ext 12", "91 234 56 78 (móvil)", "Calle Mayor 5, 2ºA izq",
                                      "Avda. Real 12, bajo dcha", "45 años de edad", "3 meses y medio"])
def test_format_words_are_allowed(original):
    kind = ("CONTACT", "PHONE") if original[0].isdigit() and "-" in original or "móvil" in original else None
    if kind is None:
        kind = ("LOCATION", "STREET") if original[0].isalpha() else ("AGE", "AGE")
    out = gen(*kind, original, locale="es")
    assert out != original
