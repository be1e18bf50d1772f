"""benchmarks/exported_copies.py: the blind sets' notes as exports write them (wrapped at a fixed
width, offsets unchanged; CRLF line ends, spans moved; no-break spaces; curly apostrophes) and
the copies each is scored in."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from invented_sets import hipaa_set, score  # noqa: E402
from exported_copies import copies, crlf, wrap_text  # noqa: E402


@pytest.mark.parametrize("width", [40, 60])
def test_a_wrap_turns_blanks_into_breaks_and_nothing_else(width):
    docs = hipaa_set("icu_invented_p").load_half("check")[:8]
    for d in docs:
        w = wrap_text(d.text, width)
        changed = [i for i, (a, b) in enumerate(zip(d.text, w)) if a != b]
        assert len(w) == len(d.text) and changed
        assert all(d.text[i] == " " and w[i] == "\n" for i in changed)
        assert all(len(line) <= width or " " not in line.strip() for line in w.split("\n"))


class _MarksGold:
    def detect_many(self, docs):
        return [list(d.spans) for d in docs]


def test_each_copy_keeps_the_gold_a_perfect_detector_scores_one():
    docs = hipaa_set("icu_invented_r").load_half("check")[:6]
    made = copies(docs)
    assert list(made) == ["as written", "wrapped 60", "wrapped 40", "UPPER", "UPPER wrapped 60", "CRLF",
                          "no-break spaces", "curly apostrophes"]
    for name, copy in made.items():
        if name != "CRLF":
            assert [d.spans for d in copy] == [d.spans for d in docs]
        s = score(_MarksGold(), copy, ("PROFESSION",))
        assert s["P"] == 1.0 and s["R"] == 1.0


def test_crlf_moves_each_span_onto_its_own_text():
    docs = hipaa_set("icu_invented_s").load_half("check")[:6]
    for d in docs:
        c = crlf(d)
        assert c.text.count("\r\n") == d.text.count("\n") > 0
        assert [c.text[s.start:s.end].replace("\r\n", "\n") for s in c.spans] == [d.text[s.start:s.end] for s in d.spans]
