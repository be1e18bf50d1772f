"""The wide synthetic generator and its train / held-out parts.

Held-out notes must be built only from held-out note kinds, held-out value formats and names,
places and institutions that no train-part note (and no narrow note) can contain; every span is
exact. Failure messages name documents, offsets, kinds and formats, never the (synthetic) text.
"""
from __future__ import annotations

import re
from collections import Counter

import pytest

from pipeline.schemas import I2B2_2014
from pipeline.spans import validate_spans
from pipeline.synthetic import generate_corpus, generate_notes
from pipeline.synthetic.partition import part_of, split
from pipeline.synthetic.pools import load_pools
from pipeline.synthetic.wide_formats import NEW_DATE_FORMATS, NEW_ID_FORMATS, NEW_PHONE_FORMATS, formats_for, number_words
from pipeline.synthetic.wide_lists import wide_lists, wide_pools
from pipeline.synthetic.wide_notes import WIDE_KINDS, kinds_for

N = 150


class Quiet(list):
    def __repr__(self) -> str:
        return f"<{len(self)} synthetic notes>"


@pytest.fixture(scope="module")
def train_notes():
    return Quiet(generate_notes(N, 4, variety="wide", part="train"))


@pytest.fixture(scope="module")
def held_notes():
    return Quiet(generate_notes(N, 4, variety="wide", part="heldout"))


def test_split_is_a_deterministic_partition_that_keeps_narrow_values_in_train():
    values = [f"v{i}" for i in range(40)]
    train, held = split("k", values, 3, always_train=frozenset({"v1", "v2"}))
    assert set(train) | set(held) == set(values) and not set(train) & set(held)
    assert {"v1", "v2"} <= set(train) and 8 <= len(held) <= 14
    assert (train, held) == split("k", values, 3, always_train=frozenset({"v1", "v2"}))
    assert split("k", values, 4)[1] != held
    assert part_of("k", values, "all") == tuple(values)
    assert split("k", ["only"], 0) == (("only",), ())
    with pytest.raises(ValueError):
        part_of("k", values, "test")


def test_lists_are_large_and_their_parts_disjoint():
    lists, narrow = wide_lists(), load_pools()
    assert len(lists.first) > 5000 and len(lists.surnames) > 4000 and len(lists.cities) > 2000
    train, held = wide_pools("train"), wide_pools("heldout")
    for field in ("first_names", "surnames", "streets", "professions", "organizations", "departments",
                  "countries", "locations_other"):
        a, b = set(getattr(train.pools, field)), set(getattr(held.pools, field))
        assert a and b and not a & b, field
        assert not b & set(getattr(narrow, field)), field
    assert not {c.name for c in train.pools.cities} & {c.name for c in held.pools.cities}
    assert not {h.name for h in train.pools.hospitals} & {h.name for h in held.pools.hospitals}
    assert not {c for c, _ in train.intl_cities} & {c for c, _ in held.intl_cities}


def test_kinds_and_formats_split_into_parts():
    tk, hk = set(kinds_for("train")), set(kinds_for("heldout"))
    assert hk and not tk & hk and hk <= set(WIDE_KINDS) and {"discharge_summary", "letter"} <= tk
    assert set(kinds_for("all")) == tk | hk
    ft, fh = formats_for("train"), formats_for("heldout")
    for field in ("dates", "ages", "phones", "ids", "addresses"):
        a, b = set(getattr(ft, field)), set(getattr(fh, field))
        assert a and b and not a & b, field
    assert set(fh.names) & set(ft.names) == {"full", "first"}   # how names are written, shared
    assert {NEW_ID_FORMATS[f][0] for f in fh.ids} == {t for t, _ in NEW_ID_FORMATS.values()}


def test_wide_notes_are_exact_and_deterministic(train_notes, held_notes):
    for notes in (train_notes, held_notes):
        for note in notes:
            d = note.doc
            validate_spans(d.doc_id, d.text, d.spans)
            assert len(d.spans) == len(note.inserted)
            for span, ins in zip(d.spans, note.inserted):
                exact = d.text[span.start:span.end] == ins.value
                assert exact, f"{d.doc_id} {span.start}-{span.end} {span.type}"
                assert span.category == I2B2_2014.category_of(span.type)
            assert d.meta["variety"] == "wide"
    again = generate_corpus(30, 4, variety="wide", part="heldout")
    assert [(d.doc_id, d.text, [(s.start, s.end, s.type) for s in d.spans]) for d in again] == \
        [(n.doc.doc_id, n.doc.text, [(s.start, s.end, s.type) for s in n.doc.spans]) for n in held_notes[:30]]
    other_split = generate_corpus(30, 4, variety="wide", part="heldout", split_seed=1)
    assert [d.text for d in other_split] != [n.doc.text for n in held_notes[:30]]


def test_heldout_notes_use_only_heldout_kinds_formats_and_values(held_notes):
    fh, held = formats_for("heldout"), wide_pools("heldout").pools
    train_pools = wide_pools("train").pools
    train_names = {n.lower() for n in train_pools.first_names + train_pools.surnames}
    held_names = {n.lower() for n in held.first_names + held.surnames}
    assert {n.kind for n in held_notes} == set(kinds_for("heldout"))
    for note in held_notes:
        for ins in note.inserted:
            where = f"{note.doc.doc_id} {ins.start} {ins.type} {ins.fmt}"
            if ins.type == "DATE":
                assert ins.fmt in fh.dates, where
            elif ins.type in ("PHONE", "FAX"):
                assert ins.fmt in fh.phones, where
            elif ins.fmt in NEW_ID_FORMATS:
                assert ins.fmt in fh.ids, where
            elif ins.type in ("PATIENT", "DOCTOR") and ins.fmt != "last":
                assert ins.fmt in fh.names, where
            if ins.type in ("PATIENT", "DOCTOR"):   # no name a train-part note could hold
                tokens = {t.lower() for t in re.split(r"[ ,.]+", ins.value) if len(t) > 1}
                assert not {t for t in tokens if t in train_names and t not in held_names}, where
            if ins.type == "CITY" and ins.fmt == "city":
                assert ins.value in {c.name for c in held.cities}, where
            if ins.type == "HOSPITAL":
                assert ins.value in {h.name for h in held.hospitals} | {h.short for h in held.hospitals}, where


def test_train_notes_never_use_heldout_kinds_or_formats(train_notes):
    fh = formats_for("heldout")
    held_kinds = set(kinds_for("heldout"))
    heldout_formats = set(fh.dates) | set(fh.phones) | set(fh.ids) | set(fh.ages) | (set(fh.names) - {"full", "first"})
    assert not {n.kind for n in train_notes} & held_kinds
    used = Counter(i.fmt for n in train_notes for i in n.inserted)
    assert not set(used) & heldout_formats, sorted(set(used) & heldout_formats)
    kinds = Counter(n.kind for n in train_notes)
    assert len(kinds) >= 8 and min(kinds.values()) >= 3, kinds


def test_wide_corpus_has_the_new_hard_cases():
    notes = generate_notes(300, 9, variety="wide", part="all")
    fmts = Counter(i.fmt for n in notes for i in n.inserted)
    assert set(NEW_DATE_FORMATS) <= set(fmts) and set(NEW_PHONE_FORMATS) <= set(fmts)
    values = [i.value for n in notes for i in n.inserted]
    assert any(v.isupper() and " " in v for v in values if v.replace(" ", "").isalpha())     # JOHN SMITH
    assert any(v.islower() and " " in v for v in values if v.replace(" ", "").isalpha())     # john smith
    assert any(i.value.startswith("PO Box") and i.type == "STREET" for n in notes for i in n.inserted)
    assert any(i.type == "AGE" and not i.value[0].isdigit() for n in notes for i in n.inserted)  # forty-five
    ids = Counter(i.type for n in notes for i in n.inserted if i.fmt in NEW_ID_FORMATS)
    assert {"MEDICALRECORD", "SSN", "ACCOUNT", "LICENSE", "HEALTHPLAN", "IDNUM"} <= set(ids)


def test_narrow_generator_is_unchanged_by_default_and_has_no_heldout_part():
    assert [d.text for d in generate_corpus(5, 2)] == [d.text for d in generate_corpus(5, 2, variety="narrow")]
    with pytest.raises(ValueError, match="no held-out part"):
        generate_corpus(5, 2, part="heldout")
    with pytest.raises(ValueError):
        generate_corpus(5, 2, variety="huge")


def test_number_words():
    assert [number_words(n) for n in (7, 20, 45, 99, 100, 103)] == \
        ["seven", "twenty", "forty-five", "ninety-nine", "one hundred", "one hundred and three"]
