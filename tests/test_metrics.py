"""Detection metrics: hand-computed cases for every measure, MEDDOCAN gold against itself and
against copies with known edits, and the CLI against a re-implementation of the official
MEDDOCAN scorer's arithmetic. Nothing here prints document text."""
from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest

from cli import main
from pipeline.errors import FormatError
from pipeline.formats import read_collection
from pipeline.metrics import (MISSED, SPURIOUS, Counts, MEASURES, confusion_table, evaluate, macro, merge_spans,
                              weighted)
from pipeline.metrics.counts import Measure
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Span, SpanError

# --------------------------------------------------------------------------- helpers
TEXT = "Dr. Juan Perez visited Madrid on 12/03/2020, phone 555-1234."


def at(text: str, sub: str, nth: int = 0) -> tuple[int, int]:
    i = -1
    for _ in range(nth + 1):
        i = text.index(sub, i + 1)
    return i, i + len(sub)


def sp(doc: str, text: str, sub: str, type_: str, cat: str, score: float = 1.0, nth: int = 0) -> Span:
    s, e = at(text, sub, nth)
    return Span(doc, s, e, cat, type_, score=score)


def layers(*spans: Span) -> dict[str, list[Span]]:
    out: dict[str, list[Span]] = {}
    for s in spans:
        out.setdefault(s.doc_id, []).append(s)
    return out


GOLD = [sp("d", TEXT, "Juan Perez", "DOCTOR", "NAME"), sp("d", TEXT, "Madrid", "CITY", "LOCATION"),
        sp("d", TEXT, "12/03/2020", "DATE", "DATE"), sp("d", TEXT, "555-1234", "PHONE", "CONTACT")]
SYS = [sp("d", TEXT, "Juan", "DOCTOR", "NAME"), sp("d", TEXT, "Madrid", "CITY", "LOCATION"),
       sp("d", TEXT, "12/03/2020", "AGE", "AGE"), sp("d", TEXT, "visited", "PROFESSION", "PROFESSION")]


def prf(c: Counts) -> tuple[float, float, float]:
    return round(c.precision, 6), round(c.recall, 6), round(c.f1, 6)


# --------------------------------------------------------------------------- counts
def test_zero_denominators_follow_the_documented_rule():
    assert prf(Counts()) == (1.0, 1.0, 1.0)                     # both sides empty
    assert prf(Counts(tp=0, fp=0, fn=3)) == (0.0, 0.0, 0.0)     # nothing predicted
    assert prf(Counts(tp=0, fp=2, fn=0)) == (0.0, 0.0, 0.0)     # nothing to find, false alarms
    assert prf(Counts(tp=3, fp=1, fn=2)) == (0.75, 0.6, round(2 * 0.75 * 0.6 / 1.35, 6))
    relaxed = Counts(tp=2, fp=0, fn=0, tp_sys=1)                 # one system span covering two
    assert prf(relaxed) == (1.0, 1.0, 1.0) and relaxed.n_system == 1 and relaxed.n_reference == 2


def test_macro_and_weighted_averages():
    per = {"A": Counts(1, 1, 0), "B": Counts(0, 0, 2)}
    m, w = macro(per), weighted(per)
    assert m.precision == pytest.approx(0.25) and m.recall == pytest.approx(0.5)
    assert m.f1 == pytest.approx((2 / 3) / 2)
    assert w.f1 == pytest.approx((2 / 3) * 1 / 3)               # supports 1 and 2
    assert w.recall == pytest.approx(1 / 3)
    assert macro({}).f1 == 1.0 and weighted({"A": Counts(0, 3, 0)}).f1 == 0.0


# --------------------------------------------------------------------------- entity / span measures
def test_strict_relaxed_and_span_strict_by_hand():
    r = evaluate(layers(*SYS), layers(*GOLD), {"d": TEXT})
    assert (r.strict.micro.tp, r.strict.micro.fp, r.strict.micro.fn) == (1, 3, 3)
    assert prf(r.strict.micro)[:2] == (0.25, 0.25)
    assert (r.relaxed.micro.tp, r.relaxed.micro.tps, r.relaxed.micro.fp, r.relaxed.micro.fn) == (2, 2, 2, 2)
    assert prf(r.relaxed.micro) == (0.5, 0.5, 0.5)
    assert (r.span_strict.micro.tp, r.span_strict.micro.fp, r.span_strict.micro.fn) == (2, 2, 2)
    # per type: the date is a miss for DATE and a false alarm for AGE
    assert (r.strict.per_type["DATE"].tp, r.strict.per_type["DATE"].fn) == (0, 1)
    assert (r.strict.per_type["AGE"].tp, r.strict.per_type["AGE"].fp) == (0, 1)
    assert r.strict.per_type["CITY"].f1 == 1.0
    assert r.strict.per_type["DOCTOR"].f1 == 0.0 and r.relaxed.per_type["DOCTOR"].f1 == 1.0
    # span-only breakdown: the date is found (offsets equal) under its gold label DATE
    assert (r.span_strict.per_type["DATE"].tp, r.span_strict.per_type["DATE"].fn) == (1, 0)
    assert (r.span_strict.per_type["AGE"].tps, r.span_strict.per_type["AGE"].fp) == (1, 0)
    assert r.span_strict.per_type["PROFESSION"].fp == 1
    # macro over the 6 labels seen on either side: CITY 1, DOCTOR 0, DATE 0, AGE 0, PHONE 0, PROFESSION 0
    assert r.strict.macro.f1 == pytest.approx(1 / 6)
    assert r.strict.weighted.f1 == pytest.approx(1 / 4)           # CITY holds 1 of 4 reference spans


def test_category_level_strict_forgives_fine_type_within_the_category():
    g = [sp("d", TEXT, "Juan Perez", "DOCTOR", "NAME")]
    s = [sp("d", TEXT, "Juan Perez", "PATIENT", "NAME")]
    r = evaluate(layers(*s), layers(*g), {"d": TEXT})
    assert r.strict.micro.tp == 0 and r.strict.category.micro.tp == 1
    assert r.strict.per_category["NAME"].f1 == 1.0


def test_empty_layers_and_no_phi():
    texts = {"a": TEXT, "b": "nothing here"}
    both_empty = evaluate({}, {}, texts, doc_ids=["a", "b"])
    for name in MEASURES:
        assert prf(both_empty.measure(name).micro) == (1.0, 1.0, 1.0), name
    assert both_empty.document_recall == 1.0 and both_empty.documents_with_phi == 0
    assert both_empty.fn_per_1000 == 0.0 and both_empty.n_tokens == 11
    no_system = evaluate({}, layers(*GOLD), {"d": TEXT})
    for name in MEASURES:
        assert prf(no_system.measure(name).micro) == (0.0, 0.0, 0.0), name
    assert no_system.document_recall == 0.0
    no_reference = evaluate(layers(*SYS), {}, {"d": TEXT})
    assert prf(no_reference.strict.micro) == (0.0, 0.0, 0.0)
    assert no_reference.document_recall == 1.0                   # no document has PHI to find
    assert no_reference.fp_per_1000 == pytest.approx(1000 * 4 / 9)  # 4 of the 9 tokens flagged


def test_duplicates_collapse_as_in_the_official_scorer():
    g = [GOLD[1]]
    s = [GOLD[1], GOLD[1].with_(source="other")]
    r = evaluate(layers(*s), layers(*g), {"d": TEXT})
    assert (r.strict.micro.tp, r.strict.micro.fp) == (1, 0)
    assert r.n_system_spans == 1


def test_overlapping_and_nested_spans():
    text = "Ingresa en Hospital Madrid el 12 de marzo de 2020."
    hosp, city = sp("d", text, "Hospital Madrid", "HOSPITAL", "LOCATION"), sp("d", text, "Madrid", "CITY", "LOCATION")
    d1, d2 = sp("d", text, "12 de marzo", "DATE", "DATE"), sp("d", text, "2020", "DATE", "DATE")
    whole = sp("d", text, "12 de marzo de 2020", "DATE", "DATE")
    r = evaluate(layers(hosp, whole), layers(hosp, city, d1, d2), {"d": text})
    # strict: only the hospital; the nested city and both date parts are missed, the long date is wrong
    assert (r.strict.micro.tp, r.strict.micro.fp, r.strict.micro.fn) == (1, 1, 3)
    # relaxed: one system DATE overlaps both reference DATEs (2 found, 1 system span correct);
    # the nested CITY has no overlapping CITY
    assert (r.relaxed.micro.tp, r.relaxed.micro.tps, r.relaxed.micro.fp, r.relaxed.micro.fn) == (3, 2, 0, 1)
    # category-level relaxed: the hospital span overlaps the nested city with the same category
    assert r.relaxed.per_category["LOCATION"].tp == 2
    # token level: "Madrid" carries both gold labels; the longer overlap (the hospital, 6 chars
    # each) ties, so the first span by start wins: HOSPITAL
    assert r.token.per_type["HOSPITAL"].tp == 2 and "CITY" not in r.token.per_type
    # binary tokens: 12 de marzo de 2020. (5 tokens) all covered by the long date
    assert r.binary_token.micro.fn == 0 and r.binary_token.micro.fp == 1  # the "de" between the parts
    assert r.document_recall == 1.0


def test_merge_spans_joins_across_non_alphanumeric_gaps_only():
    text = "Calle Mayor, 23 y 28035-Madrid"
    a, b = at(text, "Calle Mayor"), at(text, "23")
    c, d = at(text, "28035"), at(text, "Madrid")
    assert merge_spans([a, b, c, d], text) == [(a[0], b[1]), (c[0], d[1])]   # "y" blocks the middle join
    assert merge_spans([(0, 15), (5, 8)], text) == [(0, 15)]                 # nested: kept whole
    assert merge_spans([(0, 5), (3, 9)], text) == [(0, 9)]                   # overlapping
    assert merge_spans([], text) == []
    assert merge_spans([(0, 1), (2, 3)], "añb") == [(0, 1), (2, 3)]          # ñ is alphanumeric


def test_span_merged_reproduces_the_official_arithmetic():
    text = "Calle Mayor, 23 en la ciudad de Madrid."
    a, b, city = at(text, "Calle Mayor"), at(text, "23"), at(text, "Madrid")
    g2 = {"d": [Span("d", *a, "LOCATION", "CALLE"), Span("d", *b, "LOCATION", "CALLE")]}
    joined = {"d": [Span("d", a[0], b[1], "LOCATION", "CALLE")]}
    r = evaluate(joined, g2, {"d": text})
    assert (r.span_merged.micro.tp, r.span_merged.micro.fp, r.span_merged.micro.fn) == (1, 0, 0)
    assert (r.span_strict.micro.tp, r.span_strict.micro.fp, r.span_strict.micro.fn) == (0, 1, 2)
    # identical sides: TP is the union of the strict matches and the merged match (3 items)
    same = evaluate(g2, g2, {"d": text})
    assert (same.span_merged.micro.tp, same.span_merged.micro.fp, same.span_merged.micro.fn) == (3, 0, 0)
    # with a missed third span, recall is 3/4 (not 1/2): the official scorer's counting
    g3 = {"d": g2["d"] + [Span("d", *city, "LOCATION", "TERRITORIO")]}
    miss = evaluate(g2, g3, {"d": text})
    assert (miss.span_merged.micro.tp, miss.span_merged.micro.fn) == (3, 1)
    assert miss.span_merged.micro.recall == pytest.approx(0.75)
    # a system span inside a matched merged span is not a false positive
    part = {"d": joined["d"] + [Span("d", a[0], a[0] + 5, "LOCATION", "CALLE")]}
    assert evaluate(part, g2, {"d": text}).span_merged.micro.fp == 0
    # an alphanumeric gap blocks the merge: the long span is wrong, both parts missed
    text2 = "Calle Mayor y 23"
    g = {"d": [Span("d", *at(text2, "Calle Mayor"), "LOCATION", "CALLE"),
               Span("d", *at(text2, "23"), "LOCATION", "CALLE")]}
    s = {"d": [Span("d", 0, len(text2), "LOCATION", "CALLE")]}
    r2 = evaluate(s, g, {"d": text2})
    assert (r2.span_merged.micro.tp, r2.span_merged.micro.fp, r2.span_merged.micro.fn) == (0, 1, 2)


# --------------------------------------------------------------------------- token level
def test_token_and_binary_token_by_hand():
    r = evaluate(layers(*SYS), layers(*GOLD), {"d": TEXT})
    # tokens: Dr. Juan Perez visited Madrid on 12/03/2020, phone 555-1234.
    assert r.n_tokens == 9
    # gold PHI tokens: Juan Perez Madrid 12/03/2020, 555-1234. (5); system: Juan visited Madrid 12/03/2020, (4)
    assert (r.binary_token.micro.tp, r.binary_token.micro.fp, r.binary_token.micro.fn) == (3, 1, 2)
    # typed: Juan and Madrid agree; the date token is AGE vs DATE (a FP and a FN)
    assert (r.token.micro.tp, r.token.micro.fp, r.token.micro.fn) == (2, 2, 3)
    assert r.fn_per_1000 == pytest.approx(2000 / 9) and r.fp_per_1000 == pytest.approx(1000 / 9)
    # binary breakdown by gold label: the DATE token was flagged (as AGE), the phone was not
    assert (r.binary_token.per_type["DATE"].tp, r.binary_token.per_type["PHONE"].fn) == (1, 1)
    assert r.binary_token.per_type["PROFESSION"].fp == 1


def test_a_token_takes_the_label_of_its_largest_overlap():
    text = "ref AB/CDEF end"
    g = {"d": [Span("d", 4, 6, "ID", "X"), Span("d", 7, 11, "DATE", "Y")]}
    s = {"d": [Span("d", 4, 11, "DATE", "Y")]}
    r = evaluate(s, g, {"d": text})
    assert r.token.per_type["Y"].tp == 1 and "X" not in r.token.per_type


# --------------------------------------------------------------------------- documents, confusion, operating points
def test_document_recall_needs_every_non_space_character_covered():
    t1, t2, t3 = "Paciente Juan  Perez.", "Dra. Ana Gil.", "Sin datos."
    gold = {"1": [sp("1", t1, "Juan  Perez", "PATIENT", "NAME")], "2": [sp("2", t2, "Ana Gil", "DOCTOR", "NAME")],
            "3": []}
    syst = {"1": [sp("1", t1, "Juan", "DATE", "DATE"), sp("1", t1, "Perez", "CITY", "LOCATION")],  # labels ignored
            "2": [sp("2", t2, "Ana", "DOCTOR", "NAME")]}
    r = evaluate(syst, gold, {"1": t1, "2": t2, "3": t3})
    assert r.documents_with_phi == 2 and r.documents_all_found == 1 and r.document_recall == 0.5
    per = {d.doc_id: d for d in r.per_document}
    assert per["1"].all_found and not per["2"].all_found and per["2"].missed_spans == 1
    assert per["3"].all_found and per["3"].n_reference == 0


def test_confusion_table_with_missed_and_spurious():
    r = evaluate(layers(*SYS), layers(*GOLD), {"d": TEXT})
    c = r.confusion.counts
    assert c[("NAME", "NAME")] == 1 and c[("LOCATION", "LOCATION")] == 1
    assert c[("DATE", "AGE")] == 1 and c[("CONTACT", MISSED)] == 1 and c[(SPURIOUS, "PROFESSION")] == 1
    rows, cols, m = r.confusion.matrix()
    assert rows[-1] == SPURIOUS and cols[-1] == MISSED
    assert sum(map(sum, m)) == 5
    t = confusion_table(layers(*SYS), layers(*GOLD), ["d"], level="type")
    assert t.counts[("DOCTOR", "DOCTOR")] == 1 and t.counts[("DATE", "AGE")] == 1


def test_operating_points_by_hand():
    text = "t0 t1 t2 t3 t4 t5 t6 t7 t8 t9"
    tok = lambda i: (3 * i, 3 * i + 2)  # noqa: E731
    gold = {"d": [Span("d", *tok(i), "NAME", "P") for i in (1, 2, 3, 4)]}
    scores = {1: 0.9, 2: 0.8, 3: 0.4, 5: 0.6, 6: 0.3}
    syst = {"d": [Span("d", *tok(i), "NAME", "P", score=s) for i, s in scores.items()]}
    r = evaluate(syst, gold, {"d": text}, targets=(0.5, 0.75, 1.0))
    cur = r.operating
    assert cur.thresholds == [0.9, 0.8, 0.6, 0.4, 0.3]
    assert cur.recall == [0.25, 0.5, 0.5, 0.75, 0.75]
    assert cur.precision == pytest.approx([1.0, 1.0, 2 / 3, 0.75, 0.6])
    p50, p75, p100 = cur.points
    assert (p50.achieved, p50.threshold, p50.precision) == (True, 0.8, 1.0)
    assert (p50.fn_per_1000, p50.fp_per_1000) == (200.0, 0.0)
    assert (p75.threshold, p75.precision, p75.fn_per_1000, p75.fp_per_1000) == (0.4, 0.75, 100.0, 100.0)
    assert (p100.achieved, p100.threshold, p100.recall, p100.precision) == (False, 0.3, 0.75, 0.6)
    # no scores that differ: no sweep
    assert evaluate(layers(*SYS), layers(*GOLD), {"d": TEXT}).operating is None


def test_bad_input_is_refused_without_text():
    with pytest.raises(SpanError, match="no text"):
        evaluate(layers(*SYS), layers(*GOLD), {})
    with pytest.raises(SpanError, match=r"d: system span 5-500"):
        evaluate({"d": [Span("d", 5, 500, "NAME", "X")]}, {}, {"d": TEXT})


def test_to_json_is_serialisable_and_has_the_contract_keys():
    j = evaluate(layers(*SYS), layers(*GOLD), {"d": TEXT}).to_json()
    json.dumps(j)
    for k in MEASURES:
        assert set(j[k]["micro"]) >= {"precision", "recall", "f1"} and "per_category" in j[k]
    for k in ("fn_per_1000", "fp_per_1000", "document_recall"):
        assert isinstance(j[k], float)
    assert TEXT[4:8] not in json.dumps(j)


# --------------------------------------------------------------------------- MEDDOCAN
@pytest.fixture(params=["sample", "full"])
def meddocan_brat(request, meddocan_sample):
    if request.param == "sample":
        return meddocan_sample / "brat"
    return request.getfixturevalue("meddocan_full") / "dev"


def _layer(docs) -> tuple[dict[str, list[Span]], dict[str, str]]:
    return {d.doc_id: list(d.spans) for d in docs}, {d.doc_id: d.text for d in docs}


def test_meddocan_gold_against_itself_is_perfect(meddocan_brat):
    gold, texts = _layer(read_collection(meddocan_brat, "brat", MEDDOCAN))
    r = evaluate(gold, gold, texts)
    for name in MEASURES:
        m: Measure = r.measure(name)
        assert (m.micro.f1, m.macro.f1, m.weighted.f1, m.category.micro.f1) == (1.0, 1.0, 1.0, 1.0), name
        assert all(c.f1 == 1.0 for c in list(m.per_type.values()) + list(m.per_category.values())), name
    assert r.strict.micro.tp == sum(map(len, gold.values()))
    assert (r.fn_per_1000, r.fp_per_1000, r.document_recall) == (0.0, 0.0, 1.0)
    rows, cols, m = r.confusion.matrix()
    assert SPURIOUS not in rows and all(m[i][j] == 0 for i in range(len(rows)) for j in range(len(cols))
                                        if rows[i] != cols[j])


def _tokens(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def _touching(toks, s, e):
    return [t for t in toks if t[0] < e and s < t[1]]


def make_edits(gold, texts, k: int, m: int, r: int, seed: int = 0):
    """A system copy of ``gold`` with k spans deleted, m spans' end moved one character left and r
    spans relabelled to a type of another category. Edited spans are chosen so that no other
    span touches their tokens and the moved end keeps every token (so token counts are exact)."""
    rng = random.Random(seed)
    eligible = []
    for doc, spans in gold.items():
        toks = _tokens(texts[doc])
        for sp_ in spans:
            mine = _touching(toks, sp_.start, sp_.end)
            others = [o for o in spans if o is not sp_ and _touching(mine, o.start, o.end)]
            last = mine[-1]
            if sp_.end - sp_.start >= 3 and not others and min(last[1], sp_.end) - max(last[0], sp_.start) >= 2:
                eligible.append((doc, sp_, len(mine)))
    chosen = rng.sample(eligible, k + m + r)
    deleted, shifted, relabelled = chosen[:k], chosen[k:k + m], chosen[k + m:]
    system = {doc: list(spans) for doc, spans in gold.items()}
    for doc, s, _ in deleted:
        system[doc].remove(s)
    for doc, s, _ in shifted:
        system[doc][system[doc].index(s)] = s.with_(end=s.end - 1)
    for doc, s, _ in relabelled:
        new = ("FECHAS", "DATE") if s.category != "DATE" else ("PAIS", "LOCATION")
        system[doc][system[doc].index(s)] = s.with_(type=new[0], category=new[1])
    return system, deleted, shifted, relabelled


def test_meddocan_known_edits_give_exact_counts(meddocan_brat):
    gold, texts = _layer(read_collection(meddocan_brat, "brat", MEDDOCAN))
    n = sum(map(len, gold.values()))
    k, m, r = (7, 5, 4) if n < 1000 else (60, 40, 30)
    system, deleted, shifted, relabelled = make_edits(gold, texts, k, m, r)
    rep = evaluate(system, gold, texts)
    c = rep.strict.micro
    assert (c.tp, c.fp, c.fn) == (n - k - m - r, m + r, k + m + r)
    c = rep.span_strict.micro
    assert (c.tp, c.fp, c.fn) == (n - k - m, m, k + m)
    c = rep.relaxed.micro
    assert (c.tp, c.tps, c.fp, c.fn) == (n - k - r, n - k - r, r, k + r)
    # category level: relabelled spans changed category, so they count like strict errors
    assert rep.strict.category.micro.fn == k + m + r
    gold_tokens = sum(len({t for s in spans for t in _touching(_tokens(texts[d]), s.start, s.end)})
                      for d, spans in gold.items())
    n_tokens = sum(len(_tokens(t)) for t in texts.values())
    tok_d = sum(x for _, _, x in deleted)
    tok_r = sum(x for _, _, x in relabelled)
    assert rep.n_tokens == n_tokens
    c = rep.binary_token.micro
    assert (c.tp, c.fp, c.fn) == (gold_tokens - tok_d, 0, tok_d)
    c = rep.token.micro
    assert (c.tp, c.fp, c.fn) == (gold_tokens - tok_d - tok_r, tok_r, tok_d + tok_r)
    assert rep.fn_per_1000 == pytest.approx(1000 * tok_d / n_tokens)
    broken = {d for d, _, _ in deleted + shifted}
    assert rep.documents_all_found == len(gold) - len(broken)
    assert rep.document_recall == pytest.approx(1 - len(broken) / len(gold))
    assert sum(v for (g, p), v in rep.confusion.counts.items() if p == MISSED) == k
    assert sum(v for (g, p), v in rep.confusion.counts.items() if g != p and p != MISSED) == r


def test_meddocan_brat_and_xml_copies_agree(meddocan_sample):
    brat, texts = _layer(read_collection(meddocan_sample / "brat", "brat", MEDDOCAN))
    xml, _ = _layer(read_collection(meddocan_sample / "xml", "xml", MEDDOCAN))
    r = evaluate(xml, brat, texts)
    assert r.strict.micro.f1 == 1.0 and r.strict.micro.tp == sum(map(len, brat.values()))


# --------------------------------------------------------------------------- CLI vs the official arithmetic
def official_scores(sys_dir: Path, gold_dir: Path) -> dict[str, tuple[float, float, float]]:
    """The official MEDDOCAN scorer's arithmetic, written independently from the brat files:
    per document sets of (tag, start, end) / (start, end); merged spans joined over gaps with no
    letter or digit; subtrack 2 merged TP = strict matches | merged matches, and a strict span
    missing on the other side is forgiven when it lies inside a TP span; micro P = TP/(TP+FP),
    R = TP/(TP+FN), over documents present in both folders."""
    def load(d: Path):
        out = {}
        for ann in sorted(d.glob("*.ann")):
            tags = set()
            for line in ann.read_text(encoding="utf-8").splitlines():
                if line.startswith("T"):
                    tag, s, e = line.split("\t")[1].split()
                    tags.add((tag, int(s), int(e)))
            out[ann.stem] = (tags, ann.with_suffix(".txt").read_text(encoding="utf-8"))
        return out

    def merged(spans, text):
        out = []
        for s, e in sorted(spans):
            if out and not any(ch.isalnum() for ch in text[out[-1][1]:s]):
                out[-1] = (out[-1][0], max(out[-1][1], e))
            else:
                out.append((s, e))
        return set(out)

    gold, syst = load(gold_dir), load(sys_dir)
    tot = {k: [0, 0, 0] for k in ("strict", "span_strict", "span_merged")}
    for doc in sorted(set(gold) & set(syst)):
        g, text = gold[doc]
        p, _ = syst[doc]
        for key, gs, ps in (("strict", g, p), ("span_strict", {x[1:] for x in g}, {x[1:] for x in p})):
            tot[key][0] += len(gs & ps)
            tot[key][1] += len(ps - gs)
            tot[key][2] += len(gs - ps)
        gs, ps = {x[1:] for x in g}, {x[1:] for x in p}
        inter = (gs & ps) | (merged(gs, text) & merged(ps, text))
        inside = lambda t: any(t[0] >= a and t[1] <= b for a, b in inter)  # noqa: E731
        tot["span_merged"][0] += len(inter)
        tot["span_merged"][1] += len([t for t in ps - gs if not inside(t)])
        tot["span_merged"][2] += len([t for t in gs - ps if not inside(t)])
    out = {}
    for key, (tp, fp, fn) in tot.items():
        p_, r_ = tp / (tp + fp), tp / (tp + fn)
        out[key] = (p_, r_, 2 * p_ * r_ / (p_ + r_))
    return out


def _write_brat(docs_spans: dict[str, list[Span]], texts: dict[str, str], src: Path, out: Path) -> None:
    out.mkdir()
    for doc, spans in docs_spans.items():
        shutil.copy(src / f"{doc}.txt", out / f"{doc}.txt")
        lines = [f"T{i}\t{s.label} {s.start} {s.end}\t{texts[doc][s.start:s.end]}" for i, s in enumerate(spans, 1)]
        (out / f"{doc}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_cli_json_matches_the_official_arithmetic(meddocan_sample, tmp_path, capsys):
    src = meddocan_sample / "brat"
    gold, texts = _layer(read_collection(src, "brat", MEDDOCAN))
    system, *_ = make_edits(gold, texts, 9, 6, 5, seed=3)
    # a system-only merge: join two gold spans separated by punctuation only
    joined = None
    for doc, spans in sorted(system.items()):
        ss = sorted(spans, key=lambda s: s.start)
        for a, b in zip(ss, ss[1:]):
            if a.end < b.start and not any(ch.isalnum() for ch in texts[doc][a.end:b.start]) and a.label == b.label:
                system[doc] = [s for s in spans if s not in (a, b)] + [a.with_(end=b.end)]
                joined = doc
                break
        if joined:
            break
    assert joined is not None
    _write_brat(system, texts, src, tmp_path / "sys")
    official = official_scores(tmp_path / "sys", src)
    assert main(["evaluate", "--system", str(tmp_path / "sys"), "--reference", str(src), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key, (p, r, f) in official.items():
        got = out[key]["micro"]
        assert (round(got["precision"], 4), round(got["recall"], 4), round(got["f1"], 4)) == \
               (round(p, 4), round(r, 4), round(f, 4)), key
    assert out["span_merged"]["micro"]["recall"] > out["span_strict"]["micro"]["recall"]
    # the joined pair is two reference spans inside one longer system span; every miss has a kind
    assert out["misses"]["by_kind"]["too long"] >= 2
    assert out["misses"]["missed"] == out["span_strict"]["micro"]["fn"] == sum(out["misses"]["by_kind"].values())
    for key in ("relaxed", "token", "binary_token"):
        assert {"precision", "recall", "f1"} <= set(out[key]["micro"]) and out[key]["per_category"]
    assert out["schema"] == "meddocan"


def test_cli_tables_print_no_document_text(meddocan_sample, tmp_path, capsys):
    src = meddocan_sample / "brat"
    gold, texts = _layer(read_collection(src, "brat", MEDDOCAN))
    system, *_ = make_edits(gold, texts, 3, 3, 3, seed=1)
    del system[sorted(system)[0]]
    _write_brat(system, texts, src, tmp_path / "sys")
    assert main(["evaluate", "--system", str(tmp_path / "sys"), "--reference", str(src), "--per-type"]) == 0
    cap = capsys.readouterr()
    assert "strict" in cap.out and "span_merged" in cap.out and "NOMBRE_SUJETO_ASISTENCIA" in cap.out
    assert "documents 15" in cap.out                    # the official scorer skips the missing file
    assert "reference spans missed (offsets, any label)" in cap.out and "none " in cap.out
    assert "1 reference document(s) have no system file" in cap.err
    span_texts = {texts[d][s.start:s.end] for d, ss in gold.items() for s in ss if s.end - s.start >= 6}
    leaked = sum(1 for t in span_texts if t in cap.out or t in cap.err)
    assert leaked == 0
    assert main(["evaluate", "--system", str(tmp_path / "sys"), "--reference", str(src), "--missing-as-empty",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_documents"] == 16 and out["document_recall"] < 1.0


def test_cli_refuses_mismatched_texts(meddocan_sample, tmp_path, capsys):
    src = meddocan_sample / "brat"
    dst = tmp_path / "sys"
    shutil.copytree(src, dst)
    first = sorted(dst.glob("*.txt"))[0]
    first.write_text(first.read_text(encoding="utf-8") + " extra", encoding="utf-8")
    assert main(["evaluate", "--system", str(dst), "--reference", str(src)]) == 1
    assert "text differs" in capsys.readouterr().err
    with pytest.raises(FormatError):
        from cli.commands.evaluate import _read
        _read(str(src), "brat", "german-8")
