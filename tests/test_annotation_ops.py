"""Pure logic behind the Annotate and Review pages: the span editor's round trip (schema filter,
UTF-16 offsets, provenance of suggestions, checks of what the browser sends), word snapping,
mark all occurrences / remove, unsaved work as JSON, queue orders and assignment
plans (pipeline.annotation.queue), adjudication and possible misses (services.review). Real examples:
the MEDDOCAN fixture documents and the synthetic demo project."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import pytest

import store
from pipeline.annotation import edits as ops
from pipeline.annotation.work import WorkState, spans_from_json, spans_to_json
from pipeline.annotation import queue as queue_order
from services import review
from pipeline.annotation import adjudication as adj
from pipeline.metrics import summaries
from services import worklists
from pipeline.metrics.agreement import disagreements
from pipeline.formats import read_brat
from pipeline.schemas import I2B2_2014, MEDDOCAN
from pipeline.spans import Span


@pytest.fixture(scope="module")
def meddocan_docs():
    from conftest import MEDDOCAN_SAMPLE

    return read_brat(MEDDOCAN_SAMPLE / "brat", MEDDOCAN)


def keys(spans):
    return sorted((s.start, s.end, s.label) for s in spans)


# --------------------------------------------------------------------------- editor round trip

def test_editor_round_trip_on_meddocan_keeps_spans_and_provenance(meddocan_docs):
    for doc in meddocan_docs:
        sent = ops.to_editor(doc.text, doc.spans, MEDDOCAN)
        assert len(sent) == len(doc.spans)
        assert all(it["type"] in MEDDOCAN.types and it["category"] == MEDDOCAN.category_of(it["type"]) for it in sent)
        back = ops.from_editor([{**it, "accepted": not it["suggestion"]} for it in sent], doc.text, MEDDOCAN,
                               doc.doc_id, previous=doc.spans, source="human:x")
        assert not back.changed
        assert keys(back.spans) == keys(doc.spans)
        assert [(s.category, s.source) for s in back.spans] == [(s.category, s.source) for s in sorted(
            doc.spans, key=lambda s: (s.start, s.end, s.label))]


def test_editor_marks_open_suggestions_and_accepting_makes_them_a_persons():
    text = "Paciente Juan Pérez, 45 años, Madrid."
    pre = [Span("d", 9, 19, "NAME", "NOMBRE_SUJETO_ASISTENCIA", "model:v3", 0.61, "pre"),
           Span("d", 21, 23, "AGE", "EDAD_SUJETO_ASISTENCIA", "model:v3", 0.9, "pre")]
    sent = ops.to_editor(text, pre + [Span("d", 30, 36, "LOCATION", "TERRITORIO", "human:ana")], MEDDOCAN)
    assert [(it["suggestion"], it["score"]) for it in sent] == [(True, 0.61), (True, 0.9), (False, 1.0)]
    back = ops.from_editor([{"start": 9, "end": 19, "type": "NOMBRE_SUJETO_ASISTENCIA", "accepted": False},
                            {"start": 21, "end": 23, "type": "EDAD_SUJETO_ASISTENCIA", "accepted": True},
                            {"start": 30, "end": 36, "type": "TERRITORIO", "accepted": True}],
                           text, MEDDOCAN, "d", previous=pre, source="human:ana", layer="annotator:ana")
    assert [(s.start, s.source, s.score, s.layer) for s in back.spans] == [
        (9, "model:v3", 0.61, "annotator:ana"),   # still an open suggestion
        (21, "human:ana", 1.0, "annotator:ana"),  # accepted
        (30, "human:ana", 1.0, "annotator:ana")]  # a person's span
    assert ops.is_suggestion(back.spans[0]) and not ops.is_suggestion(back.spans[1])


def test_from_editor_checks_everything_the_browser_sends():
    text = "Seen by Dr. Smith and\nWalter Austin today."
    sent = [{"start": 12, "end": 17, "type": "DOCTOR"},
            {"start": 8, "end": 17, "type": "PATIENT"},            # overlaps the first one (starts earlier: kept)
            {"start": 21, "end": 35, "type": "PATIENT"},           # pulls the line break in: trimmed
            {"start": 0, "end": 4, "type": "My own label"},        # not in the schema
            {"start": 40, "end": 99, "type": "DATE"},              # outside the note
            {"start": "x", "end": 3, "type": "DATE"},              # garbage
            {"start": 17, "end": 18, "type": "DATE"},              # whitespace only
            "not even a dict",
            {"start": 8, "end": 17, "type": "PATIENT"}]            # duplicate
    res = ops.from_editor(sent, text, I2B2_2014, "7", source="human:ana")
    assert [(s.start, s.end, s.type) for s in res.spans] == [(8, 17, "PATIENT"), (22, 35, "PATIENT")]
    assert res.unknown_labels == {"My own label": 1} and res.invalid == 4 and res.trimmed == 1
    assert [(a.type, b.type) for a, b in res.overlaps] == [("PATIENT", "DOCTOR")]
    words = res.messages(text)
    assert words[0] == "'Smith' (DOCTOR) overlaps 'Dr. Smith' (PATIENT) and was not kept."
    assert not any(ch.isdigit() for ch in words[0])  # in words: no offsets
    assert any("My own label (1)" in w for w in words)
    assert ops.from_editor(None, text, I2B2_2014, "7").spans == []
    assert ops.from_editor({"start": 0}, text, I2B2_2014, "7").spans == []


def test_utf16_offsets_with_an_emoji_before_a_span():
    text = "🙂 Dr. Ana Ruiz 🏥 ward 7, Ana"
    ana = text.index("Ana")
    span = Span("d", ana, ana + 8, "NAME", "DOCTOR", "model:x", 0.5)
    (item,) = ops.to_editor(text, [span], I2B2_2014)
    assert (item["start"], item["end"]) == (ana + 1, ana + 9)  # the emoji is two UTF-16 code units
    assert text.encode("utf-16-le")[2 * item["start"]:2 * item["end"]].decode("utf-16-le") == "Ana Ruiz"
    last = text.rindex("Ana")
    units = ops.to_utf16(text, last)
    assert units == last + 2  # two emoji before it
    back = ops.from_editor([item, {"start": units, "end": units + 3, "type": "PATIENT"}], text, I2B2_2014, "d",
                           previous=[span])
    assert keys(back.spans) == [(ana, ana + 8, "DOCTOR"), (last, last + 3, "PATIENT")]
    assert back.spans[0].source == "model:x"
    assert ops.from_utf16(text, ops.to_utf16(text, last)) == last
    assert ops.to_utf16(text, len(text)) == len(text.encode("utf-16-le")) // 2


# --------------------------------------------------------------------------- word snapping

def test_snap_to_words_never_takes_whitespace_and_widens_to_whole_words():
    text = "Seen by Dr. Smith,\n  Walter Austin (MRN 12-345)\tand Zoë Núñez."
    walter = text.index("Walter")
    # the reported bug: a selection from the end of the previous line took the line break in
    assert ops.snap_to_words(text, walter - 3, walter + 13) == (walter, walter + 13)
    assert ops.snap_to_words(text, walter + 2, walter + 10) == (walter, walter + 13)   # "lter Aus" -> both names
    smith = text.index("Smith")
    assert ops.snap_to_words(text, smith - 1, smith + 5) == (smith, smith + 5)         # the space before it
    assert text[slice(*ops.snap_to_words(text, smith + 1, smith + 7))] == "Smith,"     # punctuation kept if selected
    dr = text.index("Dr.")
    assert text[slice(*ops.snap_to_words(text, dr + 1, smith + 2))] == "Dr. Smith"
    mrn = text.index("12-345")
    assert text[slice(*ops.snap_to_words(text, mrn + 4, mrn + 5))] == "345"            # '-' is a boundary
    assert text[slice(*ops.snap_to_words(text, smith + 5, smith + 9))] == ","           # ",\n  " -> ","
    assert ops.snap_to_words(text, text.index("\n"), text.index("W")) is None          # whitespace only
    zoe = text.index("Zoë")
    assert text[slice(*ops.snap_to_words(text, zoe + 1, zoe + 6))] == "Zoë Núñez"
    decomposed = "Dr. Zoe\u0308 Lee"                                                   # e + combining diaeresis
    assert decomposed[slice(*ops.snap_to_words(decomposed, 4, 6))] == "Zoe\u0308"
    emoji = "🙂 Ana"
    assert ops.snap_to_words(emoji, 0, 5) == (0, 5)                                  # a symbol is not widened
    assert ops.snap_to_words(emoji, 3, 4) == (2, 5)
    assert ops.trim_whitespace(" \n x \t", 0, 6) == (3, 4)


def test_describe_names_a_span_by_its_text_on_one_line():
    text = "Pt: Walter\nAustin, seen by " + "x" * 60
    assert ops.describe(text, Span("1", 4, 17, "NAME", "PATIENT")) == "'Walter Austin' (PATIENT)"
    long = ops.describe(text, Span("1", 27, 87, "NAME", "DOCTOR"))
    assert long.endswith("…' (DOCTOR)") and len(long) < 60


# --------------------------------------------------------------------------- edits

def test_word_occurrences_are_whole_words():
    text = "Ann saw Anna. ann left; Ann's bag (Ann)"
    assert ops.word_occurrences(text, "Ann") == [(0, 3), (24, 27), (35, 38)]
    assert ops.word_occurrences(text, "Ann", ignore_case=True) == [(0, 3), (14, 17), (24, 27), (35, 38)]
    assert ops.word_occurrences(text, " ") == []
    assert ops.word_occurrences("tel. 555-1234, 555-1234x", "555-1234") == [(5, 13)]


def test_mark_all_occurrences_restores_removed_repeats_on_meddocan(meddocan_docs):
    checked = 0
    for doc in meddocan_docs:
        by_surface = defaultdict(list)
        for s in sorted(doc.spans, key=lambda s: s.start):
            by_surface[(doc.text[s.start:s.end], s.label)].append(s)
        for (surface, _), group in by_surface.items():
            whole = set(ops.word_occurrences(doc.text, surface))
            repeats = [s for s in group[1:] if (s.start, s.end) in whole]
            if not repeats or (group[0].start, group[0].end) not in whole:
                continue
            thinned = [s for s in doc.spans if s not in repeats]
            marked, added = ops.mark_all_occurrences(doc.text, thinned, group[0])
            assert set(keys(repeats)) <= set(keys(marked))
            new = [s for s in marked if s not in thinned]
            assert added == len(new) >= len(repeats)
            for s in new:  # only whole-word copies of the surface, never overlapping a kept span
                assert doc.text[s.start:s.end] == surface and (s.start, s.end) in whole
                assert not any(t.overlaps(s) for t in thinned)
                assert (s.category, s.type, s.score) == (group[0].category, group[0].type, 1.0)
            assert not ops.find_overlaps(marked)
            checked += 1
    assert checked >= 10


def test_remove_one_and_all_with_same_text():
    text = "Smith called. SMITH and Smith. Smithson."
    spans = [Span("d", 0, 5, "NAME", "PATIENT"), Span("d", 14, 19, "NAME", "PATIENT"),
             Span("d", 24, 29, "NAME", "DOCTOR"), Span("d", 31, 39, "NAME", "PATIENT")]
    assert keys(ops.remove_span(spans, spans[2])) == keys([spans[0], spans[1], spans[3]])
    kept, n = ops.remove_same_text(text, spans, spans[0])
    assert n == 2 and keys(kept) == keys([spans[1], spans[3]])
    kept, n = ops.remove_same_text(text, spans, spans[0], ignore_case=True)
    assert n == 3 and keys(kept) == keys([spans[3]])


def test_overlaps_and_same_spans():
    a, b, c = Span("d", 0, 5, "NAME", "PATIENT"), Span("d", 3, 8, "DATE", "DATE"), Span("d", 8, 9, "AGE", "AGE")
    assert ops.find_overlaps([c, b, a]) == [(a, b)]
    assert ops.same_spans([a, c], [c.with_(source="x", score=0.2), a])
    assert not ops.same_spans([a], [a.with_(type="DOCTOR")])


def test_unsaved_spans_json_round_trip(meddocan_docs):
    doc = meddocan_docs[0]
    data = spans_to_json(12, "annotator:ana", 3, doc.spans)
    assert doc.text[doc.spans[0].start:doc.spans[0].end] not in data  # offsets and labels only
    back = spans_from_json(data.encode("utf-8"), 12, doc.text, MEDDOCAN, layer="annotator:ana")
    assert keys(back) == keys(doc.spans) and {s.doc_id for s in back} == {"12"}
    with pytest.raises(ops.AnnotationError, match="for document '12', not 13"):
        spans_from_json(data, 13, doc.text, MEDDOCAN)
    with pytest.raises(ops.AnnotationError, match="lies outside"):
        spans_from_json(data, 12, doc.text[:10], MEDDOCAN)
    with pytest.raises(ops.AnnotationError, match="not in the schema"):
        spans_from_json(data, 12, doc.text, I2B2_2014)
    with pytest.raises(ops.AnnotationError, match="not valid JSON"):
        spans_from_json("{", 12, doc.text, MEDDOCAN)


def test_work_state_keeps_spans_until_saved():
    a = Span("1", 0, 2, "NAME", "PATIENT")
    w = WorkState(doc_id=1, layer="annotator:ana", base=[], base_version=0, opened_at=0.0)
    w.current = [a]
    assert w.unsaved
    w.stale = "refused"
    w.rebase(4)
    assert (w.base_version, w.stale, w.current) == (4, None, [a])
    w.saved_as(5, 10.0)
    assert not w.unsaved and w.base_version == 5 and w.opened_at == 10.0


# --------------------------------------------------------------------------- queue order

@dataclass
class A:
    doc_id: int
    status: str
    position: int


def test_queue_orders():
    items = [A(10, "finished", 0), A(11, "assigned", 1), A(12, "in_progress", 2), A(13, "assigned", 3),
             A(14, "assigned", 4), A(15, "finished", 5)] + [A(100 + i, "assigned", 6 + i) for i in range(20)]
    assigned = queue_order.order_queue(items, "assigned")
    assert [a.doc_id for a in assigned[:4]] == [11, 12, 13, 14]
    assert [a.doc_id for a in assigned[-2:]] == [10, 15]  # finished last
    r1 = queue_order.order_queue(items, "random", username="ana", seed=1)
    again = queue_order.order_queue(items, "random", username="ana", seed=1)
    other = queue_order.order_queue(items, "random", username="ben", seed=1)
    assert [a.doc_id for a in r1] == [a.doc_id for a in again]
    assert [a.doc_id for a in r1] != [a.doc_id for a in other]
    assert sorted(a.doc_id for a in r1) == sorted(a.doc_id for a in items)
    assert [a.doc_id for a in r1[-2:]] == [10, 15]
    pre = {11: [Span("11", 0, 1, "NAME", "PATIENT", score=0.95)],                       # far from 0.5
           12: [Span("12", 0, 1, "DATE", "DATE", score=0.52), Span("12", 2, 3, "NAME", "PATIENT", score=0.6)],
           13: [Span("13", 0, 1, "NAME", "DOCTOR", score=0.45)],                          # near DOCTOR's 0.4
           14: []}
    unc = queue_order.order_queue(items[:6], "uncertain", pre_spans=pre, thresholds={"DOCTOR": 0.4})
    assert [a.doc_id for a in unc] == [13, 12, 11, 14, 10, 15]  # 0.05, 0.06, 0.45, then no suggestions
    with pytest.raises(ValueError):
        queue_order.order_queue(items, "alphabetical")


def test_thresholds_and_uncertainty():
    flat = queue_order.flatten_thresholds({"per_category": {"NAME": 0.3, "DATE": 1.5}, "PATIENT": 0.2,
                                           "default": 0.6, "note": "x", "flag": True})
    assert flat == {"NAME": 0.3, "PATIENT": 0.2, "default": 0.6}
    s = Span("1", 0, 1, "NAME", "DOCTOR", score=0.5)
    assert queue_order.threshold_for(s, flat) == 0.3
    assert queue_order.threshold_for(s.with_(type="PATIENT"), flat) == 0.2
    assert queue_order.threshold_for(s.with_(category="AGE", type="AGE"), flat) == 0.6
    assert queue_order.threshold_for(s, {}) == 0.5
    assert queue_order.uncertainty([]) is None
    assert queue_order.uncertainty([s, s.with_(score=0.9)]) == pytest.approx(0.2)


def test_plan_assignments():
    docs = list(range(1, 41))
    plan = queue_order.plan_assignments(docs, ["ana", "ben", "cem"], double_fraction=0.25, seed=3)
    per_doc = defaultdict(list)
    for d, who in plan:
        per_doc[d].append(who)
    assert set(per_doc) == set(docs)
    assert sum(len(v) == 2 for v in per_doc.values()) == 10
    assert all(len(set(v)) == len(v) for v in per_doc.values())
    load = Counter(who for _, who in plan)
    assert max(load.values()) - min(load.values()) <= 1  # round robin keeps the load even
    assert plan == queue_order.plan_assignments(docs, ["ana", "ben", "cem"], double_fraction=0.25, seed=3)
    assert queue_order.plan_assignments(docs[:3], ["ana"], double_fraction=1.0) == [(1, "ana"), (2, "ana"), (3, "ana")]
    with pytest.raises(ValueError):
        queue_order.plan_assignments(docs, [])


# --------------------------------------------------------------------------- review

def test_draft_gold_on_simulated_disagreements(meddocan_docs):
    from pipeline.synthetic import simulate_annotator

    doc = meddocan_docs[2]
    a = simulate_annotator(doc, "ana", 5)
    b = simulate_annotator(doc, "ben", 5)
    layers = {"ana": a, "ben": b}
    found = disagreements(doc.doc_id, layers)
    assert found
    agreed = set(keys(a)) & set(keys(b))
    # all "ana": gold = agreed spans outside disagreements + ana's spans inside them = exactly ana's layer
    all_a = adj.draft_gold(doc.doc_id, layers, found, {i: "ana" for i in range(len(found))}, "rita")
    assert keys(all_a) == keys(a)
    assert {(s.layer, s.source, s.score) for s in all_a} == {("gold", "human:rita", 1.0)}
    none = adj.draft_gold(doc.doc_id, layers, found, {i: adj.NEITHER for i in range(len(found))}, "rita")
    assert set(keys(none)) <= agreed and not any(any(d.start < s.end and s.start < d.end for d in found) for s in none)
    assert adj.undecided(found, {0: "ben"}) == list(range(1, len(found)))
    with pytest.raises(adj.ReviewError, match="undecided"):
        adj.check_decided(found, {0: "ben"})
    adj.check_decided(found, {i: "ben" for i in range(len(found))})
    assert adj.choice_options(found[0]) == ["ana", "ben", "neither"]
    with pytest.raises(adj.ReviewError):
        adj.draft_gold(doc.doc_id, layers, found, {0: "zed"}, "rita")


def test_possible_misses_and_confirm():
    gold = [Span("7", 0, 4, "NAME", "PATIENT", layer="gold"), Span("7", 20, 30, "DATE", "DATE", layer="gold")]
    pre = [Span("7", 1, 3, "NAME", "PATIENT", "model:v1", 0.9, "pre"),      # overlaps gold
           Span("7", 10, 14, "LOCATION", "CITY", "model:v1", 0.7, "pre"),   # a miss
           Span("7", 40, 44, "ID", "IDNUM", "model:v1", 0.4, "pre")]        # a miss, then dismissed

    @dataclass
    class D:
        start: int
        end: int
        category: str
        type: str

    misses = adj.possible_misses(pre, gold)
    assert keys(misses) == [(10, 14, "CITY"), (40, 44, "IDNUM")]
    assert keys(adj.possible_misses(pre, gold, [D(40, 44, "ID", "IDNUM")])) == [(10, 14, "CITY")]
    assert keys(adj.possible_misses(pre, gold, [D(40, 44, "ID", "SSN")])) == keys(misses)  # other label
    new = adj.confirm_miss(gold, misses[0], "rita")
    assert keys(new) == [(0, 4, "PATIENT"), (10, 14, "CITY"), (20, 30, "DATE")]
    added = next(s for s in new if s.start == 10)
    assert (added.layer, added.source, added.score) == ("gold", "human:rita", 1.0)
    assert adj.confirm_miss(new, misses[0], "rita") == new


def test_review_queue_and_project_agreement_on_demo(tmp_path):
    from services.demo import create_demo_project

    db = store.connect(tmp_path / "w.db")
    pid = create_demo_project(db, n_docs=30)
    queue = review.review_queue(db, pid)
    everything = review.review_queue(db, pid, awaiting_only=False)
    s = store.stats(db, pid)
    assert len(queue) == s["documents_by_status"]["annotated"]
    assert len(everything) == len(queue) + s["gold_finished"]
    assert all(item.annotators == ("ana", "ben") for item in everything)
    doc_id = queue[0].doc_id
    store.set_layer_status(db, doc_id, "annotator:ben", "in_progress", user="ben")
    assert doc_id not in [i.doc_id for i in review.review_queue(db, pid)]  # needs two finished layers
    rep = worklists.project_agreement(db, pid)
    assert rep is not None and rep.annotators == ["ana", "ben"] and 0 < rep.pairs[0].strict.micro.f1 < 1
    unassigned = worklists.unassigned_documents(db, pid)
    assert len(unassigned) == s["documents_by_status"]["new"] > 0  # "new": nobody assigned, no gold
    assert all(not store.list_assignments(db, doc_id=d.id) for d in unassigned)
    assert summaries.headline_f1({"strict": {"micro": {"f1": 0.7}}}) == 0.7
    assert summaries.headline_f1({"f1": 0.5}) == 0.5 and summaries.headline_f1({}) is None
    db.close()


# --------------------------------------------------------------------------- the editor's pieces

def test_work_state_takes_only_newer_drafts_and_restarts_with_a_new_generation():
    a, b = Span("1", 0, 2, "NAME", "PATIENT"), Span("1", 3, 5, "NAME", "DOCTOR")
    w = WorkState(doc_id=1, layer="annotator:ana", base=[], base_version=0, opened_at=0.0)
    other = WorkState(doc_id=1, layer="annotator:ana", base=[], base_version=0, opened_at=0.0)
    assert w.generation != other.generation
    assert w.take([a], 3) and w.current == [a]
    assert not w.take([b], 2) and w.current == [a]   # an older draft arriving late changes nothing
    assert w.take([a, b], 3) and w.current == [a, b]
    gen = w.generation
    w.restart_from([b])
    assert w.generation != gen and w.seq == 0 and w.base == [b] == w.current


def test_keep_order_follows_the_queue_as_shown():
    shown = [11, 12, 13, 14]
    # 12 was finished: the fresh queue puts it last, the shown order keeps it in place
    assert queue_order.keep_order(shown, [11, 13, 14, 12]) == [11, 12, 13, 14]
    assert queue_order.neighbours([11, 12, 13, 14], 12) == (11, 13)
    assert queue_order.keep_order(shown, [13, 11, 15, 14]) == [11, 13, 14, 15]  # 12 unassigned, 15 new
    assert queue_order.keep_order([], [3, 1, 2]) == [3, 1, 2]
    assert queue_order.neighbours([11], 11) == (None, None)
    assert queue_order.neighbours([11, 12], 99) == (None, None)


def test_next_open_skips_finished_notes_and_wraps_to_work_left_behind():
    """ "next" is the next unfinished note in the queue's order (issue 31, item 4)."""
    order = [11, 12, 13, 14, 15]
    assert queue_order.next_open(order, 11, done={12, 13}) == 14
    assert queue_order.next_open(order, 14, done={15, 11}) == 12      # none after: the first left behind
    assert queue_order.next_open(order, 13, done={11, 12, 14, 15}) is None
    assert queue_order.next_open(order, 99, done={11}) == 12            # not in the queue: from the top
    assert queue_order.next_open(order, None, done=set()) == 11
    assert queue_order.next_open(order, 12, done={12}) == 13            # its own status does not matter


def test_agreed_gold_and_inferred_choices(meddocan_docs):
    from pipeline.synthetic import simulate_annotator

    doc = meddocan_docs[2]
    layers = {"ana": simulate_annotator(doc, "ana", 5), "ben": simulate_annotator(doc, "ben", 5)}
    found = disagreements(doc.doc_id, layers)
    agreed = adj.agreed_gold(doc.doc_id, layers, found, "rita")
    assert keys(agreed) == keys(adj.draft_gold(doc.doc_id, layers, found, {}, "rita"))
    assert set(keys(agreed)) <= set(keys(layers["ana"])) & set(keys(layers["ben"]))
    assert not any(d.start < s.end and s.start < d.end for d in found for s in agreed)
    choices = {i: ("ana", "ben", adj.NEITHER)[i % 3] for i in range(len(found))}
    gold = adj.draft_gold(doc.doc_id, layers, found, choices, "rita")
    inferred = adj.infer_choices(gold, found)
    for i, who in choices.items():  # taking an annotator who marked nothing there is taking neither
        assert inferred[i] == (who if who != adj.NEITHER and found[i].spans[who] else adj.NEITHER)
    edited = [s for s in gold if not (found[0].start < s.end and s.start < found[0].end)] + [
        Span(doc.doc_id, found[0].start, found[0].end, "NAME", "NOMBRE_PERSONAL_SANITARIO")]
    assert adj.infer_choices(edited, found)[0] in (adj.EDITED, "ana", "ben")
    with pytest.raises(adj.ReviewError, match="undecided"):
        adj.check_all_decided(found, [0])
    adj.check_all_decided(found, range(len(found)))


def test_hotkeys_are_letters_unique_and_every_label_has_one():
    from dashboard.editor import editor_labels, hotkeys

    for schema in (I2B2_2014, MEDDOCAN):
        keys_ = hotkeys(schema.types)
        assert len(set(keys_.values())) == len(keys_) == len(schema.types)   # every label has a key
        assert all(len(k) == 1 and k.isascii() and k.isalpha() and k != "A" for k in keys_.values())
        # plain letters first: Shift+letter only once the 26 letters are taken
        assert sum(k.islower() for k in keys_.values()) == min(26, len(schema.types))
        labels = editor_labels(schema)
        assert [lab["type"] for lab in labels] == list(schema.types)
    i2b2 = hotkeys(I2B2_2014.types)
    assert (i2b2["DATE"], i2b2["AGE"], i2b2["PATIENT"]) == ("d", "a", "p")
    assert all(i2b2[t].isupper() for t in ("ACCOUNT", "LICENSE", "HEALTHPLAN", "DEVICE"))   # none before
