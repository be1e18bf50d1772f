"""Issue 31, item 1, through the pages (AppTest, the editor's browser side stood in for by
``tests/editor_helpers.py``): the Annotate page records how each span came to be, tells the
editor whether the project requires every suggestion decided, refuses such a finish on the
server while suggestions are open, and says how many were left open otherwise; Review shows
spans both annotators only bulk-accepted as "unreviewed", outside the draft gold."""
from __future__ import annotations

import store
from apptest_helpers import demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from editor_helpers import inject, items, shown, shown_spans
from pipeline.annotation import adjudication as adj
from pipeline.schemas import I2B2_2014
from services import queues, review
from services.settings import ProjectSettings

EDITOR = "annotate.editor"


def _first_todo(app, user="ana"):
    db = app.db()
    try:
        a = next(a for a in queues.load_queue(db, user, app.project_id) if a.status == "assigned")
        return a.doc_id, store.get_document(db, a.doc_id).text, store.read_layer(db, a.doc_id, "pre").spans
    finally:
        db.close()


def _require_decided(app, on: bool) -> None:
    db = app.db()
    try:
        project = store.get_project(db, app.project_id)
        new = ProjectSettings.of(project).with_(require_decided=on).to_settings()
        store.update_project_settings(db, app.project_id, new, user="lead")
    finally:
        db.close()


def _open(app, doc_id):
    at = new_app(app)
    sign_in(at, app, "ana")
    at.session_state["annotate.doc_id"] = doc_id
    open_page(at, "annotate")
    assert not errors(at)
    return at


def test_finish_with_open_suggestions_is_refused_when_the_project_requires_them_decided(demo_app):
    _require_decided(demo_app, True)
    doc_id, text, pre = _first_todo(demo_app)
    assert len(pre) >= 3
    at = _open(demo_app, doc_id)
    assert shown(at)["require_decided"] is True
    first, *rest = sorted(pre, key=lambda s: s.start)
    sent = items(text, [first], I2B2_2014, accepted=True) + items(text, rest, I2B2_2014)   # rest left open
    inject(at, EDITOR, action="finish", spans=sent, seq=3)
    at.run()
    assert not errors(at)
    data = shown(at)
    assert data["message_kind"] == "error" and f"{len(rest)} suggestions are still open" in data["message"]
    with demo_app.db() as db:
        assert store.read_layer(db, doc_id, "annotator:ana").version == 0          # nothing saved
        (asg,) = store.list_assignments(db, user="ana", doc_id=doc_id)
        assert asg.status != "finished" and at.session_state["annotate.doc_id"] == doc_id

        # accepting the rest in bulk decides them: the finish goes through, recorded as bulk
        bulk = [dict(it, accepted=True, how="bulk") for it in items(text, rest, I2B2_2014)]
        first_item = dict(items(text, [first], I2B2_2014, accepted=True)[0], how="accepted")
        inject(at, EDITOR, action="finish", spans=[first_item, *bulk], seq=4)
        at.run()
        assert not errors(at)
        layer = store.read_layer(db, doc_id, "annotator:ana")
        assert layer.status == "finished"
        got = {(s.start, s.end): s.provenance for s in layer.spans}
        assert got[(first.start, first.end)] == "accepted"
        assert all(got[(s.start, s.end)] == "bulk" for s in rest)


def test_finish_leaving_suggestions_open_says_so_and_records_nothing_as_accepted(demo_app):
    doc_id, text, pre = _first_todo(demo_app)
    at = _open(demo_app, doc_id)
    assert shown(at)["require_decided"] is False
    inject(at, EDITOR, action="finish", spans=items(text, pre, I2B2_2014), seq=2)     # all left open
    at.run()
    assert not errors(at)
    with demo_app.db() as db:
        layer = store.read_layer(db, doc_id, "annotator:ana")
        assert layer.status == "finished"
        assert all(not s.source.startswith("human:") and s.provenance == "" for s in layer.spans)
        assert f"{len(pre)} suggestions were left open" in shown(at)["message"]


def test_saved_provenance_goes_back_to_the_editor(demo_app):
    doc_id, text, pre = _first_todo(demo_app)
    at = _open(demo_app, doc_id)
    first, *rest = sorted(pre, key=lambda s: s.start)
    sent = [dict(items(text, [first], I2B2_2014, accepted=True)[0], how="bulk"), *items(text, rest, I2B2_2014)]
    inject(at, EDITOR, action="save", spans=sent, seq=2)
    at.run()
    at2 = _open(demo_app, doc_id)                 # a new session: the editor starts from the saved layer
    hows = {(s["start"], s["end"]): s["how"] for s in shown(at2)["spans"]}
    assert hows[(first.start, first.end)] == "bulk"


def test_review_shows_spans_everyone_only_bulk_accepted_as_unreviewed(demo_app):
    with demo_app.db() as db:
        item = review.review_queue(db, demo_app.project_id)[0]
        layers = review.finished_layers(db, item.doc_id)
        a, b = sorted(layers)[:2]
        # the spans both annotators agree on become bulk-accepted in both layers
        agreed = {(s.start, s.end, s.label) for s in layers[a]} & {(s.start, s.end, s.label) for s in layers[b]}
        assert agreed, "the demo's annotators should agree somewhere"
        stamp = sorted(agreed)[0]
        for who in (a, b):
            name = f"annotator:{who}"
            state = store.read_layer(db, item.doc_id, name)
            spans = [s.with_(doc_id="", provenance="bulk") if (s.start, s.end, s.label) == stamp else s.with_(doc_id="")
                     for s in state.spans]
            store.save_layer(db, item.doc_id, name, spans, expected_version=state.version, user=who)

    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    at.session_state["review.doc_id"] = item.doc_id
    open_page(at, "review")
    assert not errors(at)
    data = shown(at)
    kinds = {(d["start"], d["end"]): d["kind"] for d in data["disagreements"]}
    assert kinds.get(stamp[:2]) == "unreviewed"
    assert stamp[:2] not in {(s[0], s[1]) for s in shown_spans(at)}       # not in the draft gold as agreed
    with demo_app.db() as db:
        layers = review.finished_layers(db, item.doc_id)
    assert any(d.kind == "unreviewed" for d in adj.document_disagreements(item.doc_id, layers))


def test_metrics_report_bulk_accepted_spans_apart(demo_app):
    """The Annotators tab: agreement figures leave out spans nobody looked at and say how many;
    the annotators-vs-gold table counts them in a column of their own."""
    from apptest_helpers import shows
    from services import project_metrics as pm

    with demo_app.db() as db:
        before = pm.project_metrics(db, demo_app.project_id, pm.MetricsFilter())
        assert before.agreement is not None and sum(before.agreement.unreviewed.values()) == 0
        item = review.review_queue(db, demo_app.project_id)[0]
        layers = review.finished_layers(db, item.doc_id)
        a, b = sorted(layers)[:2]
        agreed = {(s.start, s.end, s.label) for s in layers[a]} & {(s.start, s.end, s.label) for s in layers[b]}
        for who in (a, b):
            name = f"annotator:{who}"
            state = store.read_layer(db, item.doc_id, name)
            store.save_layer(db, item.doc_id, name, [s.with_(doc_id="", provenance="bulk" if (s.start, s.end, s.label)
                                                             in agreed else s.provenance) for s in state.spans],
                             expected_version=state.version, user=who)
        after = pm.project_metrics(db, demo_app.project_id, pm.MetricsFilter())
    assert after.agreement.unreviewed == {a: len(agreed), b: len(agreed)}
    assert after.agreement.unreviewed_shared == len(agreed)
    p0, p1 = before.agreement.pair(a, b).strict.micro, after.agreement.pair(a, b).strict.micro
    assert p1.tp == p0.tp - len(agreed)          # the rubber stamps no longer count as agreement

    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    open_page(at, "metrics")
    assert not errors(at)
    assert shows(at, f"Not in these figures: {2 * len(agreed)} span(s) nobody looked at")
    from pipeline.metrics.summaries import gold_comparison_rows
    assert after.vs_gold, "the demo's annotators finished documents that have gold"
    assert {"bulk-accepted or left open (not scored)", "of them in gold"} <= set(gold_comparison_rows(after.vs_gold)[0])
