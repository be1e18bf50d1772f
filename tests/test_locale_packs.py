"""Locale packs own their language: a pack lists its boundary steps and gives their words, and
adding a locale is adding a folder under ``pipeline/locales/`` (here a folder made in a test)."""
from __future__ import annotations

import sys

import pytest

import pipeline.locales
from pipeline.detection.combine import CombinePolicy, clean_span
from pipeline.detection.detector import Detector
from pipeline.detection.steps import registry
from pipeline.detection.steps.registry import StepContext, pack_for
from pipeline.locales import western
from pipeline.schemas import GERMAN, I2B2_2014, MEDDOCAN, LabelSchema, SchemaError
from pipeline.spans import Document, Span

TOY_PACK = '''
from pipeline.detection.steps.registry import boundary_step, register_pack
from pipeline.detection.steps.words import BoundaryWords


@boundary_step("xx_drop_last_char", "model")
def drop_last_char(spans, ctx):
    """Every model span one character shorter (a step no other locale has)."""
    return [s.with_(end=s.end - 1) if s.end - s.start > 1 else s for s in spans]


PACK = register_pack("xx", BoundaryWords(titles=("Xr.",)), ("xx_drop_last_char",))
'''


@pytest.fixture
def toy_locale(tmp_path, monkeypatch):
    """A locale ``xx`` whose folder lives in ``tmp_path``: ``pipeline/locales/xx/__init__.py``."""
    (tmp_path / "xx").mkdir()
    (tmp_path / "xx" / "__init__.py").write_text(TOY_PACK, encoding="utf-8")
    monkeypatch.setattr(pipeline.locales, "__path__", [*pipeline.locales.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_STEPS", dict(registry._STEPS))
    monkeypatch.setattr(registry, "_PACKS", dict(registry._PACKS))
    monkeypatch.setattr(registry, "_TRIED", set(registry._TRIED))
    yield "xx"
    sys.modules.pop("pipeline.locales.xx", None)


def test_a_new_folder_gives_its_locale_its_own_steps_and_none_of_spanishs(toy_locale):
    pack = pack_for("xx-XX")
    assert pack.code == "xx" and [s.name for s in pack.steps_in("model")] == ["xx_drop_last_char"]
    assert pack.steps_in("candidates") == [] and pack.steps_in("merged") == []
    assert not set(pack.steps) & set(pack_for("es").steps)

    text = "Vino el Dr. Smith de Madrid (HULP). Edad: 30 años de edad\n"
    model = [Span("d", text.index("Dr."), text.index(" de Madrid"), "NAME", "DOCTOR", "model:v", 0.9),
             Span("d", text.index("30"), len(text) - 1, "AGE", "AGE", "model:v", 0.9)]
    toy = Detector.without_model(I2B2_2014, "xx", rules=False, dictionaries=False)._combine(Document("d", text), model)
    assert [text[s.start:s.end] for s in toy] == ["Dr. Smit", "30 años de eda"]     # its step, no title or age repair
    es = Detector.without_model(I2B2_2014, "es", rules=False, dictionaries=False)._combine(Document("d", text), model)
    assert [text[s.start:s.end] for s in es] == ["Smith", "30 años"]


def test_a_packs_words_reach_span_cleaning(toy_locale):
    text = "por Xr. Smith y Dr. Jones"
    toy = CombinePolicy.for_locale("xx")
    assert text[slice(*_edges(clean_span(Span("d", 4, 13, "NAME"), text, toy)))] == "Smith"
    assert text[slice(*_edges(clean_span(Span("d", 16, 25, "NAME"), text, toy)))] == "Dr. Jones"   # not its title
    assert text[slice(*_edges(clean_span(Span("d", 16, 25, "NAME"), text)))] == "Jones"             # the default's


def _edges(span):
    return span.start, span.end


def test_existing_locales_share_the_western_pack():
    """es and de (and any locale without a pack) run the steps and words they always ran; en runs
    them too, then its own ward steps and its safe-word step (issue 30)."""
    for loc in ("es", "de", "es-ES", "fr", "my own"):
        pack = pack_for(loc)
        assert pack.steps == western.STEPS and pack.words is western.WORDS
    en = pack_for("en-US")   # the Western words but the Spanish title "D.": an English initial ("D. Johnson")
    assert en.words.titles == tuple(t for t in western.WORDS.titles if t != "D.")
    assert en.words.abbreviations == western.WORDS.abbreviations and en.steps == western.STEPS + (
        "cut_model_spans_at_lines", "drop_ward_codes", "strip_slashed_with", "drop_lower_common_words",
        "drop_impossible_dates", "strip_context_words",
        "drop_numbers_without_context", "drop_eponyms", "extend_over_particle", "surname_after_one_case_first_name",
        "repeat_names", "ages_after_names", "drop_field_label_spans", "drop_vehicle_spans", "states_after_towns",
        "extend_over_institution_heads", "strip_role_titles", "drop_faiths_and_languages", "drop_described_places",
        "drop_safe_word_spans_en")
    assert pack_for("fr").code == registry.DEFAULT_PACK
    assert [s.name for s in pack_for("es").steps_in("model")][:2] == ["strip_leading_title", "strip_trailing_full_stop"]


def test_registering_a_pack_checks_its_step_names(monkeypatch):
    monkeypatch.setattr(registry, "_PACKS", dict(registry._PACKS))
    with pytest.raises(KeyError, match="no_such_step"):
        registry.register_pack("yy", western.WORDS, ("strip_leading_title", "no_such_step"))
    with pytest.raises(ValueError, match="stage"):
        registry.boundary_step("x", "later")
    with pytest.raises(ValueError, match="stage"):
        pack_for("es").steps_in("later")


def test_schemas_say_which_types_play_which_role():
    assert MEDDOCAN.types_in_role("organisation") == ("HOSPITAL", "CENTRO_SALUD", "INSTITUCION")
    assert MEDDOCAN.types_in_role("street") == ("CALLE",) and I2B2_2014.types_in_role("street") == ("STREET",)
    assert GERMAN.types_in_role("organisation") == () and I2B2_2014.types_in_role("relative") == ()
    for schema in (MEDDOCAN, I2B2_2014, GERMAN):
        assert schema.roles == schema.default_roles()
        assert LabelSchema.from_json(schema.to_json()).roles == schema.roles
        assert "roles" not in schema.to_json()
    # a custom schema names its own; they survive JSON
    own = LabelSchema.from_json({"name": "own", "categories": {"LOCATION": ["Klinik", "HOSPITAL"]},
                                 "roles": {"organisation": ["Klinik"]}})
    assert own.types_in_role("organisation") == ("Klinik",) and own.types_in_role("street") == ()
    assert LabelSchema.from_json(own.to_json()).roles == own.roles
    # without roles, the preset type names play them
    assert LabelSchema.from_json({"categories": {"LOCATION": ["HOSPITAL", "STREET"]}}).types_in_role("street") == ("STREET",)
    with pytest.raises(SchemaError, match="unknown role"):
        LabelSchema("bad", {"LOCATION": ("HOSPITAL",)}, roles={"planet": ("HOSPITAL",)})
    with pytest.raises(SchemaError, match="lacks"):
        LabelSchema("bad", {"LOCATION": ("HOSPITAL",)}, roles={"street": ("CALLE",)})


def test_steps_ask_the_schema_for_roles():
    """The same span is an organisation in MEDDOCAN and none in a schema that gives it no role."""
    text = "Hospital General de Ciudad Real"
    span = Span("d", 0, 19, "LOCATION", "HOSPITAL", "model:v")
    none = LabelSchema("none", {"LOCATION": ("HOSPITAL",)}, roles={})
    step = pack_for("es").steps_in("model")[-5]
    assert step.name == "strip_trailing_function_word"
    assert step([span], StepContext.for_locale(text, MEDDOCAN, "es")) == [span]
    assert text[slice(*_edges(step([span], StepContext.for_locale(text, none, "es"))[0]))] == "Hospital General"


@pytest.mark.parametrize("line, value, typ, kept", [
    ("Transferred to MICU from ED at 0200.", "0200", "CITY", False),
    ("Glucose 60 at 0300, 1/2 amp D50 given.", "Glucose 60", "DEPARTMENT", False),
    ("PAIN 0-2/10, TMAX 99.1.", "PAIN 0-2", "DEPARTMENT", False),
    ("Works as a teacher since 2001.", "teacher", "PROFESSION", True),     # a profession in words stays
    ("Seen on Ellison 4 overnight.", "Ellison 4", "DEPARTMENT", True),     # a ward's name with its number
    ("Moved to room 12 today.", "12", "ROOM", True),                       # a room may be a number alone
    ("Lives at 02134, near the river.", "02134", "ZIP", True),
])
def test_a_named_place_made_of_numbers_and_clinical_words_is_dropped(line, value, typ, kept):
    from pipeline.locales.en.ward_steps import drop_numbers_without_context
    start = line.index(value)
    cat = I2B2_2014.category_of(typ)
    span = Span("d", start, start + len(value), cat, typ, source="model:crf")
    got = drop_numbers_without_context([span], StepContext.for_locale(line, "i2b2-2014", "en"))
    assert (got == [span]) is kept
    human = span.with_(source="human")
    assert drop_numbers_without_context([human], StepContext.for_locale(line, "i2b2-2014", "en")) == [human]
