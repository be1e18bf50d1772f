"""Embedders and the neighbour search behind context uniqueness.

The encoder test builds a tiny BERT from a config in ``tmp_path`` with a tokenizer trained on a
few sentences: nothing is downloaded (the hub is switched off) and nothing is printed.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse as sp

from pipeline.offline import OFFLINE_ENV
from pipeline.risk import (DeidDocument, DeidSpan, LexicalEmbedder, RiskConfig, RiskScorer, build_embedder,
                           extract_contexts, score_run)
from pipeline.risk.embedders import Embedding, SentenceEncoderEmbedder, sketch, trigram_counts
from pipeline.risk.neighbours import MULTI_OWNER, ann_best_other, best_other_similarity, exact_best_other

SENTENCES = [
    "el paciente acude a la consulta de urgencias por dolor abdominal",
    "fue atendido por el doctor en la planta de medicina interna",
    "se solicita analítica y radiografía de tórax con resultado normal",
    "la paciente refiere fiebre de tres días de evolución y tos seca",
    "se pauta tratamiento antibiótico y se cita para revisión en dos semanas",
    "antecedentes de hipertensión arterial y diabetes mellitus tipo dos",
]


# --------------------------------------------------------------------------- lexical embedder

def test_lexical_rows_are_unit_and_cosines_match_sklearn_tfidf():
    from sklearn.feature_extraction.text import TfidfTransformer
    emb = LexicalEmbedder(dim=64)
    e = emb.embed(SENTENCES)
    assert sp.issparse(e.exact) and e.search.shape == (len(SENTENCES), 64)
    assert np.allclose(sp.linalg.norm(e.exact, axis=1), 1, atol=1e-5)
    assert np.allclose(np.linalg.norm(e.search, axis=1), 1, atol=1e-5)
    ref = TfidfTransformer(sublinear_tf=True).fit_transform(trigram_counts(SENTENCES))
    assert np.allclose((e.exact @ e.exact.T).toarray(), (ref @ ref.T).toarray(), atol=1e-5)
    assert emb.name == "lexical:tfidf-char3-hashed+sketch64"


def test_trigrams_are_counted_per_text_and_never_across_texts():
    x = trigram_counts(["ab", "abc", ""]).toarray()
    assert x.sum(axis=1).tolist() == [2, 3, 0]        # " ab", "ab " | " ab", "abc", "bc " | nothing
    y = trigram_counts(["ab", "ab"]).toarray()
    assert np.array_equal(y[0], y[1])


def test_sketch_keeps_cosines_unbiased():
    x = sp.random(400, 5000, density=0.02, random_state=1, format="csr", dtype=np.float32)
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    x = sp.csr_matrix(sp.diags(1 / norms) @ x)
    exact = (x[:50] @ x.T).toarray()
    s = sketch(x, 512)
    err = s[:50] @ s.T - exact
    assert abs(err.mean()) < 0.02 and err.std() < 0.06      # ~1/sqrt(512)


def test_lexical_fit_is_frozen_for_later_strings():
    emb = LexicalEmbedder(dim=32)
    emb.fit(SENTENCES)
    a = emb.embed(SENTENCES[:2]).exact.toarray()
    b = emb.embed(SENTENCES).exact.toarray()[:2]
    assert np.allclose(a, b)


# --------------------------------------------------------------------------- neighbour search

def _unit(x):
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def brute_force(vectors, owners):
    sims = vectors @ vectors.T
    out = []
    for i in range(len(owners)):
        if owners[i] == MULTI_OWNER:
            out.append(1.0)
            continue
        other = (owners != owners[i]) | (owners == MULTI_OWNER)
        out.append(sims[i][other].max() if other.any() else np.nan)
    return np.array(out, dtype=np.float32)


def test_exact_search_matches_brute_force_whatever_the_chunk():
    rng = np.random.default_rng(3)
    v = _unit(rng.standard_normal((300, 16)))
    owners = rng.integers(0, 20, 300)
    owners[:5] = MULTI_OWNER
    ref = brute_force(v, owners)
    got, used = best_other_similarity(v, owners, method="exact")
    assert used == "exact" and np.allclose(got, ref, atol=1e-5)
    small_chunks = exact_best_other(v, owners, chunk_elems=900)
    mask = owners != MULTI_OWNER
    assert np.allclose(small_chunks[mask], ref[mask], atol=1e-5)


def test_exact_search_with_a_single_owner_has_no_match():
    v = _unit(np.ones((3, 4)))
    got, _ = best_other_similarity(v, np.zeros(3, dtype=np.int64), method="exact")
    assert np.isnan(got).all()


def test_ann_finds_planted_near_duplicates_and_never_overstates():
    rng = np.random.default_rng(5)
    base = _unit(rng.standard_normal((1500, 32)))
    twins = _unit(base[:300] + 0.05 * rng.standard_normal((300, 32)))
    v = np.concatenate([base, twins])
    owners = np.concatenate([np.arange(1500), 5000 + np.arange(300)])
    ann = ann_best_other(v, owners, k=8)
    exact = exact_best_other(v, owners)
    assert (ann <= exact + 1e-5).all()                 # every reported similarity is a real one
    assert np.allclose(ann[:300], exact[:300], atol=1e-5)   # the planted twins are found
    # random 32-d vectors are the worst case for an index; misses are small and on the safe side
    assert np.mean(np.isclose(ann, exact, atol=1e-5)) > 0.7 and np.mean(exact - ann) < 0.03


def test_ann_and_exact_agree_on_the_meddocan_fixture(meddocan_sample):
    from pipeline.formats import read_collection
    from pipeline.risk import from_document
    from pipeline.schemas import MEDDOCAN
    from pipeline.spans import Document, rewrite

    docs = []
    for d in read_collection(meddocan_sample / "brat", "brat", MEDDOCAN):
        new_text, moved = rewrite(d.text, [(s, f"[{s.type}]") for s in d.spans])
        docs.append(from_document(Document(d.doc_id, new_text, [s.with_(start=a, end=b) for s, a, b in moved]),
                                  reviewed=True))
    exact = RiskScorer(RiskConfig(exact_cutoff=10**9))
    ann = RiskScorer(RiskConfig(exact_cutoff=0))
    r_exact, r_ann = exact.score(docs), ann.score(docs)
    assert exact.neighbour_method == "exact" and ann.neighbour_method == "ann"
    for a, b in zip(r_exact, r_ann):
        assert a.doc_id == b.doc_id
        assert b.n_unique >= a.n_unique                 # errs towards more risk, never less
        assert b.n_unique - a.n_unique <= 1
    assert sum(a.colour == b.colour for a, b in zip(r_exact, r_ann)) >= 15


def test_identical_context_in_two_documents_is_not_unique_and_embedded_once():
    class Counting(LexicalEmbedder):
        calls: list[int] = []

        def embed(self, texts):
            self.calls.append(len(texts))
            return super().embed(texts)

    text = "uno dos tres X cuatro cinco seis"
    docs = [DeidDocument(f"d{i}", text, [DeidSpan(13, 14, "NAME")]) for i in range(3)]
    emb = Counting()
    reports = score_run(docs, RiskConfig(), embedder=emb)
    assert sum(emb.calls) == 1 and all(r.n_unique == 0 for r in reports)


# --------------------------------------------------------------------------- local encoders

def _tiny_bert(path, *, head: bool = False):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForTokenClassification, BertModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(SENTENCES * 3 + ["[name] [date] [location]"],
                            trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]", model_max_length=64)
    fast.save_pretrained(path)
    config = BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=64, num_labels=3)
    model = (BertForTokenClassification if head else BertModel)(config)
    model.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    return _tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def test_tiny_bert_loads_offline_as_a_mean_pooling_sentence_encoder(tiny_encoder, monkeypatch):
    from transformers import AutoConfig

    seen = []
    real = AutoConfig.from_pretrained

    def spy(*args, **kwargs):
        seen.append(kwargs.get("local_files_only"))
        return real(*args, **kwargs)

    monkeypatch.setattr(AutoConfig, "from_pretrained", spy)
    for name in OFFLINE_ENV:     # offline by the load itself: pipeline/ is pure, the switch is set at process start
        monkeypatch.delenv(name, raising=False)
    emb = build_embedder(str(tiny_encoder))
    assert isinstance(emb, SentenceEncoderEmbedder)
    assert seen and all(v is True for v in seen) and not any(name in os.environ for name in OFFLINE_ENV)
    assert emb.name.startswith("encoder+mean-pooling+centred:")
    modules = list(emb.model)
    assert type(modules[1]).__name__ == "Pooling" and modules[1].get_config_dict()["pooling_mode"] == "mean"
    emb.fit(SENTENCES)
    e = emb.embed(SENTENCES + SENTENCES[:1])
    assert isinstance(e, Embedding) and e.exact is e.search and e.exact.shape == (7, 32)
    assert np.allclose(np.linalg.norm(e.exact, axis=1), 1, atol=1e-5)
    assert np.allclose(e.exact[0], e.exact[-1], atol=1e-5)


def test_tiny_bert_scores_a_corpus(tiny_encoder):
    template = "el paciente {} acude a la consulta de urgencias por dolor abdominal"
    docs = []
    for i in range(4):
        text = template.format("[NOMBRE]")
        docs.append(DeidDocument(f"d{i}", text, [DeidSpan(12, 20, "NAME", "PATIENT")], human_seen=True))
    odd = "hoy nevaba sobre el faro y [NOMBRE] tocaba tambores oxidados bajo puentes"
    docs.append(DeidDocument("odd", odd, [DeidSpan(odd.index("["), odd.index("]") + 1, "NAME", "PATIENT")],
                             human_seen=True))
    scorer = RiskScorer(RiskConfig(encoder=str(tiny_encoder)))
    reports = {r.doc_id: r for r in scorer.score(docs)}
    assert scorer.embedder_name.startswith("encoder+mean-pooling")
    assert all(reports[f"d{i}"].n_unique == 0 for i in range(4))   # identical contexts: never unique
    assert reports["odd"].n_contexts == 1
    assert reports["odd"].reasons == [] or reports["odd"].reasons[0].similarity < 0.5


def test_token_classifier_checkpoint_and_model_version_folder_load(tmp_path):
    member = _tiny_bert(tmp_path / "version" / "member-a", head=True)
    emb = build_embedder(str(tmp_path / "version"))
    assert emb.name.endswith(":member-a")
    assert emb.embed(["uno dos"]).exact.shape == (1, 32)
    assert member.is_dir()


def test_sentence_transformers_folder_loads_as_it_is(tiny_encoder, tmp_path):
    st_dir = tmp_path / "st"
    build_embedder(str(tiny_encoder)).model.save(str(st_dir))
    emb = build_embedder(str(st_dir))
    assert emb.name.startswith("sentence-transformers:") and not emb.center


def test_missing_encoder_folder_is_a_user_error(tmp_path):
    from pipeline.errors import is_user_error
    with pytest.raises(FileNotFoundError) as e:
        build_embedder(str(tmp_path / "nope"))
    assert is_user_error(e.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError):
        build_embedder(str(tmp_path / "empty"))


def test_a_hub_model_name_is_refused_without_touching_the_network(monkeypatch):
    """The names in sentence-transformers' own docstrings ("sentence-transformers/all-MiniLM-L6-v2")
    are not folders here: the embedder refuses them as a user error before any library could try
    the hub (every socket fails in this test)."""
    import socket

    from pipeline.errors import is_user_error

    def no_network(*args, **kwargs):
        raise AssertionError("the embedder tried the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    for name in ("sentence-transformers/all-MiniLM-L6-v2", "sentence-transformers/static-retrieval-mrl-en-v1"):
        with pytest.raises(FileNotFoundError, match="never downloaded") as e:
            build_embedder(name)
        assert is_user_error(e.value)


def test_contexts_of_the_tiny_corpus_are_what_gets_embedded():
    doc = DeidDocument("d", "uno dos [X] tres", [DeidSpan(8, 11, "NAME")])
    assert [c.text for c in extract_contexts(doc)] == ["uno dos [name] tres"]
