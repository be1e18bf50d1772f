"""Issue 31, item 1: machine output never becomes gold unseen.

Each span of a person's layer records how it came to be (created, changed, accepted one by one,
accepted in bulk); the store keeps it (migration 11); agreement and the annotators-vs-gold
figures keep spans nobody looked at apart; Review does not count spans every annotator only
bulk-accepted as agreed; a project can require every suggestion decided before finishing.
"""
from __future__ import annotations

import pytest

import store
from pipeline.annotation import adjudication as adj
from pipeline.annotation import edits as ops
from pipeline.annotation.work import spans_from_json, spans_to_json
from pipeline.metrics.agreement import against_gold, agreement
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span, SpanError, is_unreviewed
from services.settings import ProjectSettings

TEXT = "Seen by Dr Walter Austin at Mercy Hospital on 2070-01-02, call 555-0199 in Boston."
#        0         1         2         3         4         5         6         7         8
DOCTOR = (11, 24)      # Walter Austin
HOSPITAL = (28, 42)    # Mercy Hospital
DATE = (46, 56)        # 2070-01-02
PHONE = (63, 71)       # 555-0199
CITY = (75, 81)        # Boston


def _sugg(extent, typ, score=0.9):
    return Span("1", *extent, I2B2_2014.category_of(typ), typ, source="model:v1", score=score, layer="pre")


def _human(extent, typ, who, provenance):
    return Span("1", *extent, I2B2_2014.category_of(typ), typ, source=f"human:{who}", provenance=provenance)


def test_offsets_of_the_example_note():
    assert [TEXT[a:b] for a, b in (DOCTOR, HOSPITAL, DATE, PHONE, CITY)] == [
        "Walter Austin", "Mercy Hospital", "2070-01-02", "555-0199", "Boston"]


def test_from_editor_records_how_each_span_came_to_be():
    pre = [_sugg(DOCTOR, "DOCTOR"), _sugg(HOSPITAL, "HOSPITAL"), _sugg(DATE, "DATE"), _sugg(PHONE, "PHONE")]
    sent = [
        {"start": DOCTOR[0], "end": DOCTOR[1], "type": "DOCTOR", "accepted": True, "how": "accepted"},
        {"start": HOSPITAL[0], "end": HOSPITAL[1], "type": "HOSPITAL", "accepted": True, "how": "bulk"},
        {"start": DATE[0], "end": DATE[1], "type": "DATE", "accepted": False, "how": ""},      # left open
        {"start": PHONE[0], "end": PHONE[1], "type": "FAX", "accepted": True, "how": "changed"},  # relabelled
        {"start": CITY[0], "end": CITY[1], "type": "CITY", "accepted": True, "how": "created"},
    ]
    got = {(s.start, s.end): s for s in ops.from_editor(sent, TEXT, I2B2_2014, 1, previous=pre,
                                                         source="human:ana", layer="annotator:ana").spans}
    assert got[DOCTOR].provenance == "accepted" and got[DOCTOR].source == "human:ana"
    assert got[HOSPITAL].provenance == "bulk" and got[HOSPITAL].source == "human:ana"
    assert got[DATE].provenance == "" and got[DATE].source == "model:v1"       # still a suggestion
    assert got[PHONE].provenance == "changed" and got[PHONE].type == "FAX"
    assert got[CITY].provenance == "created"
    assert [is_unreviewed(got[k]) for k in (DOCTOR, HOSPITAL, DATE, PHONE, CITY)] == [False, True, True, False, False]


def test_the_browser_cannot_call_a_span_it_made_bulk_accepted_or_invent_a_provenance():
    sent = [{"start": CITY[0], "end": CITY[1], "type": "CITY", "accepted": True, "how": "bulk"},
            {"start": DATE[0], "end": DATE[1], "type": "DATE", "accepted": True, "how": "rubber-stamp"}]
    got = ops.from_editor(sent, TEXT, I2B2_2014, 1, source="human:ana").spans
    assert [s.provenance for s in got] == ["created", "created"]   # no suggestion was there to accept


def test_a_span_already_decided_keeps_its_provenance_on_the_next_save():
    before = [_human(HOSPITAL, "HOSPITAL", "ana", "bulk"), _human(DOCTOR, "DOCTOR", "ana", "accepted")]
    sent = [{"start": s.start, "end": s.end, "type": s.type, "accepted": True, "how": s.provenance} for s in before]
    got = ops.from_editor(sent, TEXT, I2B2_2014, 1, previous=before, source="human:ana").spans
    assert {(s.start, s.provenance) for s in got} == {(DOCTOR[0], "accepted"), (HOSPITAL[0], "bulk")}


def test_to_editor_sends_the_provenance_back():
    shown = ops.to_editor(TEXT, [_human(HOSPITAL, "HOSPITAL", "ana", "bulk"), _sugg(DATE, "DATE")], I2B2_2014)
    assert [(s["how"], s["suggestion"]) for s in shown] == [("bulk", False), ("", True)]


def test_the_store_keeps_provenance_and_refuses_an_unknown_one():
    db = store.connect(":memory:")
    pid = store.create_project(db, "Ward 7", I2B2_2014)
    [doc_id] = store.add_documents(db, pid, [Document("note-1", TEXT)])
    spans = [_human(DOCTOR, "DOCTOR", "ana", "accepted"), _human(HOSPITAL, "HOSPITAL", "ana", "bulk"),
             _sugg(DATE, "DATE").with_(layer="")]
    store.save_layer(db, doc_id, "annotator:ana", [s.with_(doc_id="") for s in spans], expected_version=0, user="ana")
    got = store.read_layer(db, doc_id, "annotator:ana").spans
    assert [(s.start, s.provenance) for s in got] == [(DOCTOR[0], "accepted"), (HOSPITAL[0], "bulk"), (DATE[0], "")]
    with pytest.raises(SpanError, match="provenance"):
        store.save_layer(db, doc_id, "annotator:ana", [spans[0].with_(doc_id="", provenance="looked-hard")],
                         expected_version=1, user="ana")
    assert store.read_layer(db, doc_id, "annotator:ana").version == 1      # nothing written


def test_a_file_from_before_migration_11_gets_the_column_and_keeps_its_spans(tmp_path):
    path = tmp_path / "old.db"
    old = store.connect(path, migrate_to=10)
    pid = store.create_project(old, "Ward 7", I2B2_2014)
    [doc_id] = store.add_documents(old, pid, [Document("note-1", TEXT, [Span("", *DATE, "DATE", "DATE")])])
    old.close()
    db = store.connect(path)
    assert [(s.start, s.provenance) for s in store.read_layer(db, doc_id, "gold").spans] == [(DATE[0], "")]
    db.close()


def _two_annotators():
    """ana and ben agree on the doctor (both looked), both left the hospital bulk-accepted, both
    bulk-accepted the date, ana explicitly accepted the phone that ben only bulk-accepted."""
    ana = [_human(DOCTOR, "DOCTOR", "ana", "accepted"), _human(HOSPITAL, "HOSPITAL", "ana", "bulk"),
           _human(DATE, "DATE", "ana", "bulk"), _human(PHONE, "PHONE", "ana", "accepted")]
    ben = [_human(DOCTOR, "DOCTOR", "ben", "created"), _human(HOSPITAL, "HOSPITAL", "ben", "bulk"),
           _sugg(DATE, "DATE"), _human(PHONE, "PHONE", "ben", "bulk")]
    return ana, ben


def test_agreement_keeps_bulk_accepted_spans_apart():
    ana, ben = _two_annotators()
    r = agreement({"ana": {"1": ana}, "ben": {"1": ben}}, {"1": TEXT})
    p = r.pair("ana", "ben")
    # only what people decided is compared: the doctor (both), the phone (ana only)
    assert (p.strict.micro.tp, p.strict.micro.fp + p.strict.micro.fn) == (1, 1)
    assert r.unreviewed == {"ana": 2, "ben": 3}
    assert r.unreviewed_shared == 2          # hospital and date: both only rubber-stamped them
    assert r.to_dict()["unreviewed_shared"] == 2


def test_against_gold_scores_unreviewed_spans_apart():
    ana, _ = _two_annotators()
    gold = {"1": [Span("1", *s, I2B2_2014.category_of(t), t) for s, t in
                  ((DOCTOR, "DOCTOR"), (HOSPITAL, "HOSPITAL"), (PHONE, "PHONE"))]}
    (c,) = against_gold({"ana": {"1": ana}}, gold)
    assert (c.strict.micro.tp, c.strict.micro.fp, c.strict.micro.fn) == (2, 0, 1)   # doctor, phone; hospital apart
    assert (c.n_unreviewed, c.unreviewed_in_gold) == (2, 1)                         # hospital in gold, date not


def test_review_marks_spans_everyone_only_bulk_accepted_as_unreviewed_not_agreed():
    ana, ben = _two_annotators()
    layers = {"ana": ana, "ben": ben}
    found = adj.document_disagreements(1, layers)
    kinds = {(d.start, d.end): d.kind for d in found}
    assert kinds[HOSPITAL] == "unreviewed" and kinds[DATE] == "unreviewed"
    assert DOCTOR not in kinds and PHONE not in kinds     # someone looked at each: agreed as before
    gold = adj.agreed_gold(1, layers, found, "rita")
    assert [(s.start, s.end) for s in gold] == [DOCTOR, PHONE]    # rubber stamps stay out until taken
    i = next(i for i, d in enumerate(found) if (d.start, d.end) == HOSPITAL)
    with pytest.raises(adj.ReviewError, match="undecided"):
        adj.check_all_decided(found, [])
    taken = adj.draft_gold(1, layers, found, {i: "ana"}, "rita")
    assert HOSPITAL in [(s.start, s.end) for s in taken]


def test_a_single_annotator_layer_has_nothing_to_compare():
    ana, _ = _two_annotators()
    assert adj.document_disagreements(1, {"ana": ana}) == []


def test_finish_refusal_only_when_the_project_requires_every_suggestion_decided():
    spans = [_human(DOCTOR, "DOCTOR", "ana", "accepted"), _sugg(DATE, "DATE"), _sugg(PHONE, "PHONE")]
    assert ops.open_suggestions(spans) == 2
    assert ops.finish_refusal(spans, require_decided=False) is None
    assert "2 suggestions are still open" in ops.finish_refusal(spans, require_decided=True)
    assert ops.finish_refusal(spans[:1], require_decided=True) is None


def test_require_decided_setting_round_trips_and_only_true_turns_it_on():
    s = ProjectSettings.from_settings({"require_decided": True, "demo": {"seed": 1}})
    assert s.require_decided and s.to_settings()["require_decided"] is True
    assert ProjectSettings.from_settings(s.to_settings()) == s
    assert not ProjectSettings.from_settings({}).require_decided
    assert not ProjectSettings.from_settings({"require_decided": "false"}).require_decided


def test_unsaved_work_as_json_keeps_provenance():
    spans = [_human(HOSPITAL, "HOSPITAL", "ana", "bulk"), _human(DOCTOR, "DOCTOR", "ana", "accepted")]
    back = spans_from_json(spans_to_json(1, "annotator:ana", 0, spans), 1, TEXT, I2B2_2014)
    assert [(s.start, s.provenance) for s in back] == [(DOCTOR[0], "accepted"), (HOSPITAL[0], "bulk")]
    bad = spans_to_json(1, "annotator:ana", 0, [spans[0].with_(provenance="trust-me")])
    with pytest.raises(ops.AnnotationError, match="unknown provenance"):
        spans_from_json(bad, 1, TEXT, I2B2_2014)
