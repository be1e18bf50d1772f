"""A run over detected spans keeps them with its outputs (migration 13), so a reviewer sees what
was replaced; spans from a layer people made are read from the store, not copied."""
from __future__ import annotations

import pytest

import store
from apptest_helpers import make_demo_db
from pipeline.layers import DETECTED, parse_output_layer
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span, SpanError
from services import worker


def test_store_keeps_input_spans_checked_against_the_original():
    db = store.connect(":memory:")
    pid = store.create_project(db, "Ward 7", I2B2_2014)
    ids = store.add_documents(db, pid, [Document("n1", "Seen by Dr Wu today."), Document("n2", "No names here.")])
    run = store.create_deid_run(db, pid, "replace", {"actions": {"NAME": "replace"}})
    found = [Span("", 11, 13, "NAME", "DOCTOR", "model:v1", 0.91)]
    store.save_deid_outputs(db, run, [(ids[0], "Seen by Dr Li today.", [Span("", 11, 13, "NAME", "DOCTOR")]),
                                      (ids[1], "No names here.", [])], input_spans={ids[0]: found})
    first, second = store.get_deid_output(db, run, ids[0]), store.get_deid_output(db, run, ids[1])
    assert [(s.start, s.end, s.type, s.score) for s in first.input_spans] == [(11, 13, "DOCTOR", 0.91)]
    assert second.input_spans is None
    assert [o.input_spans is not None for o in store.list_deid_outputs(db, run)] == [True, False]
    # a span outside the original is refused, and nothing of the batch is written
    with pytest.raises(SpanError):
        store.save_deid_outputs(db, run, [(ids[1], "No names here!", [])],
                                input_spans={ids[1]: [Span("", 10, 40, "NAME", "DOCTOR")]})
    assert store.get_deid_output(db, run, ids[1]).text == "No names here."


def test_a_project_run_stores_its_detected_spans_and_not_the_gold_ones(tmp_path):
    app = make_demo_db(tmp_path / "w.db", n_docs=12)
    result = worker.run_inline(app.db_path, "deidentify", {"project_id": app.project_id, "doc_ids": "all",
                                                           "profile": "replace", "user": "lea", "risk": False})
    db = store.connect(app.db_path)
    gold = store.read_project_layer(db, app.project_id, "gold")
    outputs = store.list_deid_outputs(db, result["run_id"])
    detected = [o for o in outputs if o.doc_id not in gold]
    assert detected and len(detected) < len(outputs)
    for o in outputs:
        layers = {parse_output_layer(s.layer)[1] for s in o.spans}
        if o.doc_id in gold:
            assert o.input_spans is None and layers <= {"gold"}
        else:
            assert layers <= {DETECTED} and o.input_spans is not None
            text = store.get_document(db, o.doc_id).text
            assert all(0 <= s.start < s.end <= len(text) for s in o.input_spans)
    assert sum(len(o.input_spans or []) for o in detected) > 0
    db.close()
