"""The detection speed-ups compute exactly what the readable versions compute.

Feature extraction builds per-word-form pieces once (``token_features`` against
``token_features_reference``); dictionary normalisation translates whole texts
(``normalize`` against ``_normalize_slow``); the rule pack runs once per document and serves both
the rule spans and the CRF's rule-hit features (``pack_hits``); CRF members sharing base features
are scored together (``CRFStack``). Each is checked here on the MEDDOCAN fixture notes and on
hand-made edge cases.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.crf import CRFConfig, CRFMember, _features, rule_tags
from models.crf_feature_spec import norm_token, token_features_reference
from models.crf_features import token_features
from models.crf_stack import CRFStack, stacks_of
from models.crf_tags import Gazetteer
from models.words import bio_labels, spans_to_bio, tokenize
from pipeline.detection.dictionary_text import _normalize_slow, normalize
from pipeline.detection.rules import pack_hits, run_rules
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def docs():
    return read_collection(REPO / "tests" / "fixtures" / "meddocan" / "brat", "brat", MEDDOCAN)


@pytest.mark.parametrize("extended,line_context,with_clusters,with_tags,caseless", [
    (False, False, False, False, False), (True, False, False, True, False), (True, True, True, True, False),
    (False, True, True, False, False), (True, True, True, True, True), (False, False, False, False, True)])
def test_cached_features_equal_the_reference(docs, extended, line_context, with_clusters, with_tags, caseless):
    gaz = Gazetteer.for_locale("es")
    for d in docs[:8]:
        words = tokenize(d.text)
        clusters = {w: [i % 7, i % 3] for i, w in enumerate(sorted({t.lower() for t in words.tokens}))} \
            if with_clusters else None
        tags = rule_tags(d.text, words, "es") if with_tags else None
        args = dict(gazetteer_tags=tags, extended=extended, clusters=clusters, line_context=line_context,
                    caseless=caseless)
        assert token_features(d.text, words, **args) == token_features_reference(d.text, words, **args)


@pytest.mark.parametrize("text", [
    "", "a", "  leading and trailing  ", "tab\tand\u00a0nbsp  double\n\nnewlines \n x",
    "Ñandú Álvarez MÜLLER", "straße ﬁnal İstanbul", "e\u0301 combining", "x\u2003\u2003em spaces",
    "\u200bzero width", "ǅ titlecase ß ẞ"])
def test_fast_normalize_equals_the_slow_definition(text):
    assert normalize(text) == _normalize_slow(text)


def test_fast_normalize_on_real_notes(docs):
    for d in docs:
        assert normalize(d.text) == _normalize_slow(d.text)


def test_rule_hits_computed_once_give_the_same_rule_spans_and_tags(docs):
    for d in docs:
        hits = pack_hits(d.text, "es")
        assert run_rules(d.text, d.doc_id, "es", MEDDOCAN, hits=hits) == run_rules(d.text, d.doc_id, "es", MEDDOCAN)
        words = tokenize(d.text)
        assert rule_tags(d.text, words, "es", hits=hits) == rule_tags(d.text, words, "es")


def test_a_failing_recognizer_is_raised_where_its_spans_are_used(docs):
    d = docs[0]
    hits = dict(pack_hits(d.text, "es"))
    name = next(iter(hits))
    hits[name] = RuntimeError("broken rule")
    with pytest.raises(RuntimeError):
        run_rules(d.text, d.doc_id, "es", MEDDOCAN, hits=hits)
    # the CRF features skip it, as they skipped a failing rule before
    words = tokenize(d.text)
    assert len(rule_tags(d.text, words, "es", hits=hits)) == len(words)


def test_stacked_members_score_exactly_as_alone(docs):
    labels = bio_labels(MEDDOCAN.types)
    train = docs[:10]
    items = [(d.text, tokenize(d.text)) for d in train]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(train, items)]
    gaz = Gazetteer.for_locale("es")
    members = {
        "crf": CRFMember.train("crf", items, tags, labels, CRFConfig(max_iterations=8), gazetteer=gaz),
        "crf-l1": CRFMember.train("crf-l1", items, tags, labels, CRFConfig(max_iterations=8, c1=0.05), gazetteer=gaz),
        "crf-rules": CRFMember.train("crf-rules", items, tags, labels, CRFConfig(max_iterations=8, rule_features=True),
                                     gazetteer=gaz),
    }
    [stack] = stacks_of(members)
    assert stack.names == ["crf", "crf-l1", "crf-rules"] and stack.rule_features
    test_items = [(d.text, tokenize(d.text)) for d in docs[10:]]
    together = stack.predict_proba(test_items)
    shared = [stack.features(t, w) for t, w in test_items]
    # the stack scores from ids gathered per form: those of its feature strings, in order
    for (t, w), f in zip(test_items, shared):
        got, want = stack.document_ids(t, w), stack.feature_ids(f)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    for name, m in members.items():
        # bit for bit, given the same feature lists (a member never reads features it was not trained with)
        for a, b in zip(m.predict_proba(test_items, features=shared), together[name]):
            assert a.shape == b.shape and np.array_equal(a, b)
        # and alone (its own feature order: the sums differ only in float rounding)
        for a, b in zip(m.predict_proba(test_items), together[name]):
            assert a.shape == b.shape and np.allclose(a, b, atol=1e-6)
    # the stack's features are the rule member's own (in another order), whose base the others share
    text, words = test_items[0]
    own = _features(text, words, members["crf-rules"].config, gaz, members["crf-rules"].clusters)
    assert [sorted(f) for f in stack.features(text, words)] == [sorted(f) for f in own]


def _string_ids(vocab: dict[str, int], feats: list[list[str]]) -> tuple[list[int], list[int]]:
    """The readable definition of a document's CSR feature ids: known strings, in order."""
    ids, indptr = [], [0]
    for f in feats:
        ids.extend(vocab[a] for a in f if a in vocab)
        indptr.append(len(ids))
    return ids, indptr


@pytest.mark.parametrize("extended,line_context,with_clusters,with_tags,with_rules,caseless", [
    (False, False, False, False, False, False), (True, False, False, True, False, False),
    (True, True, True, True, True, False), (False, True, True, False, True, False),
    (True, False, True, True, True, False), (True, True, True, True, True, True), (False, False, False, False, False, True)])
def test_feature_ids_from_form_tables_equal_the_strings_looked_up(docs, extended, line_context, with_clusters,
                                                                   with_tags, with_rules, caseless):
    from models.crf_feature_spec import tag_features
    from models.crf_tags import pattern_tags
    from models.crf_index import FeatureIndex

    gaz = Gazetteer.for_locale("es")
    edge = ["", "x", "Dr. Ana", ": Nombre", "NHC: 123\nFecha: 1.2.2003;", "a b c d e f g h i j. k; l",
            "Ana María García\n\n\nCalle Mayor 3, 28001 Madrid ; . ;"]
    texts = edge + [d.text for d in docs[:8]]
    vocab_words = sorted({norm_token(t) for x in texts for t in tokenize(x).tokens})
    # two cluster levels for most words, one for some: the slots of a missing level stay empty
    clusters = {w: ([i % 7, i % 3] if i % 5 else [i % 4]) for i, w in enumerate(vocab_words)} if with_clusters else None
    per_doc = []
    for text in texts:
        words = tokenize(text)
        tags = [t | p for t, p in zip(gaz.tag(words), pattern_tags(text, words))] if with_tags else None
        rules = rule_tags(text, words, "es") if with_rules else None
        feats = token_features(text, words, tags, extended=extended, clusters=clusters, line_context=line_context,
                               caseless=caseless)
        if rules is not None:
            feats = [f + r for f, r in zip(feats, tag_features(rules))]
        per_doc.append((text, words, tags, rules, feats))
    every = sorted({a for *_, feats in per_doc for f in feats for a in f})
    assert len(every) > 500
    # every feature known, then two thirds of them (unknown ones are skipped, in place)
    for vocab in ({a: k for k, a in enumerate(every)},
                  {a: k for k, a in enumerate(every) if k % 3}):
        index = FeatureIndex(vocab, extended, line_context, clusters, caseless)
        for _ in range(2):   # the second pass reads the cached forms, pairs, keys and tags
            for text, words, tags, rules, feats in per_doc:
                ids, indptr = index.ids(text, words, [tags, rules])
                want_ids, want_ptr = _string_ids(vocab, feats)
                assert ids.tolist() == want_ids and indptr.tolist() == want_ptr


def test_feature_ids_stay_the_same_when_the_caches_are_emptied(docs, monkeypatch):
    import models.crf_index as crf_index

    gaz = Gazetteer.for_locale("es")
    texts = [d.text for d in docs[:6]]
    feats = [token_features(t, tokenize(t), gaz.tag(tokenize(t)), extended=True) for t in texts]
    vocab = {a: k for k, a in enumerate(sorted({a for fs in feats for f in fs for a in f}))}
    monkeypatch.setattr(crf_index, "_CACHE_MAX", 700)   # below two notes' forms: emptied again and again
    index = crf_index.FeatureIndex(vocab, True, False, None)
    for _ in range(3):
        for text, f in zip(texts, feats):
            words = tokenize(text)
            ids, indptr = index.ids(text, words, [gaz.tag(words)])
            assert (ids.tolist(), indptr.tolist()) == _string_ids(vocab, f)
            assert len(index._forms) <= 700


def test_feature_ids_are_right_from_many_threads_and_after_a_pickle(docs):
    """The app's cached detector serves every session's thread: forms added by one thread while
    another reads the table must not mix (each call holds the index's lock)."""
    import pickle
    from concurrent.futures import ThreadPoolExecutor

    from models.crf_index import FeatureIndex

    gaz = Gazetteer.for_locale("es")
    items = [(d.text, tokenize(d.text)) for d in docs]
    feats = [token_features(t, w, gaz.tag(w), extended=True) for t, w in items]
    vocab = {a: k for k, a in enumerate(sorted({a for fs in feats for f in fs for a in f}))}
    want = [_string_ids(vocab, f) for f in feats]
    index = FeatureIndex(vocab, True, False, None)

    def one(k: int) -> bool:
        t, w = items[k % len(items)]
        ids, indptr = index.ids(t, w, [gaz.tag(w)])
        return (ids.tolist(), indptr.tolist()) == want[k % len(items)]

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, range(8 * len(items))))
    again = pickle.loads(pickle.dumps(index))
    t, w = items[0]
    ids, indptr = again.ids(t, w, [gaz.tag(w)])
    assert (ids.tolist(), indptr.tolist()) == want[0]


def test_a_stack_refuses_members_with_different_bases(docs):
    labels = bio_labels(MEDDOCAN.types)
    items = [(d.text, tokenize(d.text)) for d in docs[:4]]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(docs[:4], items)]
    a = CRFMember.train("a", items, tags, labels, CRFConfig(max_iterations=3), gazetteer=Gazetteer.for_locale("es"))
    b = CRFMember.train("b", items, tags, labels, CRFConfig(max_iterations=3, line_context=True),
                        gazetteer=Gazetteer.for_locale("es"))
    assert a.base_feature_key != b.base_feature_key
    with pytest.raises(ValueError):
        CRFStack([a, b])
    assert len(stacks_of({"a": a, "b": b})) == 2


def _tag_unpruned(gaz: Gazetteer, words) -> list[set[str]]:
    """The gazetteer lookup without the prefix check: every key up to the longest phrase."""
    from models.crf_feature_spec import norm_token

    low = [norm_token(t) for t in words.tokens]
    tags: list[set[str]] = [set() for _ in low]
    for i in range(len(low)):
        for k in range(i, min(len(low), i + gaz.max_len)):
            for nm in gaz.table.get(" ".join(low[i:k + 1]), ()):
                tags[i].add("B-" + nm)
                for j in range(i + 1, k + 1):
                    tags[j].add("I-" + nm)
    return tags


def test_gazetteer_stops_growing_a_key_that_cannot_match_and_finds_the_same(docs):
    gaz = Gazetteer({"places": ["Santa Cruz de Tenerife", "Santa Cruz", "Cruz"], "names": ["Ana", "Ana María"]})
    text = "Ana María vive en Santa Cruz de Tenerife; Santa Ana y Cruz de Santa Cruz."
    words = tokenize(text)
    assert gaz.tag(words) == _tag_unpruned(gaz, words)
    assert "B-places" in gaz.tag(words)[words.tokens.index("Santa")]
    real = Gazetteer.for_locale("es")
    for d in docs[:8]:
        words = tokenize(d.text)
        assert real.tag(words) == _tag_unpruned(real, words)


def test_members_forward_backward_together_equal_each_alone():
    from models.crf_marginals import chain_marginals, marginals_all

    rng = np.random.default_rng(3)
    L = 7
    trans = [rng.normal(size=(L, L)) for _ in range(3)]
    lens = [0, 1, 4, 40, 9]
    ems = [[rng.normal(size=(n, L)) * 3 for n in lens] for _ in trans]
    together = marginals_all(trans, ems, batch_size=2)
    for m in range(3):
        alone = chain_marginals([trans[m]], [ems[m]])[0]
        for n, a, b in zip(lens, alone, together[m]):
            assert a.shape == b.shape == (n, L)
            np.testing.assert_array_equal(a, b)
            if n:
                np.testing.assert_allclose(b.sum(axis=1), 1.0, atol=1e-5)
    # a two-token chain by brute force: p(y1, y2) ~ exp(e1[y1] + t[y1, y2] + e2[y2])
    e = [rng.normal(size=(2, L))]
    joint = np.exp(e[0][0][:, None] + trans[0] + e[0][1][None, :])
    joint /= joint.sum()
    got = chain_marginals([trans[0]], [e])[0][0]
    np.testing.assert_allclose(got[0], joint.sum(axis=1), atol=1e-6)
    np.testing.assert_allclose(got[1], joint.sum(axis=0), atol=1e-6)
