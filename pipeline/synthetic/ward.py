"""The ward generator: English notes as an ICU and its hospital write them, PHI sparse.

Why: a model trained on the wide generator's notes (a PHI value in every sentence, clinical text
thin) learned "capitalised word = name" and marked Foley, Alert and Afebrile as patients on real
ICU nursing notes. Ward notes are mostly clinical text (vitals, drips, labs, devices,
abbreviations, misspellings, short lines; :mod:`pipeline.synthetic.ward_phrases`) with PHI where
nurses put it: a surname alone ("per Dr holmes", "d/w smith"), a relative by first name ("wife
mary called"), a staff sign-off ("RN J. Smith", "JS"), a hospital acronym, a town without its
state, "85 yo", "3/14". A share of notes is ALL CAPS or all lower case (offsets are unchanged: the
case map keeps every character's length).

Parts (:mod:`pipeline.synthetic.partition`): ``train`` and ``heldout`` split the note kinds (the
nursing styles and the other kinds, each family on its own), every phrase section, the value
formats below, and the name and place lists (the wide generator's parts, so a held-out ward note
names no one a wide or ward training note names). Same ``seed``, ``part``, ``split_seed``: same notes.
"""
from __future__ import annotations

import random

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, SyntheticNote
from pipeline.synthetic.partition import check_part
from pipeline.synthetic.people import make_clinician, make_patient, make_person
from pipeline.synthetic.ward_context import (WARD_AGE_FORMATS, WARD_DATE_FORMATS, WARD_PHONE_FORMATS, WardContext,
                                             acronym, misspell, recase, ward_formats)
from pipeline.synthetic.ward_notes import choose_kind, ward_kinds
from pipeline.synthetic.ward_phrases import sections
from pipeline.synthetic.ward_places import ward_places
from pipeline.synthetic.wide_lists import wide_pools

CASINGS = ("mixed", "upper", "lower")
CASING_WEIGHTS = (0.68, 0.2, 0.12)


# --- the generator ----------------------------------------------------------------------------------
def generate_ward(n: int, seed: int, *, part: str = "all", split_seed: int = 0,
                  start_patient: int = 0) -> list[SyntheticNote]:
    """``n`` ward notes of ``part`` (``all``, ``train`` or ``heldout``), each a :class:`SyntheticNote`."""
    check_part(part)
    if n < 0:
        raise ValueError("n must be >= 0")
    pools, fmts, phrases = wide_pools(part, split_seed).pools, ward_formats(part, split_seed), sections(part, split_seed)
    kinds = ward_kinds(part, split_seed)
    places = ward_places(part, split_seed)
    out: list[SyntheticNote] = []
    k = start_patient
    while len(out) < n:
        rng = random.Random(f"synthetic-ward:{seed}:{part}:{split_seed}:{k}")
        pid = f"U{k:05d}"
        patient = make_patient(pid, rng, pools)
        doctors = tuple(make_clinician(rng, pools).person for _ in range(3))
        nurses = tuple(make_person(rng, pools) for _ in range(3))
        others = [h for h in pools.hospitals if h != patient.hospital] or list(pools.hospitals)
        note_date = patient.first_seen
        for j in range(rng.choice((1, 2, 3, 3, 4, 5))):
            if len(out) >= n:
                break
            note_date = V.shift(note_date, rng.randint(0, 2)) if j else note_date
            kind = choose_kind(rng, kinds)
            casing = rng.choices(CASINGS, CASING_WEIGHTS)[0]
            ctx = WardContext(rng=rng, pools=pools, formats=fmts, phrases=phrases, patient=patient,
                              note_date=note_date, doctors=doctors, nurses=tuple(rng.sample(nurses, 3)),
                              other_hospital=rng.choice(others), typo_rate=rng.choice((0.0, 0.01, 0.02, 0.04)),
                              places=places)
            b = NoteBuilder(f"u{seed}{part[0]}-p{k:05d}-n{j + 1}")
            kinds[kind](b, ctx)
            meta = {"kind": kind, "synthetic": True, "seed": seed, "note": j + 1, "variety": "ward", "part": part,
                    "casing": casing}
            doc = b.to_document(patient_id=pid, meta=meta)
            doc.text = recase(doc.text, casing)
            inserted = tuple(type(i)(i.start, i.end, i.type, doc.text[i.start:i.end], i.fmt) for i in b.inserted)
            out.append(SyntheticNote(doc, inserted, kind))
        k += 1
    return out


__all__ = ["generate_ward", "ward_formats", "recase", "misspell", "acronym", "WardContext", "CASINGS",
           "WARD_DATE_FORMATS", "WARD_AGE_FORMATS", "WARD_PHONE_FORMATS"]
