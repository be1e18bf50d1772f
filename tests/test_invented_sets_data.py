"""Every hand-written blind set under ``benchmarks/data`` reads cleanly, so a benchmark's figures
rest on the gold its README describes: brat pairs whose span text matches the note, no overlaps,
no span that starts or ends on a space, both halves present, and a benchmark script that scores it."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.formats.brat import read_brat
from pipeline.schemas import I2B2_2014

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
SETS = sorted(p.name for p in DATA.iterdir() if (p / "find").is_dir() and (p / "check").is_dir())


def test_the_blind_sets_are_found():
    assert {"icu_invented_b", "icu_invented_n", "notes_invented", "pii_invented"} <= set(SETS)


@pytest.mark.parametrize("name", SETS)
def test_a_blind_set_reads_cleanly_and_is_scored_by_a_benchmark(name):
    scripts = {name, name.replace("pii_invented_b", "pii_invented")}
    assert any((DATA.parent / f"{s}.py").is_file() for s in scripts)
    for half in ("find", "check"):
        docs = read_brat(DATA / name / half, I2B2_2014, allow_overlap=False)
        assert docs and sum(len(d.spans) for d in docs) > 0
        for d in docs:
            for s in d.spans:
                piece = d.text[s.start:s.end]
                assert piece and piece == piece.strip(), (name, half, d.doc_id, s.start)
