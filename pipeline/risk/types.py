"""The types risk scoring meets its callers with: de-identified documents in, reports out.

:class:`DeidDocument` is deliberately independent of the store and of :mod:`pipeline.deid`: the
CLI builds it from plain folders, the app from a de-identification run. Reports carry only
offsets, categories, numbers and (for quasi-identifiers) the generalised tuple, so they can be
stored and shown to reviewers; messages never quote document text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.risk.uniqueness import METHODS
from pipeline.spans import SpanError

GREEN, AMBER, RED = "green", "amber", "red"
COLOURS = (GREEN, AMBER, RED)
DIRECT_CATEGORIES = ("NAME", "ID", "CONTACT")
#: what a reason does to the colour: ``red`` and ``amber`` set it (the highest wins), ``info``
#: is shown to the reviewer and changes nothing
INFO = "info"
LEVELS = (INFO, AMBER, RED)

# Reason kinds (each reason also says its level).
UNIQUE_CONTEXT = "unique_context"              # info: contexts found in no other document
QUASI_IDENTIFIER = "quasi_identifier"          # kept facts whose combination few people share
KEEP = "keep"                                  # a span kept as written (red for a direct identifier)
UNREVIEWED_LOW_CONFIDENCE = "unreviewed_low_confidence"   # info: a replaced span the model was unsure of
POSSIBLE_MISSED_PHI = "possible_missed_phi"    # text outside every span that a detector reads as PHI
PHI_LIKE_TEXT = "phi_like_text"                # text outside every span shaped like PHI (e-mail, long number)
#: a second opinion learned from at least this many gold notes takes over the model's weakest evidence
TRUSTED_OPINION_NOTES = 100
#: the sources of the second opinion's candidates (:mod:`pipeline.risk.gold_evidence`)
GOLD_CLASSIFIER = "gold:classifier"            # a word classifier trained on the project's gold
GOLD_MEMORY = "gold:memory"                    # how often the project's annotators marked the word
#: no longer produced (a replaced span is not a risk); kept so stored reasons still read in words
MACHINE_ONLY_DIRECT = "machine_only_direct_identifier"

#: categories in a reviewer's words
CATEGORY_WORDS = {"NAME": "a name", "DATE": "a date", "AGE": "an age", "LOCATION": "a place or address",
                  "CONTACT": "a phone number, e-mail or web address", "ID": "an identifying number",
                  "PROFESSION": "a profession", "OTHER": "other identifying information"}


def category_words(category: str) -> str:
    return CATEGORY_WORDS.get(category.upper(), f"{category.lower() or 'identifying'} information")

#: The quasi-identifier fields :mod:`pipeline.risk.quasi` can derive from a document.
QI_FIELDS = ("age_band", "location", "profession", "year", "sex")


@dataclass(frozen=True)
class DeidSpan:
    """One entity of a de-identified document, with offsets into the *de-identified* text.

    ``action`` is what de-identification did (``redact``, ``replace``, ``shift``, ``keep``, or
    ``none`` for a detection that was not applied). ``score`` is the detector's confidence
    (1.0 for humans). ``reviewed`` says a human confirmed or corrected it. ``value`` is an
    optional value for quasi-identifier derivation (the original value where the caller is
    allowed to use it); without it the surface in the de-identified text is used, which is what
    a reader of the released document sees.
    """

    start: int
    end: int
    category: str
    type: str = ""
    action: str = "replace"
    score: float = 1.0
    reviewed: bool = False
    source: str = ""
    value: str | None = None

    @property
    def label(self) -> str:
        return self.type or self.category

    @property
    def human(self) -> bool:
        return self.reviewed or self.source.startswith("human:")


@dataclass
class DeidDocument:
    """A de-identified document: its released text, its entities and who has looked at it."""

    doc_id: str
    text: str
    spans: list[DeidSpan] = field(default_factory=list)
    human_seen: bool = False
    patient_id: str | None = None
    #: what a detector read as PHI in the *released* text, outside the spans (``action="none"``,
    #: ``score`` its probability, ``source`` who saw it); given by the caller, which has the model
    candidates: list[DeidSpan] = field(default_factory=list)

    def check(self) -> None:
        """Raise :class:`SpanError` (doc id and offsets only) for a span outside the text."""
        n = len(self.text)
        for s in [*self.spans, *self.candidates]:
            if not (0 <= s.start < s.end <= n):
                raise SpanError(f"{self.doc_id}: span {s.start}-{s.end} ({s.label}) lies outside the text (length {n})")
            if not s.category:
                raise SpanError(f"{self.doc_id}: span {s.start}-{s.end} has no category")


@dataclass(frozen=True)
class Reason:
    """Something a reviewer can act on: which entity, which context, which tuple, and why.

    ``message`` names offsets, categories and numbers only (safe to log). The quasi-identifier
    tuple lives in ``quasi_identifiers`` (generalised values: age band, city, year, ...).
    """

    kind: str
    message: str
    start: int | None = None
    end: int | None = None
    category: str = ""
    type: str = ""
    context_start: int | None = None
    context_end: int | None = None
    similarity: float | None = None
    quasi_identifiers: dict[str, str] | None = None
    k: int | None = None
    level: str = INFO
    strength: float | None = None      # 0-1: how strongly it points to PHI left (orders the queue)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "message": self.message, "level": self.level}
        for name in ("start", "end", "context_start", "context_end", "similarity", "k", "strength"):
            v = getattr(self, name)
            if v is not None:
                d[name] = v
        if self.category:
            d["category"] = self.category
        if self.type:
            d["type"] = self.type
        if self.quasi_identifiers is not None:
            d["quasi_identifiers"] = dict(self.quasi_identifiers)
        return d


@dataclass
class RiskReport:
    """Per-document result. ``colour`` is the highest level among the reasons (green when none
    is red or amber); ``score`` (0-100) is the strongest evidence of PHI left, which orders
    documents within a colour; ``scores`` holds the context-uniqueness scores of both methods
    and ``context_colour`` their band (shown, not deciding)."""

    doc_id: str
    score: float
    colour: str
    reasons: list[Reason]
    method: str = "document-share"
    context_colour: str = GREEN
    scores: dict[str, float] = field(default_factory=dict)
    n_contexts: int = 0
    n_unique: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.doc_id, "score": round(self.score, 4), "colour": self.colour,
            "context_colour": self.context_colour, "method": self.method,
            "scores": {k: round(v, 4) for k, v in self.scores.items()},
            "n_contexts": self.n_contexts, "n_unique": self.n_unique,
            "reasons": [r.to_dict() for r in self.reasons],
        }

    def to_row(self) -> dict[str, Any]:
        """A row for ``store.save_risk_scores(db, run_id, rows)``; ``reasons`` is a list of dicts."""
        return {"doc_id": self.doc_id, "method": self.method, "score": round(self.score, 4),
                "colour": self.colour, "reasons": [r.to_dict() for r in self.reasons]}


@dataclass
class RiskConfig:
    """Knobs of a risk run; defaults follow DeIDClinic where it has them.

    - ``method``: ``document-share`` (UI default) or ``corpus-share`` (as published).
    - ``threshold``: a context whose best cosine match in another document is below it is unique.
    - ``window``: words each side of an entity that make its context.
    - ``k_threshold``: a tuple of kept quasi-identifiers shared by fewer individuals is a reason
      (red with two fields or more, amber for one field no one else shares).
    - ``confidence_threshold``: unreviewed detections below it are noted (info).
    - ``residual_red`` / ``residual_amber``: a candidate outside the spans whose probability of
      being PHI reaches them makes the document red / amber (tuned on MEDDOCAN train, cross-fitted:
      ``benchmarks/risk_separation.py``).
    - ``rule_level`` / ``list_level``: the level of a rule / word-list hit outside the spans.
    - ``second_red`` / ``second_amber``: the same for the second opinion's word classifier,
      trained on the project's gold (:mod:`pipeline.risk.gold_evidence`); ``memory_red`` /
      ``memory_amber``: for the share of its gold occurrences the annotators marked a word left
      as written (1.01: off). The classifier's score is the share of the words the annotators left
      unmarked in held-out gold that it outranks (0.998: one in 500 scores as high). Chosen on
      MEDDOCAN train, cross-fitted, with the model's amber (``benchmarks/risk_separation.py``).
    - ``opinion_notes``: how many gold notes the second opinion learned from (0: none; set by the
      caller). From ``TRUSTED_OPINION_NOTES`` on, the model's candidates turn amber only from
      ``residual_amber_beside_opinion``: the second opinion takes over the model's weakest evidence
      (chosen together on MEDDOCAN train with an opinion of 250 notes); a smaller opinion is too
      unsure of itself to, and ``residual_amber`` stays.
    - ``lexical_level``: the level of lexical evidence outside the spans (a kinship word, a rare
      capitalised word beside a replaced span, an identifier-shaped token: :mod:`pipeline.risk.lexical`).
    - ``exact_cutoff``: up to this many distinct contexts the exact chunked search runs;
      above it, the approximate (faiss IVF) one.
    - ``ann_k``: neighbours fetched per context by the approximate search.
    - ``group_by_patient``: treat documents of the same ``patient_id`` as one owner (a context
      repeated only within one patient's notes stays unique; quasi-identifier ``k`` always
      counts distinct patients where ids are known).
    - ``quasi_fields``: the quasi-identifier fields whose combination is counted (see
      :mod:`pipeline.risk.quasi`).
    - ``encoder``: a local model directory for the embedder (never a hub name); ``None`` = lexical.
    """

    method: str = "document-share"
    threshold: float = 0.5
    window: int = 5
    k_threshold: int = 5
    confidence_threshold: float = 0.5
    residual_red: float = 0.2      # MEDDOCAN train, cross-fitted: half of the red notes then hold missed PHI
    residual_amber: float = 0.05   # same set: best flagged + green share (0.59 + 0.74); 0.95 flagged is out of reach
    residual_amber_beside_opinion: float = 0.2
    opinion_notes: int = 0
    second_red: float = 0.999
    second_amber: float = 0.998
    memory_red: float = 0.9
    memory_amber: float = 0.9
    rule_level: str = AMBER
    list_level: str = INFO
    lexical_level: str = AMBER
    direct_categories: tuple[str, ...] = DIRECT_CATEGORIES
    exact_cutoff: int = 20_000
    ann_k: int = 16
    group_by_patient: bool = False
    encoder: str | None = None
    lexical_dim: int = 256
    quasi_fields: tuple[str, ...] = QI_FIELDS

    @property
    def model_amber(self) -> float:
        """The model's amber threshold for this run (see ``opinion_notes``)."""
        trusted = self.opinion_notes >= TRUSTED_OPINION_NOTES
        return self.residual_amber_beside_opinion if trusted else self.residual_amber

    def check(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown risk method {self.method!r}; use one of {', '.join(METHODS)}")
        if not (-1.0 <= self.threshold <= 1.0):
            raise ValueError("similarity threshold must lie in [-1, 1]")
        if not (0.0 <= self.residual_amber <= self.residual_red <= 1.0):
            raise ValueError("residual thresholds must satisfy 0 <= amber <= red <= 1")
        if not (0.0 <= self.residual_amber_beside_opinion <= 1.0):
            raise ValueError("the model's amber beside a second opinion must lie in [0, 1] (at residual_red or "
                             "above, the model's candidates are red or nothing)")
        if not (0.0 <= self.second_amber <= self.second_red <= 1.01 and 0.0 <= self.memory_amber <= self.memory_red <= 1.01):
            raise ValueError("second-opinion thresholds must satisfy 0 <= amber <= red <= 1.01 (1.01: off)")
        if {self.rule_level, self.list_level, self.lexical_level} - set(LEVELS):
            raise ValueError(f"rule, list and lexical levels must be one of {', '.join(LEVELS)}")
        if self.window < 0 or self.k_threshold < 1 or self.ann_k < 2:
            raise ValueError("window must be >= 0, k threshold >= 1 and ann_k >= 2")
        unknown = [f for f in self.quasi_fields if f not in QI_FIELDS]
        if unknown or not self.quasi_fields:
            raise ValueError(f"quasi_fields must be a non-empty subset of {', '.join(QI_FIELDS)}")


def colour_for(score: float) -> str:
    """Published bands: green < 25, amber 25-50 (both ends included), red > 50."""
    if score < 25:
        return GREEN
    if score <= 50:
        return AMBER
    return RED


def raise_level(colour: str, steps: int) -> str:
    return COLOURS[min(len(COLOURS) - 1, COLOURS.index(colour) + max(0, steps))]


def colour_of(reasons: list[Reason]) -> str:
    """Red if any reason is red, else amber if any is amber, else green (info changes nothing)."""
    levels = {r.level for r in reasons}
    return RED if RED in levels else AMBER if AMBER in levels else GREEN
