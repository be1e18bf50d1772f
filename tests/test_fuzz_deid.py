"""Fuzzing the de-identifier: random texts and random span sets (valid, overlapping, duplicated,
out of range, empty, reversed, unknown categories) with the ``redact`` and ``replace`` profiles.

``hypothesis`` is not installed here, so these are seeded random loops (deterministic, bounded).
Properties checked on every case:

* a span set with a span outside the text (or empty) is refused with a documented error
  (``is_user_error``), whose message quotes no text; anything else succeeds;
* the output is well formed: one action per output span, output spans in order, not
  overlapping, and the text between them is the input's text between the source spans, verbatim
  (nothing outside PHI changes, nothing inside PHI survives by accident);
* kept spans keep their text; other spans' new text is not empty;
* every occurrence of the marker covered by a span that is not kept is gone from the output;
* the same input gives the same output (keyed choices, no hidden randomness);
* nothing printed contains the marker.
"""
from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from pipeline.errors import is_user_error
from pipeline.deid.span_hygiene import clean_spans
from pipeline.spans import Document, Span

deid = pytest.importorskip("pipeline.deid")

MARKER = "ZQXPATIENTNAME"
SECRET = b"fuzz-secret-0123456789abcdef"
CATEGORIES = ["NAME", "DATE", "AGE", "LOCATION", "CONTACT", "ID", "PROFESSION", "OTHER", "CUSTOM_CAT", ""]
TYPES = {"NAME": ["PATIENT", "DOCTOR", "NOMBRE_SUJETO_ASISTENCIA", ""], "DATE": ["DATE", "FECHAS"],
         "AGE": ["AGE", "EDAD_SUJETO_ASISTENCIA"], "LOCATION": ["HOSPITAL", "CITY", "CALLE", "ZIP", "STREET"],
         "CONTACT": ["PHONE", "EMAIL", "URL", "NUMERO_TELEFONO"], "ID": ["MEDICALRECORD", "SSN", "IDNUM"],
         "PROFESSION": ["PROFESSION"], "OTHER": ["SEXO_SUJETO_ASISTENCIA", ""], "CUSTOM_CAT": ["X", ""], "": [""]}
PIECES = [MARKER, f"{MARKER} Pérez", "12/03/2019", "3 de marzo de 2019", "March 3, 2019", "2019", "53 años",
          "aged 91", "555-123-4567", "juan@example.org", "http://h.example.org/x", "MRN 00123456",
          "Hospital Clínico", "Calle Mayor 5", "28040", "enfermera", " ", "\n", "\r\n", ", ", ". ", "🙂",
          "e\u0301", "\u200b", "عربى", "Dr. ", "ZQX", "PATIENT", "\t"]


def random_text(rng: random.Random) -> str:
    parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 14))]
    if MARKER not in "".join(parts) and rng.random() < 0.7:
        parts.insert(rng.randrange(len(parts) + 1), MARKER)
    return "".join(parts)


def random_spans(rng: random.Random, text: str) -> list[Span]:
    n = len(text)
    marks = [m.span() for m in re.finditer(MARKER, text)]
    spans = []
    for _ in range(rng.randint(0, 8)):
        kind = rng.choices(["random", "marker", "whole", "overlap", "out", "empty", "negative", "reversed",
                            "duplicate"], weights=[10, 6, 1, 3, 1, 1, 1, 1, 2])[0]
        s = rng.randrange(max(n, 1))
        e = min(n, s + rng.randint(1, 20))
        if kind == "marker" and marks:
            s, e = rng.choice(marks)
            if rng.random() < 0.2:      # a little wider than the marker
                s, e = max(0, s - 1), min(n, e + 2)
        elif kind == "whole":
            s, e = 0, n
        elif kind == "overlap" and spans:
            o = rng.choice(spans)
            s = max(0, min(o.start + rng.randint(-3, 3), n - 1))
            e = min(n, max(s + 1, o.end + rng.randint(-3, 3)))
        elif kind == "out":
            e = n + rng.randint(1, 30)
        elif kind == "empty":
            e = s
        elif kind == "negative":
            s = -rng.randint(1, 4)
        elif kind == "reversed":
            s, e = e, s
        elif kind == "duplicate" and spans:
            spans.append(rng.choice(spans))
            continue
        cat = rng.choice(CATEGORIES)
        spans.append(Span("doc", s, e, cat, rng.choice(TYPES[cat]), rng.choice(["human:ana", "model:v1", ""]),
                          round(rng.random(), 3), "gold"))
    return spans


def is_valid(text: str, spans: list[Span]) -> bool:
    return all(0 <= s.start < s.end <= len(text) for s in spans)


def check_result(text: str, spans: list[Span], res, profile) -> None:
    src, out = res.source_spans, res.spans
    assert len(src) == len(out) == len(res.actions)
    for a, b in zip(src, src[1:]):
        assert a.end <= b.start, "source spans overlap"
    for a, b in zip(out, out[1:]):
        assert a.end <= b.start, "output spans overlap"
    # every input span was handled: it is a source span or overlaps one (overlap resolution);
    # "input" is after span hygiene (cut at line breaks, field labels out: pipeline.deid.span_hygiene)
    for s in clean_spans(text, spans):
        assert any(k.start < s.end and s.start < k.end for k in src), f"span {s.start}-{s.end} was dropped"
    # the text outside PHI is copied verbatim, in order
    prev_in = prev_out = 0
    for k, o in zip(src, out):
        assert res.text[prev_out:o.start] == text[prev_in:k.start], "text outside the spans changed"
        prev_in, prev_out = k.end, o.end
    assert res.text[prev_out:] == text[prev_in:]
    for k, o, action in zip(src, out, res.actions):
        assert action in ("redact", "replace", "shift", "keep")
        assert (o.category, o.type) == (k.category, k.type)
        if action == "keep":
            assert res.text[o.start:o.end] == text[k.start:k.end]
        else:
            assert o.end > o.start, "a de-identified span vanished"
    # a marker occurrence wholly inside a span that is not kept must be gone
    covered_all = all(any(k.start <= m.start() and m.end() <= k.end and a != "keep"
                          for k, a in zip(src, res.actions)) for m in re.finditer(MARKER, text))
    if covered_all:
        assert MARKER not in res.text, "a covered marker survived de-identification"


@pytest.mark.parametrize("profile_name", ["redact", "replace"])
@pytest.mark.parametrize("locale", ["es", "en"])
def test_random_span_sets_through_deidentify(profile_name, locale, capfd):
    profile = deid.builtin_profiles()[profile_name]
    ctx = deid.DeidContext(secret=SECRET, locale=locale)
    rng = random.Random(f"deid-{profile_name}-{locale}")
    outcomes: Counter = Counter()
    for case in range(400):
        text = random_text(rng)
        spans = random_spans(rng, text)
        doc = Document("doc", text, meta={"patient_id": f"p{case % 7}"})
        try:
            res = deid.deidentify(doc, spans, profile, ctx)
        except Exception as e:  # noqa: BLE001 - every exception is checked
            if not is_user_error(e):  # name the type, not the message (it might quote text)
                raise AssertionError(f"case {case}: {type(e).__name__} escaped deidentify") from None
            assert MARKER not in str(e) and "Pérez" not in str(e)
            assert not is_valid(text, spans), f"case {case}: a valid span set was refused ({type(e).__name__})"
            outcomes["refused"] += 1
            continue
        assert is_valid(text, spans), f"case {case}: spans outside the text were accepted"
        check_result(text, spans, res, profile)
        assert MARKER not in repr(res)
        if case % 10 == 0:  # same input, fresh context: same output
            again = deid.deidentify(doc, spans, profile, deid.DeidContext(secret=SECRET, locale=locale))
            assert (again.text, again.spans, again.actions) == (res.text, res.spans, res.actions), f"case {case}"
        outcomes["ok"] += 1
    assert outcomes["ok"] >= 100 and outcomes["refused"] >= 20, outcomes
    out, err = capfd.readouterr()
    assert MARKER not in out and MARKER not in err


def test_spans_covering_every_marker_remove_it_with_either_profile():
    """The plain case the fuzzing generalises: annotate the marker, it is gone; overlapping and
    duplicated annotations of it change nothing."""
    text = f"Paciente {MARKER}, visto el 12/03/2019. Control: {MARKER}.\n"
    marks = [m.span() for m in re.finditer(MARKER, text)]
    spans = [Span("d", s, e, "NAME", "PATIENT") for s, e in marks]
    spans += [Span("d", marks[0][0], marks[0][0] + 5, "NAME", "PATIENT"), spans[0]]  # overlap + duplicate
    for name, profile in deid.builtin_profiles().items():
        res = deid.deidentify(Document("d", text), spans, profile, deid.DeidContext(secret=SECRET, locale="es"))
        assert MARKER not in res.text, name
        assert res.merged_overlaps == 2
        check_result(text, spans, res, profile)


@pytest.mark.parametrize("category,type_,text", [
    ("CONTACT", "PHONE", f"555-123-4567 ({MARKER} mobile)"),
    ("AGE", "AGE", f"53 y/o {MARKER}"),
    ("LOCATION", "STREET", f"Calle Mayor 5, {MARKER}"),
    ("CONTACT", "EMAIL", f"juan@example.org {MARKER}"),
], ids=["phone", "age", "street", "email"])
def test_words_inside_a_format_preserving_span_do_not_survive(category, type_, text):
    """Found by the fuzzing above: the phone, age, street and e-mail surrogates re-drew digits but
    kept the span's other words verbatim, so a name inside an over-wide span survived (and the
    leak scan, looking for the whole original, did not see it)."""
    profile = deid.builtin_profiles()["replace"]
    res = deid.deidentify(Document("d", text), [Span("d", 0, len(text), category, type_)], profile,
                          deid.DeidContext(secret=SECRET, locale="en"))
    assert MARKER not in res.text


@pytest.mark.parametrize("text", [f"2019{MARKER} Pérez", f"12/03/2019Calle Mayor 5 {MARKER}", f". 3 {MARKER}"],
                         ids=["glued", "date", "punctuation"])
def test_street_starting_with_a_number_keeps_no_words(text):
    profile = deid.builtin_profiles()["replace"]
    res = deid.deidentify(Document("d", text), [Span("d", 0, len(text), "LOCATION", "STREET")], profile,
                          deid.DeidContext(secret=SECRET, locale="es"))
    assert MARKER not in res.text
