"""A training run's data, prepared once: labels, tokenised notes, BIO tags, dev gold, copies.

Why one dataclass: every step of :func:`models.trainer.train_ensemble` (the CRF fits, the
encoders, the dev tuning) reads the same tokenised notes and tags; built here once by
:func:`prepare_data`, they travel as one value instead of a dozen closure variables, and a step
can be tested alone on a :class:`TrainData` made from a few notes.

Surrogate copies (:class:`Augmented`) of the training notes, and of the dev notes for the CRFs'
refit on train + dev, let the members see each context with other names, streets, ids and dates.
Thresholds, weights and dev figures only ever see the real dev notes.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from models.decode import LabelIndex, decode_many
from models.scoring import score
from models.train_config import TrainConfig
from models.words import Words, bio_labels, spans_to_bio, tokenize
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

Items = list[tuple[str, Words]]


def gold(doc: Document, schema: LabelSchema) -> list[tuple[int, int, str]]:
    """The gold spans of the schema's types, as ``(start, end, type)``."""
    out = []
    for s in doc.spans:
        t = s.type or s.category
        if t in schema.types:
            out.append((s.start, s.end, t))
    return out


def gold_categories(doc: Document, schema: LabelSchema) -> list[tuple[int, int, str]]:
    """The gold spans as coarse categories (what the category member learns)."""
    return [(s, e, schema.category_of(t)) for s, e, t in gold(doc, schema)]


def commonest_types(docs: list[Document], schema: LabelSchema) -> dict[str, str]:
    """Per category its commonest gold type: what a category-model span becomes when the type
    model found nothing there and the category has no "other" type."""
    counts: dict[str, Counter] = {}
    for d in docs:
        for _, _, t in gold(d, schema):
            counts.setdefault(schema.category_of(t), Counter())[t] += 1
    return {c: n.most_common(1)[0][0] for c, n in counts.items()}


def detection_views(docs: list[Document], locale: str) -> list[Document]:
    """The notes as detection reads them: the locale pack's detection view (English reads exported
    characters as plain ones and a hard-wrapped note's wrap breaks as blanks,
    :func:`pipeline.locales.en.detection_text`), so a model learns the text it will be given; the
    same length, so the gold spans stand.

    >>> d = Document("n1", "Seen overnight by the covering resident, Dr. Ana Lopez, who spoke with\\n"
    ...              "the family about goals of care. Wife updated at 0600 and plans to come\\n"
    ...              "in this afternoon with their son to meet the attending, Dr. Okafor.\\n"
    ...              "overall plan is to keep current drips and reassess after rounds today.")
    >>> "\\n" in detection_views([d], "en")[0].text, detection_views([d], "es")[0] is d
    (False, True)
    """
    from pipeline.detection.steps.registry import pack_for

    pack = pack_for(locale)
    out = []
    for d in docs:
        view = pack.text_for_detection(d.text)
        out.append(d if view == d.text else replace(d, text=view))
    return out


def _items(docs: list[Document]) -> Items:
    return [(d.text, tokenize(d.text)) for d in docs]


@dataclass
class Augmented:
    """Surrogate copies of the training notes (and of the dev notes, for the CRFs' refit)."""

    train_docs: list[Document] = field(default_factory=list)
    train_items: Items = field(default_factory=list)
    train_tags: list[list[str]] = field(default_factory=list)
    dev_docs: list[Document] = field(default_factory=list)
    dev_items: Items = field(default_factory=list)
    dev_tags: list[list[str]] = field(default_factory=list)
    meta: dict = field(default_factory=dict)      # metrics["augment"] ({} when no copies were made)


@dataclass
class TrainData:
    """What the members learn from and are tuned on (see the module docstring)."""

    schema: LabelSchema
    labels: list[str]
    index: LabelIndex
    train_docs: list[Document]
    dev_docs: list[Document]
    train_items: Items
    train_tags: list[list[str]]
    dev_items: Items
    dev_words: list[Words]
    dev_gold: list[list[tuple[int, int, str]]]
    aug: Augmented = field(default_factory=Augmented)
    crf_aug: bool = False                  # the CRF members learn from the copies too
    # the hierarchical mode's category member: its own labels, tags (in step with the CRFs'
    # items: training notes, then their copies) and dev gold; empty in flat mode
    cat_labels: list[str] = field(default_factory=list)
    cat_index: LabelIndex | None = None
    cat_train_tags: list[list[str]] = field(default_factory=list)
    dev_cat_gold: list[list[tuple[int, int, str]]] = field(default_factory=list)

    def bio_of(self, docs: list[Document], items: Items) -> list[list[str]]:
        return [spans_to_bio(w, [Span(d.doc_id, s, e, "X", t) for s, e, t in gold(d, self.schema)], self.labels)
                for d, (_, w) in zip(docs, items)]

    def cat_bio_of(self, docs: list[Document], items: Items) -> list[list[str]]:
        return [spans_to_bio(w, [Span(d.doc_id, s, e, c) for s, e, c in gold_categories(d, self.schema)],
                             self.cat_labels)
                for d, (_, w) in zip(docs, items)]

    def dev_f1_of(self, probs: list[np.ndarray]) -> float:
        """Strict dev F1 of type-level probabilities decoded without thresholds."""
        return score(decode_many(probs, self.dev_words, self.index), self.dev_gold).f1

    def category_dev_f1_of(self, probs: list[np.ndarray]) -> float:
        """The same for the category member's probabilities, against the dev categories."""
        return score(decode_many(probs, self.dev_words, self.cat_index), self.dev_cat_gold).f1


def prepare_data(train_docs: list[Document], dev_docs: list[Document], schema: LabelSchema,
                 cfg: TrainConfig) -> TrainData:
    """Labels of the types the training notes have, the notes tokenised and tagged, the surrogate
    copies (``cfg.augment_copies``) and, in hierarchical mode, the category member's data."""
    present = {t for d in train_docs for _, _, t in gold(d, schema)}
    types = [t for t in schema.types if t in present]
    if not types:
        raise ValueError("the training documents have no spans of the schema's types")
    labels = bio_labels(types)
    train_items, dev_items = _items(train_docs), _items(dev_docs)
    data = TrainData(schema=schema, labels=labels, index=LabelIndex.of(labels), train_docs=train_docs,
                     dev_docs=dev_docs, train_items=train_items, train_tags=[], dev_items=dev_items,
                     dev_words=[w for _, w in dev_items], dev_gold=[gold(d, schema) for d in dev_docs])
    data.train_tags = data.bio_of(train_docs, train_items)
    if cfg.augment_copies or cfg.case_copy_count() or cfg.phi_window_count():
        data.aug = _augment(data, cfg)
    data.crf_aug = cfg.augment_crf and bool(data.aug.train_items)
    if cfg.mode == "hierarchical":
        _add_categories(data)
    return data


def _augment(data: TrainData, cfg: TrainConfig) -> Augmented:
    """``cfg.augment_copies`` surrogate copies of every training note, and of every dev note
    when the CRFs learn from copies and are refitted on train + dev; then their case copies
    (:func:`pipeline.deid.augment.case_copies`), then PHI windows of the notes and their copies
    (:func:`models.phi_windows.phi_windows`)."""
    from models.phi_windows import phi_windows
    from pipeline.deid.augment import case_copies, surrogate_copies

    n_case, n_win = cfg.case_copy_count(), cfg.phi_window_count()
    made = surrogate_copies(data.train_docs, cfg.augment_copies, locale=cfg.locale, seed=cfg.seed)
    train_cased = case_copies(made.documents or [d for d in data.train_docs if d.spans], n_case)
    windows = phi_windows(data.train_docs + made.documents + train_cased, n_win)
    aug = Augmented(train_docs=made.documents + train_cased + windows)
    aug.train_items = _items(aug.train_docs)
    aug.train_tags = data.bio_of(aug.train_docs, aug.train_items)
    aug.meta = {"copies": cfg.augment_copies, "documents": len(aug.train_docs), "skipped": made.skipped,
                "crf": cfg.augment_crf, "case_copies": n_case, **({"phi_windows": n_win} if n_win else {})}
    if cfg.augment_crf and cfg.refit_crf:
        made_dev = surrogate_copies(data.dev_docs, cfg.augment_copies, locale=cfg.locale, seed=cfg.seed)
        dev_base = made_dev.documents or [d for d in data.dev_docs if d.spans]
        dev_cased = case_copies(dev_base, n_case)
        aug.dev_docs = made_dev.documents + dev_cased + phi_windows(data.dev_docs + made_dev.documents + dev_cased, n_win)
        aug.dev_items = _items(aug.dev_docs)
        aug.dev_tags = data.bio_of(aug.dev_docs, aug.dev_items)
    return aug


def _add_categories(data: TrainData) -> None:
    """The category member's labels (the categories the training notes have), its training tags
    (the copies' too when the CRFs learn from them) and the dev notes' gold categories."""
    schema = data.schema
    cats_present = {c for d in data.train_docs for _, _, c in gold_categories(d, schema)}
    data.cat_labels = bio_labels([c for c in schema.categories if c in cats_present])
    data.cat_train_tags = data.cat_bio_of(data.train_docs, data.train_items) + (
        data.cat_bio_of(data.aug.train_docs, data.aug.train_items) if data.crf_aug else [])
    data.cat_index = LabelIndex.of(data.cat_labels)
    data.dev_cat_gold = [gold_categories(d, schema) for d in data.dev_docs]
