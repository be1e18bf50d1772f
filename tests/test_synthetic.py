"""The synthetic corpus and the simulated annotators.

Assertions compare offsets, labels, formats and counts; failure messages name documents,
offsets and labels only, never the (synthetic) text. PYTEST_DONT_REWRITE: without assertion
rewriting a failed ``assert`` shows its message, not the values compared (which may be text).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest

from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span, validate_spans
from pipeline.synthetic import (AGE_FORMATS, DATE_FORMATS, PHONE_FORMATS, PROFILES, generate_corpus, generate_notes,
                                simulate_annotator)
from pipeline.synthetic.pools import load_pools

N = 200
SEED = 2014


class Quiet(list):
    """A list whose repr has no text: pytest prints fixture arguments when a test fails."""

    def __repr__(self) -> str:
        return f"<{len(self)} synthetic notes>"


@pytest.fixture(scope="module")
def notes():
    return Quiet(generate_notes(N, SEED))


@pytest.fixture(scope="module")
def corpus(notes):
    return Quiet(n.doc for n in notes)


def _key(docs: list[Document]):
    return [(d.doc_id, d.text, d.patient_id, d.meta, [(s.start, s.end, s.category, s.type) for s in d.spans])
            for d in docs]


# --- generator ---------------------------------------------------------------------------------
def test_same_seed_same_corpus_and_prefix_property():
    a, b = generate_corpus(40, 5), generate_corpus(40, 5)
    assert _key(a) == _key(b)
    assert _key(generate_corpus(15, 5)) == _key(a[:15])  # a longer corpus starts with the shorter one
    c = generate_corpus(40, 6)
    assert [d.text for d in c] != [d.text for d in a]


def test_generator_does_not_use_global_random():
    import random
    random.seed(1)
    a = generate_corpus(10, 5)
    random.seed(999)
    b = generate_corpus(10, 5)
    assert _key(a) == _key(b)


def test_start_patient_gives_new_patients():
    a = generate_corpus(30, 5)
    b = generate_corpus(30, 5, start_patient=1000)
    assert not {d.patient_id for d in a} & {d.patient_id for d in b}
    assert not {d.doc_id for d in a} & {d.doc_id for d in b}
    assert all(int(d.patient_id[1:]) >= 1000 for d in b)


def test_exact_count_and_unique_ids(corpus):
    assert len(corpus) == N
    assert len({d.doc_id for d in corpus}) == N
    assert generate_corpus(0, 1) == []


def test_every_i2b2_type_appears(corpus):
    seen = Counter((s.category, s.type) for d in corpus for s in d.spans)
    expected = {(cat, t) for cat, types in I2B2_2014.categories.items() for t in types}
    missing = expected - set(seen)
    assert not missing, f"types never generated: {sorted(missing)}"
    assert set(seen) <= expected
    assert all(seen[k] >= 5 for k in expected), {k: seen[k] for k in expected if seen[k] < 5}


def test_spans_are_exact_and_never_overlap(notes):
    for note in notes:
        doc = note.doc
        validate_spans(doc.doc_id, doc.text, doc.spans)  # inside, non-empty, no overlap
        assert len(doc.spans) == len(note.inserted) > 10
        for span, ins in zip(doc.spans, note.inserted):
            assert (span.start, span.end, span.type) == (ins.start, ins.end, ins.type)
            exact = doc.text[span.start:span.end] == ins.value  # a bool, so a failure shows no text
            assert exact, f"{doc.doc_id} {span.start}-{span.end} {span.type}"
            assert span.category == I2B2_2014.category_of(span.type)
            assert span.layer == "gold" and span.score == 1.0
            # Spans sit on token boundaries (except the deliberately glued "45yo").
            if ins.fmt != "yo_attached":
                after = doc.text[span.end:span.end + 1]
                assert not (after.isalnum() and doc.text[span.end - 1].isalnum()), f"{doc.doc_id} {span.end}"
            before = doc.text[span.start - 1:span.start] if span.start else ""
            assert not (before.isalnum() and doc.text[span.start].isalnum()), f"{doc.doc_id} {span.start}"


def test_note_kinds_and_patients(corpus):
    kinds = Counter(d.meta["kind"] for d in corpus)
    assert set(kinds) == {"discharge_summary", "progress_note", "letter", "referral"}
    assert min(kinds.values()) >= 15, kinds
    per_patient = Counter(d.patient_id for d in corpus)
    assert sum(1 for n in per_patient.values() if n >= 2) >= 30  # several notes per patient
    for d in corpus:
        assert 500 < len(d.text) < 6000, (d.doc_id, len(d.text))


def _values(notes, type_=None, fmt=None):
    return [(n.doc, i) for n in notes for i in n.inserted
            if (type_ is None or i.type == type_) and (fmt is None or i.fmt == fmt)]


DATE_SHAPES = {
    "2070-12-01": r"\d{4}-\d{2}-\d{2}",
    "12/01/2070": r"\d{2}/\d{2}/\d{4}",
    "12/01/70": r"\d{2}/\d{2}/\d{2}",
    "4/66": r"\d{1,2}/\d{2}",
    "Dec 1st": r"[A-Z][a-z]{2} \d{1,2}(st|nd|rd|th)",
    "December 1, 2070": r"(January|February|March|April|May|June|July|August|September|October|November|December)"
                        r" \d{1,2}, \d{4}",
    "spring of 2070": r"(spring|summer|fall|winter) of \d{4}",
    "1st of December": r"\d{1,2}(st|nd|rd|th) of [A-Z][a-z]+",
    "2070": r"\d{4}",
}


def test_all_date_formats_present(notes):
    dates = _values(notes, "DATE")
    assert {i.fmt for _, i in dates} == set(DATE_FORMATS)
    for example, shape in DATE_SHAPES.items():
        assert re.fullmatch(shape, example)
        assert any(re.fullmatch(shape, i.value) for _, i in dates), f"no date shaped like {example!r}"
    # Future-shifted years: dates of care lie in 2060-2090; only births are earlier.
    years = [int(y) for _, i in dates for y in re.findall(r"\b(\d{4})\b", i.value)]
    assert all(1950 <= y <= 2090 for y in years)
    care = [int(y) for doc, i in dates if doc.text[i.start - 5:i.start] != "DOB: "
            for y in re.findall(r"\b(\d{4})\b", i.value)]
    assert all(2060 <= y <= 2090 for y in care)


def test_all_age_formats_present(notes):
    ages = _values(notes, "AGE")
    assert {i.fmt for _, i in ages} >= set(AGE_FORMATS)
    ctx = Counter()
    for doc, i in ages:
        after, before = doc.text[i.end:i.end + 9], doc.text[max(0, i.start - 5):i.start]
        ctx["yo"] += after.startswith(" yo")
        ctx["year-old"] += after.startswith("-year-old")
        ctx["y/o"] += after.startswith(" y/o")
        ctx["aged"] += before == "aged "
        ctx["89+"] += i.value == "89+"
        ctx["over 89"] += i.value.isdigit() and int(i.value) > 89
    assert all(ctx[k] > 0 for k in ("yo", "year-old", "y/o", "aged", "89+", "over 89")), ctx


def test_contact_and_id_formats_present(notes):
    phones = _values(notes, "PHONE")
    assert {i.fmt for _, i in phones} == set(PHONE_FORMATS)
    shapes = [r"\(\d{3}\) 555-01\d{2}", r"\d{3}-555-01\d{2}", r"\d{3}\.555\.01\d{2}", r"x\d{4}"]
    for shape in shapes:
        assert any(re.fullmatch(shape, i.value) for _, i in phones), shape
    assert any(doc.text[i.start - 7:i.start] == "pager #" for doc, i in phones)
    assert _values(notes, "FAX")
    assert all(re.fullmatch(r"[\w.]+@[\w.]+\.(org|com|net)", i.value) and "example" in i.value
               for _, i in _values(notes, "EMAIL"))
    assert all("example" in i.value for _, i in _values(notes, "URL"))
    assert all(re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", i.value) for _, i in _values(notes, "IPADDR"))
    assert all(re.fullmatch(r"9\d{2}-\d{2}-\d{4}", i.value) for _, i in _values(notes, "SSN"))


def test_name_hard_cases(notes):
    pools = load_pools()
    known = set(pools.first_names) | set(pools.surnames)
    ambiguous = set(pools.ambiguous_first) | set(pools.ambiguous_surnames)
    names = _values(notes, "DOCTOR") + _values(notes, "PATIENT")
    assert any(re.fullmatch(r"[A-Z]\. \S.*", i.value) for _, i in names if i.fmt == "initial_last")  # J. Smith
    assert any(re.fullmatch(r"[A-Z]{2,4}", i.value) for _, i in names if i.fmt == "initials")  # JS
    tokens = [t for _, i in names for t in re.split(r"[ ,.]+", i.value) if t]
    amb_hits = Counter(t for t in tokens if t in ambiguous)
    assert len(amb_hits) >= 20, f"{len(amb_hits)} distinct ambiguous names"  # Hope, Will, Brown, Paris ...
    assert {"Hope", "Paris", "Brown", "Green", "Will"} & set(amb_hits), "none of the classic ambiguous names"
    unknown = {t for t in tokens if len(t) > 2 and t.isalpha() and t.capitalize() == t and t not in known}
    assert len(unknown) >= 10, f"{len(unknown)} invented names"  # names no dictionary holds
    hospitals = _values(notes, "HOSPITAL", "full")
    assert all(len(i.value.split()) >= 2 for _, i in hospitals)
    # Addresses split into street / city / state / ZIP.
    for doc, i in _values(notes, "ZIP"):
        assert re.fullmatch(r"\d{5}(-\d{4})?", i.value)
    assert len(_values(notes, "STREET")) > 50 and len(_values(notes, "STATE")) > 50


def _header(doc: Document, span: Span, label: str) -> bool:
    return doc.text[max(0, span.start - len(label)):span.start] == label


def test_patient_consistency(corpus):
    by_patient = defaultdict(list)
    for d in corpus:
        by_patient[d.patient_id].append(d)
    multi = [docs for docs in by_patient.values() if len(docs) >= 2]
    assert len(multi) >= 30
    for docs in multi:
        mrns = {d.text[s.start:s.end] for d in docs for s in d.spans if s.type == "MEDICALRECORD"}
        assert len(mrns) == 1, docs[0].patient_id
        ssns = {d.text[s.start:s.end] for d in docs for s in d.spans if s.type == "SSN"}
        assert len(ssns) <= 1, docs[0].patient_id
        dobs = set()
        for d in docs:
            for s in d.spans:
                if s.type == "DATE" and _header(d, s, "DOB: "):
                    dobs.add(_month_day_yy(d.text[s.start:s.end]))
        assert len(dobs) <= 1, docs[0].patient_id
        surnames = set()
        headers = []
        for d in docs:
            for s in d.spans:
                if s.type == "PATIENT" and any(_header(d, s, h) for h in ("Patient: ", "Name: ", "Re: ", "Pt: ")):
                    v = d.text[s.start:s.end].lower()
                    headers.append(v)
                    if "," in v:
                        surnames.add(v.split(",")[0])
        assert len(surnames) <= 1, docs[0].patient_id
        for v in headers:
            assert all(name in v for name in surnames), docs[0].patient_id


def _month_day_yy(value: str) -> tuple[int, int, int]:
    from datetime import datetime
    for fmt in ("%Y-%m-%d", "%m/%d/%Y", "%m/%d/%y", "%B %d, %Y", "%b %d, %Y", "%d-%b-%Y"):
        try:
            d = datetime.strptime(value, fmt)
            return d.month, d.day, d.year % 100
        except ValueError:
            continue
    raise AssertionError(f"unparsed DOB format (length {len(value)})")


def test_formats_round_trip(tmp_path, corpus):
    formats = pytest.importorskip("pipeline.formats")
    docs = corpus[:20]
    for fmt in ("brat", "xml", "jsonl"):
        formats.write_collection(docs, tmp_path / fmt, fmt)
        back = {d.doc_id: d for d in formats.read_collection(tmp_path / fmt, fmt, I2B2_2014)}
        assert set(back) == {d.doc_id for d in docs}
        for d in docs:
            same_text = back[d.doc_id].text == d.text
            assert same_text, f"{fmt}: {d.doc_id} text changed"
            assert [(s.start, s.end, s.type) for s in sorted(back[d.doc_id].spans)] == \
                   [(s.start, s.end, s.type) for s in sorted(d.spans)]


# --- annotators -------------------------------------------------------------------------------
def _compare(docs: list[Document], name: str, seed: int, **rates) -> dict[str, float]:
    n = miss = bound = wrong = spur = hits = 0
    for d in docs:
        ann = simulate_annotator(d, name, seed, **rates)
        validate_spans(d.doc_id, d.text, ann)
        for a in ann:
            assert I2B2_2014.has(a.category, a.type)
            assert a.layer == f"annotator:{name}" and a.source == f"human:{name}" and a.doc_id == d.doc_id
        n += len(d.spans)
        for g in d.spans:
            ov = [a for a in ann if a.start < g.end and g.start < a.end]
            if not ov:
                miss += 1
                continue
            hits += 1
            bound += (ov[0].start, ov[0].end) != (g.start, g.end)
            wrong += ov[0].type != g.type
        spur += sum(1 for a in ann if not any(a.start < g.end and g.start < a.end for g in d.spans))
    return {"miss": miss / n, "boundary": bound / hits, "wrong": wrong / hits, "spurious": spur / n}


def test_annotator_is_deterministic(corpus):
    d = corpus[3]
    assert simulate_annotator(d, "ben", 1) == simulate_annotator(d, "ben", 1)
    differs = sum(simulate_annotator(x, "ben", 1) != simulate_annotator(x, "ben", 2) for x in corpus[:20])
    assert differs >= 10
    assert any(simulate_annotator(x, "ana", 1) != simulate_annotator(x, "ben", 1) for x in corpus[:10])


def test_zero_rates_reproduce_gold(corpus):
    for d in corpus[:20]:
        ann = simulate_annotator(d, "x", 1, miss_rate=0, boundary_rate=0, wrong_category_rate=0, spurious_rate=0)
        assert [(s.start, s.end, s.type) for s in ann] == [(s.start, s.end, s.type) for s in d.spans]


def test_annotator_rates_roughly_as_configured(corpus):
    rates = {"miss_rate": 0.2, "boundary_rate": 0.15, "wrong_category_rate": 0.1, "spurious_rate": 0.05}
    got = _compare(corpus[:120], "x", 7, **rates)
    assert abs(got["miss"] - 0.2) < 0.03, got
    assert 0.08 < got["boundary"] < 0.18, got  # a few spans offer no other plausible boundary
    assert 0.06 < got["wrong"] < 0.14, got
    assert 0.025 < got["spurious"] < 0.07, got


def test_profiles_differ_in_carefulness(corpus):
    careful = _compare(corpus[:80], "ana", 3)
    hasty = _compare(corpus[:80], "ben", 3)
    assert careful["miss"] < hasty["miss"]
    assert careful["miss"] == pytest.approx(PROFILES["careful"].miss_rate, abs=0.02)
    assert hasty["miss"] == pytest.approx(PROFILES["hasty"].miss_rate, abs=0.03)
    assert careful["spurious"] < hasty["spurious"]


def test_boundary_errors_look_human(corpus):
    titled = trimmed = 0
    for d in corpus[:100]:
        gold = {(s.start, s.end): s for s in d.spans}
        for a in simulate_annotator(d, "x", 5, miss_rate=0, boundary_rate=1.0, wrong_category_rate=0, spurious_rate=0):
            if (a.start, a.end) in gold:
                continue
            titled += d.text[a.start:a.start + 3] == "Dr."
            trimmed += any(g.start == a.start and a.end < g.end for g in d.spans)
    assert titled > 5 and trimmed > 20, (titled, trimmed)


def test_spurious_spans_avoid_gold(corpus):
    for d in corpus[:40]:
        ann = simulate_annotator(d, "x", 9, miss_rate=0, boundary_rate=0, wrong_category_rate=0, spurious_rate=0.3)
        extra = [a for a in ann if (a.start, a.end, a.type) not in {(s.start, s.end, s.type) for s in d.spans}]
        assert extra
        for a in extra:
            assert not any(a.start < g.end and g.start < a.end for g in d.spans)


def test_annotator_on_meddocan_documents(meddocan_sample):
    formats = pytest.importorskip("pipeline.formats")
    from pipeline.schemas import MEDDOCAN
    docs = formats.read_collection(meddocan_sample / "brat", "brat", MEDDOCAN)
    assert docs
    for d in docs:
        ann = simulate_annotator(d, "ben", 1)
        validate_spans(d.doc_id, d.text, ann)
        assert len(ann) <= len(d.spans) * 1.3 + 3


def test_same_output_in_processes_with_different_hash_seeds():
    """Seeds are strings hashed by random.Random (SHA-512), never by the salted built-in hash()."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    code = ("import hashlib, json; from pipeline.synthetic import generate_corpus, simulate_annotator; "
            "d = generate_corpus(30, 7); print(hashlib.sha256(json.dumps([[x.doc_id, x.text, "
            "[s.to_dict() for s in x.spans], [s.to_dict() for s in simulate_annotator(x, 'ben', 1)]] "
            "for x in d]).encode()).hexdigest())")
    root = str(Path(__file__).resolve().parents[1])
    digests = set()
    for h in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": h, "PYTHONPATH": root}
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True)
        assert out.returncode == 0, "subprocess failed"
        digests.add(out.stdout.strip())
    assert len(digests) == 1
