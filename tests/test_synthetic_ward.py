"""The ward generator: ICU and hospital notes, PHI sparse, with a held-out part.

Failure messages name documents, offsets, kinds and formats, never the (synthetic) text.
"""
from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from pipeline.schemas import I2B2_2014
from pipeline.spans import validate_spans
from pipeline.synthetic import generate_corpus, generate_notes
from pipeline.synthetic.ward import (CASINGS, WARD_AGE_FORMATS, acronym, misspell, recase, ward_formats)
from pipeline.synthetic.ward_notes import WARD_KINDS, ward_kinds
from pipeline.synthetic.ward_phrases import all_sections, expand, number, sections
from pipeline.synthetic.ward_places import KINDS as PLACE_KINDS, place_parts, ward_places
from pipeline.synthetic.wide_lists import wide_pools

N = 150


class Quiet(list):
    def __repr__(self) -> str:
        return f"<{len(self)} synthetic notes>"


@pytest.fixture(scope="module")
def train_notes():
    return Quiet(generate_notes(N, 4, variety="ward", part="train"))


@pytest.fixture(scope="module")
def held_notes():
    return Quiet(generate_notes(N, 4, variety="ward", part="heldout"))


def test_offsets_are_exact_and_categories_are_i2b2(train_notes, held_notes):
    for notes in (train_notes, held_notes):
        for note in notes:
            d = note.doc
            validate_spans(d.doc_id, d.text, d.spans)
            assert len(d.spans) == len(note.inserted)
            for span, ins in zip(d.spans, note.inserted):
                assert d.text[span.start:span.end] == ins.value, f"{d.doc_id} {span.start}-{span.end} {span.type}"
                assert (span.start, span.end) == (ins.start, ins.end)
                assert span.category == I2B2_2014.category_of(span.type)
                assert ins.value == ins.value.strip() and ins.value, f"{d.doc_id} {span.start}"
            assert d.meta["variety"] == "ward" and d.meta["casing"] in CASINGS


def _nonspace(s: str) -> int:
    return sum(not c.isspace() for c in s)


def test_phi_is_sparse_and_the_text_clinical(train_notes, held_notes):
    for notes in (train_notes, held_notes):
        chars = sum(_nonspace(n.doc.text) for n in notes)
        phi = sum(_nonspace(i.value) for n in notes for i in n.inserted)
        # social work and case management notes name homes, employers, congregations: denser than nursing
        assert 0.01 < phi / chars < 0.095, phi / chars          # the wide generator is several times denser
        lines = phi_lines = 0
        for n in notes:
            pos = 0
            for line in n.doc.text.split("\n"):
                if line.strip():
                    lines += 1
                    phi_lines += any(s.start < pos + len(line) and s.end > pos for s in n.doc.spans)
                pos += len(line) + 1
        assert phi_lines / lines < 0.35, phi_lines / lines
        assert sum(not n.doc.spans for n in notes) >= 2          # some notes carry no PHI at all
        text = "\n".join(n.doc.text.lower() for n in notes)
        for word in ("foley", "mcg", "mg", "hr ", "bp ", "pt ", "picc", "ls ", "mae"):
            assert word in text, word
    types = Counter(i.type for n in train_notes for i in n.inserted)
    assert {"DOCTOR", "PATIENT", "DATE", "HOSPITAL", "CITY", "PHONE", "AGE"} <= set(types), types


def test_names_are_written_as_nurses_write_them():
    notes = generate_notes(300, 9, variety="ward", part="all")
    ins = [i for n in notes for i in n.inserted if n.doc.meta["casing"] == "mixed"]
    names = [i for i in ins if i.type in ("PATIENT", "DOCTOR")]
    assert any(i.value.islower() and i.value.isalpha() for i in names)                  # "wife mary called"
    assert any(i.fmt == "initials" and i.value.isupper() and len(i.value) <= 3 for i in names)   # "JS"
    assert any(i.fmt in ("last", "dr_last", "last_comma_rn") and " " not in i.value for i in names)  # surname alone
    hosp = [i for i in ins if i.type == "HOSPITAL"]
    assert any(i.fmt == "acronym" and i.value.isupper() and " " not in i.value for i in hosp)
    ages = [i for i in ins if i.type == "AGE"]
    assert ages and all(i.value.isdigit() for i in ages)
    assert {n.doc.meta["casing"] for n in notes} == set(CASINGS)
    for n in notes:
        letters = [c for c in n.doc.text if c.isalpha()]
        if n.doc.meta["casing"] == "upper":
            assert all(c.isupper() for c in letters), n.doc.doc_id
        elif n.doc.meta["casing"] == "lower":
            assert all(c.islower() for c in letters), n.doc.doc_id
    share = Counter(n.doc.meta["casing"] for n in notes)
    assert share["upper"] >= 30 and share["lower"] >= 15, share


def test_parts_are_disjoint():
    tk, hk = set(ward_kinds("train")), set(ward_kinds("heldout"))
    assert tk and hk and not tk & hk and tk | hk == set(WARD_KINDS)
    ft, fh = ward_formats("train"), ward_formats("heldout")
    for field in ("dates", "ages", "phones", "doctors", "signs", "hospitals"):
        a, b = set(getattr(ft, field)), set(getattr(fh, field))
        assert a and b and not a & b, field
    st, sh = sections("train"), sections("heldout")
    assert set(st) == set(sh) == set(all_sections())
    for name in st:
        assert not set(st[name]) & set(sh[name]), name
        assert set(st[name]) | set(sh[name]) == set(all_sections()[name]), name
        assert st[name] and sh[name], name


def test_heldout_notes_use_only_heldout_kinds_formats_and_names(held_notes, train_notes):
    fh, held = ward_formats("heldout"), wide_pools("heldout").pools
    train_pools = wide_pools("train").pools
    train_names = {n.lower() for n in train_pools.first_names + train_pools.surnames}
    held_names = {n.lower() for n in held.first_names + held.surnames}
    held_hosp = {v for h in held.hospitals for v in (h.name, h.short, acronym(h.name), acronym(h.name).lower())}
    held_cities = {c.name.lower() for c in held.cities}
    held_abroad = {c.lower() for c, _ in ward_places("heldout").abroad}
    held_shapes = place_parts("heldout")
    assert {n.kind for n in held_notes} <= set(ward_kinds("heldout"))
    assert {n.kind for n in train_notes} <= set(ward_kinds("train"))
    by_part = {"DATE": fh.dates, "PHONE": fh.phones, "AGE": fh.ages}
    for note in held_notes:
        up = note.doc.meta["casing"] != "mixed"
        for ins in note.inserted:
            where = f"{note.doc.doc_id} {ins.start} {ins.type} {ins.fmt}"
            if ins.type in by_part:
                assert ins.fmt in by_part[ins.type], where
            if ins.type in ("PATIENT", "DOCTOR") and "initials" not in ins.fmt:   # "JS" may spell anything
                tokens = {t.lower() for t in re.split(r"[ ,.]+", ins.value) if len(t) > 1}
                assert not {t for t in tokens if t in train_names and t not in held_names}, where
            if ":" in ins.fmt:           # a facility, employer, ...: made from the held-out shapes
                kind, shape = ins.fmt.split(":", 1)
                assert shape in held_shapes[PLACE_KINDS[kind][0]], where
            elif ins.type == "CITY":
                assert ins.value.lower() in held_cities | held_abroad, where
            elif ins.type == "HOSPITAL" and not up:
                assert ins.value in held_hosp, where
    train_fmts = {i.fmt for n in train_notes for i in n.inserted if i.type in by_part}
    assert not train_fmts & (set(fh.dates) | set(fh.phones) | set(fh.ages))


def test_same_seed_same_notes_and_other_seeds_differ(held_notes):
    again = generate_corpus(30, 4, variety="ward", part="heldout")
    assert [(d.doc_id, d.text, [(s.start, s.end, s.type) for s in d.spans]) for d in again] == \
        [(n.doc.doc_id, n.doc.text, [(s.start, s.end, s.type) for s in n.doc.spans]) for n in held_notes[:30]]
    assert [d.text for d in generate_corpus(30, 5, variety="ward", part="heldout")] != [d.text for d in again]
    assert [d.text for d in generate_corpus(30, 4, variety="ward", part="heldout", split_seed=1)] != \
        [d.text for d in again]
    longer = generate_corpus(40, 4, variety="ward", part="heldout")
    assert [d.text for d in longer[:30]] == [d.text for d in again]


def test_template_language_and_helpers():
    rng = random.Random(0)
    assert all(60 <= int(number("60-110", rng)) <= 110 for _ in range(50))
    assert all(-3 <= int(number("-3-0", rng)) <= 0 for _ in range(20))
    dec = number("7.30-7.45", rng)
    assert re.fullmatch(r"7\.[34]\d", dec) and 7.30 <= float(dec) <= 7.45
    assert number("dr", rng) is None
    parts = expand("HR {60-110} {SR|ST}, called {drlast}.", rng, {"drlast": lambda: "X"})
    assert parts[0] == "HR " and parts[2] == " " and parts[3] in ("SR", "ST") and "X" in parts
    assert recase("Straße Foley", "upper") == "STRAßE FOLEY" and len(recase("Straße", "upper")) == 6
    assert recase("Foley", "mixed") == "Foley" and recase("PICC Line", "lower") == "picc line"
    assert acronym("Mercy General Hospital") == "MGH" and acronym("University Hospital of Springfield") == "UHS"
    slipped = misspell("Lethargic but arousable " * 40, random.Random(1), 0.5)
    assert slipped != "Lethargic but arousable " * 40 and misspell("Foley", random.Random(1), 0.0) == "Foley"
    assert {"yo", "y_o"} <= set(WARD_AGE_FORMATS)


def test_existing_generators_unchanged_and_bad_arguments_refused():
    assert [d.text for d in generate_corpus(5, 2)] == [d.text for d in generate_corpus(5, 2, variety="narrow")]
    with pytest.raises(ValueError):
        generate_corpus(5, 2, variety="ward", part="test")
    with pytest.raises(ValueError):
        generate_corpus(-1, 2, variety="ward")


def test_demo_command_writes_ward_notes(tmp_path, capsys):
    from cli import main
    formats = pytest.importorskip("pipeline.formats")
    out = tmp_path / "ward"
    assert main(["demo", "--out", str(out), "--format", "jsonl", "--docs", "6", "--seed", "5", "--variety", "ward",
                 "--part", "heldout"]) == 0
    assert "6 synthetic notes" in capsys.readouterr().out
    back = formats.read_collection(out, "jsonl", I2B2_2014)
    truth = generate_corpus(6, 5, variety="ward", part="heldout")
    assert [(d.doc_id, d.text, len(d.spans)) for d in back] == [(d.doc_id, d.text, len(d.spans)) for d in truth]
