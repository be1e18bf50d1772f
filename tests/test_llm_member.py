"""The generative rewriting member (models.llm_member) and its vote (models.llm_vote, llm_ensemble).

Two stand-ins for a real LLM, neither downloaded: a deterministic rewriting stub (replaces known
strings, can stop at a word limit like a token limit), and a tiny GPT-2 built in the test
(``models.tiny_causal_lm``: a one-layer, 32-wide model with a byte-level BPE trained on the
test's own text, saved to tmp_path and loaded back with ``local_files_only``), trained to
reproduce the rewrites of two invented notes so that real generation -> alignment -> spans has
known answers. No note text is printed.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from models.decode import LabelIndex, decode
from models.ensemble import Ensemble
from models.llm_ensemble import LLMEnsemble
from models.llm_member import (Generation, LLMConfig, LLMMember, Placed, checkpoint_fingerprint, chunk_ranges,
                               spans_to_probs)
from models.llm_vote import average_with_llm, reweight_types
from models.tiny_causal_lm import build_tiny_checkpoint
from models.version import ModelVersionInfo
from models.words import bio_labels, tokenize
from pipeline.schemas import I2B2_2014, MEDDOCAN

from llm_helpers import NOTES, PHI, SHORT_PROMPT, gold_of, memorized_checkpoint, replace_known

LABELS = bio_labels(MEDDOCAN.types)


def stub_member(config: LLMConfig | None = None, *, word_limit: int | None = None, calls: list | None = None,
                labels=LABELS, schema=MEDDOCAN) -> LLMMember:
    def rewriter(chunks: list[str]) -> list[Generation]:
        if calls is not None:
            calls.append(list(chunks))
        out = []
        for c in chunks:
            rw = replace_known(c)
            words = re.findall(r"\S+\s*", rw)
            if word_limit is not None and len(words) > word_limit:
                out.append(Generation("".join(words[:word_limit]), truncated=True, new_tokens=word_limit))
            else:
                out.append(Generation(rw, new_tokens=len(words)))
        return out

    return LLMMember("llm", labels, schema, config or LLMConfig(), rewriter=rewriter)


# ------------------------------------------------------------------------------- chunking
def _count(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def test_chunks_cover_the_note_on_line_then_sentence_then_word_boundaries():
    text = ("Línea uno corta.\nOtra línea algo más larga que la primera.\n"
            "Una frase. Otra frase con varias palabras más. Y una tercera frase final.\n"
            + " ".join(["palabra"] * 30) + "\n\nFin.")
    for limit in (3, 5, 8, 40):
        ranges = chunk_ranges(text, _count, limit)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(text)
        assert all(a < b for a, b in ranges) and all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:]))
        for a, b in ranges:
            assert _count([text[a:b]])[0] <= limit or len(text[a:b].split()) == 1
    # lines that fit are never cut: with every line under the limit, chunks start at line starts
    short = text[:text.index("palabra palabra")]
    ranges = chunk_ranges(short, _count, 14)
    assert len(ranges) > 1 and all(short[a - 1] == "\n" for a, _ in ranges[1:])
    # a line over the limit is cut after a sentence end before it is cut between words
    ranges = chunk_ranges(short, _count, 8)
    assert any(short[a - 2:a] == ". " for a, _ in ranges[1:])
    assert chunk_ranges("", _count, 5) == []


# -------------------------------------------------------------------------- probabilities
def test_spans_become_the_token_distribution_every_member_gives():
    text = NOTES[0]
    words = tokenize(text)
    (a, b), (c, d) = gold_of(text, ["Lucía Ferrer Soto", "67"])
    placed = [Placed(a, b, "", 1.0), Placed(c, d, "AGE", 0.8)]
    p = spans_to_probs(placed, words, LABELS, MEDDOCAN, confidence=0.9)
    assert p.shape == (len(words), len(LABELS)) and p.dtype == np.float32
    assert np.allclose(p.sum(axis=1), 1.0)
    inside = [k for k in range(len(words)) if a <= words.starts[k] < b]
    outside = [k for k in range(len(words)) if not any(x <= words.starts[k] < y for x, y in ((a, b), (c, d)))]
    assert np.all(p[outside, 0] == 1.0)
    n_types = len(MEDDOCAN.types)
    # untyped: evenly over every type, B on the first token, I after
    assert np.allclose(p[inside[0], 1::2], 0.9 / n_types) and np.all(p[inside[0], 2::2] == 0)
    assert np.allclose(p[inside[1], 2::2], 0.9 / n_types) and np.all(p[inside[1], 1::2] == 0)
    # typed AGE: all its mass on the one AGE type, scaled by the span's score
    age = [k for k in range(len(words)) if c <= words.starts[k] < d][0]
    col = LABELS.index("B-EDAD_SUJETO_ASISTENCIA")
    assert p[age, col] == pytest.approx(0.72) and p[age, 0] == pytest.approx(0.28)
    # decoded alone at a low threshold the spans come back with their offsets
    index = LabelIndex.of(LABELS)
    got = {(s, e) for s, e, _, _ in decode(p, words, index, np.full(len(index.types), 0.05))}
    assert got == {(a, b), (c, d)}


def test_the_llm_votes_phi_and_the_other_members_choose_the_type():
    text = NOTES[0]
    words = tokenize(text)
    (a, b), = gold_of(text, ["Tomás Ibarra"])
    toks = [k for k in range(len(words)) if a <= words.starts[k] < b]
    other = np.zeros((len(words), len(LABELS)), dtype=np.float32)
    other[:, 0] = 1.0
    doc_b, doc_i = LABELS.index("B-NOMBRE_PERSONAL_SANITARIO"), LABELS.index("I-NOMBRE_PERSONAL_SANITARIO")
    other[toks, 0] = 0.75                              # the other member leans O: it alone finds nothing
    other[toks[0], doc_b] = 0.25
    other[toks[1:], doc_i] = 0.25
    llm = spans_to_probs([Placed(a, b, "", 1.0)], words, LABELS, MEDDOCAN, confidence=0.95)
    moved = reweight_types(llm, other)
    assert np.allclose(moved.sum(axis=1), 1.0) and np.allclose(moved[:, 0], llm[:, 0])
    assert moved[toks[0], doc_b] == pytest.approx(0.95) and moved[toks[1], doc_i] == pytest.approx(0.95)
    index = LabelIndex.of(LABELS)
    alone = decode(other, words, index)
    plain = decode(average_with_llm({"crf": [other], "llm": [llm]}, {}, [])[0], words, index)
    voted = decode(average_with_llm({"crf": [other], "llm": [llm]}, {}, ["llm"])[0], words, index)
    assert alone == [] and plain == []                # spread evenly, the vote moves nothing
    assert [(s, e, t) for s, e, t, _ in voted] == [(a, b, "NOMBRE_PERSONAL_SANITARIO")]
    # weights as the ensemble reads them: 0 leaves a member out; without an LLM, the plain average
    per = {"crf": [other], "llm": [llm]}
    assert np.allclose(average_with_llm(per, {"llm": 0.0}, ["llm"])[0], other)
    assert np.allclose(average_with_llm(per, {"crf": 2.0}, [])[0], (2 * other + llm) / 3)


# ------------------------------------------------------------------------- the stub member
def test_stub_member_finds_the_spans_across_chunks_with_note_offsets():
    calls: list = []
    m = stub_member(LLMConfig(max_chunk_tokens=4), calls=calls)
    spans = m.predict_spans(NOTES, ["d0", "d1"])
    for text, phrases, got in zip(NOTES, PHI, spans):
        assert [(s.start, s.end) for s in got] == gold_of(text, phrases)
        assert all(s.source == "llm:llm" and (s.category, s.type) == ("OTHER", "") for s in got)
    assert len(calls[0]) > 2 and m.stats["chunks"] == len(calls[0])
    assert all(c == c.strip() and c for c in calls[0])        # whitespace-only chunks are not sent


def test_output_cut_at_the_token_limit_is_continued_from_where_it_stopped():
    text = NOTES[0] + NOTES[1]
    calls: list = []
    m = stub_member(LLMConfig(max_chunk_tokens=200, continuations=5), word_limit=4, calls=calls)
    note = m.rewrite_notes([text])[0]
    assert [(p.start, p.end) for p in note.placed] == gold_of(text, PHI[0] + PHI[1])
    assert note.truncated >= 2 and note.continuations >= 2 and len(calls) == note.chunks
    # with no continuation allowed the first rewrite's spans are all there is
    m0 = stub_member(LLMConfig(max_chunk_tokens=200, continuations=0), word_limit=4)
    first = m0.rewrite_notes([text])[0]
    assert 0 < len(first.placed) < len(PHI[0] + PHI[1])


def test_prompt_keeps_braces_of_the_note_and_shows_typed_placeholders():
    m = stub_member(LLMConfig(prompt=SHORT_PROMPT))
    assert m.prompt("a {b} {text} c") == "Replace PHI with [PHI]:\na {b} {text} c\n### Rewritten\n"
    typed = stub_member(LLMConfig(prompt=SHORT_PROMPT, placeholder="[{label}]"))
    assert "[NAME]" in typed.prompt("x") and "[LOCATION]" in typed.prompt("x")
    with pytest.raises(ValueError):
        LLMConfig(prompt="no text slot").check()
    with pytest.raises(ValueError):
        stub_member(LLMConfig(chat_template="sometimes"))


def test_untyped_spans_in_a_schema_without_other_need_a_generic_label():
    labels = bio_labels(I2B2_2014.types)
    from pipeline.schemas import SchemaError
    with pytest.raises(SchemaError):
        stub_member(labels=labels, schema=I2B2_2014).predict_spans(NOTES[:1], ["d0"])
    spans = stub_member(LLMConfig(generic_label="ID"), labels=labels, schema=I2B2_2014).predict_spans(NOTES[:1], ["d"])
    assert spans[0] and {(s.category, s.type) for s in spans[0]} == {("ID", "")}


# ---------------------------------------------------------------------- the tiny real model
@pytest.fixture(scope="module")
def tiny_ckpt(tmp_path_factory) -> Path:
    """A tiny GPT-2 that learned the two notes' rewrites (with the short prompt)."""
    m = stub_member(LLMConfig(prompt=SHORT_PROMPT))
    return memorized_checkpoint(tmp_path_factory.mktemp("tiny-llm") / "ckpt", m.prompt)


def tiny_config(ckpt: Path, **over) -> LLMConfig:
    return LLMConfig(checkpoint=str(ckpt), prompt=SHORT_PROMPT, max_chunk_tokens=200, **over)


def test_tiny_causal_lm_runs_end_to_end_from_a_local_folder(tiny_ckpt):
    assert (tiny_ckpt / "config.json").is_file() and (tiny_ckpt / "tokenizer.json").is_file()
    m = LLMMember.from_checkpoint("tiny", LABELS, MEDDOCAN, tiny_config(tiny_ckpt))
    assert m.context_tokens == 256 and 8 <= m.chunk_limit() <= 200
    notes = m.rewrite_notes(NOTES)
    for text, phrases, note in zip(NOTES, PHI, notes):
        assert note.truncated == 0 and note.chunks == 1 and note.new_tokens > 0
        assert [(p.start, p.end) for p in note.placed] == gold_of(text, phrases)
        assert all(p.score == 1.0 for p in note.placed)
    probs = m.predict_proba([(t, tokenize(t)) for t in NOTES])
    assert [p.shape for p in probs] == [(len(tokenize(t)), len(LABELS)) for t in NOTES]


def test_untrained_tiny_model_writes_noise_within_its_token_budget(tmp_path):
    ckpt = build_tiny_checkpoint(tmp_path / "noise", NOTES, n_positions=128)
    m = LLMMember.from_checkpoint("noise", LABELS, MEDDOCAN, tiny_config(ckpt, max_new_tokens=16, batch_size=2,
                                                                         continuations=1))
    notes = m.rewrite_notes(NOTES)
    assert all(n.new_tokens <= 16 * n.chunks for n in notes)
    assert m.stats["chunks"] == sum(n.chunks for n in notes) >= len(NOTES)
    for text, n in zip(NOTES, notes):
        assert all(0 <= p.start < p.end <= len(text) for p in n.placed)


def test_member_json_records_the_checkpoint_without_copying_it(tiny_ckpt, tmp_path):
    m = LLMMember.from_checkpoint("llm", LABELS, MEDDOCAN, tiny_config(tiny_ckpt))
    m.save(tmp_path / "members" / "llm")
    files = sorted(p.name for p in (tmp_path / "members" / "llm").iterdir())
    assert files == ["member.json"]
    meta = json.loads((tmp_path / "members" / "llm" / "member.json").read_text(encoding="utf-8"))
    assert meta["kind"] == "llm" and meta["labels"] == LABELS
    assert meta["config"]["checkpoint"] == str(tiny_ckpt.resolve()) and meta["config"]["placeholder"] == "[PHI]"
    assert meta["config"]["prompt"] == SHORT_PROMPT
    assert meta["checkpoint_fingerprint"] == checkpoint_fingerprint(tiny_ckpt)
    again = LLMMember.load(tmp_path / "members" / "llm")
    assert [[(s.start, s.end) for s in x] for x in again.predict_spans(NOTES, ["a", "b"])] == \
        [gold_of(t, p) for t, p in zip(NOTES, PHI)]
    meta["checkpoint_fingerprint"] = "0" * 16         # the folder now holds another model
    (tmp_path / "members" / "llm" / "member.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match="not the one"):
        LLMMember.load(tmp_path / "members" / "llm")


def test_a_missing_checkpoint_is_a_one_line_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        LLMMember.from_checkpoint("llm", LABELS, MEDDOCAN, LLMConfig(checkpoint=str(tmp_path / "nowhere")))


class _Leaning:
    """A stand-in member that leans towards the right type at the PHI tokens but stays under 0.5."""

    kind = "fake"

    def predict_proba(self, items):
        out = []
        for (text, words), phrases in zip(items, PHI):
            p = np.zeros((len(words), len(LABELS)), dtype=np.float32)
            p[:, 0] = 1.0
            for a, b in gold_of(text, phrases):
                toks = [k for k in range(len(words)) if a <= words.starts[k] < b]
                p[toks, 0] = 0.7
                p[toks[0], LABELS.index("B-FECHAS")] = 0.3
                p[toks[1:], LABELS.index("I-FECHAS")] = 0.3
            out.append(p)
        return out


def test_the_tiny_model_votes_inside_an_ensemble(tiny_ckpt):
    info = ModelVersionInfo(name="t", path="", created="", schema_name="meddocan", locale="es", labels=LABELS,
                            members=["lean"], weights={"lean": 1.0}, thresholds={}, target_recall=0.99)
    base = Ensemble(info, MEDDOCAN, {"lean": _Leaning()})
    assert base.predict(NOTES, ["a", "b"]) == [[], []]
    llm = LLMMember.from_checkpoint("llm", LABELS, MEDDOCAN, tiny_config(tiny_ckpt))
    ens = LLMEnsemble.adding(base, llm, weight=1.0)
    assert ens.info.members == ["lean", "llm"] and base.info.members == ["lean"]
    got = ens.predict(NOTES, ["a", "b"])
    for text, phrases, spans in zip(NOTES, PHI, got):
        assert [(s.start, s.end) for s in spans] == gold_of(text, phrases)
        assert {s.type for s in spans} == {"FECHAS"} and {s.source for s in spans} == {"model:t"}
    with pytest.raises(ValueError):
        LLMEnsemble.adding(ens, llm)
