"""The Annotate page through Streamlit's AppTest, on the demo project: opening from the machine
suggestions, saving and finishing, the stale-save refusal across two sessions (spans kept),
refusal of an unassigned document (nothing of its text rendered), the labeler's free labels,
mark-all-occurrences and reloading saved spans from JSON."""
from __future__ import annotations

import store
from apptest_helpers import demo_app, errors, inject_labeler, new_app, open_page, shows, sign_in  # noqa: F401
from pipeline.annotation import edits as ops
from services import queues
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span

LABELER = "annotate.labeler"


def _first_todo(app, user="ana"):
    db = app.db()
    try:
        queue = queues.load_queue(db, user, app.project_id)
        a = next(a for a in queue if a.status == "assigned")
        doc = store.get_document(db, a.doc_id)
        pre = store.read_layer(db, a.doc_id, "pre").spans
        return a.doc_id, doc.text, pre
    finally:
        db.close()


def _work(at, user, doc_id) -> ops.WorkState:
    return at.session_state[f"annotate.work.{user}.{doc_id}"]


def test_opens_from_pre_and_saves_own_layer_with_time_and_status(demo_app):
    doc_id, text, pre = _first_todo(demo_app)
    assert pre, "the demo doc should have machine suggestions"
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.session_state["annotate.doc_id"] = doc_id
    open_page(at, "annotate")
    assert not errors(at)
    work = _work(at, "ana", doc_id)
    assert work.base_version == 0
    assert ops.same_spans(work.current, pre)  # opened from the pre layer
    assert any("machine suggestions" in c.value for c in at.caption)

    # the annotator drops the first suggestion, adds one, and types a label outside the schema
    kept = pre[1:]
    extra_start = next(i for i in range(len(text)) if text[i].isalpha() and not any(s.start <= i < s.end for s in pre))
    extra_end = extra_start + 1
    while extra_end < len(text) and text[extra_end].isalnum() and not any(s.start <= extra_end < s.end for s in pre):
        extra_end += 1
    added = Span(str(doc_id), extra_start, extra_end, "NAME", "PATIENT")
    value = ops.to_labeler(text, kept + [added], I2B2_2014)
    value["My own label"] = [{"start": 0, "end": 1, "label": "x"}]
    inject_labeler(at, LABELER, value)
    at.run()
    assert any("My own label (1)" in w.value for w in at.warning)
    at.button(key="annotate.save").click().run()
    assert not errors(at)

    db = demo_app.db()
    layer = store.read_layer(db, doc_id, "annotator:ana")
    assert layer.version == 1
    assert ops.same_spans(layer.spans, kept + [added])
    saved_new = next(s for s in layer.spans if (s.start, s.end) == (added.start, added.end))
    assert saved_new.source == "human:ana"
    (a,) = store.list_assignments(db, user="ana", doc_id=doc_id)
    assert a.status == "in_progress" and a.seconds_spent > 0
    assert _work(at, "ana", doc_id).unsaved is False

    at.button(key="annotate.finish").click().run()
    assert not errors(at)
    (a,) = store.list_assignments(db, user="ana", doc_id=doc_id)
    assert a.status == "finished"
    assert store.read_layer(db, doc_id, "annotator:ana").status == "finished"
    assert store.read_layer(db, doc_id, "annotator:ana").version == 2
    db.close()


def test_stale_save_is_refused_and_the_spans_stay_in_the_session(demo_app):
    doc_id, text, pre = _first_todo(demo_app)
    first, second = new_app(demo_app), new_app(demo_app)
    for at in (first, second):  # two browser sessions of ana, both opening the document at version 0
        sign_in(at, demo_app, "ana")
        at.session_state["annotate.doc_id"] = doc_id
        open_page(at, "annotate")
        assert not errors(at)

    mine_first = pre[:1]
    inject_labeler(first, LABELER, ops.to_labeler(text, mine_first, I2B2_2014))
    first.run()
    first.button(key="annotate.save").click().run()
    assert not errors(first)

    mine_second = pre[1:]
    inject_labeler(second, LABELER, ops.to_labeler(text, mine_second, I2B2_2014))
    second.run()
    second.button(key="annotate.save").click().run()
    msgs = errors(second)
    assert len(msgs) == 1 and msgs[0].startswith("Not saved:")
    assert "version 0" in msgs[0] and "version 1" in msgs[0] and "not saved" in msgs[0]
    work = _work(second, "ana", doc_id)
    assert work.stale and ops.same_spans(work.current, mine_second)  # nothing lost
    assert second.button(key="annotate.reload") is not None

    db = demo_app.db()
    stored = store.read_layer(db, doc_id, "annotator:ana")
    assert stored.version == 1 and ops.same_spans(stored.spans, mine_first)  # the first save stands

    # the second session chooses to keep its spans on top of the latest version, then saves
    second.button(key="annotate.rebase").click().run()
    assert _work(second, "ana", doc_id).base_version == 1
    second.button(key="annotate.save").click().run()
    assert not errors(second)
    stored = store.read_layer(db, doc_id, "annotator:ana")
    assert stored.version == 2 and ops.same_spans(stored.spans, mine_second)
    db.close()


def test_unassigned_document_is_refused_and_its_text_not_rendered(demo_app):
    db = demo_app.db()
    taken = {a.doc_id for a in store.list_assignments(db, user="ana")}
    other = next(d for d in store.list_documents(db, demo_app.project_id) if d.id not in taken)
    text = store.get_document(db, other.id).text
    pre = store.read_layer(db, other.id, "pre").spans
    db.close()
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.session_state["annotate.doc_id"] = other.id
    open_page(at, "annotate")
    msgs = errors(at)
    assert len(msgs) == 1 and f"document {other.id} is not assigned to you" in msgs[0]
    assert not at.subheader  # the document's title block was never reached
    lines = [ln.strip() for ln in text.splitlines() if len(ln.strip()) >= 12]
    assert lines and not any(shows(at, ln) for ln in lines)
    assert not any(shows(at, text[s.start:s.end]) for s in pre if s.end - s.start >= 6)
    # the same holds for a document id that does not exist (no probing)
    at.session_state["annotate.doc_id"] = 999999
    at.run()
    assert any("999999 is not assigned to you" in m for m in errors(at))


def _small_project(app) -> tuple[int, int, str]:
    """A project with one short note assigned to ana (mark-all needs repeated names)."""
    text = "Seen by Dr. Okafor today. Okafor will call. Okafor's nurse, not Okaforo, agreed."
    db = app.db()
    pid = store.create_project(db, "small", I2B2_2014)
    (doc_id,) = store.add_documents(db, pid, [Document("note1", text)], layer=None)
    store.save_layer(db, doc_id, "pre", [Span(str(doc_id), 12, 18, "NAME", "DOCTOR", "model:t", 0.55)],
                     expected_version=0, user=None, status="finished")
    store.assign(db, doc_id, "ana")
    db.close()
    return pid, doc_id, text


def test_mark_all_occurrences_and_reload_from_json(demo_app):
    pid, doc_id, text = _small_project(demo_app)
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.run()
    at.selectbox(key="wb.project_select").set_value(pid).run()  # the sidebar's project switcher
    assert at.session_state["wb.project_id"] == pid
    open_page(at, "annotate")
    assert not errors(at)
    assert at.session_state["wb.project_select"] == pid
    at.selectbox(key="annotate.span").set_value(0)
    at.button(key="annotate.mark_all").click().run()
    assert not errors(at)
    work = _work(at, "ana", doc_id)
    assert [(s.start, s.end) for s in work.current] == [(12, 18), (26, 32), (44, 50)]  # not inside "Okaforo"
    assert all(s.type == "DOCTOR" for s in work.current)
    assert work.unsaved

    at.button(key="annotate.remove_all").click().run()
    assert _work(at, "ana", doc_id).current == []

    # a downloaded JSON of spans loads back into the editor
    data = ops.spans_to_json(doc_id, "annotator:ana", 0, [Span(str(doc_id), 26, 32, "NAME", "DOCTOR")])
    at.file_uploader(key="annotate.upload").upload("spans.json", data.encode("utf-8"), "application/json")
    at.run()
    at.button(key="annotate.load").click().run()
    assert not errors(at)
    assert [(s.start, s.end) for s in _work(at, "ana", doc_id).current] == [(26, 32)]


def test_queue_navigation(demo_app):
    db = demo_app.db()
    ids = [a.doc_id for a in queues.load_queue(db, "ben", demo_app.project_id)]
    db.close()
    at = new_app(demo_app)
    sign_in(at, demo_app, "ben")
    open_page(at, "annotate")
    assert at.session_state["annotate.doc_id"] == ids[0]
    at.button(key="annotate.next").click().run()
    assert at.session_state["annotate.doc_id"] == ids[1]
    at.selectbox(key="annotate.pick").set_value(ids[3]).run()
    assert at.session_state["annotate.doc_id"] == ids[3]
    at.button(key="annotate.prev").click().run()
    assert at.session_state["annotate.doc_id"] == ids[2]
    assert not errors(at)
    db = demo_app.db()
    assert [s.value for s in at.subheader] == [store.get_document(db, ids[2]).name]
    db.close()


def test_span_view_escapes_text_and_marks_low_confidence():
    from dashboard.components import spans_html

    text = 'Seen by <b>Dr "X"</b> & Ana\non 3/4'
    spans = [Span("1", 8, 21, "NAME", "DOCTOR", "model:v1", 0.42), Span("1", 24, 27, "NAME", "PATIENT", "human:a", 1.0),
             Span("1", 24, 26, "NAME", "USERNAME", "model:v1", 0.9)]  # overlapping the previous one
    out = spans_html(text, spans, low_confidence=0.7)
    assert "<b>" not in out and "&lt;b&gt;Dr &quot;X&quot;&lt;/b&gt;" in out
    assert out.count("dashed") == 1 and "DOCTOR 0.42" in out            # low confidence: border and score
    assert "double" in out                                               # the overlapping stretch
    assert 'title="DOCTOR (NAME) | model:v1 | score 0.42"' in out
    assert "\non 3/4" in out and "white-space:pre-wrap" in out           # line breaks kept
