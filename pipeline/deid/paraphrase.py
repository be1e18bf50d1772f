"""Paraphrase surrogates: a PHI span is masked in its context and a masked language model fills it.

The model (the project's own, :mod:`models.masked_lm`) only *proposes*: for every slot of the
span it ranks the pieces that could stand there in this context. Everything that makes the
result a safe surrogate is decided here, in pure code, so it can be tested with a stub:

* **shape** (:func:`pipeline.deid.paraphrase_slots.plan_slots`): the original is cut into letter runs, digits and what lies
  between (spaces, hyphens, ``@``, ``/``...), which stays; a profession is one slot, whatever
  its words (one profession in, one out). Each name part becomes one name-like
  word with the original part's case; each digit one digit (same length and layout, and never
  the original digit at that position); each letter of a code one letter; titles, particles and
  format words ("Dr.", "de", "Calle", "ext", "gmail", "com") stay as they are. Dates and ages
  are not paraphrased (the profile shifts them: a filled-in date could be any date, a shifted one
  keeps the intervals between a patient's dates);
* **never the original** (:func:`choose_pieces`): no slot takes its own original piece, no
  word of any of the note's or the patient's PHI values, nor a surrogate another of the
  patient's originals already took (two people must not become one); no name part repeats in
  a span; and the whole candidate must pass the engine's test against the note's and the
  patient's real values (not equal to any of them, not containing one as whole words, case-
  and accent-insensitive) or it is drawn again;
* **determinism**: the draw among the model's best candidates is keyed like every other
  surrogate (``HMAC(secret, patient | paraphrase | type | original | slot | attempt)``, weighted
  by the model's probabilities), so the same run key and model give the same text;
* **one value, one surrogate per patient**: every occurrence of a value in a note takes the
  same fill, scored over all its contexts at once (log-probabilities summed); across the
  patient's notes a :class:`PatientMemory` (one per run) keeps the first fill of each value
  and of each name part, so "Ivan Sun", "Sun, Ivan" and "I. Sun" stay one person everywhere
  (the first note of the patient, in input order, chooses from its contexts).

A span the model cannot fill acceptably (no slot to fill, nothing left after the checks, no
model at all) goes back to the engine, which uses the list surrogate of its type and counts
why (:data:`FALLBACK_REASONS`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Protocol, Sequence

from pipeline.deid.keys import keyed_int
from pipeline.deid.normalize import NAME_TITLES, case_style, norm_key, strip_accents
from pipeline.deid.paraphrase_slots import SLOT_KINDS, Slot, SlotPlan, _fold, plan_slots, shape_piece  # noqa: F401 - re-exported
from pipeline.deid.value_words import FUNCTION_WORDS, GENERIC_PLACE_WORDS, STREET_WORDS  # noqa: F401 - re-exported

#: Why a paraphrase span used a list surrogate instead: no model was available; the span has
#: no part a model could fill (only format words, an IP address); nothing the model proposed
#: passed the checks; the fill was, or held, a real PHI value of the project (the gate of
#: :mod:`pipeline.deid.operators.paraphrase`).
#: ``shape``: every fill the model proposed lacked the shape of its type
#: (:mod:`pipeline.deid.shapes`: a name of common words, an e-mail of "date.with@showed.com");
#: ``address``: the span is a part of an address whose parts are drawn together from one record
#: (:mod:`pipeline.deid.addresses`), so that city, state and postcode agree.
PROJECT_VALUE = "project_value"
SHAPE = "shape"
ADDRESS = "address"
FALLBACK_REASONS = ("no_model", "no_slot", "no_candidate", PROJECT_VALUE, SHAPE, ADDRESS)
TOP_K = 32              # candidates per slot the model returns
DRAW_FROM = 8           # of which the best this many (after the checks) are drawn from
ATTEMPTS = 8            # whole-span draws before giving up on a span
FLOOR_GAP = 2.0         # a candidate missing from one context's list: that list's worst score minus this

Candidates = list[tuple[str, float]]         # one slot: (piece, log-probability), best first


@dataclass(frozen=True)
class InfillRequest:
    """One span to fill: its offsets in the document text and what replaces it, as ``parts``.

    ``parts`` is the span's template in order: ``("slot", kind)`` for a [MASK] of that kind or
    ``("text", literal)`` for what stays (separators, kept words). ``category``/``type`` let the
    model prefer words it saw in spans of that kind.
    """

    start: int
    end: int
    parts: tuple[tuple[str, str], ...] = field(repr=False)      # kept words of the original: no reprs
    category: str = ""
    type: str = ""

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(v for k, v in self.parts if k == "slot")


class Infiller(Protocol):
    """What the engine needs from a masked language model (see :mod:`models.masked_lm`).

    ``name`` identifies the model (it goes into the run fingerprint, so a resume with another
    model is refused). ``infill`` returns, per request, per slot, up to ``top_k`` candidate
    pieces with their log-probabilities in that context, best first. It must be deterministic.
    """

    name: str

    def infill(self, text: str, requests: Sequence[InfillRequest], top_k: int = TOP_K) -> list[list[Candidates]]:
        ...


# --------------------------------------------------------------------------- pieces

@lru_cache(maxsize=1 << 16)
def piece_fits(piece: str, kind: str) -> bool:
    """Whether a model piece can fill a slot of ``kind`` (the model filters by this too)."""
    if not piece or piece.startswith("##"):
        return False
    if kind == "digit":
        return len(piece) == 1 and piece in "0123456789"
    if kind in ("letter", "initial"):
        return len(piece) == 1 and piece.isalpha() and piece not in "ºª" and len(piece.upper()) == len(piece.lower()) == 1
    if not (piece.isalpha() and len(piece) >= 3):
        return False
    f = _fold(piece)
    if f in FUNCTION_WORDS or f in NAME_TITLES:
        return False
    if kind == "name":
        return piece[0].isupper() and (piece[1:].islower() or piece.isupper())
    if kind == "ascii":
        return strip_accents(piece).isascii()
    return kind == "word"


def merge_candidates(lists: Sequence[Candidates]) -> Candidates:
    """One ranked list from the lists of several contexts of the same value (log-probabilities
    summed; a piece missing from a list scores that list's worst minus :data:`FLOOR_GAP`)."""
    if len(lists) == 1:
        return list(lists[0])
    floors = [(min(lp for _, lp in c) - FLOOR_GAP) if c else -50.0 for c in lists]
    pieces: dict[str, float] = {}
    for c in lists:
        for p, _ in c:
            pieces.setdefault(p, 0.0)
    for c, floor in zip(lists, floors):
        have = dict(c)
        for p in pieces:
            pieces[p] += have.get(p, floor)
    return sorted(pieces.items(), key=lambda x: (-x[1], x[0]))


def _draw(options: Sequence[tuple[str, float]], u: float) -> str:
    """Weighted choice (softmax of the scores) with a uniform ``u`` in [0, 1)."""
    top = max(s for _, s in options)
    weights = [math.exp(round(s - top, 4)) for _, s in options]
    total = sum(weights)
    acc = 0.0
    for (p, _), w in zip(options, weights):
        acc += w / total
        if u < acc:
            return p
    return options[-1][0]


def choose_pieces(plan: SlotPlan, candidates: Sequence[Candidates], *, secret: bytes, key: Sequence[str],
                  accept: Callable[[str], bool], forced: dict[int, str] | None = None,
                  banned: Sequence[frozenset[str] | set[str]] | None = None) -> list[str] | None:
    """The model pieces for the plan's slots, or None when no draw passes.

    Per slot the model's candidates are shaped (:func:`shape_piece`) and filtered: they must
    fit the slot's kind, differ from the slot's original piece (case- and accent-insensitive,
    so no digit stays in place either) and, for words, from the words already chosen in this
    span. The best :data:`DRAW_FROM` are drawn from, weighted and keyed by ``key`` (secret,
    patient, type, original), slot and attempt; the filled core must pass ``accept``.
    ``forced``: slot -> the piece it must take (a name part the patient's memory already
    fills); when no draw passes with them, they are dropped and the slots drawn too.
    ``banned[i]``: folded pieces slot ``i`` may not take (words of the note's and the
    patient's real values, surrogates the patient's other originals already took).
    """
    if len(candidates) != len(plan.slots):
        return None
    forced = {i: p for i, p in (forced or {}).items()
              if banned is None or _fold(shape_piece(p, plan.slots[i])) not in banned[i]}
    for attempt in range(2 * ATTEMPTS if forced else ATTEMPTS):
        if forced and attempt == ATTEMPTS:
            forced = {}
        chosen: list[str] = []
        used: set[str] = set()
        for i, (slot, cands) in enumerate(zip(plan.slots, candidates)):
            orig = _fold(slot.original)
            if i in forced:
                chosen.append(forced[i])
                used.add(_fold(shape_piece(forced[i], slot)))
                continue
            options: list[tuple[str, float]] = []
            seen: set[str] = set()
            for piece, lp in cands:
                if not piece_fits(piece, slot.kind):
                    continue
                f = _fold(shape_piece(piece, slot))
                if f == orig or f in seen or (slot.kind in ("name", "word", "ascii") and f in used):
                    continue
                if banned is not None and f in banned[i]:
                    continue
                seen.add(f)
                options.append((piece, lp))
                if len(options) >= DRAW_FROM:
                    break
            if not options:
                return None
            u = keyed_int(secret, *key, f"slot{i}", f"try{attempt}") / float(1 << 256)
            piece = _draw(options, u)
            chosen.append(piece)
            used.add(_fold(shape_piece(piece, slot)))
        out = plan.fill(chosen)
        if norm_key(out) != norm_key(plan.core) and accept(out):
            return chosen
    return None


def choose_fill(plan: SlotPlan, candidates: Sequence[Candidates], *, secret: bytes, key: Sequence[str],
                accept: Callable[[str], bool]) -> str | None:
    """The filled core (see :func:`choose_pieces`), or None."""
    pieces = choose_pieces(plan, candidates, secret=secret, key=key, accept=accept)
    return None if pieces is None else plan.fill(pieces)


# --------------------------------------------------------------------------- one document

@dataclass
class ParaphraseTarget:
    """A span to paraphrase: its index among the engine's spans, its core's offsets, its plan."""

    index: int
    start: int
    end: int
    category: str
    type: str
    plan: SlotPlan


@dataclass
class PatientMemory:
    """The fills a run has made, per patient: whole values (``values``) and name and word
    parts (``parts``), so later occurrences in the patient's other notes take the same."""

    values: dict[tuple, list[str]] = field(default_factory=dict)
    parts: dict[tuple, str] = field(default_factory=dict)
    taken: dict[tuple, dict[str, str]] = field(default_factory=dict)     # (patient, category, kind) -> piece -> original

    @staticmethod
    def value_key(patient_id: str, t: "ParaphraseTarget") -> tuple:
        return (patient_id, t.category, t.type, norm_key(t.plan.core), t.plan.kinds)

    @staticmethod
    def part_key(patient_id: str, category: str, slot: Slot) -> tuple | None:
        if slot.kind not in ("name", "word", "initial"):
            return None
        return (patient_id, category, slot.kind, _fold(slot.original))

    def forced(self, patient_id: str, t: "ParaphraseTarget") -> dict[int, str]:
        out = {}
        for i, slot in enumerate(t.plan.slots):
            k = self.part_key(patient_id, t.category, slot)
            if k is not None and k in self.parts:
                out[i] = self.parts[k]
        return out

    def banned(self, patient_id: str, t: "ParaphraseTarget", words: frozenset[str]) -> list[set[str]]:
        """Per slot: ``words`` and the surrogates the patient's other originals took (two people
        must not become one)."""
        out = []
        for slot in t.plan.slots:
            if slot.kind in ("name", "word", "initial"):
                taken = self.taken.get((patient_id, t.category, slot.kind), {})
                mine = _fold(slot.original)
                out.append(set(words) | {p for p, o in taken.items() if o != mine})
            else:
                out.append(set(words))
        return out

    def remember(self, patient_id: str, t: "ParaphraseTarget", pieces: Sequence[str]) -> None:
        self.values.setdefault(self.value_key(patient_id, t), list(pieces))
        for slot, piece in zip(t.plan.slots, pieces):
            k = self.part_key(patient_id, t.category, slot)
            if k is not None:
                self.parts.setdefault(k, piece)
                taken = self.taken.setdefault((patient_id, t.category, slot.kind), {})
                taken.setdefault(_fold(shape_piece(piece, slot)), _fold(slot.original))


@dataclass
class ParaphraseOutcome:
    """Fills by span index, and the spans that fell back with the reason."""

    fills: dict[int, str] = field(default_factory=dict)
    fallbacks: dict[int, str] = field(default_factory=dict)


def paraphrase_document(text: str, targets: Sequence[ParaphraseTarget], infiller: Infiller | None, *,
                        secret: bytes, patient_id: str,
                        accept_for: Callable[[ParaphraseTarget], Callable[[str], bool]],
                        memory: PatientMemory | None = None,
                        real_words: frozenset[str] = frozenset()) -> ParaphraseOutcome:
    """Fill every target of one document with one call to the model.

    Targets with the same category, type, normalised core and slot kinds form one value: its
    contexts' candidates are merged (:func:`merge_candidates`) and it gets one fill, which each
    occurrence takes in its own case. ``accept_for(target)`` is the engine's test of a whole
    candidate (not an original, no real value of the note or patient in it). ``memory``: the
    run's earlier fills of the patient (reused, and extended with this note's). ``real_words``:
    folded words of the note's and the patient's PHI values, which no filled piece may be
    (stricter than list surrogates: a name surrogate is not even a word of an e-mail address).
    """
    memory = memory if memory is not None else PatientMemory()
    out = ParaphraseOutcome()
    if not targets:
        return out
    if infiller is None:
        out.fallbacks = {t.index: "no_model" for t in targets}
        return out
    groups: dict[tuple, list[int]] = {}
    for k, t in enumerate(targets):
        groups.setdefault(PatientMemory.value_key(patient_id, t), []).append(k)
    known = {g: memory.values[g] for g in groups if g in memory.values
             and all(accept_for(targets[k])(targets[k].plan.fill(memory.values[g])) for k in groups[g])}
    todo = [k for g, members in groups.items() if g not in known for k in members]
    proposals: dict[int, list[Candidates]] = {}
    if todo:
        asked = [targets[k] for k in todo]
        found = infiller.infill(text, [InfillRequest(t.start, t.end, t.plan.parts, t.category, t.type)
                                       for t in asked], TOP_K)
        proposals = dict(zip(todo, found))
    for g, members in groups.items():
        first = targets[members[0]]
        if g in known:
            pieces: list[str] | None = known[g]
        else:
            merged = [merge_candidates([proposals[k][i] for k in members]) for i in range(len(first.plan.slots))]
            key = (patient_id, "paraphrase", first.type or first.category, norm_key(first.plan.core))
            pieces = choose_pieces(first.plan, merged, secret=secret, key=key, accept=accept_for(first),
                                   forced=memory.forced(patient_id, first),
                                   banned=memory.banned(patient_id, first, real_words))
            if pieces is not None:
                memory.remember(patient_id, first, pieces)
        for k in members:
            t = targets[k]
            if pieces is None:
                out.fallbacks[t.index] = "no_candidate"
                continue
            filled = t.plan.fill(pieces)
            if norm_key(filled) != norm_key(t.plan.core) and accept_for(t)(filled):
                out.fills[t.index] = filled
            else:
                out.fallbacks[t.index] = "no_candidate"
    return out
