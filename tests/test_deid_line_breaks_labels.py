"""The output reads like a note (issue 32, item 3): a span never swallows a line break, in every
profile, and a field label is never PHI. Examples are the shapes seen on the demo's runs: a model
ID span running into the next line's first word, a name span over a blank line, "SSN" spanned
on its own, "Phone: ..." spanned with its label."""
from __future__ import annotations

import pytest

from pipeline.deid import DeidContext, Profile, builtin_profiles, deidentify
from pipeline.spans import Document, Span

NOTE = ("MRN: 5530017\n"
        "Admitted 03/04/2019 for chest pain.\n"
        "Seen by Dr. Anna Smith.\n"
        "\n"
        "John Doe, retired librarian, lives in Boston.\n"
        "SSN 078-05-1120 Phone: 617-555-0142\n")


def _at(text: str, piece: str, *, end: str | None = None) -> tuple[int, int]:
    a = text.index(piece)
    return a, (text.index(end, a) + len(end)) if end else a + len(piece)


def _spans(text: str) -> list[Span]:
    def s(piece, cat, typ, end=None):
        a, b = _at(text, piece, end=end)
        return Span("n1", a, b, cat, typ, source="model")
    return [s("5530017", "ID", "MEDICALRECORD", end="Admitted"),      # crosses the line break
            s("03/04/2019", "DATE", "DATE"),
            s("Anna Smith", "NAME", "DOCTOR", end="John Doe"),          # crosses a blank line
            s("Boston", "LOCATION", "CITY"),
            s("SSN", "ID", "SSN"),                                     # the label alone
            s("078-05-1120", "ID", "SSN"),
            s("Phone: 617", "CONTACT", "PHONE", end="0142")]           # the label and the value


PROFILES = {**builtin_profiles(),
            "shift": Profile("shift", actions={"DATE": "shift", "NAME": "redact", "ID": "redact",
                                               "CONTACT": "redact", "LOCATION": "redact"})}


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_profile_keeps_the_notes_lines(name):
    doc = Document("n1", NOTE, _spans(NOTE), patient_id="P1")
    r = deidentify(doc, None, PROFILES[name], DeidContext(secret=b"k" * 32, locale="en"))
    assert r.leaks == []
    lines, out = NOTE.split("\n"), r.text.split("\n")
    assert len(out) == len(lines)                                     # no line lost or added
    assert out[3] == ""                                              # the blank line survives
    assert out[1].startswith("Admitted ")                            # not turned into a surrogate
    assert "5530017" not in r.text and "Anna Smith" not in r.text and "John Doe" not in r.text
    assert all("\n" not in r.text[s.start:s.end] for s in r.spans)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_a_field_label_is_never_replaced(name):
    doc = Document("n1", NOTE, _spans(NOTE), patient_id="P1")
    r = deidentify(doc, None, PROFILES[name], DeidContext(secret=b"k" * 32, locale="en"))
    out = r.text.split("\n")
    assert out[0].startswith("MRN: ")
    assert out[5].startswith("SSN ") and "Phone: " in out[5]
    assert "078-05-1120" not in r.text and "617-555-0142" not in r.text


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_a_span_a_person_drew_over_two_lines_keeps_every_character_covered(name):
    """A gold address on two lines is split at the break, but its words on the second line stay
    PHI: de-identification never leaves a character people marked (only a machine span's ordinary
    words after a number are taken for the next line's text)."""
    text = "Domicilio: Calle Mayor 5\nMadrid Centro\nAlta hoy.\n"
    a = text.index("Calle")
    b = text.index("Centro") + len("Centro")
    doc = Document("n2", text, [Span("n2", a, b, "LOCATION", "STREET", source="gold")], patient_id="P2")
    r = deidentify(doc, None, PROFILES[name], DeidContext(secret=b"k" * 32, locale="es"))
    out = r.text.split("\n")
    assert len(out) == len(text.split("\n"))
    assert "Madrid" not in r.text and "Centro" not in r.text and "Mayor" not in r.text
