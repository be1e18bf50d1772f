"""Batches: consistency per patient, determinism, resume, writing, the quality report.

Runs on the synthetic corpus (fake patients with several notes each) and on MEDDOCAN (the
16-document sample always; all 250 dev documents when the full corpus is beside the checkout).
"""
from __future__ import annotations

import zipfile
from collections import defaultdict
from io import BytesIO
from pathlib import Path

import pytest

from pipeline.deid import (DeidContext, Profile, builtin_profiles, deidentify_batch, write_outputs,
                           zip_outputs)
from pipeline.deid.date_parse import DAY, parse_date
from pipeline.deid.date_words import DateParseError
from pipeline.deid.normalize import norm_key
from pipeline.formats import read_collection
from pipeline.schemas import I2B2_2014, MEDDOCAN
from pipeline.spans import Document, Span
from pipeline.synthetic import generate_corpus
from tests.test_deid_engine import check_result

SECRET = b"batch-test-secret-0123456789"
SAMPLE = Path(__file__).parent / "fixtures" / "meddocan"


@pytest.fixture(scope="module")
def synthetic():
    return generate_corpus(240, 3)


@pytest.fixture(scope="module")
def replaced(synthetic):
    return deidentify_batch(synthetic, builtin_profiles()["replace"], DeidContext(secret=SECRET, locale="en"))


def pairs(docs, batch, *, types=None, actions=("replace",)):
    """(patient, type, original, surrogate) for every span handled with one of ``actions``."""
    by_id = {d.doc_id: d for d in docs}
    for r in batch.results:
        d = by_id[r.doc_id]
        for s_in, s_out, a in zip(r.source_spans, r.spans, r.actions):
            if a in actions and (types is None or s_in.type in types):
                yield r.patient_id, s_in.type, d.text[s_in.start:s_in.end], r.text[s_out.start:s_out.end]


def test_synthetic_corpus_invariants(synthetic, replaced):
    profile = builtin_profiles()["replace"]
    problems = []
    by_id = {d.doc_id: d for d in synthetic}
    for r in replaced.results:
        problems += check_result(by_id[r.doc_id], r, profile)
    assert not problems, problems[:10]
    s = replaced.summary
    assert s.documents == len(synthetic) and s.leaks == 0 and s.same_rate == 0.0
    assert s.surrogates > 5000 and 0.0 < s.mean_trigram_similarity < 0.3 and s.diversity > 0.9
    assert s.fallbacks <= s.surrogates * 0.002
    assert set(s.quality_by_category) >= {"NAME", "DATE", "LOCATION", "ID", "CONTACT", "AGE"}


def test_same_name_same_surrogate_within_patient_across_notes(synthetic, replaced):
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    notes: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pid, _type, original, surrogate in pairs(synthetic, replaced, types={"PATIENT", "DOCTOR"}):
        seen[(pid, norm_key(original))].add(norm_key(surrogate))
    for r in replaced.results:
        for s_in in r.source_spans:
            if s_in.type == "PATIENT":
                notes[(r.patient_id, "x")].add(r.doc_id)
    assert all(len(v) == 1 for v in seen.values())
    multi_note = [k for k, v in notes.items() if len(v) > 1]
    assert len(multi_note) > 20                 # the check above really spans several notes


def test_same_name_in_two_patients_gets_different_surrogates():
    text = "Patient John Smith, seen by Dr. Anna Lee. Smith reports pain."
    spans = [Span("", 8, 18, "NAME", "PATIENT"), Span("", 32, 40, "NAME", "DOCTOR")]
    docs = [Document(f"d{i}", text, [s.with_(doc_id=f"d{i}") for s in spans], patient_id=pid)
            for i, pid in enumerate(["P1", "P1", "P2", "P3"])]
    b = deidentify_batch(docs, builtin_profiles()["replace"], DeidContext(secret=SECRET, locale="en"))
    outs = [r.text for r in b.results]
    assert outs[0] == outs[1]                   # one patient, two notes: the same fake person
    assert outs[0] != outs[2] and outs[2] != outs[3] and outs[0] != outs[3]
    assert all(r.leaks == [] and r.propagated == 1 for r in b.results)   # "Smith reports" caught too
    assert all("Smith" not in o for o in outs)


def test_date_intervals_hold_across_a_patients_notes(synthetic, replaced):
    shifts: dict[str, set[int]] = defaultdict(set)
    for pid, _t, original, surrogate in pairs(synthetic, replaced, types={"DATE"}, actions=("shift",)):
        try:
            a = parse_date(original, "en")
            if a.precision != DAY or a.year is None:
                continue
            b = parse_date(surrogate, "en", near_year=a.year)
        except DateParseError:
            continue
        shifts[pid].add(b.ordinal() - a.ordinal())
    assert len(shifts) > 50
    assert all(len(v) == 1 for v in shifts.values())
    assert all(365 <= abs(next(iter(v))) <= 1095 for v in shifts.values())


def test_determinism_and_resume(synthetic):
    docs = synthetic[:60]
    profile = builtin_profiles()["replace"]
    a = deidentify_batch(docs, profile, DeidContext(secret=SECRET, locale="en"))
    b = deidentify_batch(docs, profile, DeidContext(secret=SECRET, locale="en"))
    assert [r.text for r in a.results] == [r.text for r in b.results]
    assert [r.spans for r in a.results] == [r.spans for r in b.results]
    done = {d.doc_id for d in docs[:35]}
    calls = []
    c = deidentify_batch(docs, profile, DeidContext(secret=SECRET, locale="en"), done_ids=done,
                         progress=lambda i, n: calls.append((i, n)))
    assert c.summary.skipped == 35 and len(c.results) == 25
    assert [r.text for r in c.results] == [r.text for r in a.results[35:]]
    assert calls[-1] == (25, 25) and len(calls) == 25
    other = deidentify_batch(docs, profile, DeidContext(secret=b"a-different-secret-0123456", locale="en"))
    assert sum(x.text != y.text for x, y in zip(a.results, other.results)) == len(docs)


@pytest.mark.parametrize("fmt", ["brat", "jsonl", "xml"])
def test_written_outputs_read_back_with_exact_spans(tmp_path, synthetic, fmt):
    docs = synthetic[:12]
    b = deidentify_batch(docs, builtin_profiles()["replace"], DeidContext(secret=SECRET, locale="en"))
    write_outputs(b.results, tmp_path, fmt)
    back = {d.doc_id: d for d in read_collection(tmp_path, fmt, I2B2_2014)}
    assert set(back) == {r.output_id for r in b.results}        # named by pseudonyms (defect 2)
    for r in b.results:
        d = back[r.output_id]
        assert d.text == r.text
        assert sorted((s.start, s.end, s.type) for s in d.spans) == sorted((s.start, s.end, s.type) for s in r.spans)


def test_zip_is_deterministic(synthetic):
    docs = synthetic[:8]
    p = builtin_profiles()["redact"]
    z1 = zip_outputs(deidentify_batch(docs, p, DeidContext(secret=SECRET)).results, "brat")
    z2 = zip_outputs(deidentify_batch(docs, p, DeidContext(secret=SECRET)).results, "brat")
    assert z1 == z2
    names = zipfile.ZipFile(BytesIO(z1)).namelist()
    assert len(names) == 16 and names == sorted(names)


def test_meddocan_sample_batch_consistency_and_quality():
    docs = read_collection(SAMPLE / "brat", "brat", MEDDOCAN)
    for profile in builtin_profiles().values():
        b = deidentify_batch(docs, profile, DeidContext(secret=SECRET, locale="es"))
        assert b.summary.leaks == 0 and b.summary.same_rate == 0.0
        assert b.summary.documents == 16


@pytest.mark.parametrize("profile_name", ["redact", "replace"])
def test_meddocan_dev_full_zero_leaks(meddocan_full, profile_name):
    docs = read_collection(meddocan_full / "dev", "brat", MEDDOCAN)
    assert len(docs) == 250
    profile = builtin_profiles()[profile_name]
    b = deidentify_batch(docs, profile, DeidContext(secret=SECRET, locale="es"))
    by_id = {d.doc_id: d for d in docs}
    problems = []
    for r in b.results:
        problems += check_result(by_id[r.doc_id], r, profile)
    assert not problems, problems[:10]
    s = b.summary
    assert s.leaks == 0 and s.same_rate == 0.0
    assert s.unparseable_dates <= 10                        # typos such as 16/018/1961, two months in one span
    assert s.fallbacks <= 0.01 * sum(sum(a.values()) for a in s.spans.values())
    if profile_name == "replace":
        assert s.diversity > 0.95 and s.mean_trigram_similarity < 0.3


def test_patient_originals_from_other_notes_are_caught():
    """A patient's name annotated in one note and missed in another is still replaced."""
    a = Document("n1", "Paciente: Rosalía Quintanilla.", [Span("n1", 10, 29, "NAME", "NOMBRE_SUJETO_ASISTENCIA")],
                 patient_id="P7")
    b = Document("n2", "Control de Rosalía Quintanilla sin incidencias.", [], patient_id="P7")
    no_prop = Profile(name="np", actions=builtin_profiles()["replace"].actions, propagate=False)
    r = deidentify_batch([a, b], no_prop, DeidContext(secret=SECRET, locale="es"))
    assert r.results[1].leaks and r.results[1].leaks[0].scope == "patient"
    r2 = deidentify_batch([a, b], builtin_profiles()["replace"], DeidContext(secret=SECRET, locale="es"))
    assert r2.summary.leaks == 0
    first = r2.results[0].text[r2.results[0].spans[0].start:r2.results[0].spans[0].end]
    second = r2.results[1].text[r2.results[1].spans[0].start:r2.results[1].spans[0].end]
    assert first == second


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_every_core_gives_the_results_of_one_process(synthetic):
    """The second pass on forked workers (whole patients per task): the same texts, spans and
    summary as one process, in input order, also when a patient's notes are not next to each
    other and some notes are skipped (resume)."""
    import multiprocessing as mp

    from pipeline.deid.batch import patient_tasks

    docs = synthetic[:90]
    docs = docs[::2] + docs[1::2]            # a patient's notes apart
    profile = builtin_profiles()["replace"]
    done = {d.doc_id for d in docs[:7]}
    one = deidentify_batch(docs, profile, DeidContext(secret=SECRET, locale="en"), done_ids=done)
    tasks = patient_tasks(docs)
    assert len(tasks) > 2 and sorted(d.doc_id for t in tasks for d in t) == sorted(d.doc_id for d in docs)
    by_task = {d.patient_id: k for k, t in enumerate(tasks) for d in t}
    assert all(by_task[d.patient_id] == k for k, t in enumerate(tasks) for d in t)      # a patient in one task
    calls = []
    many = deidentify_batch(docs, profile, DeidContext(secret=SECRET, locale="en"), done_ids=done, workers=2,
                            progress=lambda i, n: calls.append((i, n)))
    assert [r.doc_id for r in many.results] == [r.doc_id for r in one.results]
    assert [(r.text, r.spans, r.actions) for r in many.results] == [(r.text, r.spans, r.actions) for r in one.results]
    assert many.summary.to_dict() == one.summary.to_dict() and calls[-1] == (83, 83)
    assert not mp.active_children()
