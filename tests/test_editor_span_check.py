"""The editor's span check (issue 29, item 11): what the browser sends back is checked in linear
time (sort and sweep: 20,000 spans took 20 s per message with the pairwise search), and an
infinite or NaN offset (a browser can send any JSON number, and Streamlit's JSON reader takes
``Infinity``/``NaN``) is refused with a message instead of crashing the page run. Speed is
measured by ``benchmarks/editor_spans.py``, not here."""
from __future__ import annotations

import math

from dashboard import editor
from pipeline.annotation import edits as ops
from pipeline.schemas import I2B2_2014

N = 20_000


def _note(n: int) -> tuple[str, list[tuple[int, int]]]:
    """``n`` words, one per synthetic patient surname, and their offsets."""
    words, offsets, pos = [], [], 0
    for i in range(n):
        w = f"Name{i:05d}"
        words.append(w)
        offsets.append((pos, pos + len(w)))
        pos += len(w) + 1
    return " ".join(words), offsets


def test_20000_spans_with_overlaps_are_checked_correctly():
    text, offsets = _note(N)
    sent = [{"start": s, "end": e, "type": "PATIENT"} for s, e in offsets]
    # every tenth word also gets a span from its middle into the next word: it starts later than
    # the word's own span, so the word's span is kept and this one is not
    crossing = [{"start": offsets[i][0] + 3, "end": offsets[i + 1][0] + 4, "type": "DOCTOR"}
                for i in range(0, N - 1, 10)]
    # and a long span that starts with word 5 and runs over words 5-7: longest first at equal
    # start, so it is kept and words 5, 6 and 7 are dropped
    long = {"start": offsets[5][0], "end": offsets[7][1], "type": "DOCTOR"}
    res = ops.from_editor(list(reversed(sent)) + crossing + [long], text, I2B2_2014, "1", source="human:ana")
    kept = [(s.start, s.end, s.type) for s in res.spans]
    assert len(kept) == N - 3 + 1
    assert (offsets[5][0], offsets[7][1], "DOCTOR") in kept
    assert all(a[1] <= b[0] for a, b in zip(kept, kept[1:]))            # sorted, none overlapping
    assert {(s.start, s.end) for s in res.spans if s.type == "PATIENT"} == set(offsets) - set(offsets[5:8])
    assert len(res.overlaps) == len(crossing) + 3
    for clash, dropped in res.overlaps:                                   # each pair really overlaps
        assert clash.start < dropped.end and dropped.start < clash.end
        assert (clash.start, clash.end, clash.type) in kept
    dropped_crossing = sorted((b.start, b.end) for a, b in res.overlaps if b.type == "DOCTOR")
    assert dropped_crossing == sorted((c["start"], c["end"]) for c in crossing)


def test_the_sweep_reports_the_same_pairs_as_the_pairwise_search():
    """Nested, touching, equal-start and chained spans: the kept span each dropped one is reported
    against is the first kept span it overlaps, as before."""
    text = "abcdefghij" * 5
    raw = [(0, 10), (2, 4), (4, 6), (10, 12), (11, 20), (12, 13), (12, 30), (29, 31), (30, 40), (35, 36),
           (40, 41), (40, 50)]
    res = ops.from_editor([{"start": s, "end": e, "type": "ROOM"} for s, e in raw], text, I2B2_2014, "1")
    kept: list = []
    pairs = []
    for s in sorted(raw, key=lambda x: (x[0], -x[1])):                   # the old pairwise search
        clash = next((k for k in kept if k[0] < s[1] and s[0] < k[1]), None)
        if clash is None:
            kept.append(s)
        else:
            pairs.append((clash, s))
    assert [(s.start, s.end) for s in res.spans] == sorted(kept)
    assert [((a.start, a.end), (b.start, b.end)) for a, b in res.overlaps] == pairs


def test_non_finite_and_fractional_offsets_are_refused_with_a_message():
    text = "Seen by Dr. Smith today."
    sent = [{"start": 12, "end": 17, "type": "DOCTOR"},
            {"start": math.inf, "end": 17, "type": "DOCTOR"},
            {"start": 0, "end": -math.inf, "type": "DOCTOR"},
            {"start": math.nan, "end": 4, "type": "DOCTOR"},
            {"start": 1e308 * 10, "end": 4, "type": "DOCTOR"},
            {"start": 0.5, "end": 4, "type": "DOCTOR"},
            {"start": 12.0, "end": 17.0, "type": "DOCTOR"}]              # a whole number as a float: fine
    res = ops.from_editor(sent, text, I2B2_2014, "1")
    assert [(s.start, s.end) for s in res.spans] == [(12, 17)]
    assert res.not_numbers == 5 and res.invalid == 0 and res.changed
    assert any("not whole numbers" in m for m in res.messages(text))


def test_an_infinite_sequence_number_does_not_crash_the_page_run():
    value = editor._value({"token": "t", "seq": math.inf, "spans": []}, "t", action=False)
    assert value is not None and value.seq == 0
