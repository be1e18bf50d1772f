"""English list hits in lines written all in lower case (:mod:`pipeline.detection.dictionary_lower`):
places that their words vouch for pass, ordinary words and names need context, clinical lower-case
lines stay untouched, mixed-case lines and Spanish behave as before."""
from __future__ import annotations

import pytest

from pipeline.detection.dictionaries import DictionaryMatcher
from pipeline.detection.dictionary_lists import DictionaryList, shipped_lists
from pipeline.detection.dictionary_lower import lower_line
from pipeline.schemas import I2B2_2014, MEDDOCAN


@pytest.fixture(scope="module")
def en():
    return DictionaryMatcher.shipped("en", I2B2_2014)


def _found(m, text):
    return [(text[s.start:s.end], s.category) for s in m.match(text, "d")]


def test_lower_line_needs_letters_all_in_lower_case():
    assert lower_line("moved from texas\nSeen By Dr", 3)
    assert not lower_line("moved from texas\nSeen By Dr", 20)
    assert not lower_line("Moved from texas", 12)          # mixed line: case still decides
    assert not lower_line("12/03 - 80", 2)                  # no letters


def test_places_their_words_vouch_for_pass_alone(en):
    assert _found(en, "she moved from mexico to new orleans last spring") == [
        ("mexico", "LOCATION"), ("new orleans", "LOCATION")]
    assert _found(en, "pt lives alone, family in murfreesboro") == [("murfreesboro", "LOCATION")]
    assert ("texas", "LOCATION") in _found(en, "daughter drove up from texas")


def test_ordinary_word_places_need_context(en):
    assert _found(en, "progressing to independence with adls") == []
    assert _found(en, "pt drank orange juice, mobile with walker") == []
    assert _found(en, "she lives in mobile, alabama") == [("mobile", "LOCATION"), ("alabama", "LOCATION")]
    assert _found(en, "family is from buffalo") == [("buffalo", "LOCATION")]
    # a stop-listed country ("china", "turkey") needs a place word before it too
    assert _found(en, "ate turkey sandwich") == []
    assert _found(en, "recently returned from china") == [("china", "LOCATION")]


def test_one_word_organisations_need_a_label(en):
    assert _found(en, "hr 80s, in target range") == []
    assert ("target", "LOCATION") in _found(en, "employer: target")


@pytest.mark.parametrize("line", ["pt from pacu to ccu, in lasix gtt", "in lasix 40 iv given", "to ccu via stretcher",
                                  "cardiac cath in am, foley in place, max assist x2",
                                  "wife at bedside, son to visit in am", "spoke with wife about foley"])
def test_clinical_lower_case_lines_are_left_alone(en, line):
    assert _found(en, line) == []


def test_lower_case_names_need_holding_up(en):
    assert _found(en, "john seen today") == []
    assert _found(en, "john smith seen today") == [("john", "NAME"), ("smith", "NAME")]
    assert _found(en, "hi maria, your wife susan called") == [("maria", "NAME"), ("susan", "NAME")]
    assert _found(en, "name: smith") == [("smith", "NAME")]
    # a stop-listed first name stays a word even after kinship; an ambiguous surname needs a title
    assert _found(en, "son will call back") == []
    assert _found(en, "foley draining") == [] and _found(en, "seen by dr foley") == [("foley", "NAME")]


def test_mixed_case_lines_still_need_capitals(en):
    assert _found(en, "Moved from mexico to Texas, john smith") == [("Texas", "LOCATION")]


def test_spanish_lower_case_lines_are_unchanged():
    m = DictionaryMatcher.shipped("es", MEDDOCAN)
    assert m.lower_locale is None
    assert _found(m, "vive en madrid con su hija maría garcía") == []


def test_uploaded_lists_follow_the_same_rules():
    lst = DictionaryList(name="roster", category="NAME", type="DOCTOR", entries=("Holloway",), origin="uploaded")
    m = DictionaryMatcher.from_lists([lst], schema=I2B2_2014, locale="en")
    assert _found(m, "bed holloway") == [] and _found(m, "paged dr holloway") == [("holloway", "NAME")]
    # a staff name opening its sentence before "aware" (icu_invented_f find f16), as a shipped list's
    assert _found(m, "bp soft. holloway aware") == [("holloway", "NAME")]


def test_a_name_word_beside_holds_a_lower_case_name_up(en):
    """A first name no list holds ("thurgood", philter-lite's large lists) before a listed surname,
    with or without a middle initial; a common or clinical word beside holds nothing up."""
    assert _found(en, "paperwork signed by thurgood benson today") == [("benson", "NAME")]
    assert _found(en, "certify that aurelio m. santos is employed") == [("santos", "NAME")]
    assert _found(en, "benson road") == [] and _found(en, "bed benson") == []
    assert _found(en, "pain mgmt aware, benson aware") == []   # "aware" after a comma opens no sentence


def test_a_place_that_reads_as_an_ordinary_phrase_needs_context(en):
    assert _found(en, "bp at its high point overnight, up to long beach chair") == []
    assert _found(en, "she lives in long beach") == [("long beach", "LOCATION")]


def test_a_lower_case_doctors_title_makes_a_doctor(en):
    got = [(s.type, s.category) for s in en.match("seen by dr. foley and dr benson", "d")]
    assert got == [("DOCTOR", "NAME"), ("DOCTOR", "NAME")]
    assert [s.type for s in en.match("thurgood benson seen", "d")] == ["PATIENT"]


def test_a_long_lower_case_note_finds_every_repeated_hit(en):
    """Hits beside each other are found through an index (its speed is a benchmark's business, not
    a test's): every repetition of the line gives its six hits."""
    line = "john smith moved from texas to mobile, alabama with wife susan. "
    assert len(en.match(line * 400, "d")) == 6 * 400


def test_a_common_word_name_needs_a_label_that_asks_for_a_person(en):
    assert _found(en, "occupation: farmer") == [] and _found(en, "skin: flowers noted") == []
    assert _found(en, "patient name: farmer") == [("farmer", "NAME")]
    assert _found(en, "allergies: nkda\nnok: ortega") == [("ortega", "NAME")]


def test_a_rare_word_beside_a_listed_name_is_the_rest_of_it(en):
    """A word English hardly knows (but knows) beside a listed name: after a first name, or between
    a name's context and a surname; a typo (a word wordfreq lacks) or a clinical word is not."""
    assert _found(en, "reviewed by fatima zahedi (design)") == [("fatima", "NAME")]
    assert _found(en, "client jessamine ortega, 27 y/o") == [("ortega", "NAME")]
    assert _found(en, "john ambulatd to chair") == [] and _found(en, "mary tachypneic overnight") == []
    assert _found(en, "jessamine ortega aware") == []


def test_an_article_before_a_one_word_name_is_read_by_the_lists_language():
    """'the Smith' is a thing in English whatever the region's code; Spanish lists never ask."""
    gb = DictionaryMatcher.from_lists(shipped_lists("en"), schema=I2B2_2014, locale="en-GB")
    assert gb.language == "en"
    assert _found(gb, "Hit the Smith of the car") == []
    assert _found(gb, "Called Smith today") == [("Smith", "NAME")]
    assert DictionaryMatcher.shipped("es", MEDDOCAN).language == "es"


@pytest.mark.parametrize("line, name", [
    ("labcorp tech donna called: potassium 6.4", "donna"),        # clinic_invented find f14
    ("transplant coord (harriet, pgr 1-9052) aware", "harriet"),  # icu_invented_h find f10
    ("pt disclosed bf travis pushed her down the steps", "travis"),  # ed_invented find f23
    ("- yolanda, onc rn", "yolanda"),                              # spec_invented find f23: credentials after
    ("report given to charge nurse brenda", "brenda"),
])
def test_a_role_before_or_credentials_after_hold_a_lower_case_name_up(en, line, name):
    assert (name, "NAME") in _found(en, line)


@pytest.mark.parametrize("line", ["measured 2 cm april was the last scan", "3 cm mass noted, rt arm swollen",
                                  "pa catheter placed, rt leg cool", "friend of pt at bedside",
                                  "rn will call in am", "tech to draw labs at 0400"])
def test_roles_and_units_alone_mark_no_name(en, line):
    assert [f for f in _found(en, line) if f[1] == "NAME"] == []


def test_a_one_word_organisation_english_does_not_write_stands_alone(en):
    # icu_invented_b find f53, f01: the equipment and air-medical services a plan names
    assert ("apria", "LOCATION") in _found(en, "pt has home bipap from apria (settings 18/8)")
    assert ("davita", "LOCATION") in _found(en, "hd mwf at davita.")
    # a word English writes still needs its context
    assert _found(en, "screening for rehab, radius looking at pt") == []
