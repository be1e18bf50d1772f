"""Risk scoring's context embedder works with a model trained in the app: an encoder member of
the active version embeds contexts; a CRF-only version says in words why the lexical fallback
is used (it used to answer "has no usable encoder: ValueError" for every app-trained model)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import store
from models.context_embedding import MemberContextEmbedder, encoder_member_dir
from models.trainer import TrainConfig, train_ensemble
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from services import risk

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "meddocan" / "brat"
TINY_BERT = dict(hidden=32, layers=1, heads=2, intermediate=64, vocab_size=600, max_len=48, overlap=12, epochs=1,
                 batch_size=8, lr=3e-3)


@pytest.fixture(scope="module")
def versions(tmp_path_factory):
    torch.set_num_threads(1)
    docs = read_collection(SAMPLE, "brat", MEDDOCAN)
    out = tmp_path_factory.mktemp("models")
    with_encoder = train_ensemble(docs[:12], docs[12:], MEDDOCAN, TrainConfig.from_dict(dict(
        members=["crf", "bert"], seed=7, threads=1, refit_crf=False, crf={"max_iterations": 5},
        encoders={"bert": TINY_BERT}, name="with-bert")), out)
    crf_only = train_ensemble(docs[:12], docs[12:], MEDDOCAN, TrainConfig.from_dict(dict(
        members=["crf"], seed=7, threads=1, refit_crf=False, crf={"max_iterations": 5}, name="crf-only")), out)
    return Path(with_encoder.path), Path(crf_only.path)


def test_the_encoder_member_of_a_version_embeds_contexts(versions):
    with_encoder, crf_only = versions
    member = encoder_member_dir(with_encoder)
    assert member is not None and member.name == "bert" and encoder_member_dir(crf_only) is None
    emb = MemberContextEmbedder(member)
    texts = ["ingresa en el servicio de urgencias", "ingresa en el servicio de cardiologia", "x"]
    emb.fit(texts)
    e = emb.embed(texts)
    assert e.exact.shape[0] == 3 and np.allclose(np.linalg.norm(e.exact, axis=1), 1.0, atol=1e-4)
    assert float(e.exact[0] @ e.exact[1]) > float(e.exact[0] @ e.exact[2])


def test_choose_embedder_uses_the_active_models_encoder_or_says_why_not(versions, tmp_path):
    with_encoder, crf_only = versions
    db = store.connect(tmp_path / "w.db")
    pid = store.create_project(db, "p", MEDDOCAN)
    mv = store.add_model_version(db, pid, "crf-only", str(crf_only), metrics={"f1": 0.5})
    store.activate_model(db, mv)
    emb, note = risk.choose_embedder(db, pid)
    assert emb.name.startswith("lexical") and note == ("character trigrams: the active model crf-only has no encoder "
                                                       "member (its members are CRFs)")
    mv2 = store.add_model_version(db, pid, "with-bert", str(with_encoder), metrics={"f1": 0.5})
    store.activate_model(db, mv2)
    emb, note = risk.choose_embedder(db, pid)
    assert isinstance(emb, MemberContextEmbedder) and note == "the bert encoder of the active model with-bert"
    assert "Error" not in note
    db.close()
