"""The demo project as an installation makes it (a model trained on its gold, a run over every
note): a replace run over the **gold** spans scores mostly green, and in the run over detected
spans the red and amber notes are where the demo's known PHI was missed (the demo is generated,
so what each note really holds is known). Figures only; no text is printed."""
from __future__ import annotations

import os

import pytest

import store
from pipeline.deid.secret import secret_path_for
from pipeline.layers import GOLD
from pipeline.synthetic import generate_corpus
from services import worker
from services.demo import create_demo_project

N_DOCS, SEED = 120, 7
#: the installation key keys every surrogate, and a surrogate changes what the scorer reads in the
#: released note: with a fresh random key per run the detected run's flagged share ranged 0.75-0.86
#: over 7 keys (CI once drew 0.75), so the test fixes one key and its figures are reproducible
KEY_HEX = "ab" * 32


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("risk-demo") / "w.db"
    fd = os.open(secret_path_for(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(KEY_HEX + "\n")
    with store.connect(path) as db:
        pid = create_demo_project(db, n_docs=N_DOCS, seed=SEED)
        store.create_user(db, "lea", "a long test password", "lead")
    setup = worker.run_inline(str(path), "demo_setup", {"project_id": pid, "user": "lea"})
    return path, pid, setup["run_id"]


def _missed(text: str, truth, spans) -> bool:
    covered = bytearray(len(text))
    for s in spans:
        covered[s.start:s.end] = b"\x01" * (s.end - s.start)
    return any(ch.isalnum() and not covered[i] for g in truth.spans for i, ch in enumerate(text[g.start:g.end], g.start))


def test_a_replace_run_over_gold_spans_is_mostly_green(demo):
    path, pid, _ = demo
    with store.connect(path) as db:
        gold = sorted(store.read_project_layer(db, pid, GOLD))
    res = worker.run_inline(str(path), "deidentify", {"project_id": pid, "doc_ids": gold, "layer": GOLD,
                                                      "missing": "skip", "profile": "replace", "user": "lea"})
    colours = res["risk"]["colours"]
    assert sum(colours.values()) == len(gold) >= 10
    assert colours["green"] >= 0.75 * len(gold) and colours["red"] <= 1
    assert "looked for PHI left" in res["risk"]["evidence"]
    assert "a second detector trained on 18 gold notes of this project looked too" in res["risk"]["evidence"]


def test_the_detected_run_is_red_or_amber_where_known_phi_was_missed(demo):
    path, pid, run_id = demo
    truth = {d.text: d for d in generate_corpus(N_DOCS, SEED)}
    with store.connect(path) as db:
        docs = {int(d.doc_id): d for d in store.load_documents(db, pid)}
        outputs = {o.doc_id: o for o in store.list_deid_outputs(db, run_id)}
        gold = store.read_project_layer(db, pid, GOLD)
        queue = store.risk_queue(db, run_id)
    missed, clean = [], []
    for r in queue:
        doc = docs[r.doc_id]
        spans = gold.get(r.doc_id) if r.doc_id in gold else outputs[r.doc_id].input_spans
        assert spans is not None                    # detected spans are stored with the run now
        (missed if _missed(doc.text, truth[doc.text], spans) else clean).append(r.colour)
    assert missed and clean
    flagged = sum(c != "green" for c in missed) / len(missed)
    green = sum(c == "green" for c in clean) / len(clean)
    # measured with KEY_HEX: 46/56 = 0.821 flagged, 52/64 = 0.813 green; after the English rules of
    # aaa6e0a detection misses 49 notes, not 56, and the ones left are harder: 39/49 = 0.796, 57/71 = 0.803;
    # with the second opinion trained on the demo's 18 gold notes (services.gold_opinion): 40/49 = 0.816, 57/71 = 0.803
    assert flagged >= 0.75 and green >= 0.6
    assert sum(c == "green" for c in missed) < sum(c == "green" for c in clean)
