"""benchmarks/english_ward_loop.py: the after-the-loop setting's notes (train-part ward notes,
split by patient) and the share of PHI characters it reports."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from english_ward_loop import phi_share, ward_split  # noqa: E402

from pipeline.spans import Document, Span  # noqa: E402


def test_training_and_evaluation_notes_share_no_patient_and_come_from_the_train_part():
    train, ev = ward_split(40, 20, seed=5)
    assert len(train) + len(ev) == 60 and 10 <= len(ev) <= 30
    assert not {d.patient_id for d in train} & {d.patient_id for d in ev}
    assert {d.meta["part"] for d in train + ev} == {"train"} and {d.meta["variety"] for d in ev} == {"ward"}
    again = ward_split(40, 20, seed=5)
    assert [d.doc_id for d in again[1]] == [d.doc_id for d in ev]          # same seed, same split


def test_phi_share_counts_non_space_characters_inside_gold_spans():
    d = Document("d", "Dr holmes  ok", [Span("d", 3, 9, "NAME", "DOCTOR")])
    assert phi_share([d]) == 6 / 10
    assert phi_share([]) == 0.0


def test_the_safe_harbor_convention_keeps_ages_over_89_only():
    from english_ward_loop import hipaa_ages

    text = "67 yo M, wife 92 y/o. Dr Hale."
    d = Document("d", text, [Span("d", 0, 5, "AGE", "AGE"), Span("d", 14, 20, "AGE", "AGE"),
                             Span("d", 25, 29, "NAME", "DOCTOR")])
    [out] = hipaa_ages([d])
    assert [text[s.start:s.end] for s in out.spans] == ["92 y/o", "Hale"]
    assert [text[s.start:s.end] for s in d.spans][0] == "67 yo"          # the input is left as it was
