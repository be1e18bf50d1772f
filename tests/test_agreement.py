"""Agreement: kappa and alpha against published worked examples, pairwise F1, per-document
agreement, disagreements and annotator-vs-gold, by hand and on MEDDOCAN documents."""
from __future__ import annotations

import random

import pytest
from sklearn.metrics import cohen_kappa_score

from pipeline.metrics.agreement import (CHANCE_CAVEAT, against_gold, agreement, cohen_kappa, disagreements,
                                krippendorff_alpha_nominal)
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Span

N = None


# --------------------------------------------------------------------------- coefficients
def test_krippendorff_published_nominal_example_with_missing_data():
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
    # 4 observers, 12 units, missing values; published nominal alpha = 0.743
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
    ]
    assert round(krippendorff_alpha_nominal(data), 3) == 0.743


def test_krippendorff_published_two_observer_binary_example():
    # same paper, section A: two observers, binary data, 10 units; published alpha = 0.095
    data = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]
    assert round(krippendorff_alpha_nominal(data), 3) == 0.095


def test_krippendorff_degenerate_cases():
    assert krippendorff_alpha_nominal([[1, 1, 1], [1, 1, 1]]) is None       # one value only
    assert krippendorff_alpha_nominal([[1, N], [N, 2]]) is None             # nothing pairable
    assert krippendorff_alpha_nominal([["a", "b"], ["a", "b"]]) == 1.0


def test_cohen_kappa_textbook_example():
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> po 0.70, pe 0.50, kappa 0.40
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    rng = random.Random(1)
    x = [rng.choice("ABCO") for _ in range(300)]
    y = [v if rng.random() < 0.7 else rng.choice("ABCO") for v in x]
    assert cohen_kappa(x, y) == pytest.approx(cohen_kappa_score(x, y))
    assert cohen_kappa(["O"] * 5, ["O"] * 5) is None
    assert cohen_kappa([], []) is None


# --------------------------------------------------------------------------- agreement by hand
TEXT = "t0 t1 t2 t3 t4 t5 t6 t7 t8 t9"


def tok(doc: str, i: int, j: int | None = None, label: str = "P", cat: str = "NAME") -> Span:
    j = i if j is None else j
    return Span(doc, 3 * i, 3 * j + 2, cat, label)


def test_token_kappa_and_pairwise_f1_by_hand():
    ann = {"a": {"d": [tok("d", 1, 2)]},
           "b": {"d": [tok("d", 1), tok("d", 5, label="DATE", cat="DATE")]}}
    r = agreement(ann, {"d": TEXT})
    p = r.pair("a", "b")
    # tokens: a = O N N O O O O O O O, b = O N O O O D O O O O: po 0.8, pe (8*8 + 2*1)/100 = 0.66
    assert p.kappa == pytest.approx((0.8 - 0.66) / (1 - 0.66))
    assert p.n_tokens == 10 and p.n_documents == 1
    assert p.strict.micro.f1 == 0.0                    # no span identical
    assert p.relaxed.micro.tp == 1 and p.relaxed.micro.fp == 1 and p.relaxed.micro.fn == 0
    assert p.relaxed.per_category["NAME"].f1 == 1.0
    # two annotators: alpha is close to kappa, computed here independently from the token table
    a_lab = ["O", "N", "N"] + ["O"] * 7
    b_lab = ["O", "N", "O", "O", "O", "D"] + ["O"] * 4
    assert r.alpha == pytest.approx(krippendorff_alpha_nominal([a_lab, b_lab]))
    assert r.caveat == CHANCE_CAVEAT and "inflate" in r.caveat


def test_only_documents_both_finished_are_compared():
    texts = {"d1": TEXT, "d2": TEXT, "d3": TEXT}
    ann = {"a": {"d1": [tok("d1", 1)], "d2": [tok("d2", 2)]},
           "b": {"d1": [tok("d1", 1)], "d3": [tok("d3", 4)]},
           "c": {"d1": [tok("d1", 1)], "d2": [tok("d2", 3)]}}
    r = agreement(ann, texts)
    assert r.pair("a", "b").n_documents == 1 and r.pair("a", "b").strict.micro.f1 == 1.0
    assert r.pair("a", "c").n_documents == 2 and r.pair("a", "c").strict.micro.tp == 1
    assert r.pair("b", "c").n_tokens == 10
    # alpha units: d1 (3 coders) and d2 (a, c) tokens; d3 has one coder and is not pairable
    assert r.alpha_units == 20
    rows = {"a": ["O", "N"] + ["O"] * 8 + ["O", "O", "N"] + ["O"] * 7,
            "b": ["O", "N"] + ["O"] * 8 + [N] * 10,
            "c": ["O", "N"] + ["O"] * 8 + ["O", "O", "O", "N"] + ["O"] * 6}
    assert r.alpha == pytest.approx(krippendorff_alpha_nominal(list(rows.values())))
    assert [d.doc_id for d in r.per_document] == ["d1", "d2"]
    d2 = r.per_document[1]
    assert d2.annotators == ("a", "c") and d2.strict_f1 == 0.0 and d2.n_disagreements == 2
    assert r.per_document[0].strict_f1 == 1.0 and r.per_document[0].n_disagreements == 0
    names, z = r.matrix("strict")
    assert names == ["a", "b", "c"] and z[0][1] == 1.0 and z[0][2] == pytest.approx(0.5) and z[1][1] == 1.0


def test_no_annotators_or_no_shared_documents():
    empty = agreement({}, {})
    assert (empty.pairs, empty.alpha, empty.disagreements) == ([], None, [])
    apart = agreement({"a": {"d1": [tok("d1", 1)]}, "b": {"d2": [tok("d2", 1)]}}, {"d1": TEXT, "d2": TEXT})
    assert apart.pair("a", "b").n_documents == 0 and apart.pair("a", "b").kappa is None and apart.alpha is None
    assert apart.matrix()[1][0][1] is None


def test_disagreement_list_names_who_said_what():
    layers = {
        "a": [tok("d", 0, label="P"), tok("d", 2, label="P"), tok("d", 4, 5, label="P"), tok("d", 8, label="P")],
        "b": [tok("d", 0, label="P"), tok("d", 2, label="D", cat="DATE"), tok("d", 4, label="P")],
    }
    found = disagreements("d", layers)
    assert [(x.start, x.end, x.kind) for x in found] == [(6, 8, "label"), (12, 17, "boundary"), (24, 26, "missing")]
    assert found[0].labels == {"a": "P", "b": "D"}
    assert found[1].spans == {"a": ((12, 17, "P"),), "b": ((12, 14, "P"),)}
    assert found[2].labels == {"a": "P", "b": None}
    assert found[0].doc_id == "d" and found[0].to_dict()["labels"]["b"] == "D"


def test_against_gold_puts_the_model_on_the_same_documents():
    gold = {"d1": [tok("d1", 1), tok("d1", 3)], "d2": [tok("d2", 2)], "d3": [tok("d3", 5)]}
    ann = {"a": {"d1": [tok("d1", 1), tok("d1", 3)], "d2": []}, "b": {"d3": [tok("d3", 5, 6)]}}
    model = {"d1": [tok("d1", 1)], "d2": [tok("d2", 2)], "d3": []}
    rows = {g.annotator: g for g in against_gold(ann, gold, model)}
    a, b = rows["a"], rows["b"]
    assert a.n_documents == 2 and (a.strict.micro.tp, a.strict.micro.fn) == (2, 1)
    assert (a.model_strict.micro.tp, a.model_strict.micro.fn) == (2, 1)    # d1 one of two, d2 found
    assert b.n_documents == 1 and b.strict.micro.tp == 0 and b.relaxed.micro.tp == 1
    assert b.model_strict.micro.fn == 1
    assert against_gold(ann, gold)[0].model_strict is None


# --------------------------------------------------------------------------- MEDDOCAN
def test_meddocan_annotators_with_known_differences(meddocan_sample):
    docs = read_collection(meddocan_sample / "brat", "brat", MEDDOCAN)
    gold = {d.doc_id: list(d.spans) for d in docs}
    texts = {d.doc_id: d.text for d in docs}
    ids = sorted(gold)
    # a copies gold on every document; b finished all but the last and dropped 5 spans;
    # c finished the first 8 and relabelled 3 spans
    rng = random.Random(0)
    b = {d: list(gold[d]) for d in ids[:-1]}
    dropped = rng.sample([(d, s) for d in b for s in b[d]], 5)
    for d, s in dropped:
        b[d].remove(s)
    c = {d: list(gold[d]) for d in ids[:8]}
    relab = rng.sample([(d, s) for d in c for s in c[d] if s.category != "DATE"], 3)
    for d, s in relab:
        c[d][c[d].index(s)] = s.with_(category="DATE", type="FECHAS")
    ann = {"a": {d: list(gold[d]) for d in ids}, "b": b, "c": c}
    r = agreement(ann, texts)
    ab, ac, bc = r.pair("a", "b"), r.pair("a", "c"), r.pair("b", "c")
    n_ab = sum(len(gold[d]) for d in ids[:-1])
    assert ab.n_documents == 15 and (ab.strict.micro.tp, ab.strict.micro.fp, ab.strict.micro.fn) == (n_ab - 5, 0, 5)
    assert ac.n_documents == 8 and (ac.strict.micro.fp, ac.strict.micro.fn) == (3, 3)
    assert bc.n_documents == 8
    assert 0.9 < ab.kappa < 1.0 and r.alpha is not None and 0.9 < r.alpha < 1.0
    kinds = sorted(x.kind for x in r.disagreements)
    # each dropped span is one "missing" group; each relabel a "label" group (unless it was also dropped by b)
    assert kinds.count("missing") + kinds.count("label") + kinds.count("boundary") == len(r.disagreements)
    assert kinds.count("missing") == 5 and kinds.count("label") == 3 - sum(
        1 for d, s in relab if (d, s) in dropped)
    assert sum(dd.n_disagreements for dd in r.per_document) == len(r.disagreements)
    assert all(isinstance(x.start, int) and x.end > x.start for x in r.disagreements)
    assert r.to_dict()["caveat"] == CHANCE_CAVEAT
