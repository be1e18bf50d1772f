"""Surrogates of one address drawn together, so that its parts agree.

A city, a state (province, region) and a ZIP code drawn each from its own list gave "West
Covina, IL" or "28013 Sevilla": a note that no longer reads like one. Here the address spans
of a document that stand together ("West Covina, CA 91790"; MEDDOCAN's "Calle ... ⏎Localidad/
Provincia: Getafe (Madrid)⏎CP: 28901") form one *address group* (:func:`address_groups`), and
the group takes its parts from **one record** of the locale's address table
(``pipeline/locales/<locale>/addresses.tsv``: city, state, abbreviation, region, postcode stem),
so city, state and postcode belong together.

* The record is a keyed draw (:func:`pipeline.deid.keys.choose`) on the group's anchor (its city,
  else its postcode, else its state): the same city of the same patient draws the same record,
  in any note, when nothing else constrains it.
* Every part must pass the surrogate acceptance test of its span (never the original, no other
  real value of the note or the patient, of the project): "Boston, MA" never becomes
  "Worcester, MA", which would keep the real state.
* Document consistency: a value that one group already replaced keeps that surrogate in every
  other group and alone in the note (a later group draws among the records that agree with it;
  where none does, the value keeps its surrogate and agreement gives way).
* A postcode keeps the record's stem (three ZIP digits, a Spanish five-digit code) and draws the
  rest ("02108-1234" -> "606" + two digits + "-" + four).
* Streets join a group (a street line then a city line) but keep their own generator: any street
  name fits any city.

A locale without an address table (or a span whose part is not in one) keeps the generators of
:mod:`pipeline.deid.surrogates`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Protocol, Sequence

from pipeline.deid.address_table import AddressRecord, address_records
from pipeline.deid.context import DeidContext, SurrogateContext
from pipeline.deid.keys import choose, keyed_stream
from pipeline.deid.normalize import norm_key
from pipeline.deid.profile import Profile
from pipeline.deid.shapes import listed, zip_code
from pipeline.deid.surrogate_kit import _list_case
from pipeline.deid.surrogates import generator_name


class AddressRun(Protocol):
    """What the plan reads of the document being rewritten (the operators' ``DocRewrite``)."""

    text: str
    spans: Sequence
    originals: Sequence
    profile: Profile
    ctx: DeidContext
    patient_id: str
    locale: str

    def surrogate_context(self, category: str, type_: str) -> SurrogateContext: ...

ROLES = ("city", "state", "abbr", "region", "postcode")
#: the generators whose spans are address parts (``street`` only links a group)
ADDRESS_GENERATORS = frozenset({"city", "state", "zip", "territory", "street"})
#: Labels that may stand between two parts of one address ("Localidad/ Provincia:", "CP:").
ADDRESS_LABELS = re.compile(
    r"c\.\s?p\.|c[oó]digo postal|\bcp\b|localidad|provincia|municipio|poblaci[oó]n|ciudad|\bcity\b|\bstate\b|"
    r"\bzip(?: code)?\b|post(?:al )?code|\btown\b|\bcounty\b", re.IGNORECASE)
_POSTCODE = re.compile(r"\d[\d \-]*\d")
_GAP = re.compile(r"[\s,.;:()\-\u2013/]*")
MAX_GAP = 40


@lru_cache(maxsize=None)
def _role_sets(locale: str) -> dict[str, frozenset[str]]:
    recs = address_records(locale)
    return {r: frozenset(norm_key(x.value(r)) for x in recs if x.value(r)) for r in ROLES}


def _is_abbr(core: str) -> bool:
    c = core.strip().rstrip(".")
    return 0 < len(c) <= 3 and c.isalpha() and c.isupper()


def address_role(generator: str | None, core: str, locale: str, states: frozenset[str],
                 countries: frozenset[str]) -> str | None:
    """What part of an address a span's value is: ``city``, ``state``, ``abbr``, ``region``,
    ``postcode``, ``street`` (links only) or None (not an address part: a country, a hospital).
    ``states``/``countries``: the locale's normalised lists (MEDDOCAN's TERRITORIO is any of them)."""
    if generator not in ADDRESS_GENERATORS:
        return None
    if generator == "street":
        return "street"
    if generator == "city":
        return "city"
    if generator in ("zip", "territory") and any(c.isdigit() for c in core):
        # only digits and separators: anything else (a word in the span) takes the generator's
        # own re-drawing, which replaces letters too
        # and only a postcode of the locale's shape (a foreign "3400" keeps the digit re-drawing)
        return "postcode" if _POSTCODE.fullmatch(core) and zip_code(core, locale) else None
    if generator == "zip":
        return None
    k = norm_key(core)
    sets = _role_sets(locale)
    if generator == "state" or k in states or k in sets["region"]:
        if _is_abbr(core):
            return "abbr"
        if k in sets["region"] and k not in sets["state"]:
            return "region"
        return "state"
    if k in countries:
        return None
    return "city"


def joinable(gap: str) -> bool:
    """Whether the text between two address spans lets them be one address: punctuation,
    blanks, at most one line break and the labels of address fields."""
    if len(gap) > MAX_GAP or gap.count("\n") > 1:
        return False
    return _GAP.fullmatch(ADDRESS_LABELS.sub(" ", gap)) is not None


def address_groups(text: str, starts_ends: Sequence[tuple[int, int]], roles: Sequence[str | None]) -> list[list[int]]:
    """Indices of consecutive address spans that stand together (see :func:`joinable`)."""
    groups: list[list[int]] = []
    for i, role in enumerate(roles):
        if role is None:
            continue
        if groups and groups[-1][-1] == i - 1 and joinable(text[starts_ends[i - 1][1]:starts_ends[i][0]]):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


@dataclass
class AddressPlan:
    """The surrogates the document's address parts take (span index -> new core); ``grouped``:
    the spans whose value a group of two parts or more decided (paraphrase leaves them to it)."""

    values: dict[int, str] = field(default_factory=dict)
    grouped: set[int] = field(default_factory=set)


Accept = Callable[[str], bool]


@dataclass
class _Part:
    index: int
    role: str
    core: str
    accept: Accept

    @property
    def key(self) -> tuple[str, str]:
        return self.role, norm_key(self.core)


def postcode_from(stem: str, original: str, stream_key: Callable[[int], list[int]], accept: Accept) -> str | None:
    """``original``'s digits replaced in order by the stem's, then by keyed digits (separators
    kept); None when no attempt is acceptable."""
    for attempt in range(16):
        extra = iter(stream_key(attempt))
        digits = iter(stem)
        out = []
        for c in original:
            if c.isdigit():
                d = next(digits, None)
                out.append(d if d is not None else str(next(extra) % 10))
            else:
                out.append(c)
        cand = "".join(out)
        if accept(cand):
            return cand
    return None


class _Planner:
    """One document's address plan, built group by group (the groups of several parts first)."""

    def __init__(self, run: AddressRun, surrogate_actions: frozenset[str]):
        self.run = run
        self.records = address_records(run.locale)
        self.fixed: dict[tuple[str, str], str] = {}
        self.group_keys: set[tuple[str, str]] = set()     # values a group of several parts decided
        self.plan = AddressPlan()
        self.parts: list[_Part | None] = []
        self.actions = surrogate_actions

    def roles(self) -> list[str | None]:
        run, out = self.run, []
        for span, orig in zip(run.spans, run.originals):
            core = orig.text.strip()
            action = run.profile.action_for(span.category, span.type)
            gen = generator_name(span.category, span.type)
            if action not in self.actions or not core or gen not in ADDRESS_GENERATORS:
                out.append(None)
                self.parts.append(None)
                continue
            ctx = run.surrogate_context(span.category, span.type)
            role = address_role(gen, core, run.locale, ctx.lookup_set("states"), ctx.lookup_set("countries"))
            out.append(role)
            self.parts.append(_Part(len(self.parts), role, core, ctx.acceptable(core)) if role else None)
        return out

    def _fits(self, parts: list[_Part], strict: bool) -> Accept:
        def ok(rec: AddressRecord) -> bool:
            for p in parts:
                value = rec.value(p.role)
                if not value:
                    return False
                fixed = self.fixed.get(p.key)
                if p.role == "postcode":
                    if strict and fixed is not None and not fixed.replace(" ", "").startswith(value):
                        return False
                    continue
                if fixed is not None:
                    if strict and norm_key(fixed) != norm_key(value):
                        return False
                elif not p.accept(value):
                    return False
            return True
        return ok      # type: ignore[return-value]

    def draw(self, parts: list[_Part]) -> AddressRecord | None:
        anchor = next((p for r in ("city", "postcode", "state", "abbr", "region") for p in parts if p.role == r), None)
        if anchor is None or not self.records:
            return None
        key = (self.run.patient_id, "address", anchor.role, anchor.key[1])
        secret = self.run.ctx.secret
        for strict in (True, False):
            rec = choose(self.records, secret, key, self._fits(parts, strict))  # type: ignore[arg-type]
            if rec is not None:
                return rec  # type: ignore[return-value]
        return None

    def value(self, part: _Part, rec: AddressRecord) -> str | None:
        if part.key in self.fixed:
            return self.fixed[part.key]
        if part.role == "postcode":
            secret, pid = self.run.ctx.secret, self.run.patient_id

            def stream(attempt: int) -> list[int]:
                s = keyed_stream(secret, pid, "POSTCODE", norm_key(part.core), str(attempt))
                return [next(s) for _ in range(len(part.core))]
            return postcode_from(rec.postcode, part.core, stream, part.accept)
        value = rec.value(part.role)
        return value if part.role == "abbr" else _list_case(value, part.core)

    def place(self, group: list[int]) -> None:
        parts = [p for p in (self.parts[i] for i in group) if p is not None and p.role != "street"]
        if not parts:
            return
        rec = self.draw(parts)
        if rec is None:
            return
        for p in parts:
            v = self.value(p, rec)
            if v is None:
                continue
            self.fixed.setdefault(p.key, v)
            self.plan.values[p.index] = v
            if len(parts) > 1:
                self.group_keys.add(p.key)
                self.plan.grouped.add(p.index)


def second_places(parts: Sequence["_Part | None"], group: Sequence[int]) -> None:
    """A second, different city in one address is the place above it ("Bayamo, Granma";
    "Colonia Narvarte, Delegación Benito Juárez"): it takes the state's part, so two places never
    become one."""
    first = None
    for i in group:
        p = parts[i]
        if p is None or p.role != "city":
            continue
        if first is None:
            first = p.key
        elif p.key != first:
            p.role = "state"


def plan_addresses(run: AddressRun, surrogate_actions: frozenset[str] = frozenset({"replace", "paraphrase"})
                   ) -> AddressPlan:
    """The address parts of one document and the surrogates they take (see the module text)."""
    planner = _Planner(run, surrogate_actions)
    roles = planner.roles()
    if not planner.records or not any(r not in (None, "street") for r in roles):
        return planner.plan
    groups = address_groups(run.text, [(s.start, s.end) for s in run.spans], roles)
    for g in groups:
        second_places(planner.parts, g)
    multi = [g for g in groups if sum(roles[i] not in (None, "street") for i in g) > 1]
    for g in multi:
        planner.place(g)
    for g in groups:
        if g in multi:
            continue
        for i in g:      # alone: a value a group already replaced keeps its surrogate
            p = planner.parts[i]
            if p is None or p.role == "street":
                continue
            if p.key in planner.group_keys:
                planner.plan.values[i] = planner.fixed[p.key]
                planner.plan.grouped.add(i)
            else:
                planner.place([i])
    return planner.plan


# -- checking an output: do the parts of each address agree? ---------------------------------------

def record_agrees(parts: Sequence[tuple[str, str]], locale: str) -> bool:
    """Whether one record of the locale's table holds every (role, value) part (a postcode by
    its stem, a name part under any of the record's names); parts that are streets are ignored."""
    parts = [(r, v) for r, v in parts if r != "street"]
    for rec in address_records(locale):
        names = {norm_key(x) for x in (rec.city, rec.state, rec.abbr, rec.region) if x}
        # a name part may be read as another role ("Albacete" is a city and a province)
        if all(v.replace(" ", "").startswith(rec.postcode) if r == "postcode" else norm_key(v) in names
               for r, v in parts):
            return True
    return False


def address_checks(text: str, spans: Sequence, locale: str) -> list[bool]:
    """For each address of several parts in ``text`` (its ``spans``, output offsets), whether
    they agree (:func:`record_agrees`); what ``benchmarks/surrogate_quality.py`` and the tests count."""
    states = listed(locale, "states") | listed(locale, "provinces")
    countries = listed(locale, "countries")
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    roles = [address_role(generator_name(s.category, s.type), text[s.start:s.end].strip(), locale, states, countries)
             for s in ordered]
    out = []
    for g in address_groups(text, [(s.start, s.end) for s in ordered], roles):
        parts = [(roles[i], text[ordered[i].start:ordered[i].end].strip()) for i in g if roles[i] != "street"]
        if len(parts) > 1:
            out.append(record_agrees(parts, locale))
    return out
