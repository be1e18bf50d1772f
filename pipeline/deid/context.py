"""What a surrogate generator may know: the secret, the patient, the lists, the values to avoid.

:class:`DeidContext` is project-wide (one per run): the per-project secret, the locale, the
lists (shipped locale lists, extended by the lead's own), and the patients' other PHI values
when a batch knows them. :class:`SurrogateContext` is what one generator call sees: that plus
the patient id, the span's category and type, and the document's set of real PHI values that a
surrogate must never equal (or contain as a whole word).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

from pipeline.deid.address_table import address_entries
from pipeline.deid.builtin_lists import BUILTIN_LISTS
from pipeline.deid.dates import is_partial_date
from pipeline.deid.keys import keyed_bytes, keyed_int, keyed_offset
from pipeline.deid.normalize import NAME_PARTICLES, NAME_TITLES, norm_key
from pipeline.deid.profile import Profile
from pipeline.deid.project_values import PUBLIC_LISTS, UNKEYED_CATEGORIES, ProjectValues, public_entries

ListLoader = Callable[[str, str], list[str]]
_NONWORD = re.compile(r"[^\w]+")
_LETTER_WORDS = re.compile(r"[^\W\d_]{3,}")


def _default_loader(locale: str, name: str) -> list[str]:
    from pipeline.locales import load_list
    return load_list(locale, name)


@lru_cache(maxsize=1 << 16)
def words_key(value: str) -> str:
    """Normalised value with every run of non-word characters as one space (for containment)."""
    return " ".join(_NONWORD.sub(" ", norm_key(value)).split())


@dataclass(frozen=True)
class Original:
    """A real PHI value of a patient, as the batch collected it (kept in memory only)."""

    category: str
    type: str
    text: str
    kept: bool = False


@dataclass
class DeidContext:
    """Project-wide inputs of de-identification.

    ``secret``: the per-project key (bytes) of every keyed choice; created and stored elsewhere.
    ``extra_lists``: list name -> entries a lead adds to the shipped locale list of that name
    (or supplies where none ships, e.g. ``departments``). ``patient_originals``: patient id ->
    PHI values of that patient's other documents, used to avoid them and to scan for them.
    ``infiller``: the project's masked language model for the ``paraphrase`` action (a
    :class:`pipeline.deid.paraphrase.Infiller`, given by the caller: this package loads no
    model); ``None``: paraphrase spans get list surrogates, counted as fallbacks.
    ``project_values``: the keyed set of the project's PHI values
    (:class:`pipeline.deid.project_values.ProjectValues`; by default the infiller's own, saved
    with the model): no surrogate may be or contain one unless it is a public list entry; it
    must be keyed with ``secret``.
    """

    secret: bytes
    locale: str = "en"
    extra_lists: dict[str, list[str]] = field(default_factory=dict)
    list_loader: ListLoader | None = None
    patient_originals: dict[str, list[Original]] = field(default_factory=dict)
    infiller: object | None = field(default=None, repr=False, compare=False)
    project_values: ProjectValues | None = field(default=None, repr=False, compare=False)
    _lists: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict, repr=False)
    _sets: dict[tuple[str, str, str], frozenset[str]] = field(default_factory=dict, repr=False)
    _offsets: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)
    _derived: dict[tuple[str, str, str], object] = field(default_factory=dict, repr=False)
    _states: dict[tuple[str, int, int], "DocState"] = field(default_factory=dict, repr=False)
    _needles: dict[tuple[str, int, int], list] = field(default_factory=dict, repr=False)
    _paraphrased: object | None = field(default=None, repr=False)     # the run's PatientMemory

    def __post_init__(self) -> None:
        if isinstance(self.secret, str):
            self.secret = self.secret.encode("utf-8")
        if not isinstance(self.secret, (bytes, bytearray)) or len(self.secret) < 16:
            raise ValueError("the de-identification secret must be at least 16 bytes")
        self.secret = bytes(self.secret)
        if self.project_values is None and self.infiller is not None:
            self.project_values = getattr(self.infiller, "project_values", None)
        if self.project_values is not None:
            self.project_values.require_key(self.secret)

    def __repr__(self) -> str:  # never show the secret
        return f"DeidContext(locale={self.locale!r}, extra_lists={sorted(self.extra_lists)})"

    def lookup(self, locale: str, name: str) -> tuple[str, ...]:
        """Shipped list ``name`` for ``locale`` plus the lead's extra entries (deduplicated)."""
        key = (locale, name)
        if key not in self._lists:
            loader = self.list_loader or _default_loader
            try:
                base = list(loader(locale, name))
            except KeyError:
                base = list(BUILTIN_LISTS.get((locale, name), ()))
            extra = list(self.extra_lists.get(name, ()))
            seen: set[str] = set()
            out: list[str] = []
            for item in base + extra:
                item = item.strip()
                if item and item not in seen:
                    seen.add(item)
                    out.append(item)
            self._lists[key] = tuple(out)
        return self._lists[key]

    def lookup_set(self, locale: str, name: str, how: str = "norm") -> frozenset[str]:
        key = (locale, name, how)
        if key not in self._sets:
            self._sets[key] = frozenset(norm_key(x) for x in self.lookup(locale, name))
        return self._sets[key]

    def derived(self, locale: str, name: str, how: str, fn: Callable[[tuple[str, ...]], object]) -> object:
        """A value computed once from a list (a filtered pool, a lookup table)."""
        key = (locale, name, how)
        if key not in self._derived:
            self._derived[key] = fn(self.lookup(locale, name))
        return self._derived[key]

    def public_entries(self, locale: str) -> frozenset[str]:
        """Normalised entries of the locale's public surrogate lists and of its address table
        (a city, a state, a postcode stem: :mod:`pipeline.deid.address_table`), cached per context."""
        key = (locale, "*", "public-entries")
        if key not in self._derived:
            self._derived[key] = public_entries([*(self.lookup(locale, name) for name in PUBLIC_LISTS),
                                                 address_entries(locale)])
        return self._derived[key]  # type: ignore[return-value]

    def project_value_hits(self, text: str, locale: str, category: str = "") -> list[tuple[int, int]]:
        """Offsets of real project values in a generated ``text`` (none without a keyed set, and
        none for dates, ages and OTHER, which are shifted or redacted, never drawn)."""
        if self.project_values is None or category in UNKEYED_CATEGORIES:
            return []
        return self.project_values.hits(self.secret, text, self.public_entries(locale))

    def add_patient_originals(self, patient_id: str, originals: Iterable[Original]) -> None:
        self.patient_originals.setdefault(patient_id, []).extend(originals)


class DocState:
    """The real PHI values a surrogate of this document must avoid (document + patient)."""

    def __init__(self, values: Iterable[Original]):
        self.exact: set[str] = set()        # normalised values
        self.words: set[str] = set()        # single-word values and the parts of names
        self.multi: list[str] = []          # multi-word values (containment is checked)
        self.by_category: dict[str, list[str]] = {}
        for o in values:
            k = norm_key(o.text)
            if not k:
                continue
            self.exact.add(k)
            self.by_category.setdefault(o.category, []).append(o.text)
            if o.category == "DATE" and is_partial_date(o.text):
                continue    # a bare year or month is matched exactly, not inside other values (see leaks)
            wk = words_key(o.text)
            if not wk:
                continue
            if " " in wk:
                self.multi.append(wk)
                if o.category == "NAME":
                    self.words.update(p for p in wk.split() if len(p) > 1 and p not in NAME_PARTICLES
                                      and p not in NAME_TITLES)
            else:
                self.words.add(wk)
        self.multi = sorted(set(self.multi))
        self.multi_by_first: dict[str, list[str]] = {}
        for m in self.multi:
            self.multi_by_first.setdefault(m.split(" ", 1)[0], []).append(m)

    @property
    def all_words(self) -> frozenset[str]:
        """Every folded word (3+ letters) of every value but dates and ages: what no
        paraphrase piece may be (computed on first use)."""
        cached = getattr(self, "_all_words", None)
        if cached is None:
            cached = frozenset(w for cat, vals in self.by_category.items() if cat not in ("DATE", "AGE")
                               for v in vals for w in _LETTER_WORDS.findall(norm_key(v)))
            self._all_words = cached
        return cached

    def clashes(self, candidate: str) -> bool:
        """True when ``candidate`` equals a real value or contains one as whole words."""
        if norm_key(candidate) in self.exact:
            return True
        wk = words_key(candidate)
        if not wk:
            return False
        parts = wk.split()
        if len(parts) == 1:
            if parts[0] in self.words:
                return True
        elif any(p in self.words for p in parts if len(p) >= 3 and p not in NAME_PARTICLES):
            return True
        padded = f" {wk} "
        for p in set(parts):
            for m in self.multi_by_first.get(p, ()):
                if f" {m} " in padded:
                    return True
        return False


@dataclass
class SurrogateContext:
    """One generator call's view: keyed choices scoped to the patient, lists of the locale."""

    deid: DeidContext
    profile: Profile
    patient_id: str
    category: str
    type: str
    locale: str
    state: DocState
    original_key: str = ""

    # -- keyed choices ------------------------------------------------------------------------
    def key(self, *parts: str) -> int:
        return keyed_int(self.deid.secret, self.patient_id, *parts)

    def key_bytes(self, *parts: str) -> bytes:
        return keyed_bytes(self.deid.secret, self.patient_id, *parts)

    def lookup(self, name: str) -> tuple[str, ...]:
        return self.deid.lookup(self.locale, name)

    def lookup_set(self, name: str) -> frozenset[str]:
        return self.deid.lookup_set(self.locale, name)

    def derived(self, name: str, how: str, fn: Callable[[tuple[str, ...]], object]) -> object:
        return self.deid.derived(self.locale, name, how, fn)

    def acceptable(self, original: str, *, project_values: bool = True) -> Callable[[str], bool]:
        """A candidate is usable when it differs from the original and clashes with no real value
        of the note or the patient, nor (``project_values``) with one of the project's keyed
        values (a list surrogate that happens to be one is drawn again; the paraphrase gate
        checks the model's fills itself, so that it can count them)."""
        ok = norm_key(original)

        def accept(candidate: str) -> bool:
            return (norm_key(candidate) != ok and not self.state.clashes(candidate)
                    and not (project_values and self.deid.project_value_hits(candidate, self.locale, self.category)))
        return accept

    # -- per-patient offsets --------------------------------------------------------------------
    def _least_clashing_offset(self, cache_key: tuple[str, str], kind: str, lo: int, hi: int,
                               values: list[str], shift: Callable[[str, int], str],
                               errors: tuple[type[BaseException], ...], min_abs: int | None = None) -> int:
        """Draw a keyed offset (``kind``-offset) up to 32 times, keeping the draw whose shifts of
        ``values`` clash with the fewest real values (stopping at the first with none); cached per key."""
        if cache_key in self.deid._offsets:
            return self.deid._offsets[cache_key]
        extra = {} if min_abs is None else {"min_abs": min_abs}
        best: tuple[int, int] | None = None     # (clashes, offset)
        for k in range(32):
            off = keyed_offset(self.deid.secret, lo, hi, f"{kind}-offset", self.patient_id,
                               *((str(k),) if k else ()), **extra)
            clashes = 0
            for v in values:
                try:
                    clashes += self.state.clashes(shift(v, off))
                except errors:
                    continue
                if best is not None and clashes >= best[0]:
                    break
            if best is None or clashes < best[0]:
                best = (clashes, off)
            if clashes == 0:
                break
        assert best is not None
        self.deid._offsets[cache_key] = best[1]
        return best[1]

    def date_offset(self) -> int:
        """The patient's date offset in days: keyed, non-zero, in the profile's range; re-drawn
        (deterministically, up to 32 draws, keeping the draw with the fewest) while it would turn
        one of the patient's dates into another. A date that still clashes is redacted."""
        from pipeline.deid.date_words import DateParseError
        from pipeline.deid.dates import shift_date
        lo, hi = self.profile.date_shift_days
        m = self.profile.date_shift_min_days
        return self._least_clashing_offset(
            (self.patient_id, f"date|{lo}|{hi}|{m}|{self.locale}"), "date", lo, hi,
            self.state.by_category.get("DATE", []), lambda d, off: shift_date(d, off, self.locale),
            (DateParseError, ValueError), min_abs=m)

    def age_offset(self) -> int:
        """The patient's age offset in years (same rule as dates: keyed, non-zero, re-drawn on clash)."""
        from pipeline.deid.ages import AgeParseError, shift_age
        lo, hi = self.profile.age_shift_years
        return self._least_clashing_offset(
            (self.patient_id, f"age|{lo}|{hi}"), "age", lo, hi,
            self.state.by_category.get("AGE", []), lambda a, off: shift_age(a, offset=off, locale=self.locale),
            (AgeParseError, ValueError))

    def age_offsets(self) -> list[int]:
        """The patient's age offset first, then every other allowed offset nearest to it: a value
        whose shifted age would be another real age of the patient takes the first one that is not."""
        o = self.age_offset()
        lo, hi = self.profile.age_shift_years
        others = sorted((v for v in range(lo, hi + 1) if v not in (0, o)), key=lambda v: (abs(v - o), v))
        return [o, *others]
