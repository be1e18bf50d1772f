"""benchmarks/icu_invented_loop.py: the after-the-loop setting on the hand-written ICU sets
(train on the find halves, score the check halves) and its per-set scores."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from icu_invented_loop import SETS, load, per_set  # noqa: E402


def test_every_hipaa_set_is_pooled_with_ids_that_name_their_set():
    find, check = load("find"), load("check")
    assert "icu_invented" not in SETS and len(SETS) == 13      # the first set marks every age: left out
    assert len({d.doc_id for d in find}) == len(find) > 300
    assert len({d.doc_id for d in check}) == len(check) > 500
    assert {d.doc_id.split("-", 1)[0] for d in check} == {s.rsplit("_", 1)[1] for s in SETS}
    assert not {d.text for d in find} & {d.text for d in check}    # no note is trained on and scored


class _MarksGold:
    """A detector that returns each note's gold spans in its first set and nothing elsewhere."""

    def detect_many(self, docs):
        return [list(d.spans) if d.doc_id.startswith("b-") else [] for d in docs]


def test_per_set_scores_each_sets_notes_apart():
    check = [d for d in load("check") if d.doc_id[0] in "bc"]
    got = per_set(_MarksGold(), check)
    assert set(got) == {"b", "c"}
    assert got["b"]["R"] == 1.0 and got["b"]["P"] == 1.0
    assert got["c"]["R"] == 0.0
