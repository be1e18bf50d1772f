"""English detection reads a hard-wrapped note's wrap breaks as blanks (``pipeline.locales.en.wrap_view``):
the breaks a wrapping tool put in, never a note's own line structure. The notes below are ward
notes of the kind the blind ICU sets hold, wrapped at a fixed width as a charting export does."""
from __future__ import annotations

import textwrap

import pytest

from pipeline.detection.steps.registry import pack_for
from pipeline.locales.en.wrap_view import soft_breaks, unwrap_hard_breaks
from pipeline.spans import Document
from rules_en_case_helpers import CASES, detector, recase  # noqa: F401

PROSE = ("Pt is a 71 yo man admitted from the nursing home with fever and hypotension, started on "
         "levophed in the ED and sent up to the unit overnight. Seen by Dr. Kowalczyk at 0200, "
         "lines placed without incident. Wife Bernadette called at 0600 and was updated on the plan. "
         "Neuro: alert, oriented x2, moving all extremities, following commands.")


def wrapped(text: str, width: int) -> str:
    """``text`` as a fixed-width export writes it: a blank before column ``width`` becomes a break."""
    out = "\n".join(textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False))
    assert len(out) == len(text)   # the wrap only turned blanks into breaks
    return out


@pytest.mark.parametrize("width", [40, 60, 72])
def test_a_wrapped_paragraph_reads_as_one_line(width):
    text = wrapped(PROSE, width)
    assert "\n" in text
    assert unwrap_hard_breaks(text) == PROSE


def test_the_view_keeps_length_and_every_other_character():
    text = wrapped(PROSE, 50) + "\n\nPlan:\n- wean levophed\n- cx pending"
    view = unwrap_hard_breaks(text)
    assert len(view) == len(text)
    assert [i for i, (a, b) in enumerate(zip(text, view)) if a != b] == soft_breaks(text)
    assert view.endswith("\n\nPlan:\n- wean levophed\n- cx pending")


@pytest.mark.parametrize("note", [
    # typed line by line: short fields, a break after each
    "Neuro: a+ox3, MAE\nCV: HR 80s SR, BP 110-130/60s\nResp: LS clear, sats 97% 2L NC\nGI: TF at goal\nSocial: wife in",
    # long lines of a note typed line by line, each a field of its own
    "NEURO: ALERT AND ORIENTED X3, FOLLOWING COMMANDS, MOVING ALL EXTREMITIES WELL\n"
    "CV: HR 70S-80S NSR, NO ECTOPY, BP STABLE 110S-120S ON NO PRESSORS THIS SHIFT\n"
    "RESP: LUNGS CLEAR, WEANED TO 2L NC, SATS 96-98%, NONPRODUCTIVE COUGH\n"
    "PLAN: CONTINUE TO MONITOR, OOB TO CHAIR IN AM, TRANSFER TO FLOOR WHEN BED AVAILABLE",
    # a list under a long line
    "Events overnight: pt became agitated around 0300 and pulled at his lines, haldol given\n"
    "- restraints on\n- sitter requested\n- team aware\n1. cont current plan",
])
def test_a_note_typed_line_by_line_is_read_as_written(note):
    assert soft_breaks(note) == []
    assert unwrap_hard_breaks(note) == note


@pytest.mark.parametrize("signature", ["mtanaka2", "J. Rivera RN", "K. OKAFOR, RN"])
def test_a_sign_off_on_the_last_line_keeps_its_break(signature):
    head = wrapped(PROSE[:PROSE.index(" Neuro:")], 60)
    last = head.split("\n")[-1]
    text = head + " " + "x" * (60 - len(last) - 1) + "\n" + signature
    assert text.index("\n" + signature) not in soft_breaks(text)
    assert unwrap_hard_breaks(text).endswith("\n" + signature)


def test_a_name_whose_initial_ends_the_line_goes_on_after_it():
    head = wrapped(PROSE[:PROSE.index(" Neuro:")], 60)
    last = head.split("\n")[-1]
    text = head + " " + "x" * (60 - len(last) - 4) + " T.\nMwangi-Braun RRT"
    assert text.index("\nMwangi") in soft_breaks(text)


def test_a_field_opening_the_next_line_keeps_its_break():
    head = wrapped(PROSE[:PROSE.index(" Neuro:")], 60)
    last = head.split("\n")[-1]
    pad = "x" * (60 - len(last) - 1)   # the line before the field is full: "Neuro:" would not fit
    text = head + " " + pad + "\nNeuro: alert, oriented x2, moving all extremities."
    brk = text.index("\nNeuro:")
    assert len(text[:brk].split("\n")[-1]) == 60
    assert brk not in soft_breaks(text) and set(soft_breaks(text)) == set(soft_breaks(head))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("width", [40, 54])
def test_names_across_a_wrap_break_are_found(detector, case, width):  # noqa: F811
    text = wrapped(recase(PROSE, case), width)
    got = {text[s.start:s.end].replace("\n", " ").lower() for s in detector.detect(Document("d", text))
           if s.category == "NAME"}
    assert {"kowalczyk", "bernadette"} <= got


@pytest.mark.parametrize("case", CASES)
def test_the_detector_finds_the_same_spans_wrapped_and_not(detector, case):  # noqa: F811
    flat = recase(PROSE, case)
    text = wrapped(flat, 54)   # "Dr.⏎Kowalczyk", "Wife⏎Bernadette"
    spans = [(s.start, s.end, s.type) for s in detector.detect(Document("d", flat))]
    assert [(s.start, s.end, s.type) for s in detector.detect(Document("d", text))] == spans


def test_only_english_reads_the_view():
    text = wrapped(PROSE, 50)
    assert pack_for("en").text_for_detection(text) == PROSE
    assert pack_for("es").text_for_detection(text) == text


def test_training_reads_the_view_detection_reads():
    from models.train_data import detection_views
    from pipeline.spans import Span

    text = wrapped(PROSE, 54)
    at = text.index("Kowalczyk")
    doc = Document("n1", text, [Span("n1", at, at + 9, "NAME", "DOCTOR")])
    (en,), (es,) = detection_views([doc], "en"), detection_views([doc], "es")
    assert en.text == unwrap_hard_breaks(text) and en.spans == doc.spans
    assert en.text[at - 4:at + 9] == "Dr. Kowalczyk" and text[at - 1] == "\n"
    assert es is doc
