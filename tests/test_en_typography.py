"""English detection reads a note's exported characters as plain ones (``pipeline.locales.typography``
through the ``en`` pack's detection view): no-break spaces, CRLF line ends, curly apostrophes and
quotes. Lines are of the kind the blind ICU sets hold."""
from __future__ import annotations

import pytest

from pipeline.detection.steps.registry import pack_for
from pipeline.locales.typography import normalise_typography
from pipeline.spans import Document
from rules_en_case_helpers import CASES, detector, recase  # noqa: F401

NOTE = ("Pt's wife Bernadette called at 0600, updated.\n"
        "Seen by Dr. O'Sullivan overnight, aware of SBP 80s.\n"
        "Transferred from Mercy Hospital in Worcester on 3/14.\n"
        "Neuro: a+ox3, MAE.")


def exported(text: str, how: str) -> str:
    if how == "nbsp":
        return text.replace(" ", "\u00a0")
    if how == "curly":
        return text.replace("'", "\u2019")
    if how == "crlf":
        return text.replace("\n", "\r\n")
    raise ValueError(how)


def _found(det, text):
    return sorted(text[s.start:s.end].replace("\u00a0", " ").replace("\u2019", "'").replace("\r\n", " \n")
                  for s in det.detect(Document("d", text)))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("how", ["nbsp", "curly", "crlf"])
def test_an_exported_note_gets_the_spans_of_the_plain_one(detector, how, case):  # noqa: F811
    plain = recase(NOTE, case)
    want = _found(detector, plain)
    assert {"bernadette", "worcester", "3/14"} <= {w.lower() for w in want}
    assert _found(detector, exported(plain, how)) == want


def test_crlf_spans_keep_the_notes_offsets(detector):  # noqa: F811
    text = exported(NOTE, "crlf")
    got = [text[s.start:s.end] for s in detector.detect(Document("d", text))]
    assert "Bernadette" in got and "Worcester" in got and all("\r" not in g for g in got)


def test_the_view_keeps_length_and_plain_text():
    odd = "Dr.\u00a0O\u2019Brien\u202fRN\r\n\u201cMaggie\u201d\rend"
    view = normalise_typography(odd)
    assert len(view) == len(odd) and view == "Dr. O'Brien RN \n\"Maggie\"\nend"
    assert normalise_typography(NOTE) is NOTE


def test_spanish_reads_the_note_as_written():
    text = "Paciente\u00a0remitido por el Dr.\u00a0García\r\n"
    assert pack_for("es").text_for_detection(text) == text
    assert pack_for("en").text_for_detection(text) == "Paciente remitido por el Dr. García \n"
