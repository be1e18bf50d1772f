"""The ``paraphrase`` action with a stub language model: shapes, never the original, determinism,
patient consistency, fallbacks counted, and the leak check.

The stub proposes, for every slot, the most dangerous candidates first (the original piece, the
note's other PHI words) and then ordinary ones, so the checks in :mod:`pipeline.deid.paraphrase`
must do the work. Failure messages name documents, offsets and kinds, never text.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pipeline.deid import DeidContext, Profile, builtin_profiles, deidentify, deidentify_batch
from pipeline.deid.batch import fallback_note
from pipeline.deid.fingerprint import mismatch, run_fingerprint
from pipeline.deid.normalize import fold_same_length, norm_key
from pipeline.deid.paraphrase import InfillRequest, choose_fill, merge_candidates, piece_fits, plan_slots
from pipeline.deid.quality import (Replacement, format_table, greedy_match, quality_row, quality_table,
                                   replacements, word_overlap)
from pipeline.deid.surrogates import generator_name
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span
from tests.test_deid_engine import check_result

SECRET = b"paraphrase-test-secret-0123456789"
SAMPLE = Path(__file__).parent / "fixtures" / "meddocan"
NAMES = ["Lucas", "Mateo", "Bruno", "Elena", "Carmen", "Sofia", "Irene", "Pablo", "Marta", "Hugo", "Olga", "Rosa"]
WORDS = ["enfermera", "cirujano", "maestro", "pintora", "abogado", "chofer"]


class StubInfiller:
    """Deterministic, context-sensitive proposals; ``bad`` pieces are proposed first."""

    name = "stub-model"

    def __init__(self, bad: list[str] | None = None):
        self.bad = list(bad or [])
        self.calls = 0

    def infill(self, text, requests, top_k=32):
        self.calls += 1
        out = []
        for r in requests:
            shift = sum(map(ord, text[max(0, r.start - 12):r.start])) % 7      # the context matters
            per_slot = []
            for kind in r.kinds:
                if kind == "digit":
                    pool = [str((d + shift) % 10) for d in range(10)]
                elif kind in ("letter", "initial"):
                    pool = [chr(ord("A") + (k + shift) % 26) for k in range(26)]
                elif kind == "word":
                    pool = self.bad + WORDS[shift:] + WORDS[:shift]
                else:
                    pool = self.bad + NAMES[shift:] + NAMES[:shift]
                per_slot.append([(p, -0.5 * k) for k, p in enumerate(pool)][:top_k])
            out.append(per_slot)
        return out


@pytest.fixture(scope="module")
def sample_docs():
    return read_collection(SAMPLE / "brat", "brat", MEDDOCAN)


def _bad_words(docs) -> list[str]:
    """Every PHI word of the sample, title-cased: what a careless model might propose."""
    words = set()
    for d in docs:
        for s in d.spans:
            words.update(w.title() for w in re.findall(r"[^\W\d_]{3,}", d.text[s.start:s.end]))
    return sorted(words)


def paraphrase_ctx(infiller=None, secret=SECRET) -> DeidContext:
    return DeidContext(secret=secret, locale="es", infiller=infiller)


# --------------------------------------------------------------------------- the profile

def test_profile_accepts_paraphrase_and_keeps_dates_shifted():
    p = builtin_profiles()["paraphrase"]
    assert p.action_for("NAME") == "paraphrase" and p.action_for("ID") == "paraphrase"
    assert p.action_for("DATE") == "shift" and p.action_for("AGE") == "shift" and p.action_for("OTHER") == "redact"
    assert p.uses_paraphrase() and not builtin_profiles()["replace"].uses_paraphrase()
    custom = Profile(name="c", actions={"DATE": "paraphrase", "NAME": "replace"})
    assert custom.action_for("DATE") == "shift" and not custom.uses_paraphrase()
    assert Profile(name="d", default_action="paraphrase").uses_paraphrase()
    listed = p.with_list_surrogates()
    assert listed.action_for("NAME") == "replace" and listed.action_for("DATE") == "shift"
    assert not listed.uses_paraphrase() and Profile.from_json(p.to_json()).uses_paraphrase()


# --------------------------------------------------------------------------- shapes

@pytest.mark.parametrize("core, type_, kinds, kept", [
    ("Dra. María de la Cruz", "NOMBRE_PERSONAL_SANITARIO", ("name", "name"), ("Dra", "de", "la")),
    ("J. Smith", "PATIENT", ("initial", "name"), ()),
    ("+34 912 345 678 ext 12", "NUMERO_TELEFONO", ("digit",) * 13, ("ext",)),
    ("AB-1234-X", "ID_SUJETO_ASISTENCIA", ("letter", "letter", "digit", "digit", "digit", "digit", "letter"), ()),
    ("Calle Mayor 23, 2ºB", "CALLE", ("name", "digit", "digit", "digit", "letter"), ("Calle",)),
    ("Calle Mayor y Goya 5", "CALLE", ("name", "name", "digit"), ("Calle", " y ")),
    ("juan.garcia84@gmail.com", "CORREO_ELECTRONICO", ("ascii", "ascii", "digit", "digit"), ("gmail", "com")),
    # the URL words (value_words.WEB_WORDS: scheme, "www", page suffix) stay as written
    ("https://www.kzqsalud.es/citas.php", "URL_WEB", ("ascii", "letter", "letter", "ascii"), ("https", "www", "php")),
    ("Hospital Universitario La Paz", "HOSPITAL", ("name",), ("Hospital", "Universitario", "La")),
    ("Hospital", "HOSPITAL", ("name",), ()),
    # one profession is one slot (issue 32: "retired librarian" became two professions side by side)
    ("médico de familia", "PROFESION", ("word",), ()),
])
def test_slot_plans_keep_the_layout_and_format_words(core, type_, kinds, kept):
    category = MEDDOCAN.category_of(type_) if type_ in MEDDOCAN.types else "NAME"
    plan = plan_slots(core, category, type_, generator_name(category, type_))
    assert plan is not None and plan.kinds == kinds
    text = "".join(v for k, v in plan.parts if k == "text")
    for word in kept:
        assert word in text
    assert plan.fill([s.original for s in plan.slots]) == core        # the template rebuilds the original


@pytest.mark.parametrize("core, type_", [("12/03/2019", "FECHAS"), ("54 años", "EDAD_SUJETO_ASISTENCIA"),
                                         ("192.168.1.20", "DIREC_PROT_INTERNET"), ("de la", "NOMBRE_SUJETO_ASISTENCIA")])
def test_dates_ages_ip_addresses_and_bare_particles_are_not_paraphrased(core, type_):
    category = MEDDOCAN.category_of(type_)
    assert plan_slots(core, category, type_, generator_name(category, type_)) is None


def test_fill_takes_the_original_case_digits_and_letters_one_by_one():
    stub = StubInfiller()
    for core, type_ in (("GARCÍA LÓPEZ", "NOMBRE_SUJETO_ASISTENCIA"), ("García López", "NOMBRE_SUJETO_ASISTENCIA"),
                        ("garcía", "NOMBRE_SUJETO_ASISTENCIA"), ("28 28 20943", "ID_ASEGURAMIENTO"),
                        ("AB-1234-x", "ID_SUJETO_ASISTENCIA")):
        category = MEDDOCAN.category_of(type_)
        plan = plan_slots(core, category, type_, generator_name(category, type_))
        cands = stub.infill("x " + core, [InfillRequest(2, 2 + len(core), plan.parts, category, type_)])[0]
        out = choose_fill(plan, cands, secret=SECRET, key=("p", type_, core), accept=lambda s: True)
        assert out is not None and len(out.split()) == len(core.split())
        for a, b in zip(re.findall(r"\w+", core), re.findall(r"\w+", out)):
            assert a.isupper() == b.isupper() and a.islower() == b.islower() and a[0].isupper() == b[0].isupper()
        if any(c.isdigit() for c in core):
            assert len(out) == len(core)
            assert re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "a", out)) == re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "a", core))
            assert all(x != y for x, y in zip(core, out) if x.isalnum())      # no digit or letter stays in place


def test_pieces_must_fit_their_kind():
    assert piece_fits("7", "digit") and not piece_fits("77", "digit") and not piece_fits("a", "digit")
    assert piece_fits("Lucas", "name") and not piece_fits("lucas", "name") and not piece_fits("##cas", "name")
    assert not piece_fits("Dra", "name") and not piece_fits("De", "name")        # titles and particles
    assert piece_fits("garcia", "ascii") and piece_fits("García", "ascii") and not piece_fits("Ωμέγα", "ascii")
    assert piece_fits("B", "letter") and not piece_fits("ß", "letter")          # "SS" in upper case


def test_merged_candidates_sum_the_contexts():
    merged = merge_candidates([[("A", -1.0), ("B", -2.0)], [("B", -0.5), ("C", -1.0)]])
    scores = dict(merged)
    assert merged[0][0] == "B" and scores["B"] == pytest.approx(-2.5)
    assert scores["A"] == pytest.approx(-1.0 + (-1.0 - 2.0)) and scores["C"] == pytest.approx(-1.0 + (-2.0 - 2.0))


# --------------------------------------------------------------------------- never the original

def test_never_the_original_nor_another_phi_value(sample_docs):
    """The stub proposes every PHI word of the corpus first: none may come out."""
    stub = StubInfiller(bad=_bad_words(sample_docs))
    profile = builtin_profiles()["paraphrase"]
    batch = deidentify_batch(sample_docs, profile, paraphrase_ctx(stub))
    assert batch.summary.paraphrased > 100 and batch.summary.leaks == 0 and batch.summary.same_rate == 0.0
    by_id = {d.doc_id: d for d in sample_docs}
    problems = []
    for r in batch.results:
        doc = by_id[r.doc_id]
        problems += check_result(doc, r, profile)
        real = {norm_key(doc.text[s.start:s.end]) for s in doc.spans}
        words = {w for v in real for w in re.findall(r"\w{3,}", v)}
        for src, new, action in zip(r.source_spans, r.spans, r.actions):
            if action != "paraphrase":
                continue
            original, out = doc.text[src.start:src.end], r.text[new.start:new.end]
            where = f"{r.doc_id} {new.start}-{new.end} {src.type}"
            if norm_key(out) == norm_key(original) or norm_key(original) in norm_key(out):
                problems.append(f"{where}: equals or contains the original")
            if norm_key(out) in real:
                problems.append(f"{where}: another real value")
            if src.category == "NAME" and set(re.findall(r"\w{3,}", norm_key(out))) & words:
                problems.append(f"{where}: holds a real PHI word")
    assert not problems, problems[:10]


def test_choose_fill_respects_the_acceptance_test():
    plan = plan_slots("Ana Ruiz", "NAME", "PATIENT", "name")
    cands = [[("Lucas", -1.0), ("Mateo", -2.0)], [("Bruno", -1.0), ("Elena", -2.0)]]
    refused = {norm_key(f"{a} {b}") for a in ("Lucas", "Mateo") for b in ("Bruno",)}
    out = choose_fill(plan, cands, secret=SECRET, key=("p",), accept=lambda s: norm_key(s) not in refused)
    assert out is not None and norm_key(out) not in refused and out.endswith("Elena")
    assert choose_fill(plan, cands, secret=SECRET, key=("p",), accept=lambda s: False) is None


def test_no_candidate_falls_back_to_a_list_surrogate(sample_docs):
    class Useless(StubInfiller):
        def infill(self, text, requests, top_k=32):
            return [[[] for _ in r.kinds] for r in requests]

    b = deidentify_batch(sample_docs, builtin_profiles()["paraphrase"], paraphrase_ctx(Useless()))
    assert b.summary.paraphrased == 0 and b.summary.paraphrase_fallbacks.get("no_candidate", 0) > 100
    assert b.summary.leaks == 0 and b.summary.same_rate == 0.0
    assert "replace" in {a for r in b.results for a in r.actions}


# --------------------------------------------------------------------------- determinism and consistency

def test_same_run_key_same_text_other_key_other_text(sample_docs):
    profile = builtin_profiles()["paraphrase"]
    a = deidentify_batch(sample_docs, profile, paraphrase_ctx(StubInfiller()))
    b = deidentify_batch(sample_docs, profile, paraphrase_ctx(StubInfiller()))
    c = deidentify_batch(sample_docs, profile, paraphrase_ctx(StubInfiller(), secret=b"another-secret-0123456789"))
    assert [r.text for r in a.results] == [r.text for r in b.results]
    assert [r.text for r in a.results] != [r.text for r in c.results]


def test_a_patient_keeps_one_surrogate_per_name_part_across_notes():
    texts = ["Paciente Ivan Sun, visto por la doctora Ana Ruiz.", "Control de Sun, Ivan: la doctora Ana Ruiz",
             "Llamamos a Ivan Sun de nuevo."]
    docs = []
    for k, t in enumerate(texts):
        spans = [Span(f"d{k}", m.start(), m.end(), "NAME", "NOMBRE_SUJETO_ASISTENCIA")
                 for m in re.finditer(r"Ivan Sun|Sun, Ivan", t)]
        spans += [Span(f"d{k}", m.start(), m.end(), "NAME", "NOMBRE_PERSONAL_SANITARIO") for m in re.finditer("Ana Ruiz", t)]
        docs.append(Document(f"d{k}", t, spans, patient_id="p1"))
    b = deidentify_batch(docs, builtin_profiles()["paraphrase"], paraphrase_ctx(StubInfiller()))
    fills: dict[str, set[str]] = {}
    for d, r in zip(docs, b.results):
        for src, new in zip(r.source_spans, r.spans):
            orig_parts = re.findall(r"\w+", d.text[src.start:src.end])
            new_parts = re.findall(r"\w+", r.text[new.start:new.end])
            if orig_parts[0] == "Sun":            # "Sun, Ivan": the parts in the other order
                orig_parts, new_parts = orig_parts[::-1], new_parts[::-1]
            for o, n in zip(orig_parts, new_parts):
                fills.setdefault(o, set()).add(n)
    assert set(fills) == {"Ivan", "Sun", "Ana", "Ruiz"}
    assert all(len(v) == 1 for v in fills.values()), {k: len(v) for k, v in fills.items()}
    assert len({next(iter(v)) for v in fills.values()}) == 4      # four parts, four different surrogates


def test_resume_writes_what_a_full_run_writes(sample_docs):
    profile = builtin_profiles()["paraphrase"]
    docs = [Document(d.doc_id, d.text, d.spans, patient_id="same") for d in sample_docs[:6]]
    full = deidentify_batch(docs, profile, paraphrase_ctx(StubInfiller()))
    done = {d.doc_id for d in docs[:3]}
    resumed = deidentify_batch(docs, profile, paraphrase_ctx(StubInfiller()), done_ids=done)
    assert [r.text for r in resumed.results] == [r.text for r in full.results[3:]]


# --------------------------------------------------------------------------- fallbacks and the leak check

def test_without_a_model_paraphrase_spans_get_list_surrogates_counted(sample_docs):
    profile = builtin_profiles()["paraphrase"]
    b = deidentify_batch(sample_docs, profile, paraphrase_ctx(None))
    fillable = sum(1 for r in b.results for s in r.source_spans if profile.action_for(s.category, s.type) == "paraphrase")
    s = b.summary
    assert s.paraphrased == 0 and s.list_fallbacks == fillable > 100
    # address parts drawn together from one record say so ("address"), model or not (issue 32)
    assert set(s.paraphrase_fallbacks) <= {"no_model", "no_slot", "address"} and s.paraphrase_fallbacks["no_model"] > 100
    assert "paraphrase" not in {a for r in b.results for a in r.actions}
    assert f"list_fallbacks={fillable}" in s.line()
    assert s.fallback_note().startswith(f"{s.paraphrase_fallbacks['no_model']} spans fell back to list surrogates: "
                                        "no project language model")
    replace = deidentify_batch(sample_docs, builtin_profiles()["replace"], paraphrase_ctx(None))
    assert [r.text for r in b.results] == [r.text for r in replace.results]   # exactly the list surrogates
    assert fallback_note({}) == "" and "1 span fell" in fallback_note({"no_model": 1})


def test_leak_check_runs_on_paraphrase_outputs(sample_docs):
    """0 leaks on real output; and the check treats a paraphrase span like any surrogate: an
    original inside it is a leak (only kept spans and placeholders are exempt)."""
    from pipeline.deid.leak_check import check_leaks
    from pipeline.deid.leaks import needles
    from pipeline.spans import rewrite

    profile = builtin_profiles()["paraphrase"]
    for doc in sample_docs:
        r = deidentify(doc, None, profile, paraphrase_ctx(StubInfiller()))
        assert not r.leaks and r.uncovered_chars == 0, r.doc_id
    doc = sample_docs[0]
    span = next(s for s in doc.spans if s.category == "NAME" and s.end - s.start >= 5)
    original = doc.text[span.start:span.end]
    new_text, placed = rewrite(doc.text, [(span, "Otro " + original)])      # the original slipped through
    prepared = needles([(span.category, span.type, original, "document")])[0]
    leaks, _ = check_leaks(doc, [span], profile, new_text=new_text, placed=placed, actions=["paraphrase"],
                           prepared=prepared, output_id="doc-x", output_patient_id=None, meta={})
    assert leaks and leaks[0].category == "NAME"
    clean, _ = check_leaks(doc, [span], profile, new_text=new_text, placed=placed, actions=["redact"],
                           prepared=prepared, output_id="doc-x", output_patient_id=None, meta={})
    assert not clean                                  # inside a placeholder it would not count


def test_fingerprint_names_the_language_model():
    para, rep = builtin_profiles()["paraphrase"], builtin_profiles()["replace"]
    a = run_fingerprint(para, SECRET, "es", StubInfiller())
    assert a == run_fingerprint(para, SECRET, "es", "stub-model")
    assert mismatch(a, run_fingerprint(para, SECRET, "es", "other-model")) == "language model"
    assert mismatch(a, run_fingerprint(para, SECRET, "es", None)) == "language model"
    assert run_fingerprint(rep, SECRET, "es", StubInfiller()) == run_fingerprint(rep, SECRET, "es")
    assert "stub-model" not in a


# --------------------------------------------------------------------------- the quality report

def test_quality_figures():
    v = np.eye(4, dtype=np.float32)
    assert greedy_match(v, v) == pytest.approx((1.0, 1.0, 1.0))
    p, r, f = greedy_match(v[:2], v)             # two of four candidate tokens match
    assert p == pytest.approx(0.5) and r == pytest.approx(1.0) and f == pytest.approx(2 / 3)
    assert word_overlap("Hospital La Paz", "Hospital La Fe") == pytest.approx(2 / 3)
    assert word_overlap("Ana", "Lucas") == 0.0
    reps = [Replacement("NAME", "Ana Ruiz", "ana ruiz", "replace"), Replacement("NAME", "Ana", "Lucas", "paraphrase")]
    row = quality_row("s", ["x"], ["y"], reps)
    assert row.same_rate == 0.5 and row.replacements == 2 and row.bertscore_f1 is None

    def embed(texts):
        return [np.eye(3, dtype=np.float32)[[ord(c) % 3 for c in t]] for t in texts]

    rows = quality_table(["abc", "abd"], {"a": (["abc", "abd"], []), "b": (["xyz", "xyw"], [])}, embed)
    assert rows[0].bertscore_f1 == pytest.approx(1.0) and rows[1].bertscore_f1 < 1.0
    table = format_table(rows)
    assert "Same rate" in table and "BERTScore F1" in table and len(table.splitlines()) == 4


def test_replacements_pair_each_span_with_its_surrogate(sample_docs):
    doc = sample_docs[1]
    r = deidentify(doc, None, builtin_profiles()["paraphrase"], paraphrase_ctx(StubInfiller()))
    reps = replacements(doc.text, r)
    assert reps and {x.action for x in reps} <= {"replace", "paraphrase"}
    assert len(reps) == sum(1 for a in r.actions if a in ("replace", "paraphrase"))
    assert all(fold_same_length(x.original) != fold_same_length(x.surrogate) for x in reps)
    assert reps[0].original not in repr(reps[0]) and reps[0].surrogate not in repr(reps[0])
