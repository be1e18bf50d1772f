"""The wide generator: more templates, larger name and place lists, more value formats, each
split into a train and a held-out part (:mod:`pipeline.synthetic.partition`).

Why: a model trained on the narrow generator (four note kinds, a few hundred names, fixed
formats) scores F1 0.998 on more of the same and finds only 38 % of the PHI characters of English
notes written by others. The wide generator adds what those notes have and the narrow one lacks:
free-text mentions of relatives and carers ("seen with her daughter Maria"), names in lower case
or capitals, names before credentials ("Ann Ortiz, RN"), one-line and PO-box addresses, foreign
cities, dates written out ("1 December 2070", "Tuesday, December 1"), ages in words, and phone,
MRN, SSN, account and licence numbers in other shapes.

``part="train"``: the narrow generator's four note kinds plus the train part of the new kinds,
formats and lists (every narrow value counts as train). ``part="heldout"``: only held-out note
kinds, held-out value formats, and names, cities, streets, hospitals, organisations and
professions that no train-part note (and no narrow note) uses. Given names ``first``/``full``
forms are shared by both parts (they are how names are written, not a format to hold out).
``part="all"``: everything. Same ``seed``, ``part`` and ``split_seed``: same notes.

The parts live in their own modules: the lists in :mod:`pipeline.synthetic.wide_lists`, the value
formats in :mod:`pipeline.synthetic.wide_formats`, the note context in
:mod:`pipeline.synthetic.wide_context` and the note kinds in :mod:`pipeline.synthetic.wide_notes`;
this module draws patients and notes.
"""
from __future__ import annotations

import random

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, SyntheticNote
from pipeline.synthetic.clinical import SCENARIOS
from pipeline.synthetic.partition import check_part
from pipeline.synthetic.people import make_clinician, make_patient, make_person
from pipeline.synthetic.wide_context import WideContext
from pipeline.synthetic.wide_formats import formats_for
from pipeline.synthetic.wide_lists import wide_pools
from pipeline.synthetic.wide_notes import kinds_for


def generate_wide(n: int, seed: int, *, part: str = "all", split_seed: int = 0, start_patient: int = 0):
    """``n`` wide notes of ``part`` (:class:`pipeline.synthetic.generator.SyntheticNote` each)."""
    check_part(part)
    if n < 0:
        raise ValueError("n must be >= 0")
    wp, fmts, kinds = wide_pools(part, split_seed), formats_for(part, split_seed), kinds_for(part, split_seed)
    pools, names = wp.pools, list(kinds)
    out: list[SyntheticNote] = []
    k = start_patient
    while len(out) < n:
        rng = random.Random(f"synthetic-wide:{seed}:{part}:{split_seed}:{k}")
        pid = f"W{k:05d}"
        patient = make_patient(pid, rng, pools)
        attending, resident, consultant = (make_clinician(rng, pools) for _ in range(3))
        others = [h for h in pools.hospitals if h != patient.hospital] or list(pools.hospitals)
        note_date = patient.first_seen
        for j in range(rng.choice((1, 2, 2, 3, 3, 4))):
            if len(out) >= n:
                break
            if j:
                note_date = V.shift(note_date, rng.randint(3, 120))
            kind = rng.choice(names)
            ctx = WideContext(rng=rng, pools=pools, patient=patient, note_date=note_date, attending=attending,
                              resident=resident, consultant=consultant, transcriptionist=make_person(rng, pools),
                              scenario=rng.choice(SCENARIOS), other_hospital=rng.choice(others), formats=fmts,
                              intl_cities=wp.intl_cities, part=part)
            b = NoteBuilder(f"w{seed}{part[0]}-p{k:05d}-n{j + 1}")
            kinds[kind](b, ctx)
            meta = {"kind": kind, "synthetic": True, "seed": seed, "note": j + 1, "variety": "wide", "part": part}
            out.append(SyntheticNote(b.to_document(patient_id=pid, meta=meta), tuple(b.inserted), kind))
        k += 1
    return out
