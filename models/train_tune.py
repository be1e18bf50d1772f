"""The tuning step of a training run: member weights, thresholds and dev metrics, from the
members' dev probabilities (no member is trained here).

:func:`tune_on_dev` picks the weights (:func:`member_weights`), averages the members as
detection does (:func:`dev_ensemble`), tunes per-type thresholds for the target recall, scores
the ensemble and every member on dev, and in hierarchical mode tunes the category member's
thresholds and scores the hierarchical join; with ``learn_type_policy`` it also learns how
rule and dictionary spans join the model's, per type.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from models.decode import average, decode, decode_many, thresholds_array, tune_thresholds
from models.ensemble import combine_members, label_vote_weights
from models.scoring import score
from models.train_config import CATEGORY_MEMBER, TrainConfig
from models.train_data import TrainData, commonest_types
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span


@dataclass
class DevTuning:
    """What tuning on dev decided, and the dev figures (``metrics``, as in ``metrics.json``)."""

    weights: dict[str, float]
    thresholds: dict[str, float]
    metrics: dict
    cat_thresholds: dict[str, float] = field(default_factory=dict)
    fallback: dict[str, str] = field(default_factory=dict)
    type_policy: dict[str, str] = field(default_factory=dict)
    spared_steps: list[str] = field(default_factory=list)
    muted_sources: list[str] = field(default_factory=list)


def tune_on_dev(cfg: TrainConfig, data: TrainData, crf_members: list[str], dev_probs: dict[str, list[np.ndarray]],
                member_meta: dict[str, dict]) -> DevTuning:
    """Weights, thresholds and dev metrics from every member's dev probabilities (``dev_probs``)
    and their costs (``member_meta``: seconds, cpu_seconds)."""
    weights = member_weights(cfg, crf_members, dev_probs, data.dev_f1_of)
    ens = dev_ensemble(cfg, data, weights, dev_probs)
    thresholds = tune_thresholds(ens, data.dev_words, data.dev_gold, data.index, cfg.target_recall,
                                 min_support=cfg.min_threshold_support, measure=cfg.threshold_measure)
    tuned = DevTuning(weights, thresholds, _dev_metrics(cfg, data, ens, thresholds, dev_probs, member_meta))
    if cfg.mode == "hierarchical":
        _tune_categories(tuned, cfg, data, ens, dev_probs[CATEGORY_MEMBER], member_meta[CATEGORY_MEMBER])
    if cfg.learn_type_policy:
        from pipeline.detection.merge_policy import learn_type_policy

        thr = thresholds_array(data.index, thresholds)
        model_spans = [[Span(d.doc_id, s, e, data.schema.category_of(t), t) for s, e, t in spans]
                       for d, spans in zip(data.dev_docs, decode_many(ens, data.dev_words, data.index, thr))]
        tuned.type_policy = learn_type_policy(data.dev_docs, model_spans, data.schema, cfg.locale)
    if cfg.learns_spared_steps():
        tuned.spared_steps, tuned.muted_sources = _ward_policy(cfg, data, ens, thresholds, tuned.type_policy)
        tuned.metrics["spared_steps"] = list(tuned.spared_steps)
        tuned.metrics["muted_sources"] = list(tuned.muted_sources)
    return tuned


def _ward_policy(cfg: TrainConfig, data: TrainData, ens: list[np.ndarray], thresholds: dict[str, float],
                 type_policy: dict[str, str]) -> tuple[list[str], list[str]]:
    """What the dev notes of the ward decide about the locale pack, with the full detector: the
    steps the model's own spans are spared from (:func:`pipeline.detection.step_policy.learn_on_dev`),
    then the rule and dictionary sources it leaves out
    (:func:`pipeline.detection.source_policy.learn_on_dev`)."""
    from pipeline.detection import source_policy, step_policy

    thr = thresholds_array(data.index, thresholds)
    model_spans = [[Span(d.doc_id, s, e, data.schema.category_of(t), t, step_policy.MODEL_SOURCE, round(float(sc), 4))
                    for s, e, t, sc in decode(p, w, data.index, thr)]
                   for d, p, w in zip(data.dev_docs, ens, data.dev_words)]
    spared = step_policy.learn_on_dev(data.dev_docs, model_spans, data.schema, cfg.locale, type_policy)
    muted = source_policy.learn_on_dev(data.dev_docs, model_spans, data.schema, cfg.locale, type_policy, spared)
    return spared, muted


def member_weights(cfg: TrainConfig, crf_members: list[str], dev_probs: dict[str, list[np.ndarray]],
                   f1_of: Callable[[list[np.ndarray]], float]) -> dict[str, float]:
    """The configured weights (1 for a member not named), or, with encoders beside the CRFs and
    no weights given, the ones that maximise dev F1 (:func:`_tune_weights`)."""
    weights = {m: float(cfg.weights.get(m, 1.0)) for m in cfg.members}
    if cfg.tune_weights and crf_members and len(crf_members) < len(cfg.members) and not cfg.weights:
        weights = _tune_weights(cfg.members, crf_members, weights, dev_probs, f1_of)
    return weights


def dev_ensemble(cfg: TrainConfig, data: TrainData, weights: dict[str, float],
                 dev_probs: dict[str, list[np.ndarray]]) -> list[np.ndarray]:
    """The members' dev probabilities joined as detection joins them."""
    if cfg.category_members:
        # as detection does it: the members with weight above zero vote, per category those listed
        voters = [m for m in cfg.members if weights[m] > 0] or list(cfg.members)
        vw = [weights[m] or 1.0 for m in voters]
        return combine_members(dev_probs, voters, vw, len(data.dev_items),
                               label_vote_weights(voters, vw, data.labels, data.schema, cfg.category_members))
    return combine_members(dev_probs, cfg.members, [weights[m] for m in cfg.members], len(data.dev_items))


def _dev_metrics(cfg: TrainConfig, data: TrainData, ens: list[np.ndarray], thresholds: dict[str, float],
                 dev_probs: dict[str, list[np.ndarray]], member_meta: dict[str, dict]) -> dict:
    """Strict dev scores of the ensemble (with its thresholds and at 0.5) and of every member;
    beside the ensemble's, its character-level precision and recall and its document recall
    (:mod:`pipeline.metrics.characters`: what a lead reads as "how much PHI would leak")."""
    from pipeline.metrics.characters import corpus_counts

    words, gold, index = data.dev_words, data.dev_gold, data.index
    found = decode_many(ens, words, index, thresholds_array(index, thresholds))
    metrics = {
        "ensemble": score(found, gold).to_json(),
        "ensemble@0.5": score(decode_many(ens, words, index), gold).to_json(),
    }
    metrics["ensemble"]["characters"] = corpus_counts([d.text for d in data.dev_docs], found, gold).summary()
    for m in cfg.members:
        metrics[m] = score(decode_many(dev_probs[m], words, index), gold).to_json()
        metrics[m]["seconds"] = member_meta[m]["seconds"]
        metrics[m]["cpu_seconds"] = member_meta[m]["cpu_seconds"]
    return metrics


def _tune_categories(tuned: DevTuning, cfg: TrainConfig, data: TrainData, ens: list[np.ndarray],
                     cat_probs: list[np.ndarray], cat_meta: dict) -> None:
    """The category member's thresholds and dev scores, and the hierarchical join's, into ``tuned``."""
    words, cat_index = data.dev_words, data.cat_index
    tuned.cat_thresholds = tune_thresholds(cat_probs, words, data.dev_cat_gold, cat_index, cfg.target_recall,
                                           min_support=cfg.min_threshold_support, measure=cfg.threshold_measure)
    tuned.fallback = commonest_types(data.train_docs, data.schema)
    metrics = tuned.metrics
    metrics[CATEGORY_MEMBER] = score(decode_many(cat_probs, words, cat_index), data.dev_cat_gold).to_json()
    metrics[CATEGORY_MEMBER].update(cat_meta, level="category")
    # with scores, as detection decodes them (a joined span keeps the weaker score)
    thr = thresholds_array(data.index, tuned.thresholds)
    cat_thr = thresholds_array(cat_index, tuned.cat_thresholds)
    typed = [decode(p, w, data.index, thr) for p, w in zip(ens, words)]
    cats = [decode(p, w, cat_index, cat_thr) for p, w in zip(cat_probs, words)]
    metrics["hierarchical"] = _hierarchical_dev(data.dev_docs, typed, cats, data.schema, tuned.fallback,
                                                data.dev_gold)


def _hierarchical_dev(dev_docs: list[Document], typed, cats, schema: LabelSchema, fallback: dict[str, str],
                      dev_gold) -> dict:
    """Strict dev metrics of the hierarchical join, and how many spans ended each way."""
    from pipeline.detection.hierarchy import combine_hierarchical

    outcomes: Counter = Counter()
    pred = []
    for d, ts, cs in zip(dev_docs, typed, cats):
        r = combine_hierarchical([Span(d.doc_id, s, e, c, "", "model", sc) for s, e, c, sc in cs],
                                 [Span(d.doc_id, s, e, schema.category_of(t), t, "model", sc) for s, e, t, sc in ts],
                                 schema, fallback_types=fallback)
        outcomes.update(r.counts)
        outcomes["flagged"] += len(r.flagged)
        pred.append([(s.start, s.end, s.type) for s in r.spans])
    out = score(pred, dev_gold).to_json()
    out["outcomes"] = dict(outcomes)
    return out


def _tune_weights(members: list[str], crf_members: list[str], weights: dict[str, float],
                  dev_probs: dict[str, list[np.ndarray]], f1_of: Callable[[list[np.ndarray]], float]) -> dict[str, float]:
    """Member weights that maximise dev F1: each CRF at 1, the encoders at one shared weight from
    {1, 1/2, 1/4, 1/8, 0}. On a few hundred notes the CRFs are the strongest members; an encoder
    trained from scratch may add nothing, and then the data says so (weight 0: not even run)."""
    best, best_f1 = dict(weights), -1.0
    n = len(dev_probs[members[0]])
    for we in (1.0, 0.5, 0.25, 0.125, 0.0):
        ws = {m: (1.0 if m in crf_members else we * weights[m]) for m in members}
        probs = [average([dev_probs[m][i] for m in members], [ws[m] for m in members]) for i in range(n)]
        f1 = f1_of(probs)
        if f1 > best_f1 + 1e-9:
            best, best_f1 = ws, f1
    return best
