"""The ward generator's places besides hospitals: facilities, dialysis units, hospices, employers,
congregations, ambulance services, shelters, foreign cities, towns with states, street addresses.

Failure messages name documents, offsets, kinds and formats, never the (synthetic) text.
"""
from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest

from pipeline.schemas import I2B2_2014
from pipeline.synthetic import generate_corpus, generate_notes
from pipeline.synthetic.builder import NoteBuilder
from pipeline.synthetic.people import make_clinician, make_patient, make_person
from pipeline.synthetic.ward import CASINGS, WardContext, recase, ward_formats
from pipeline.synthetic.ward_notes import SOCIAL_KINDS, ward_kinds
from pipeline.synthetic.ward_phrases import PLACE_SLOTS, all_sections, sections
from pipeline.synthetic.ward_places import KINDS, all_parts, place_parts, ward_places
from pipeline.synthetic.wide_lists import wide_pools

#: the i2b2 2014 types each new slot may write
SLOT_TYPES = {"facility": {"HOSPITAL"}, "dialysis": {"HOSPITAL"}, "hospice": {"HOSPITAL"},
              "employer": {"ORGANIZATION"}, "church": {"ORGANIZATION"}, "ems": {"ORGANIZATION"},
              "lodging": {"ORGANIZATION"}, "abroad": {"CITY", "COUNTRY"}, "place": {"CITY", "STATE"},
              "state": {"STATE"}, "county": {"LOCATION-OTHER"}, "address": {"STREET", "CITY", "STATE", "ZIP"}}


class Quiet(list):
    def __repr__(self) -> str:
        return f"<{len(self)} synthetic notes>"


def _context(seed: int, part: str = "all") -> WardContext:
    rng = random.Random(f"test-places:{seed}")
    pools = wide_pools(part).pools
    patient = make_patient(f"T{seed:05d}", rng, pools)
    return WardContext(rng=rng, pools=pools, formats=ward_formats(part), phrases=sections(part), patient=patient,
                       note_date=patient.first_seen, doctors=tuple(make_clinician(rng, pools).person for _ in range(3)),
                       nurses=tuple(make_person(rng, pools) for _ in range(3)), other_hospital=pools.hospitals[0],
                       typo_rate=0.04, places=ward_places(part))


def test_every_place_slot_writes_spans_of_its_type_in_every_case():
    assert set(SLOT_TYPES) == set(PLACE_SLOTS)
    seen = defaultdict(set)
    for seed in range(40):
        w = _context(seed)
        slots = w.slots()
        for slot in sorted(PLACE_SLOTS):
            b = NoteBuilder(f"t{seed}")
            b.text("Pt from ")
            w.write(b, slots[slot]())
            b.text(" per family.\n")
            casing = CASINGS[seed % 3]
            text = recase(b.build_text(), casing)
            assert b.inserted, (seed, slot)
            for ins in b.inserted:
                where = f"{seed} {slot} {ins.type} {ins.fmt}"
                assert ins.type in SLOT_TYPES[slot], where
                I2B2_2014.category_of(ins.type)
                assert text[ins.start:ins.end] == recase(ins.value, casing), where
                assert ins.value == ins.value.strip() and ins.value, where
                seen[slot].add(ins.type)
    for slot, types in SLOT_TYPES.items():
        if slot != "address":           # street alone is one of its forms; all four turn up below
            assert seen[slot] == types, slot


def test_notes_carry_the_new_places_exactly_in_all_three_casings():
    notes = Quiet(generate_notes(500, 7, variety="ward", part="all"))
    by_kind = defaultdict(Counter)
    for n in notes:
        d, casing = n.doc, n.doc.meta["casing"]
        for span, ins in zip(d.spans, n.inserted):
            assert d.text[span.start:span.end] == ins.value, f"{d.doc_id} {span.start} {span.type}"
            if ":" in ins.fmt:
                kind = ins.fmt.split(":", 1)[0]
                assert ins.type == KINDS[kind][1], f"{d.doc_id} {span.start} {ins.fmt}"
                by_kind[kind][casing] += 1
                letters = [c for c in ins.value if c.isalpha()]
                if casing == "upper":
                    assert all(c.isupper() for c in letters), f"{d.doc_id} {span.start}"
                elif casing == "lower":
                    assert all(c.islower() for c in letters), f"{d.doc_id} {span.start}"
                else:   # as written: capitalised like a name (or all lower, as nurses sometimes type)
                    assert ins.value[0].isupper() or ins.value.islower(), f"{d.doc_id} {span.start}"
    for kind in KINDS:
        if kind != "hospice":         # rarer: a few lines only
            assert set(by_kind[kind]) == set(CASINGS), (kind, dict(by_kind[kind]))
        else:
            assert sum(by_kind[kind].values()) >= 3, dict(by_kind[kind])
    types = Counter(i.type for n in notes for i in n.inserted)
    assert {"ORGANIZATION", "STREET", "ZIP", "STATE", "COUNTRY", "LOCATION-OTHER"} <= set(types), types
    kinds = Counter(n.kind for n in notes)
    assert all(kinds[k] for k in SOCIAL_KINDS), kinds
    assert sum(kinds[k] for k in SOCIAL_KINDS) < 0.15 * len(notes), kinds    # a ward chart is mostly nursing


def test_place_parts_are_disjoint_and_cover_every_list():
    everything = all_parts()
    train, held = place_parts("train"), place_parts("heldout")
    assert set(train) == set(held) == set(everything)
    for name, values in everything.items():
        assert train[name] and held[name], name
        assert not set(train[name]) & set(held[name]), name
        assert set(train[name]) | set(held[name]) == set(values), name
    assert not {c for c, _ in ward_places("train").abroad} & {c for c, _ in ward_places("heldout").abroad}
    assert set(ward_kinds("train")) & set(SOCIAL_KINDS) and set(ward_kinds("heldout")) & set(SOCIAL_KINDS)
    st, sh = sections("train"), sections("heldout")
    for name in ("sw_info", "sw_family", "sw_assess", "sw_plan", "cm", "cm_plan"):
        assert name in all_sections() and st[name] and sh[name] and not set(st[name]) & set(sh[name]), name


def test_heldout_place_names_use_heldout_words_only():
    held, train = place_parts("heldout"), place_parts("train")
    maker = ward_places("heldout")
    word_lists = [k for k in held if not k.endswith("_shapes") and k != "abroad"]
    train_only = {v for k in word_lists for v in train[k]} - {v for k in word_lists for v in held[k]}
    rng = random.Random(3)
    for kind in KINDS:
        for _ in range(60):
            name, typ, shape = maker.make(kind, rng)
            assert shape in held[KINDS[kind][0]] and typ == KINDS[kind][1], kind
            # a part word of the train side only never appears as a whole word of a held-out name
            words = set(name.replace("'s", "").split())
            assert not {w for w in words if w in train_only and len(w) > 3} - _in_held_lists(words), (kind, shape)


def _in_held_lists(words: set[str]) -> set[str]:
    pools = wide_pools("heldout").pools
    held_words = {w for c in pools.cities for w in c.name.split()} | set(pools.surnames) | set(pools.first_names)
    held_words |= {w for k, vs in place_parts("heldout").items() for v in vs for w in v.split()}
    return words & held_words


def test_places_are_deterministic():
    a = [d.text for d in generate_corpus(40, 12, variety="ward", part="all")]
    assert a == [d.text for d in generate_corpus(40, 12, variety="ward", part="all")]
    m1, m2 = ward_places("train"), ward_places("train")
    r1, r2 = random.Random(5), random.Random(5)
    assert [m1.make(k, r1) for k in KINDS for _ in range(5)] == [m2.make(k, r2) for k in KINDS for _ in range(5)]


def test_a_bad_places_file_is_refused(tmp_path, monkeypatch):
    import pipeline.synthetic.ward_places as wp

    bad = tmp_path / "places.txt"
    bad.write_text("[facility_shapes]\n{nowhere} Manor\n", encoding="utf-8")
    monkeypatch.setattr(wp, "PLACES_FILE", bad)
    wp.all_parts.cache_clear()
    try:
        with pytest.raises(ValueError):
            wp.all_parts()
    finally:
        monkeypatch.undo()
        wp.all_parts.cache_clear()
