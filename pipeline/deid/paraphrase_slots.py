"""Slot plans for paraphrase surrogates: which parts of a PHI span a masked language model fills
and which stay as written (see :mod:`pipeline.deid.paraphrase` for the whole scheme).

The original is cut into letter runs, digits and what lies between; each run becomes a slot of
a kind (:data:`SLOT_KINDS`) or stays (titles, particles inside a name, format words). Apart from
the filling and drawing in :mod:`pipeline.deid.paraphrase` because a plan needs no model and no
key: the operator, the masked language model's training and the tests plan spans on their own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from pipeline.deid.normalize import NAME_PARTICLES, NAME_TITLES, case_style, kept_particles, strip_accents
from pipeline.deid.surrogate_kit import ADDRESS_WORDS, PHONE_WORDS
from pipeline.deid.value_words import FUNCTION_WORDS, GENERIC_PLACE_WORDS, STREET_WORDS, WEB_WORDS

#: What a slot may hold. ``name``: a capitalised word (a name part, a place); ``word``: any
#: word (a profession); ``ascii``: a plain lower-case word (e-mail and URL parts); ``initial`` /
#: ``letter``: one letter; ``digit``: one digit.
SLOT_KINDS = ("name", "word", "ascii", "initial", "letter", "digit")


_RUN = re.compile(r"[^\W\d_ºª]+|\d")
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")

NAME_GENERATORS = frozenset({"name"})
PLACE_GENERATORS = frozenset({"hospital", "health_center", "organization", "city", "state", "country", "territory",
                              "department", "location_other"})
CODE_GENERATORS = frozenset({"phone", "zip", "room", "id"})
WEB_GENERATORS = frozenset({"email", "url", "net_address", "username"})
NOT_PARAPHRASED = frozenset({"date", "age", "ip"})


@lru_cache(maxsize=1 << 16)
def _fold(s: str) -> str:
    return strip_accents(s).lower()


@dataclass(frozen=True)
class Slot:
    """One piece of the original to fill: its offsets in the core, its kind, the original piece."""

    start: int
    end: int
    kind: str
    original: str = field(repr=False)          # PHI: never in a repr


@dataclass(frozen=True)
class SlotPlan:
    """The core of a span as slots to fill and text that stays (``parts`` in order)."""

    core: str = field(repr=False)
    parts: tuple[tuple[str, str], ...] = field(repr=False)
    slots: tuple[Slot, ...] = ()

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(s.kind for s in self.slots)

    def fill(self, pieces: Sequence[str]) -> str:
        """The core with slot ``i`` replaced by ``pieces[i]`` (cased like its original piece)."""
        out, k = [], 0
        for what, value in self.parts:
            if what == "slot":
                out.append(shape_piece(pieces[k], self.slots[k]))
                k += 1
            else:
                out.append(value)
        return "".join(out)


def _kind_of_run(run: str, generator: str | None, *, after_at: bool, particle: bool = True) -> str | None:
    """The slot kind for a letter run or digit of the original, or None when it stays.

    ``particle``: a name particle here stays ("del" of "María del Carmen"); False where the
    same word starts or ends the name ("Del Farrissey": a given name, filled like one)."""
    if run.isdigit():
        return "digit"
    f = _fold(run)
    if generator in NAME_GENERATORS:
        if f.rstrip(".") in NAME_TITLES or (particle and f in NAME_PARTICLES):
            return None
        return "initial" if len(run) == 1 else "name"
    if generator in PLACE_GENERATORS:
        if f in FUNCTION_WORDS:
            return None
        return "letter" if len(run) <= 2 else "name"
    if generator == "street":
        if f in FUNCTION_WORDS or f in STREET_WORDS or f in ADDRESS_WORDS:
            return None
        return "letter" if len(run) <= 2 else "name"
    if generator in CODE_GENERATORS:
        if generator == "phone" and (f in PHONE_WORDS or len(run) <= 2):
            return None     # "ext", "x" (extension): words of the format, as the list surrogate keeps them
        return "letter"
    if generator in WEB_GENERATORS:
        if f in WEB_WORDS or (after_at and len(run) <= 2):
            return None
        return "letter" if len(run) <= 2 else "ascii"
    # professions, and categories without a generator (OTHER): plain words
    if f in FUNCTION_WORDS or len(run) <= 2:
        return None
    return "word"


def _particles_kept(core: str, runs: list[re.Match]) -> frozenset[int]:
    """Where the particles of a name stay (:func:`~pipeline.deid.normalize.kept_particles`); all of
    them when the name is nothing but titles and particles ("de la": not paraphrased at all)."""
    if all(_fold(m.group()).rstrip(".") in NAME_TITLES | NAME_PARTICLES for m in runs if not m.group().isdigit()):
        return frozenset(m.start() for m in runs)
    return kept_particles(core)


def plan_slots(core: str, category: str, type_: str, generator: str | None) -> SlotPlan | None:
    """Cut ``core`` into slots and kept text; None when nothing in it can be filled (or the
    type is not paraphrased: dates, ages, IP addresses)."""
    if generator in NOT_PARAPHRASED or (generator in ("net_address", "ip") and _IPV4.match(core.strip())):
        return None
    if generator == "profession":
        # one profession, one word: "retired librarian" -> "teacher", never a word per word
        if not _RUN.search(core) or core.isdigit():
            return None
        return SlotPlan(core, (("slot", "word"),), (Slot(0, len(core), "word", core),))
    runs = list(_RUN.finditer(core))
    at = core.find("@")
    inside = _particles_kept(core, runs) if generator in NAME_GENERATORS else frozenset()
    kinds = [_kind_of_run(m.group(), generator, after_at=0 <= at < m.start(), particle=m.start() in inside)
             for m in runs]
    if generator not in NAME_GENERATORS | CODE_GENERATORS | WEB_GENERATORS:
        # generic place words stay only where another word is replaced
        generic = [k is not None and k in ("name", "word") and _fold(m.group()) in GENERIC_PLACE_WORDS
                   for m, k in zip(runs, kinds)]
        if any(k is not None and not g for k, g in zip(kinds, generic)):
            kinds = [None if g else k for k, g in zip(kinds, generic)]
    if not any(kinds):
        return None
    parts: list[tuple[str, str]] = []
    slots: list[Slot] = []
    pos = 0
    for m, kind in zip(runs, kinds):
        if kind is None:
            continue
        if m.start() > pos:
            parts.append(("text", core[pos:m.start()]))
        # a code's letters are filled one by one, like its digits: the same length and layout
        cuts = range(m.start(), m.end()) if kind == "letter" else (m.start(),)
        for a in cuts:
            b = a + 1 if kind == "letter" else m.end()
            parts.append(("slot", kind))
            slots.append(Slot(a, b, kind, core[a:b]))
        pos = m.end()
    if pos < len(core):
        parts.append(("text", core[pos:]))
    return SlotPlan(core, tuple(_merge_text(parts)), tuple(slots))


def _merge_text(parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for p in parts:
        if out and p[0] == "text" and out[-1][0] == "text":
            out[-1] = ("text", out[-1][1] + p[1])
        else:
            out.append(p)
    return out


def shape_piece(piece: str, slot: Slot) -> str:
    """A candidate piece in the slot's shape: the original piece's case; ASCII lower case for
    e-mail and URL words; digits as they are."""
    if slot.kind == "digit":
        return piece
    if slot.kind == "ascii":
        p = strip_accents(piece).lower()
        return p.upper() if slot.original.isupper() else p
    style = case_style(slot.original)
    if style == "upper":
        return piece.upper()
    if style == "lower":
        return piece.lower()
    if slot.kind in ("letter", "initial"):
        return piece.upper() if slot.original[:1].isupper() else piece.lower()
    return piece[:1].upper() + piece[1:].lower()
