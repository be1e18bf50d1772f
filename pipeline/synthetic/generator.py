"""Seeded synthetic English clinical corpus with exact gold spans for every i2b2 2014 type.

Patient ``k`` is drawn from ``random.Random(f"synthetic:{seed}:{k}")`` alone, so a corpus is
reproducible from its seed, a longer corpus starts with the shorter one, and ``start_patient``
yields further, non-overlapping patients. Each patient has one to five notes (discharge
summaries, progress notes, letters, referrals) that share name, MRN, date of birth, address and
relatives, so consistent de-identification across a patient's notes can be tested.
"""
from __future__ import annotations

import random

from pipeline.spans import Document
from pipeline.synthetic import values as V
from pipeline.synthetic.builder import Inserted, NoteBuilder, SyntheticNote  # noqa: F401 - re-exported
from pipeline.synthetic.clinical import SCENARIOS
from pipeline.synthetic.note_context import NoteContext
from pipeline.synthetic.notes import NOTE_KINDS
from pipeline.synthetic.people import make_clinician, make_patient, make_person
from pipeline.synthetic.pools import load_pools


def _kinds_for(rng: random.Random, n_notes: int) -> list[str]:
    kinds = ["discharge_summary" if rng.random() < 0.6 else rng.choice(("referral", "progress_note"))]
    for _ in range(n_notes - 1):
        kinds.append(rng.choice(("progress_note", "progress_note", "letter", "letter", "referral",
                                 "discharge_summary")))
    return kinds


def doc_id_for(seed: int, patient_number: int, note_number: int) -> str:
    return f"s{seed}-p{patient_number:05d}-n{note_number}"


VARIETIES = ("narrow", "wide", "ward")


def generate_notes(n: int, seed: int, *, start_patient: int = 0, variety: str = "narrow", part: str = "all",
                   split_seed: int = 0) -> list[SyntheticNote]:
    """``n`` notes with their insertion records; see :func:`generate_corpus`.

    ``variety="wide"``: the widened generator (:mod:`pipeline.synthetic.wide`), whose ``part``
    (``all``, ``train`` or ``heldout``, split by ``split_seed``) chooses templates, lists and
    formats. ``variety="ward"``: notes as an ICU and its hospital write them, PHI sparse
    (:mod:`pipeline.synthetic.ward`), with the same parts. The narrow generator (the default,
    unchanged) is all train: its ``part`` may be ``all`` or ``train``.
    """
    if variety not in VARIETIES:
        raise ValueError(f"unknown variety {variety!r}; use one of {', '.join(VARIETIES)}")
    if variety == "wide":
        from pipeline.synthetic.wide import generate_wide

        return generate_wide(n, seed, part=part, split_seed=split_seed, start_patient=start_patient)
    if variety == "ward":
        from pipeline.synthetic.ward import generate_ward

        return generate_ward(n, seed, part=part, split_seed=split_seed, start_patient=start_patient)
    if part not in ("all", "train"):
        raise ValueError("the narrow generator has no held-out part: use variety='wide'")
    if n < 0:
        raise ValueError("n must be >= 0")
    pools = load_pools()
    out: list[SyntheticNote] = []
    k = start_patient
    while len(out) < n:
        rng = random.Random(f"synthetic:{seed}:{k}")
        pid = f"P{k:05d}"
        patient = make_patient(pid, rng, pools)
        attending, resident, consultant = (make_clinician(rng, pools) for _ in range(3))
        scenario = rng.choice(SCENARIOS)
        others = [h for h in pools.hospitals if h != patient.hospital]
        n_notes = rng.choice((1, 2, 2, 3, 3, 3, 4, 5))
        note_date = patient.first_seen
        for j, kind in enumerate(_kinds_for(rng, n_notes)):
            if len(out) >= n:
                break
            if j:
                note_date = V.shift(note_date, rng.randint(3, 120))
            if j and rng.random() < 0.25:
                scenario = rng.choice(SCENARIOS)
            ctx = NoteContext(rng=rng, pools=pools, patient=patient, note_date=note_date, attending=attending,
                              resident=resident, consultant=consultant,
                              transcriptionist=make_person(rng, pools), scenario=scenario,
                              other_hospital=rng.choice(others))
            b = NoteBuilder(doc_id_for(seed, k, j + 1))
            NOTE_KINDS[kind](b, ctx)
            meta = {"kind": kind, "synthetic": True, "seed": seed, "note": j + 1}
            out.append(SyntheticNote(b.to_document(patient_id=pid, meta=meta), tuple(b.inserted), kind))
        k += 1
    return out


def generate_corpus(n: int, seed: int, *, start_patient: int = 0, variety: str = "narrow", part: str = "all",
                    split_seed: int = 0) -> list[Document]:
    """``n`` synthetic English clinical notes with gold spans (layer ``gold``, source ``synthetic``).

    Same ``seed`` gives identical documents; ``patient_id`` is set so notes of one patient can be
    grouped; ``meta["kind"]`` names the note type.
    """
    return [note.doc for note in generate_notes(n, seed, start_patient=start_patient, variety=variety, part=part,
                                                split_seed=split_seed)]
