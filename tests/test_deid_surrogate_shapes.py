"""Issue 32, item 3: surrogates that read like a note.

* the parts of one address (city, state, ZIP; municipio, provincia, CP) agree, in English and in
  Spanish, and a value keeps its surrogate everywhere in the note;
* a profession is replaced by one profession, in every surrogate profile;
* each type's shape check accepts good values and refuses the bad ones the issue quotes;
* a paraphrase fill without the shape of its type falls back to a list surrogate, counted;
* line breaks survive every profile (a paraphrase profile with a model included, and keep);
  a field label is never replaced.

Failure messages name offsets, kinds and counts, never note text.
"""
from __future__ import annotations

import pytest

from pipeline.deid import DeidContext, Profile, builtin_profiles, deidentify, deidentify_batch
from pipeline.deid.addresses import address_checks, address_records, joinable, record_agrees
from pipeline.deid.batch import fallback_note
from pipeline.deid.normalize import norm_key
from pipeline.deid.shapes import SHAPE_CHECKS, shape_ok
from pipeline.spans import Document, Span

SECRET = b"surrogate-shapes-test-secret-0123456789"
PROFILES = builtin_profiles()


def _spans(doc_id: str, text: str, pieces: list[tuple[str, str, str]]) -> list[Span]:
    """Spans for (piece, category, type), each piece at its next occurrence after the last."""
    out, pos = [], 0
    for piece, cat, typ in pieces:
        a = text.index(piece, pos)
        out.append(Span(doc_id, a, a + len(piece), cat, typ, source="gold"))
        pos = a + len(piece)
    return out


def _run(text, pieces, profile, locale, *, infiller=None, pid="P1", secret=SECRET):
    doc = Document("d1", text, _spans("d1", text, pieces), patient_id=pid)
    return deidentify(doc, None, profile, DeidContext(secret=secret, locale=locale, infiller=infiller))


def _values(r) -> list[str]:
    return [r.text[s.start:s.end] for s in r.spans]


# --------------------------------------------------------------------------- addresses

EN_NOTE = ("Lives at 12 Oak Street\nWest Covina, CA 91790 with her son.\n"
           "Moved from West Covina in 2019; previously Boston, MA 02108-1234.\n")
EN_PIECES = [("12 Oak Street", "LOCATION", "STREET"), ("West Covina", "LOCATION", "CITY"),
             ("CA", "LOCATION", "STATE"), ("91790", "LOCATION", "ZIP"), ("West Covina", "LOCATION", "CITY"),
             ("Boston", "LOCATION", "CITY"), ("MA", "LOCATION", "STATE"), ("02108-1234", "LOCATION", "ZIP")]


@pytest.mark.parametrize("secret", [SECRET, b"another-secret-for-a-second-draw-000", b"a-third-secret-3333333333333333"])
@pytest.mark.parametrize("name", ["replace", "paraphrase"])
def test_english_city_state_and_zip_of_one_address_agree(name, secret):
    assert address_checks(EN_NOTE, _spans("d1", EN_NOTE, EN_PIECES), "en") == [True, True]     # the input agrees
    r = _run(EN_NOTE, EN_PIECES, PROFILES[name], "en", secret=secret)
    assert r.leaks == []
    assert address_checks(r.text, r.spans, "en") == [True, True]
    v = _values(r)
    assert norm_key(v[1]) == norm_key(v[4])                     # the same city, the same surrogate
    assert norm_key(v[1]) != norm_key("West Covina") and v[2] != "CA" and v[6] != "MA"
    assert len(v[7]) == len("02108-1234") and v[7][5] == "-"      # ZIP+4 keeps its shape


def test_the_state_of_an_address_changes_with_its_city():
    """The defect: the city changed and the state stayed ("West Covina, IL" from "..., CA")."""
    text = "Address: Springfield, IL 62704.\n"
    pieces = [("Springfield", "LOCATION", "CITY"), ("IL", "LOCATION", "STATE"), ("62704", "LOCATION", "ZIP")]
    seen_states = set()
    for k in range(12):
        r = _run(text, pieces, PROFILES["replace"], "en", pid=f"P{k}")
        assert address_checks(r.text, r.spans, "en") == [True], k
        seen_states.add(_values(r)[1])
    assert len(seen_states) > 3 and "IL" not in seen_states


ES_NOTE = ("Domicilio: Calle Mayor 5.\nLocalidad/ Provincia: Getafe (Madrid).\nCP: 28901\n"
           "Remitida desde Getafe.\n")
ES_PIECES = [("Calle Mayor 5", "LOCATION", "CALLE"), ("Getafe", "LOCATION", "TERRITORIO"),
             ("Madrid", "LOCATION", "TERRITORIO"), ("28901", "LOCATION", "TERRITORIO"),
             ("Getafe", "LOCATION", "TERRITORIO")]


@pytest.mark.parametrize("secret", [SECRET, b"another-secret-for-a-second-draw-000", b"a-third-secret-3333333333333333"])
@pytest.mark.parametrize("name", ["replace", "paraphrase"])
def test_spanish_municipio_provincia_and_cp_of_one_address_agree(name, secret):
    assert address_checks(ES_NOTE, _spans("d1", ES_NOTE, ES_PIECES), "es") == [True]
    r = _run(ES_NOTE, ES_PIECES, PROFILES[name], "es", secret=secret)
    assert r.leaks == []
    assert address_checks(r.text, r.spans, "es") == [True]
    v = _values(r)
    assert norm_key(v[1]) == norm_key(v[4])                     # Getafe twice, one surrogate
    assert v[3].isdigit() and len(v[3]) == 5
    assert r.text.split("\n")[1].startswith("Localidad/ Provincia: ") and r.text.split("\n")[2].startswith("CP: ")


def test_address_tables_are_whole_and_consistent():
    for locale in ("en", "es"):
        recs = address_records(locale)
        assert len(recs) > 150
        assert all(r.city and r.state and r.postcode.isdigit() for r in recs)
        assert all(shape_ok("state", r.state, locale) for r in recs)
    assert all(r.abbr and len(r.postcode) == 3 for r in address_records("en"))
    # a Spanish postcode starts with its province's two digits: one prefix per province
    prefixes: dict[str, set[str]] = {}
    for r in address_records("es"):
        prefixes.setdefault(r.state, set()).add(r.postcode[:2])
    assert all(len(p) == 1 for p in prefixes.values())
    assert record_agrees([("city", "Getafe"), ("state", "Madrid"), ("postcode", "28901")], "es")
    assert not record_agrees([("city", "West Covina"), ("abbr", "IL")], "en")


@pytest.mark.parametrize("gap, ok", [(", ", True), (" ", True), (".\nCP: ", True), (".\nLocalidad/ Provincia: ", True),
                                     (" (", True), (" and then went to ", False), ("\n\n", False)])
def test_which_gaps_join_two_address_parts(gap, ok):
    assert joinable(gap) is ok


# --------------------------------------------------------------------------- professions

PROF_NOTE = "John Doe, a retired librarian, lives alone.\n"


@pytest.mark.parametrize("name", ["replace", "paraphrase", "paraphrase+model"])
def test_a_profession_spanned_in_pieces_becomes_one_profession(name):
    """ "retired" and "librarian" spanned apart (as a model did) are one value: one entry out;
    with a model, one slot whose fill must be one profession (the stub's names are not: the
    list surrogate, counted as ``shape``)."""
    pieces = [("John Doe", "NAME", "PATIENT"), ("retired", "PROFESSION", "PROFESSION"),
              ("librarian", "PROFESSION", "PROFESSION")]
    model = GoodShapes() if name.endswith("+model") else None
    r = _run(PROF_NOTE, pieces, PROFILES[name.split("+")[0]], "en", infiller=model)
    if model is not None:
        assert r.paraphrase_fallbacks == {"shape": 1} and r.paraphrased == 1     # the name infilled
    assert r.leaks == []
    prof = [(s, a) for s, a in zip(r.spans, r.actions) if s.category == "PROFESSION"]
    assert len(prof) == 1
    value = r.text[prof[0][0].start:prof[0][0].end]
    assert norm_key(value) in {norm_key(x) for x in _professions("en")}
    assert shape_ok("profession", value, "en")


def _professions(locale):
    from pipeline.locales import load_list
    return load_list(locale, "professions")


# --------------------------------------------------------------------------- shape checks

BAD = [("name", "History M'Center"), ("name", "Plan Street"), ("name", "Dr. Plan Street"), ("name", "Patient History"), ("name", "with date"),
       ("email", "date.with@showed.com"), ("email", "no-at-sign.com"), ("email", "a@b"),
       ("profession", "date"), ("profession", "factory worker fisherman"), ("phone", "call me later"),
       ("phone", "12"), ("date", "with date"), ("hospital", "History M'Center"), ("hospital", "Plan"),
       ("street", "Dr. Plan Street"), ("street", "with date"), ("zip", "9179"), ("state", "Covina"),
       ("id", "date"), ("url", "showed"), ("city", "History")]
GOOD = [("name", "Anna Smith"), ("name", "Dr. Ilvaro Etxaniz"), ("name", "SMITH, JOHN"), ("name", "J. Doe"),
        ("name", "María de la Cruz"), ("email", "jsmith@gmail.com"), ("email", "martinez.lopez@garcia.es"),
        ("profession", "librarian"), ("profession", "fisherman"), ("phone", "617-555-0142"),
        ("phone", "(617) 555-0142 ext 12"), ("date", "03/04/2019"), ("date", "March 4, 2019"),
        ("hospital", "Massachusetts General Hospital"), ("hospital", "Etxaniz Medical Center"),
        ("street", "742 Evergreen Terrace"), ("street", "12 Oak Street"), ("city", "West Covina"),
        ("state", "CA"), ("state", "California"), ("zip", "91790"), ("zip", "02108-1234"), ("id", "MRN 5530017"),
        ("url", "www.example.org/a"), ("country", "Peru")]
GOOD_ES = [("name", "Dra. María de la Cruz"), ("profession", "pintora"), ("phone", "91 123 45 67"),
           ("date", "12 de marzo de 2010"), ("hospital", "Hospital Universitario Etxaniz"),
           ("street", "Calle Mayor, 23, 1D"), ("territory", "Getafe"), ("territory", "28901"),
           ("territory", "Madrid"), ("state", "Comunidad de Madrid")]


def test_the_email_check_skips_mail_host_words_but_not_url_words():
    """"www" and "gmail" name the provider, not a common word; "http" in an address is a model
    echoing a URL and stays the common word it is (value_words: MAIL_HOST_WORDS, not WEB_WORDS)."""
    assert shape_ok("email", "kzq.www@gmail.com", "en")
    assert not shape_ok("email", "http.kzq@kzqmail.com", "en")
    assert shape_ok("email", "kzq.mailto@kzqmail.com", "en")      # a URL word that is not common passes anyway


@pytest.mark.parametrize("gen, value", BAD)
def test_shape_check_refuses_what_the_issue_quotes(gen, value):
    assert gen in SHAPE_CHECKS
    assert not shape_ok(gen, value, "en"), gen


@pytest.mark.parametrize("gen, value", GOOD)
def test_shape_check_accepts_good_english_values(gen, value):
    assert shape_ok(gen, value, "en"), gen


@pytest.mark.parametrize("gen, value", GOOD_ES)
def test_shape_check_accepts_good_spanish_values(gen, value):
    assert shape_ok(gen, value, "es"), gen


def test_list_surrogates_pass_their_shape_checks():
    """What ``replace`` draws is the bar paraphrase is held to: every list entry passes."""
    from pipeline.locales import load_list
    for locale in ("en", "es"):
        for gen, name in (("name", "surnames"), ("name", "first_names"), ("hospital", "hospitals"),
                          ("city", "cities"), ("street", "streets"), ("profession", "professions"),
                          ("country", "countries")):
            entries = load_list(locale, name)
            bad = [k for k, e in enumerate(entries) if not shape_ok(gen, e, locale)]
            assert not bad, (locale, name, len(bad))


# --------------------------------------------------------------------------- paraphrase falls back on shape

class BadShapes:
    """A model that only proposes common words ("History", "Plan", "date"...): no fill has a shape."""

    name = "bad-shapes"
    WORDS = ["History", "Plan", "Date", "With", "Showed", "Center", "Street", "Patient"]

    def infill(self, text, requests, top_k=32):
        out = []
        for r in requests:
            slots = []
            for kind in r.kinds:
                if kind == "digit":
                    pool = list("0123456789")
                elif kind in ("letter", "initial"):
                    pool = list("ABCDEFGHIJ")
                elif kind == "ascii":
                    pool = [w.lower() for w in self.WORDS]
                else:
                    pool = self.WORDS
                slots.append([(p, -0.1 * k) for k, p in enumerate(pool)])
            out.append(slots)
        return out


class GoodShapes(BadShapes):
    name = "good-shapes"
    WORDS = ["Ilvaro", "Grastina", "Yolberto", "Nairusa", "Etxaniz", "Lisdrana", "Olazagoitia"]


SHAPE_NOTE = "Patient: Anna Smith\nSeen by Dr. Paul Jones. Contact: anna.smith@example.com\n"
SHAPE_PIECES = [("Anna Smith", "NAME", "PATIENT"), ("Paul Jones", "NAME", "DOCTOR"),
                ("anna.smith@example.com", "CONTACT", "EMAIL")]


def test_paraphrase_fills_without_a_shape_fall_back_to_list_surrogates_counted():
    r = _run(SHAPE_NOTE, SHAPE_PIECES, PROFILES["paraphrase"], "en", infiller=BadShapes())
    assert r.leaks == [] and r.paraphrased == 0
    assert r.paraphrase_fallbacks == {"shape": 3}
    gens = ["name", "name", "email"]
    assert all(shape_ok(g, v, "en") for g, v in zip(gens, _values(r)))
    assert all(w not in r.text for w in ("History", "Plan", "date."))
    b = deidentify_batch([Document("d1", SHAPE_NOTE, _spans("d1", SHAPE_NOTE, SHAPE_PIECES), patient_id="P1")],
                         PROFILES["paraphrase"], DeidContext(secret=SECRET, locale="en", infiller=BadShapes()))
    assert "list_fallbacks=3[shape=3]" in b.summary.line()
    assert "lacked the shape" in fallback_note(b.summary.paraphrase_fallbacks)


def test_paraphrase_fills_with_a_shape_are_kept():
    r = _run(SHAPE_NOTE, SHAPE_PIECES, PROFILES["paraphrase"], "en", infiller=GoodShapes())
    assert r.leaks == [] and r.paraphrased == 3 and not r.paraphrase_fallbacks
    assert all(shape_ok(g, v, "en") for g, v in zip(["name", "name", "email"], _values(r)))


# --------------------------------------------------------------------------- every profile keeps the lines

LINES_NOTE = ("MRN: 5530017\n"
              "Admitted 03/04/2019 for chest pain.\n"
              "Seen by Dr. Anna Smith.\n"
              "\n"
              "John Doe, retired librarian, lives in Boston.\n"
              "SSN 078-05-1120 Phone: 617-555-0142\n")


def _line_spans(text):
    def s(piece, cat, typ, end=None):
        a = text.index(piece)
        b = text.index(end, a) + len(end) if end else a + len(piece)
        return Span("n1", a, b, cat, typ, source="model")
    return [s("5530017", "ID", "MEDICALRECORD", end="Admitted"), s("03/04/2019", "DATE", "DATE"),
            s("Anna Smith", "NAME", "DOCTOR", end="John Doe"), s("retired", "PROFESSION", "PROFESSION"),
            s("librarian", "PROFESSION", "PROFESSION"), s("Boston", "LOCATION", "CITY"), s("SSN", "ID", "SSN"),
            s("078-05-1120", "ID", "SSN"), s("Phone: 617", "CONTACT", "PHONE", end="0142")]


ALL_PROFILES = {
    **{k: (p, None) for k, p in PROFILES.items()},
    "paraphrase+model": (PROFILES["paraphrase"], GoodShapes()),
    "paraphrase+bad-model": (PROFILES["paraphrase"], BadShapes()),
    "shift": (Profile("shift", actions={"DATE": "shift", "NAME": "redact", "ID": "redact", "CONTACT": "redact",
                                        "LOCATION": "redact", "PROFESSION": "redact"}), None),
    "keep": (Profile("keep", actions={"NAME": "keep", "ID": "keep", "CONTACT": "keep", "LOCATION": "keep",
                                      "PROFESSION": "keep", "DATE": "keep"}), None),
}


@pytest.mark.parametrize("name", sorted(ALL_PROFILES))
def test_line_breaks_survive_every_profile(name):
    profile, model = ALL_PROFILES[name]
    doc = Document("n1", LINES_NOTE, _line_spans(LINES_NOTE), patient_id="P1")
    r = deidentify(doc, None, profile, DeidContext(secret=SECRET, locale="en", infiller=model))
    lines, out = LINES_NOTE.split("\n"), r.text.split("\n")
    assert len(out) == len(lines) and out[3] == ""
    assert out[1].startswith("Admitted ")
    assert [ln == "" for ln in out] == [ln == "" for ln in lines]
    assert all("\n" not in r.text[s.start:s.end] for s in r.spans)
    assert out[0].startswith("MRN: ") and out[5].startswith("SSN ") and "Phone: " in out[5]    # labels stay
    if name != "keep":
        assert r.leaks == []
        assert "5530017" not in r.text and "John Doe" not in r.text and "078-05-1120" not in r.text
