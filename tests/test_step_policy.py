"""Which pack steps a trained model's own spans are spared from (pipeline.detection.step_policy):
sparing, learning it on dev, the recipe setting per locale, and a version that carries it."""
from __future__ import annotations

from pipeline.detection.combine import CombinePolicy
from pipeline.detection.step_policy import learn_spared_steps, run_stage
from pipeline.detection.steps.registry import StepContext, pack_for
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span

SAFE = "drop_safe_word_spans_en"
SIGNED = "Cont abx, f/u cultures.\n-cn\n"          # a nurse's initials closing a note
FOLEY = "Foley to gravity, UO 40cc/hr.\n"          # a device, never a name


def _span(text: str, word: str, type_: str = "DOCTOR", source: str = "model:v1") -> Span:
    start = text.index(word)
    return Span("d", start, start + len(word), "NAME", type_, source, 0.995)


def test_a_spared_step_gives_back_the_model_spans_it_dropped_but_not_rule_spans():
    pack = pack_for("en")
    ctx = StepContext(SIGNED, I2B2_2014, pack.words)
    model, rule = _span(SIGNED, "cn"), _span(SIGNED, "cn", source="rule:signature")
    assert run_stage(pack, "merged", [model], ctx) == []                    # the cold-start guard drops it
    assert run_stage(pack, "merged", [model], ctx, [SAFE]) == [model]
    assert run_stage(pack, "merged", [rule], ctx, [SAFE]) == run_stage(pack, "merged", [rule], ctx)
    unsure = model.with_(score=0.6)                                          # a guard yields only to a sure model
    assert run_stage(pack, "merged", [unsure], ctx, [SAFE]) == []
    other = StepContext(FOLEY, I2B2_2014, pack.words)
    assert run_stage(pack, "merged", [_span(FOLEY, "Foley", "PATIENT")], other) == []


def _dev(text: str, word: str, gold: bool, n: int = 12) -> tuple[list[Document], list[list[Span]]]:
    docs = [Document(f"d{k}", text, [_span(text, word).with_(doc_id=f"d{k}", source="gold")] if gold else [])
            for k in range(n)]
    return docs, [[_span(text, word).with_(doc_id=d.doc_id)] for d in docs]


def _learn(docs, model_spans, **kw) -> list[str]:
    pack = pack_for("en")
    ctx = [StepContext(d.text, I2B2_2014, pack.words) for d in docs]
    return learn_spared_steps(docs, model_spans, [[] for _ in docs], pack, ctx, CombinePolicy(words=pack.words), {},
                              **kw)


def test_dev_notes_where_the_guard_drops_gold_spare_it_and_notes_where_it_drops_errors_do_not():
    docs, spans = _dev(SIGNED, "cn", gold=True)
    assert _learn(docs, spans) == [SAFE]
    docs, spans = _dev(FOLEY, "Foley", gold=False)
    assert _learn(docs, spans) == []


def test_a_few_dev_notes_do_not_decide():
    docs, spans = _dev(SIGNED, "cn", gold=True, n=3)      # 6 PHI characters given back: under min_chars
    assert _learn(docs, spans) == []
    assert _learn(docs, spans, min_chars=4) == [SAFE]


def test_only_guards_can_be_spared_never_the_number_context_requirement():
    from pipeline.detection.step_policy import sparable

    assert sparable(pack_for("en")) == [SAFE]
    assert "drop_numbers_without_context" in pack_for("en").steps
    assert sparable(pack_for("es")) == []


def test_the_setting_follows_the_locale_and_the_starter_never_learns_it():
    import inspect

    from cli.commands import train_starter
    from models.train_config import TrainConfig

    assert TrainConfig(locale="en").learns_spared_steps() is True
    assert TrainConfig(locale="es").learns_spared_steps() is False
    assert TrainConfig(locale="en", learn_spared_steps=False).learns_spared_steps() is False
    assert "learn_spared_steps=False" in inspect.getsource(train_starter.run)


def test_an_english_version_records_what_it_learned_and_the_detector_uses_it(tmp_path):
    from models.trainer import TrainConfig, train_ensemble
    from pipeline.detection.detector import Detector
    from pipeline.synthetic import generate_corpus

    notes = generate_corpus(40, 5, variety="ward", part="train")
    cfg = TrainConfig(members=["crf"], locale="en", augment_copies=0, case_copies=0, refit_crf=False, threads=1)
    info = train_ensemble(notes, None, I2B2_2014, cfg, tmp_path)
    assert isinstance(info.spared_steps, list) and info.metrics["spared_steps"] == info.spared_steps
    det = Detector.load(info.path)
    assert det.spared_steps == tuple(info.spared_steps)
    det.ensemble.info.spared_steps = [SAFE, "drop_numbers_without_context"]     # a requirement is never spared
    assert det.spared_steps == (SAFE,)
    assert Detector.without_model(I2B2_2014, "en").spared_steps == ()
    es = TrainConfig(members=["crf"], locale="es")
    assert not es.learns_spared_steps()
