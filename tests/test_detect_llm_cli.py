"""``python -m pipeline detect-llm``: the generative member end to end from a local checkpoint
folder, alone and voting with a trained model version (``--members crf,llm``).

The checkpoint is the tiny GPT-2 of tests/llm_helpers.py (it learned two invented notes'
rewrites); nothing is downloaded. Output is checked for offsets and labels and for the absence
of note text.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import main
from llm_helpers import NOTES, PHI, SHORT_PROMPT, gold_of, memorized_checkpoint
from models.llm_member import LLMConfig, LLMMember
from models.words import bio_labels
from pipeline.formats import read_collection, write_collection
from pipeline.schemas import I2B2_2014, MEDDOCAN
from pipeline.spans import Document, Span

REPO = Path(__file__).resolve().parents[1]
BRAT = REPO / "tests" / "fixtures" / "meddocan" / "brat"


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("detect-llm")
    stub = LLMMember("llm", bio_labels(MEDDOCAN.types), MEDDOCAN, LLMConfig(prompt=SHORT_PROMPT),
                     rewriter=lambda chunks: [])
    ckpt = memorized_checkpoint(root / "ckpt", stub.prompt)
    (root / "prompt.txt").write_text(SHORT_PROMPT, encoding="utf-8")
    docs = []
    for k, (text, phrases) in enumerate(zip(NOTES, PHI)):
        spans = [Span(f"note{k}", a, b, "OTHER", "OTROS_SUJETO_ASISTENCIA")
                 for a, b in gold_of(text, phrases)]
        docs.append(Document(f"note{k}", text, spans))
    write_collection(docs, root / "in", "brat")
    return root, ckpt


def _args(root: Path, ckpt: Path, out: str, *extra: str) -> list[str]:
    return ["detect-llm", "--llm-checkpoint", str(ckpt), "--in", str(root / "in"), "--format", "brat",
            "--schema", "meddocan", "--out", str(root / out), "--llm-prompt", str(root / "prompt.txt"),
            "--threads", "1", *extra]


def _no_note_text(out: str) -> None:
    """No PHI phrase and no note line in the output. A bare two-digit age ("67") is looked for in
    its line ("Edad: 67 años."): alone it also turns up inside the printed speed figures."""
    for phrases in PHI:
        for p in phrases:
            if not (p.isdigit() and len(p) < 3):
                assert p not in out
    for note in NOTES:
        for line in note.splitlines():
            assert line.strip() not in out


def test_detect_llm_alone_writes_the_spans_and_the_figures(work, capsys):
    root, ckpt = work
    assert main(_args(root, ckpt, "alone", "--save-member", str(root / "member"))) == 0
    out = capsys.readouterr().out
    _no_note_text(out)
    got = {d.doc_id: d for d in read_collection(root / "alone", "brat", MEDDOCAN)}
    for k, (text, phrases) in enumerate(zip(NOTES, PHI)):
        spans = got[f"note{k}"].spans
        assert [(s.start, s.end) for s in spans] == gold_of(text, phrases)
        assert {(s.category, s.type) for s in spans} == {("OTHER", "")}
    assert "2 documents, 6 spans (llm:llm)" in out and "truncated 0" in out
    assert "note recall 1.0000 (2 notes with PHI)" in out and "span R 1.0000 P 1.0000" in out
    assert "content BLEU 100.0" in out
    meta = json.loads((root / "member" / "member.json").read_text(encoding="utf-8"))
    assert meta["kind"] == "llm" and meta["config"]["checkpoint"] == str(ckpt.resolve())


def test_detect_llm_json_figures(work, capsys):
    root, ckpt = work
    assert main(_args(root, ckpt, "json", "--json")) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["note_recall"] == 1.0 and figures["notes"] == 2 and figures["bleu"] == pytest.approx(100.0)
    assert "notes_per_s" in figures      # speed is reported (measured in benchmarks/, not asserted here)


@pytest.fixture(scope="module")
def crf_version(tmp_path_factory):
    """A small CRF version trained on the MEDDOCAN fixture (the LLM joins it at detection time)."""
    from models.trainer import train_ensemble

    docs = read_collection(BRAT, "brat", MEDDOCAN)
    cfg = dict(members=["crf"], seed=5, threads=1, crf={"max_iterations": 10, "clusters": False}, refit_crf=False,
               name="crf-only")
    info = train_ensemble(docs[:12], docs[12:], MEDDOCAN, cfg, tmp_path_factory.mktemp("llm-models"))
    return Path(info.path)


def test_detect_llm_votes_with_a_trained_version(work, crf_version, capsys):
    root, ckpt = work
    args = _args(root, ckpt, "voted", "--model", str(crf_version), "--members", "crf,llm", "--llm-weight", "3",
                 "--no-rules", "--no-dictionaries")
    assert main(args) == 0
    out = capsys.readouterr().out
    _no_note_text(out)
    assert "model:crf+llm" in out
    got = {d.doc_id: d for d in read_collection(root / "voted", "brat", MEDDOCAN)}
    for k, (text, phrases) in enumerate(zip(NOTES, PHI)):
        spans = got[f"note{k}"].spans
        covered = bytearray(len(text))
        for s in spans:
            covered[s.start:s.end] = b"\x01" * (s.end - s.start)
            assert s.type in MEDDOCAN.types          # typed by the CRF's vote, not the generic label
        for a, b in gold_of(text, phrases):
            assert all(covered[i] or text[i].isspace() for i in range(a, b))
    # the LLM must be named among the members, and a member name must exist
    assert main(_args(root, ckpt, "x", "--model", str(crf_version), "--members", "crf")) == 1
    assert main(_args(root, ckpt, "x", "--model", str(crf_version), "--members", "bert,llm")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and all(line.startswith("error: ") for line in err.splitlines())


def test_detect_llm_refuses_a_folder_without_a_checkpoint(work, tmp_path, capsys):
    root, _ = work
    assert main(_args(root, tmp_path, "none")) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_detect_llm_needs_a_generic_label_where_the_schema_has_no_other(work, tmp_path, capsys):
    root, ckpt = work
    write_collection([Document("n", NOTES[0])], tmp_path / "plain", "text")
    args = ["detect-llm", "--llm-checkpoint", str(ckpt), "--in", str(tmp_path / "plain"), "--format", "text",
            "--schema", "i2b2-2014", "--out", str(tmp_path / "o"), "--llm-prompt", str(root / "prompt.txt"),
            "--threads", "1"]
    assert main(args) == 1
    assert "OTHER" in capsys.readouterr().err
    assert main(args + ["--llm-generic-label", "ID"]) == 0
    got = read_collection(tmp_path / "o", "brat", I2B2_2014)
    assert [(s.start, s.end, s.category) for s in got[0].spans] == [(a, b, "ID") for a, b in gold_of(NOTES[0], PHI[0])]
