"""Detection on every core (pipeline/detection/parallel.py) gives exactly the spans of one process."""
from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from models.trainer import train_ensemble
from pipeline.detection.detector import Detector
from pipeline.detection.parallel import detect_many_parallel, fork_safe
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def docs():
    return read_collection(REPO / "tests" / "fixtures" / "meddocan" / "brat", "brat", MEDDOCAN)


@pytest.fixture(scope="module")
def version(tmp_path_factory, docs):
    out = tmp_path_factory.mktemp("models")
    cfg = dict(members=["crf", "crf-rules"], seed=5, threads=1, refit_crf=False, crf_workers=1,
               crf={"max_iterations": 10, "clusters": False})
    return train_ensemble(docs[:12], docs[12:], MEDDOCAN, cfg, out).path


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")
def test_forked_workers_give_the_spans_of_one_process_in_order(version, docs):
    det = Detector.load(version)
    assert fork_safe(det)
    alone = det.detect_many(docs, batch_docs=2)
    together = detect_many_parallel(det, docs, workers=2, batch_docs=2)
    assert together == alone and sum(map(len, alone)) > 0
    assert not mp.active_children()


def test_rules_only_and_small_inputs_run_here(docs):
    det = Detector.without_model(MEDDOCAN, "es")
    assert fork_safe(det)
    assert detect_many_parallel(det, docs[:3], workers=4) == det.detect_many(docs[:3])
    assert detect_many_parallel(det, [], workers=2) == []


def test_a_detector_with_an_active_encoder_is_not_forked(version):
    det = Detector.load(version)

    class Encoder:
        kind = "encoder"

    det.ensemble.members = {**det.ensemble.members, "bert": Encoder()}
    det.ensemble.info.weights = {**det.ensemble.info.weights, "bert": 1.0}
    assert not fork_safe(det)

    class Other:             # a detector of another kind (no ensemble attribute)
        def detect_many(self, docs, batch_docs=32):
            return [[] for _ in docs]

    assert not fork_safe(Other())
