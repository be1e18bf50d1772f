"""Project settings read in one place: a project's locale is the same for training, detection
and de-identification (a german-8 project used to train with "en" and de-identify with "de"),
and the settings a lead edits round-trip."""
from __future__ import annotations

import pytest

import models.trainer
import store
from pipeline.schemas import GERMAN, I2B2_2014, MEDDOCAN, default_locale
from pipeline.spans import Document, Span
from services import deid_batch, detectors, training_job, worker
from services.settings import ProjectSettings, project_locale

TEXT = "Patient Hans Weber, geboren am 03.04.1950, Station 4."


class _Stop(Exception):
    """Raised by the stand-in trainer once it has seen the config (no model is trained)."""


def _german_project(db) -> int:
    pid = store.create_project(db, "Klinik", GERMAN)
    docs = [Document(doc_id=f"n{i}", text=TEXT, patient_id=f"p{i % 2}",
                     spans=[Span(f"n{i}", 8, 18, "NAME", "Patient"), Span(f"n{i}", 31, 41, "DATE", "Birthdate")])
            for i in range(4)]
    store.add_documents(db, pid, docs, layer="gold")
    return pid


def test_schema_locales_are_one_table():
    assert [default_locale(s) for s in (MEDDOCAN, I2B2_2014, GERMAN)] == ["es", "en", "de"]
    assert default_locale("a-custom-schema") == "en"


def test_german_project_uses_one_locale_for_training_detection_and_deidentification(tmp_path, monkeypatch):
    db_path = tmp_path / "w.db"
    db = store.connect(db_path)
    pid = _german_project(db)
    project = store.get_project(db, pid)
    assert project_locale(project) == "de"

    trained_with: list[str] = []

    def fake_train(train_docs, dev_docs, schema, cfg, out_dir, **kw):
        trained_with.append(cfg.locale)
        raise _Stop

    monkeypatch.setattr(models.trainer, "train_ensemble", fake_train)
    with pytest.raises(_Stop):
        training_job.train_from_store(db_path, pid, members=["crf"])
    assert trained_with == ["de"]

    # detection without a model: the project's locale, named in the refusal (no German rule pack yet)
    with pytest.raises(detectors.DetectorUnavailable, match="locale 'de'"):
        detectors.detector_for(db, project)

    deidentified_with: list[str] = []
    original_init = deid_batch.RunDeidentifier.__init__

    def spy(self, docs, profile, ctx):
        deidentified_with.append(ctx.locale)
        original_init(self, docs, profile, ctx)

    monkeypatch.setattr(deid_batch.RunDeidentifier, "__init__", spy)
    result = worker.run_inline(str(db_path), "deidentify", {"project_id": pid, "doc_ids": "all", "risk": False})
    assert deidentified_with == ["de"] and result["documents"] == 4

    # a locale set for the project overrides the schema's, everywhere alike
    store.update_project_settings(db, pid, {**project.settings, "locale": "en"})
    assert project_locale(store.get_project(db, pid)) == "en"
    db.close()


def test_project_settings_round_trip_and_keep_other_keys():
    s = ProjectSettings.from_settings({"queue_order": "nonsense", "low_confidence": "-3", "locale": "de"})
    assert (s.queue_order, s.low_confidence) == ("assigned", 0.0)
    assert s.to_settings()["locale"] == "de"
    assert ProjectSettings.from_settings(s.with_(queue_order="uncertain").to_settings()).queue_order == "uncertain"
