"""PHI windows (models.phi_windows): the lines of a note that carry PHI, with a line either side,
as an extra training copy; and the ``phi_windows`` recipe setting that adds them."""
from __future__ import annotations

from models.phi_windows import phi_window, phi_windows
from models.train_config import TrainConfig
from pipeline.spans import Document, Span

LINES = ["NPN 7a-7p", "Neuro: A+Ox3, MAE", "CV: HR 80s NSR, SBP 110-130", "Resp: LS clear, sats 97% 2L NC",
         "Social: wife mary called, updated by Dr holmes", "GI: abd soft, +BS", "GU: foley to gravity, UO 40-60cc/hr",
         "Skin: intact", "Plan: cont to monitor", "J. Smith RN"]
TEXT = "\n".join(LINES)


def _span(word: str, category: str, type_: str) -> Span:
    start = TEXT.index(word)
    return Span("n1", start, start + len(word), category, type_)


NOTE = Document("n1", TEXT, [_span("mary", "NAME", "PATIENT"), _span("holmes", "NAME", "DOCTOR"),
                             _span("J. Smith", "NAME", "DOCTOR")], patient_id="p1")


def test_a_window_holds_the_phi_lines_and_one_line_either_side_with_every_span_over_the_same_words():
    w = phi_window(NOTE)
    assert w.text.split("\n") == [LINES[3], LINES[4], LINES[5], LINES[8], LINES[9]]
    assert [w.text[s.start:s.end] for s in w.spans] == ["mary", "holmes", "J. Smith"]
    assert [(s.category, s.type) for s in w.spans] == [(s.category, s.type) for s in NOTE.spans]
    assert w.doc_id == "n1#w" and {s.doc_id for s in w.spans} == {"n1#w"} and w.patient_id == "p1"
    wide = phi_window(NOTE, context=2)
    assert LINES[2] in wide.text and LINES[7] in wide.text and LINES[0] not in wide.text


def test_a_span_over_a_line_break_keeps_both_lines():
    text = "Seen at Boston\nGeneral today\nHR 80\nBP 120/80\nT 98.6"
    d = Document("m", text, [Span("m", 8, 22, "LOCATION", "HOSPITAL")])
    w = phi_window(d, context=0)
    assert w.text == "Seen at Boston\nGeneral today" and w.text[w.spans[0].start:w.spans[0].end] == "Boston\nGeneral"


def test_notes_without_phi_or_without_lines_to_drop_give_no_window():
    assert phi_window(Document("e", TEXT, [])) is None
    short = Document("s", "Dr holmes\nok", [Span("s", 3, 9, "NAME", "DOCTOR")])
    assert phi_window(short) is None
    assert phi_windows([NOTE, short], 0) == []
    assert [d.doc_id for d in phi_windows([NOTE, short], 2)] == ["n1#w", "n1#w"]


def test_the_setting_follows_the_locale_unless_given():
    from models.train_config import DEFAULT_PHI_WINDOWS

    assert TrainConfig(locale="es").phi_window_count() == 0
    assert TrainConfig(locale="en").phi_window_count() == DEFAULT_PHI_WINDOWS.get("en", 0)
    assert TrainConfig(locale="en", phi_windows=0).phi_window_count() == 0
    assert TrainConfig(locale="es", phi_windows=2).phi_window_count() == 2


def test_training_data_gets_the_windows_of_the_notes_and_their_copies():
    from models.train_data import prepare_data
    from pipeline.schemas import I2B2_2014
    from pipeline.synthetic import generate_corpus

    notes = generate_corpus(16, 3, variety="ward", part="train")
    cfg = TrainConfig(locale="en", augment_copies=0, case_copies=0, phi_windows=1, refit_crf=False)
    data = prepare_data(notes[:12], notes[12:], I2B2_2014, cfg)
    wins = [d for d in data.aug.train_docs if d.doc_id.endswith("#w")]
    assert wins and len(wins) == len(data.aug.train_docs) == len(data.aug.train_tags)
    assert data.aug.meta["phi_windows"] == 1
    for w, tags in zip(data.aug.train_docs, data.aug.train_tags):
        assert len(w.text) < len(next(n for n in notes if n.doc_id == w.doc_id[:-2]).text)
        assert sum(t.startswith("B-") for t in tags) == len(w.spans)
    plain = prepare_data(notes[:12], notes[12:], I2B2_2014,
                         TrainConfig(locale="en", augment_copies=0, case_copies=0, phi_windows=0))
    assert plain.aug.meta == {}
