"""The second opinion on PHI left, trained on the project's gold (:mod:`pipeline.risk.gold_evidence`,
:mod:`services.gold_opinion`): what it learns, that it reads only the words left as written, that
the same gold gives the same opinion, and that a risk run's reasons say in words what it saw
without quoting it. Tests compare offsets, sources and levels; they never print note text."""
from __future__ import annotations

import numpy as np
import pytest

import store
from pipeline.risk import AMBER, GREEN, RED, DeidDocument, DeidSpan, RiskConfig, score_run
from pipeline.risk.gold_classifier import train_classifier
from pipeline.risk.gold_evidence import GoldOpinion, evidence_word, train_opinion
from pipeline.risk.gold_memory import build_memory
from pipeline.risk.gold_tokens import GoldNote, free_tokens, gold_labels, words_of
from pipeline.risk.types import GOLD_CLASSIFIER, GOLD_MEMORY
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span
from services import gold_opinion
from services.risk_evidence import with_candidates

TOWNS = ["Villazorba", "Quintanilla", "Torrebaja", "Fuentelsaz", "Valdeolmos", "Peñalver", "Olmedilla", "Cabanillas"]
JOBS = ["fontanero", "carpintero", "bombero", "albañil"]


def note(i: int) -> GoldNote:
    """A MEDDOCAN-like note: a town after "natural de", a profession after "trabaja como"."""
    town, job = TOWNS[i % len(TOWNS)], JOBS[i % len(JOBS)]
    head = "Paciente natural de "
    mid = f" que trabaja como "
    tail = " acude por dolor abdominal de tres días de evolución. Sin alergias conocidas.\n"
    text = head + town + mid + job + tail
    a = len(head)
    b = a + len(town) + len(mid)
    return GoldNote(text, ((a, a + len(town), "LOCATION"), (b, b + len(job), "PROFESSION")))


GOLD = [note(i) for i in range(16)]


def released(text: str, spans: list[tuple[int, int]]) -> DeidDocument:
    return DeidDocument("d1", text, [DeidSpan(a, b, "NAME", "NOMBRE_SUJETO_ASISTENCIA", score=0.97, source="model:v1")
                                     for a, b in spans])


def test_gold_labels_and_free_tokens_follow_the_spans():
    n = GOLD[0]
    w = words_of(n.text)
    labels = gold_labels(w, n.spans)
    marked = [w.text[i] for i, lab in enumerate(labels) if lab != "O"]
    assert marked == [TOWNS[0], JOBS[0]]
    a, b, _ = n.spans[0]
    free = free_tokens(w, [(a, b)])
    assert [w.text[i] for i, f in enumerate(free) if not f] == [TOWNS[0]]
    assert not evidence_word("de") and not evidence_word("12") and not evidence_word(",")
    assert evidence_word("123") and evidence_word("bombero")


def test_the_memory_counts_marked_and_written_unmarked():
    extra = GoldNote("El fontanero de guardia no vino.\n", ())        # once unmarked
    mem = build_memory(GOLD + [extra])
    hit = mem.hit("Fontanero")
    assert (hit.marked, hit.seen, hit.category) == (4, 5, "PROFESSION")
    assert hit.rate == pytest.approx(4 / 6)
    assert mem.hit("dolor") is None                 # written, never marked
    assert mem.hit("nunca") is None                 # never seen


def test_the_classifier_learns_the_context_and_is_deterministic():
    clf = train_classifier(GOLD)
    text = "Paciente natural de Valdemoro que trabaja como pintor acude por dolor abdominal.\n"
    words, phi, cats = clf.predict(text)
    by_word = dict(zip(words.text, zip(phi, cats)))
    # an unseen town in the learned context is read as a place, an ordinary word is not
    assert by_word["Valdemoro"][0] > 0.5 and by_word["Valdemoro"][1] == "LOCATION"
    assert by_word["dolor"][0] < 0.2 and by_word["abdominal"][0] < 0.2
    again = train_classifier(GOLD).predict(text)[1]
    assert np.array_equal(phi, again)


def test_the_opinion_reads_only_words_left_as_written():
    opinion = train_opinion(GOLD)
    text = "Paciente natural de Villazorba que trabaja como fontanero acude por dolor.\n"
    a = text.index("Villazorba")
    left = opinion.candidates(released(text, []), floor=0.5)
    replaced = opinion.candidates(released(text, [(a, a + len("Villazorba"))]), floor=0.5)
    spans_left = {(c.start, c.end, c.source) for c in left}
    assert (a, a + len("Villazorba"), GOLD_CLASSIFIER) in spans_left
    assert (a, a + len("Villazorba"), GOLD_MEMORY) in spans_left
    assert not any(c.start < a + len("Villazorba") and a < c.end for c in replaced)
    j = text.index("fontanero")
    assert any(c.start == j and c.source == GOLD_MEMORY and c.category == "PROFESSION" for c in replaced)


def test_too_little_gold_gives_no_opinion():
    assert train_opinion(GOLD[:4]) is None
    assert train_opinion([GoldNote("Sin datos.", ())] * 10) is None


def test_reasons_name_the_second_opinion_in_words_and_never_the_text():
    text = "Ana Pérez, natural de Villazorba, acude por dolor.\n"
    a = text.index("Villazorba")
    doc = released(text, [(0, 9)])
    doc.candidates = [DeidSpan(a, a + 10, "LOCATION", "LOCATION", action="none", score=0.95, source=GOLD_CLASSIFIER),
                      DeidSpan(a, a + 10, "LOCATION", "LOCATION", action="none", score=0.97, source=GOLD_MEMORY)]
    cfg = RiskConfig(second_amber=0.75, second_red=0.9, memory_amber=0.95, memory_red=1.01)
    [report] = score_run([doc], cfg)
    assert report.colour == RED
    msgs = [r.message for r in report.reasons if r.start == a]
    assert any("second detector trained on this project's gold" in m and "a place or address" in m for m in msgs)
    assert any("annotators mark this word as a place or address in 97%" in m for m in msgs)
    assert all("Villazorba" not in r.message for r in report.reasons)
    # below the thresholds: nothing
    doc.candidates = [DeidSpan(a, a + 10, "LOCATION", "LOCATION", action="none", score=0.5, source=GOLD_CLASSIFIER)]
    assert score_run([doc], cfg)[0].colour == GREEN
    doc.candidates = [DeidSpan(a, a + 10, "LOCATION", "LOCATION", action="none", score=0.8, source=GOLD_CLASSIFIER)]
    assert score_run([doc], cfg)[0].colour == AMBER


def test_with_candidates_uses_the_opinion_without_a_detector():
    opinion = train_opinion(GOLD)
    text = "Paciente natural de Villazorba que acude por dolor.\n"
    [doc] = with_candidates(None, [released(text, [])], opinion=opinion)
    a = text.index("Villazorba")
    first = [(c.start, c.end) for c in doc.candidates if c.source == GOLD_CLASSIFIER]
    assert (a, a + len("Villazorba")) in first
    [doc] = with_candidates(None, [doc], opinion=opinion)           # found again, not doubled
    assert [(c.start, c.end) for c in doc.candidates if c.source == GOLD_CLASSIFIER] == first


def test_a_project_opinion_comes_from_its_finished_gold_and_is_remembered(tmp_path):
    db = store.connect(tmp_path / "w.db")
    pid = store.create_project(db, "Sala 3", MEDDOCAN)
    docs = [Document(f"n{i}", n.text, [Span("", a, b, cat, "TERRITORIO" if cat == "LOCATION" else "PROFESION")
                                       for a, b, cat in n.spans]) for i, n in enumerate(GOLD[:4])]
    store.add_documents(db, pid, docs)
    opinion, words = gold_opinion.project_opinion(db, pid)
    assert opinion is None and "4 finished gold note(s)" in words and "needs 5" in words
    store.add_documents(db, pid, [Document(f"m{i}", n.text, [Span("", a, b, cat, "TERRITORIO" if cat == "LOCATION"
                                                                   else "PROFESION") for a, b, cat in n.spans])
                                  for i, n in enumerate(GOLD[4:])])
    opinion, words = gold_opinion.project_opinion(db, pid)
    assert isinstance(opinion, GoldOpinion) and opinion.notes == len(GOLD)
    assert words == f"a second detector trained on {len(GOLD)} gold notes of this project looked too"
    assert gold_opinion.project_opinion(db, pid)[0] is opinion         # same gold: not trained again
