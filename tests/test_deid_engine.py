"""deidentify() on MEDDOCAN documents: exact offsets, no leaks, surrogates never real values.

Assertions compare offsets, labels and counts; failure messages name documents and offsets,
never text (pytest runs with --assert=plain).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.deid import DeidContext, Profile, builtin_profiles, deidentify, resolve_overlaps
from pipeline.deid.normalize import norm_key
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span, SpanError

SECRET = b"engine-test-secret-0123456789"
SAMPLE = Path(__file__).parent / "fixtures" / "meddocan"   # the meddocan_sample fixture's folder


@pytest.fixture(scope="module")
def sample_docs():
    return read_collection(SAMPLE / "brat", "brat", MEDDOCAN)


def ctx() -> DeidContext:
    return DeidContext(secret=SECRET, locale="es")


def check_result(doc: Document, result, profile: Profile) -> list[str]:
    """Every invariant of one result; returns problems as 'doc offsets: what' (no text)."""
    problems: list[str] = []
    src, out = doc.text, result.text
    if not (len(result.spans) == len(result.actions) == len(result.source_spans)):
        return [f"{doc.doc_id}: spans/actions/source_spans differ in length"]
    real = {norm_key(src[s.start:s.end]) for s in doc.spans}
    # text between spans is untouched, so every new offset is exact
    cur_in = cur_out = 0
    for s_in, s_out, action in zip(result.source_spans, result.spans, result.actions):
        if src[cur_in:s_in.start] != out[cur_out:s_out.start]:
            problems.append(f"{doc.doc_id} {s_in.start}-{s_in.end}: text before the span changed")
        original, new = src[s_in.start:s_in.end], out[s_out.start:s_out.end]
        if (s_in.category, s_in.type) != (s_out.category, s_out.type):
            problems.append(f"{doc.doc_id} {s_out.start}-{s_out.end}: label changed")
        if action == "keep" and new != original:
            problems.append(f"{doc.doc_id} {s_out.start}-{s_out.end}: kept span changed")
        if action == "redact" and new != profile.placeholder_for(s_in.category, s_in.type, original):
            problems.append(f"{doc.doc_id} {s_out.start}-{s_out.end}: not the placeholder")
        if action in ("replace", "shift"):
            if norm_key(new) == norm_key(original):
                problems.append(f"{doc.doc_id} {s_out.start}-{s_out.end}: surrogate equals original")
            if norm_key(new) in real and "90+" not in new:
                problems.append(f"{doc.doc_id} {s_out.start}-{s_out.end}: surrogate is another real value")
        cur_in, cur_out = s_in.end, s_out.end
    if src[cur_in:] != out[cur_out:]:
        problems.append(f"{doc.doc_id}: text after the last span changed")
    if result.leaks:
        problems += [str(lk) for lk in result.leaks]
    return problems


@pytest.mark.parametrize("profile_name", ["redact", "replace"])
def test_meddocan_sample_exact_offsets_and_no_leaks(sample_docs, profile_name):
    profile = builtin_profiles()[profile_name]
    c = ctx()
    problems = []
    for doc in sample_docs:
        r = deidentify(doc, doc.spans, profile, c)
        problems += check_result(doc, r, profile)
        assert sum(sum(a.values()) for a in r.counts.values()) == len(r.spans)
    assert not problems, problems[:10]


def test_placeholder_styles_on_a_real_document(sample_docs):
    doc = sample_docs[0]
    for style in ("brackets", "xxx", "angle", "stars"):
        p = Profile(name=style, actions={}, placeholder=style)
        r = deidentify(doc, None, p, ctx())
        assert not check_result(doc, r, p)
        if style == "stars":
            assert len(r.text) == len(doc.text)


def test_overlapping_spans_are_merged_over_their_union(sample_docs):
    """Was "resolved longest first" (the others dropped); now every overlapping span is merged
    into one span over the union of their characters, labelled as the longest (defect 1)."""
    doc = sample_docs[0]
    # spans never swallow a line break (pipeline.deid.span_hygiene): overlap where none is near
    s = max((x for x in doc.spans if "\n" not in doc.text[x.start - 2:x.end + 3]), key=lambda x: x.end - x.start)
    extra = [
        s,                                                        # exact duplicate
        Span(doc.doc_id, s.start + 1, s.end - 1, "NAME", "NOMBRE_SUJETO_ASISTENCIA"),   # nested
        Span(doc.doc_id, s.end - 2, s.end + 3, "DATE", "FECHAS"),                      # partial overlap
        Span(doc.doc_id, s.start - 2, s.start + 1, "ID", "ID_SUJETO_ASISTENCIA"),      # partial overlap
    ]
    r = deidentify(doc, [*doc.spans, *extra], builtin_profiles()["replace"], ctx())
    assert r.merged_overlaps == 4 and r.leaks == [] and r.uncovered_chars == 0
    union = next(x for x in r.source_spans if x.start <= s.start - 2 and s.end + 3 <= x.end)
    assert (union.category, union.type) == (s.category, s.type)
    assert len(r.alternatives[r.source_spans.index(union)]) >= 4
    assert not check_result(doc, r, builtin_profiles()["replace"])
    kept, merged = resolve_overlaps([Span("d", 0, 5, "NAME"), Span("d", 3, 10, "NAME"), Span("d", 9, 12, "ID")])
    assert [(k.start, k.end, k.category) for k in kept] == [(0, 12, "NAME")] and merged == 2


def test_span_outside_the_text_is_an_error_without_text(sample_docs):
    doc = sample_docs[0]
    bad = Span(doc.doc_id, len(doc.text) - 2, len(doc.text) + 5, "NAME", "NOMBRE_SUJETO_ASISTENCIA")
    with pytest.raises(SpanError) as e:
        deidentify(doc, [*doc.spans, bad], builtin_profiles()["redact"], ctx())
    msg = str(e.value)
    assert doc.doc_id in msg and f"{bad.start}-{bad.end}" in msg
    assert not any(doc.text[x.start:x.end] in msg for x in doc.spans if x.end - x.start >= 4)


def _doc_with_repeated_value(sample_docs) -> tuple[Document, Span, Span]:
    """A document where one NAME value is annotated twice; returns the doc and both spans."""
    for doc in sample_docs:
        names = [s for s in doc.spans if s.category == "NAME" and s.end - s.start > 6]
        for a in names:
            for b in names:
                if a.start < b.start and doc.text[a.start:a.end] == doc.text[b.start:b.end]:
                    return doc, a, b
    raise AssertionError("sample has no repeated name")


def test_leak_check_finds_a_missed_mention_and_propagation_fixes_it(sample_docs):
    doc, first, second = _doc_with_repeated_value(sample_docs)
    missing = [s for s in doc.spans if s != second]
    no_prop = Profile(name="np", actions=builtin_profiles()["replace"].actions, propagate=False)
    r = deidentify(doc, missing, no_prop, ctx())
    assert len(r.leaks) >= 1
    leak = next(lk for lk in r.leaks if lk.category == "NAME")
    assert norm_key(r.text[leak.start:leak.end]) == norm_key(doc.text[second.start:second.end])
    assert leak.scope == "document" and leak.doc_id == doc.doc_id
    assert doc.text[second.start:second.end] not in str(leak) and "found at" in str(leak)
    # with propagation (the default) the unannotated copy gets the same surrogate
    r2 = deidentify(doc, missing, builtin_profiles()["replace"], ctx())
    assert r2.leaks == [] and r2.propagated >= 1
    outs = [r2.text[s.start:s.end] for s, src in zip(r2.spans, r2.source_spans)
            if (src.start, src.end) in ((first.start, first.end), (second.start, second.end))]
    assert len(outs) == 2 and outs[0] == outs[1]
    assert any(s.source == "deid:propagated" for s in r2.spans)


def test_kept_spans_are_not_leaks_but_are_counted(sample_docs):
    doc, first, second = _doc_with_repeated_value(sample_docs)
    p = Profile(name="keepnames", actions={**builtin_profiles()["replace"].actions, "NAME": "keep"})
    r = deidentify(doc, None, p, ctx())
    assert r.leaks == []
    assert r.counts["NAME"].get("keep", 0) >= 2
    kept = [(o, i) for o, i, a in zip(r.spans, r.source_spans, r.actions) if a == "keep"]
    assert kept and all(r.text[o.start:o.end] == doc.text[i.start:i.end] for o, i in kept)


def test_short_originals_are_skipped_by_the_leak_scan(sample_docs):
    # the sample's sex values include one-letter codes ("H", "M"): they are replaced in place but
    # not searched for in the whole text (they would match every initial and abbreviation)
    doc = next(d for d in sample_docs if any(s.end - s.start == 1 for s in d.spans))
    r = deidentify(doc, None, builtin_profiles()["redact"], ctx())
    assert r.leaks == [] and r.leak_check_skipped >= 1
    one = next(i for i, s in enumerate(r.source_spans) if s.end - s.start == 1)
    assert r.text[r.spans[one].start:r.spans[one].end] == "[OTHER]"


def test_selected_categories_only(sample_docs):
    doc = sample_docs[0]
    p = Profile(name="names-only", actions={"NAME": "redact"}, categories=["NAME"])
    r = deidentify(doc, None, p, ctx())
    assert set(r.counts) >= {"NAME"}
    for cat, acts in r.counts.items():
        assert set(acts) == ({"redact"} if cat == "NAME" else {"keep"})
    assert r.leaks == []


def test_unparseable_dates_fall_back_and_are_counted():
    text = "Ingresó en febrero y abril de 2002 y el 12/03/2002."
    a, b = text.index("febrero"), text.index("12/03/2002")
    doc = Document("u1", text, [Span("u1", a, a + len("febrero y abril de 2002"), "DATE", "FECHAS"),
                                Span("u1", b, b + 10, "DATE", "FECHAS")], patient_id="P9")
    r = deidentify(doc, None, builtin_profiles()["replace"], ctx())
    assert r.unparseable_dates == 1 and r.fallbacks == 1
    assert r.actions == ["redact", "shift"]
    assert "[DATE]" in r.text and "12/03/2002" not in r.text


def test_same_value_same_surrogate_within_a_document_and_case_insensitive():
    text = "Pedro Gómez vino. PEDRO GÓMEZ firmó. pedro gómez llamó."
    spans = [Span("c1", i, i + 11, "NAME", "NOMBRE_SUJETO_ASISTENCIA") for i in (0, 18, 37)]
    r = deidentify(Document("c1", text, spans, patient_id="P1"), None, builtin_profiles()["replace"], ctx())
    outs = [r.text[s.start:s.end] for s in r.spans]
    assert len({norm_key(o) for o in outs}) == 1
    assert outs[1].isupper() and outs[2].islower() and outs[0].istitle()


def test_random_spans_never_crash_and_offsets_stay_exact(sample_docs):
    """Arbitrary (overlapping, mis-typed, whitespace-edged) spans: resolved, rewritten, exact."""
    import random

    rng = random.Random(11)
    cats = [("NAME", "NOMBRE_SUJETO_ASISTENCIA"), ("DATE", "FECHAS"), ("AGE", "EDAD_SUJETO_ASISTENCIA"),
            ("LOCATION", "CALLE"), ("ID", "ID_SUJETO_ASISTENCIA"), ("CONTACT", "CORREO_ELECTRONICO"),
            ("OTHER", "SEXO_SUJETO_ASISTENCIA"), ("CUSTOM", "WHATEVER"), ("LOCATION", "")]
    for profile in builtin_profiles().values():
        for doc in sample_docs[:6]:
            spans = []
            for _ in range(40):
                a = rng.randrange(0, len(doc.text) - 1)
                b = min(len(doc.text), a + rng.randint(1, 40))
                cat, typ = rng.choice(cats)
                spans.append(Span(doc.doc_id, a, b, cat, typ))
            r = deidentify(doc, spans, profile, ctx())
            kept, dropped = resolve_overlaps(spans)
            assert dropped + len(kept) == len(spans)
            problems = [p for p in check_result(doc, r, profile) if "another real value" not in p
                        and "found at" not in p]
            assert not problems, problems[:5]
