"""The Annotate page through Streamlit's AppTest, on the demo project, with the span editor's
browser side stood in for (``tests/editor_helpers.py``): the editor starts from the machine
suggestions; saving and "finish and next" write the annotator's layer with provenance, time and
status; next and previous follow the queue as it was shown; a draft survives leaving the
document; what the browser must not send is left out and said in words; the stale-save refusal
across two sessions keeps the spans; an unassigned document is refused without rendering its
text; saved spans load back from JSON."""
from __future__ import annotations

import store
from apptest_helpers import demo_app, errors, new_app, open_page, shows, sign_in  # noqa: F401
from editor_helpers import inject, items, shown, shown_spans
from pipeline.annotation import edits as ops
from pipeline.annotation.work import WorkState, spans_to_json
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span
from services import queues

EDITOR = "annotate.editor"


def _queue(app, user="ana") -> list[int]:
    db = app.db()
    try:
        return [a.doc_id for a in queues.load_queue(db, user, app.project_id)]
    finally:
        db.close()


def _first_todo(app, user="ana"):
    db = app.db()
    try:
        a = next(a for a in queues.load_queue(db, user, app.project_id) if a.status == "assigned")
        return a.doc_id, store.get_document(db, a.doc_id).text, store.read_layer(db, a.doc_id, "pre").spans
    finally:
        db.close()


def _work(at, user, doc_id) -> WorkState:
    return at.session_state[f"annotate.work.{user}.{doc_id}"]


def _free_word(text, spans) -> tuple[int, int]:
    """A run of letters no span touches."""
    i = next(i for i in range(1, len(text)) if text[i].isalpha() and not text[i - 1].isalnum()
             and not any(s.start <= i + 1 and i - 1 <= s.end for s in spans))
    j = i
    while j < len(text) and text[j].isalpha():
        j += 1
    return i, j


def test_editor_starts_from_suggestions_and_save_keeps_provenance_time_and_status(demo_app):
    doc_id, text, pre = _first_todo(demo_app)
    assert len(pre) >= 3, "the demo doc should have machine suggestions"
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.session_state["annotate.doc_id"] = doc_id
    open_page(at, "annotate")
    assert not errors(at)
    data = shown(at)
    assert data["mode"] == "annotate" and data["saved"] is None and data["position"].endswith(f"of {len(_queue(demo_app))}")
    assert [(s[0], s[1], s[2]) for s in shown_spans(at)] == sorted((s.start, s.end, s.type) for s in pre)
    assert all(s[3] for s in shown_spans(at))  # every machine suggestion is open
    assert {lab["type"] for lab in data["labels"]} == set(I2B2_2014.types)

    # the annotator accepts the first suggestion, leaves the second open, drops the third, adds a word
    first, second = sorted(pre, key=lambda s: s.start)[:2]
    a, b = _free_word(text, pre)
    sent = items(text, [first], I2B2_2014, accepted=True) + items(text, [second], I2B2_2014) + [
        {"start": a, "end": b, "type": "PATIENT", "accepted": True}]
    inject(at, EDITOR, action="save", spans=sent, seq=4)
    at.run()
    assert not errors(at)

    with demo_app.db() as db:
        layer = store.read_layer(db, doc_id, "annotator:ana")
        assert layer.version == 1
        got = {(s.start, s.end): (s.type, s.source, s.score) for s in layer.spans}
        assert got == {(first.start, first.end): (first.type, "human:ana", 1.0),
                       (second.start, second.end): (second.type, second.source, second.score),
                       (a, b): ("PATIENT", "human:ana", 1.0)}
        (asg,) = store.list_assignments(db, user="ana", doc_id=doc_id)
        assert asg.status == "in_progress" and asg.seconds_spent > 0
        assert shown(at)["message"].startswith("Saved (version 1)") and shown(at)["saved"] is not None
        assert not _work(at, "ana", doc_id).unsaved

        queue = _queue(demo_app)
        inject(at, EDITOR, action="finish", spans=sent, seq=5)
        at.run()
        assert not errors(at)
        (asg,) = store.list_assignments(db, user="ana", doc_id=doc_id)
        assert asg.status == "finished"
        assert store.read_layer(db, doc_id, "annotator:ana").status == "finished"
        assert store.read_layer(db, doc_id, "annotator:ana").version == 2
        assert at.session_state["annotate.doc_id"] == queue[queue.index(doc_id) + 1]  # and on to the next


def test_next_and_previous_follow_the_queue_as_it_was_shown(demo_app):
    ids = _queue(demo_app, "ben")
    at = new_app(demo_app)
    sign_in(at, demo_app, "ben")
    open_page(at, "annotate")
    assert at.session_state["annotate.doc_id"] == ids[0]
    assert shown(at)["position"] == f"1 of {len(ids)}" and not shown(at)["has_prev"] and shown(at)["has_next"]
    inject(at, EDITOR, action="next")
    at.run()
    assert at.session_state["annotate.doc_id"] == ids[1] and shown(at)["position"] == f"2 of {len(ids)}"
    # finishing the second moves the queue's order on the server (finished last) but not on screen
    with demo_app.db() as db:
        text = store.get_document(db, ids[1]).text
        pre = store.read_layer(db, ids[1], "pre").spans
        inject(at, EDITOR, action="finish", spans=items(text, pre, I2B2_2014))
        at.run()
        assert not errors(at)
        assert store.list_assignments(db, user="ben", doc_id=ids[1])[0].status == "finished"
        assert _queue(demo_app, "ben")[1] != ids[1]  # the server's order moved it among the finished ones
        assert at.session_state["annotate.doc_id"] == ids[2]
        inject(at, EDITOR, action="prev")
        at.run()
        assert at.session_state["annotate.doc_id"] == ids[1] and shown(at)["position"] == f"2 of {len(ids)}"
        inject(at, EDITOR, action="prev")
        at.run()
        assert at.session_state["annotate.doc_id"] == ids[0]
        at.selectbox(key="annotate.pick").set_value(ids[3]).run()
        assert at.session_state["annotate.doc_id"] == ids[3]
        assert not errors(at)


def test_a_draft_stays_when_leaving_the_document_and_coming_back(demo_app):
    doc_id, text, pre = _first_todo(demo_app, "ben")
    at = new_app(demo_app)
    sign_in(at, demo_app, "ben")
    at.session_state["annotate.doc_id"] = doc_id
    open_page(at, "annotate")
    token = shown(at)["token"]
    draft = items(text, pre[1:], I2B2_2014)  # the first suggestion removed, not saved
    inject(at, EDITOR, draft=draft, seq=2)
    at.run()
    assert ops.same_spans(_work(at, "ben", doc_id).current, pre[1:])
    assert shown(at)["token"] == token  # a draft does not restart the editor
    # an older draft arriving late changes nothing
    inject(at, EDITOR, draft=items(text, pre, I2B2_2014), seq=1)
    at.run()
    assert ops.same_spans(_work(at, "ben", doc_id).current, pre[1:])
    inject(at, EDITOR, action="next", spans=draft, seq=2)
    at.run()
    assert at.session_state["annotate.doc_id"] != doc_id
    at.session_state["annotate.doc_id"] = doc_id
    at.run()
    assert shown(at)["token"] != token  # the editor starts again, from the unsaved spans
    assert [(s[0], s[1]) for s in shown_spans(at)] == sorted((s.start, s.end) for s in pre[1:])
    with demo_app.db() as db:
        assert store.read_layer(db, doc_id, "annotator:ben").version == 0  # nothing was saved


def test_spans_the_browser_must_not_send_are_left_out_and_said_in_words(demo_app):
    doc_id, text, pre = _first_todo(demo_app)
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.session_state["annotate.doc_id"] = doc_id
    open_page(at, "annotate")
    first = sorted(pre, key=lambda s: s.start)[0]
    sent = items(text, pre, I2B2_2014) + [
        {"start": first.start, "end": first.end, "type": "CITY" if first.type != "CITY" else "STATE"},
        {"start": 0, "end": 3, "type": "My own label"},
        {"start": len(text) + 5, "end": len(text) + 9, "type": "DATE"}]
    inject(at, EDITOR, action="save", spans=sent)
    at.run()
    assert not errors(at)
    with demo_app.db() as db:
        saved = store.read_layer(db, doc_id, "annotator:ana").spans
    assert ops.same_spans(saved, pre)  # only what the note and the schema allow
    message = shown(at)["message"]
    assert "overlaps" in message and "My own label (1)" in message and "outside the note" in message
    assert f"{first.start}" not in message.split("'")[0]  # in words, not offsets


def test_stale_save_is_refused_and_the_spans_stay_in_the_session(demo_app):
    doc_id, text, pre = _first_todo(demo_app)
    first, second = new_app(demo_app), new_app(demo_app)
    for at in (first, second):  # two browser sessions of ana, both opening the document at version 0
        sign_in(at, demo_app, "ana")
        at.session_state["annotate.doc_id"] = doc_id
        open_page(at, "annotate")
        assert not errors(at)

    mine_first = pre[:1]
    inject(first, EDITOR, action="save", spans=items(text, mine_first, I2B2_2014))
    first.run()
    assert not errors(first)

    mine_second = pre[1:]
    inject(second, EDITOR, action="save", spans=items(text, mine_second, I2B2_2014))
    second.run()
    msgs = errors(second)
    assert len(msgs) == 1 and msgs[0].startswith("Not saved:")
    assert "version 0" in msgs[0] and "version 1" in msgs[0] and "not saved" in msgs[0]
    assert shown(second)["message_kind"] == "error"
    work = _work(second, "ana", doc_id)
    assert work.stale and ops.same_spans(work.current, mine_second)  # nothing lost
    assert second.button(key="annotate.reload") is not None

    with demo_app.db() as db:
        stored = store.read_layer(db, doc_id, "annotator:ana")
        assert stored.version == 1 and ops.same_spans(stored.spans, mine_first)  # the first save stands

        # the second session chooses to keep its spans on top of the latest version, then saves
        second.button(key="annotate.rebase").click().run()
        assert _work(second, "ana", doc_id).base_version == 1
        assert "now build on version 1" in shown(second)["message"]
        inject(second, EDITOR, action="save", spans=items(text, mine_second, I2B2_2014), seq=2)
        second.run()
        assert not errors(second)
        stored = store.read_layer(db, doc_id, "annotator:ana")
        assert stored.version == 2 and ops.same_spans(stored.spans, mine_second)


def test_unassigned_document_is_refused_and_its_text_not_rendered(demo_app):
    with demo_app.db() as db:
        taken = {a.doc_id for a in store.list_assignments(db, user="ana")}
        other = next(d for d in store.list_documents(db, demo_app.project_id) if d.id not in taken)
        text = store.get_document(db, other.id).text
        pre = store.read_layer(db, other.id, "pre").spans
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.session_state["annotate.doc_id"] = other.id
    open_page(at, "annotate")
    msgs = errors(at)
    assert len(msgs) == 1 and f"document {other.id} is not assigned to you" in msgs[0]
    assert f"annotate.work.ana.{other.id}" not in at.session_state  # the editor was never reached
    lines = [ln.strip() for ln in text.splitlines() if len(ln.strip()) >= 12]
    assert lines and not any(shows(at, ln) for ln in lines)
    assert not any(shows(at, text[s.start:s.end]) for s in pre if s.end - s.start >= 6)
    # the same holds for a document id that does not exist (no probing)
    at.session_state["annotate.doc_id"] = 999999
    at.run()
    assert any("999999 is not assigned to you" in m for m in errors(at))


def test_saved_spans_load_back_from_json_in_a_small_project(demo_app):
    text = "Seen by Dr. Okafor today. Okafor will call. Okafor's nurse, not Okaforo, agreed."
    with demo_app.db() as db:
        pid = store.create_project(db, "small", I2B2_2014)
        (doc_id,) = store.add_documents(db, pid, [Document("note1", text)], layer=None)
        store.save_layer(db, doc_id, "pre", [Span(str(doc_id), 12, 18, "NAME", "DOCTOR", "model:t", 0.55)],
                         expected_version=0, user=None, status="finished")
        store.assign(db, doc_id, "ana")
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    at.run()
    at.selectbox(key="wb.project_select").set_value(pid).run()  # the sidebar's project switcher
    open_page(at, "annotate")
    assert not errors(at)
    assert shown_spans(at) == [(12, 18, "DOCTOR", True)] and shown(at)["position"] == "1 of 1"
    token = shown(at)["token"]

    data = spans_to_json(doc_id, "annotator:ana", 0, [Span(str(doc_id), 26, 32, "NAME", "DOCTOR", "human:ana")])
    at.file_uploader(key="annotate.upload").upload("spans.json", data.encode("utf-8"), "application/json")
    at.run()
    at.button(key="annotate.load").click().run()
    assert not errors(at)
    assert [(s.start, s.end) for s in _work(at, "ana", doc_id).current] == [(26, 32)]
    assert shown(at)["token"] != token and shown_spans(at) == [(26, 32, "DOCTOR", False)]
    assert shown(at)["message"].startswith("Loaded spans from the file")


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
