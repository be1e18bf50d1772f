"""The Review page through AppTest, with the span editor's browser side stood in for
(``tests/editor_helpers.py``): gold starts from the spans the annotators agree on, every
disagreement goes to the editor with each annotator's version, saving refuses undecided
disagreements and otherwise writes gold and opens the next document; possible misses can be
confirmed into gold or dismissed (and stay dismissed); annotators cannot reach the page's data."""
from __future__ import annotations

import pytest

import store
from apptest_helpers import demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from editor_helpers import inject, items, shown, shown_spans
from pipeline.schemas import I2B2_2014
from pipeline.annotation import edits as ops
from services import review
from pipeline.annotation import adjudication as adj
from pipeline.errors import PermissionDenied
from pipeline.spans import Span
from services import access

EDITOR = "review.editor"


def _queue_doc(app):
    db = app.db()
    try:
        item = next(i for i in review.review_queue(db, app.project_id)
                    if adj.document_disagreements(i.doc_id, review.finished_layers(db, i.doc_id)))
        layers = review.finished_layers(db, item.doc_id)
        return item.doc_id, layers, adj.document_disagreements(item.doc_id, layers)
    finally:
        db.close()


def test_gold_starts_from_agreement_and_is_saved_from_the_editors_choices(demo_app):
    doc_id, layers, found = _queue_doc(demo_app)
    with demo_app.db() as db:
        text = store.get_document(db, doc_id).text
        at = new_app(demo_app)
        sign_in(at, demo_app, "rita", "reviewer")
        at.session_state["review.doc_id"] = doc_id
        open_page(at, "review")
        assert not errors(at)
        data = shown(at)
        assert data["mode"] == "review" and data["saved"] is None
        assert len(data["disagreements"]) == len(found) and all(d["choice"] is None for d in data["disagreements"])
        names = sorted(layers)
        assert [o["who"] for o in data["disagreements"][0]["options"]] == names
        assert [o["key"] for o in data["disagreements"][0]["options"]] == ["1", "2"]
        agreed = adj.agreed_gold(doc_id, layers, found, "rita")
        assert [(s[0], s[1], s[2]) for s in shown_spans(at)] == [(s.start, s.end, s.type) for s in agreed]
        assert any(f"{len(found)} disagreement" in c.value for c in at.caption)

        # saving with undecided disagreements is refused, said in the editor, nothing written
        inject(at, EDITOR, action="save", spans=items(text, agreed, I2B2_2014), decided=[0])
        at.run()
        assert "undecided" in shown(at)["message"] and shown(at)["message_kind"] == "error"
        assert store.read_layer(db, doc_id, "gold").version == 0

        choices = {i: (names[i % 2] if i % 3 else adj.NEITHER) for i in range(len(found))}
        expected = adj.draft_gold(doc_id, layers, found, choices, "rita")
        queue = [i.doc_id for i in review.review_queue(db, demo_app.project_id)]
        inject(at, EDITOR, action="save_next", spans=items(text, expected, I2B2_2014),
               decided=list(range(len(found))), seq=2)
        at.run()
        assert not errors(at)
        gold = store.read_layer(db, doc_id, "gold")
        assert gold.version == 1 and gold.status == "finished"
        assert ops.same_spans(gold.spans, expected) and gold.spans
        assert all(s.source.startswith("human:") for s in gold.spans)
        assert doc_id not in [i.doc_id for i in review.review_queue(db, demo_app.project_id)]
        assert at.session_state["review.doc_id"] == queue[queue.index(doc_id) + 1]  # "save gold and next"
        assert shown(at)["message"].startswith(f"Gold of ")

        # back on the saved document: gold and the choices it holds are shown as decided
        at.session_state["review.show_all"] = True
        at.session_state["review.doc_id"] = doc_id
        at.run()
        data = shown(at)
        assert data["saved"] is not None and all(d["choice"] for d in data["disagreements"])


def test_possible_misses_confirm_and_dismiss(demo_app):
    with demo_app.db() as db:
        # a gold document whose pre layer has suggestions outside gold
        gold_docs = store.read_project_layer(db, demo_app.project_id, "gold")
        doc_id = misses = None
        for d, g in gold_docs.items():
            m = adj.possible_misses(store.read_layer(db, d, "pre").spans, g)
            if len(m) >= 2:
                doc_id, misses = d, m
                break
        if doc_id is None:  # make one: drop two gold spans that the model suggested
            d, g = next(iter(gold_docs.items()))
            pre = store.read_layer(db, d, "pre").spans
            keep = [s for s in g if not any(p.overlaps(s) for p in pre[:2])]
            store.save_layer(db, d, "gold", keep, expected_version=1, user="rita", status="finished")
            doc_id, misses = d, adj.possible_misses(pre, keep)
    assert len(misses) >= 2

    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    at.session_state["review.doc_id"] = doc_id
    at.session_state["review.show_all"] = True
    open_page(at, "review")
    assert not errors(at)
    assert all(d["choice"] for d in shown(at)["disagreements"])  # saved gold: every choice is known
    key = lambda s: f"{doc_id}.{s.start}.{s.end}.{s.label}"  # noqa: E731
    at.button(key=f"review.confirm.{key(misses[0])}").click().run()
    assert not errors(at)
    at.button(key=f"review.dismiss.{key(misses[1])}").click().run()
    assert not errors(at)

    with demo_app.db() as db:
        gold = store.read_layer(db, doc_id, "gold")
        assert (misses[0].start, misses[0].end, misses[0].label) in {(s.start, s.end, s.label) for s in gold.spans}
        dismissed = store.list_dismissed_misses(db, doc_id=doc_id)
        assert [(m.start, m.end) for m in dismissed] == [(misses[1].start, misses[1].end)]
        left = adj.possible_misses(store.read_layer(db, doc_id, "pre").spans, gold.spans, dismissed)
        assert all((s.start, s.end) not in {(misses[0].start, misses[0].end), (misses[1].start, misses[1].end)}
                   for s in left)
    at.run()
    with pytest.raises(KeyError):
        at.button(key=f"review.dismiss.{key(misses[1])}")  # no longer listed


def test_annotator_cannot_review(demo_app):
    doc_id, _, _ = _queue_doc(demo_app)
    with demo_app.db() as db:
        ana = store.get_user(db, "ana")
        with pytest.raises(PermissionDenied):
            access.require(ana, "review")
        with pytest.raises(PermissionDenied):
            access.save_layer_as(db, ana, doc_id, "gold", [Span(str(doc_id), 0, 1, "NAME", "PATIENT")], 0)
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.run()
    with pytest.raises(ValueError):  # the page is not in an annotator's navigation
        at.switch_page("pages/review.py")
