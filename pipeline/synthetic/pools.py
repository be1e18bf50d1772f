"""The generator's own name and place pools, read from the data files beside this module.

They are kept apart from the detection dictionaries on purpose: the corpus must contain names
and places those dictionaries do not know, so that a detector is not tested on its own word lists.
A trailing ``*`` in a name file marks a name that is also a common word or a place
(Hope, Will, Brown, Paris): the hard cases for taggers.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"


@dataclass(frozen=True)
class City:
    name: str
    state: str
    state_abbr: str
    zip_prefix: str


@dataclass(frozen=True)
class Hospital:
    name: str
    short: str


@dataclass(frozen=True)
class Pools:
    first_names: tuple[str, ...]
    first_by_sex: dict[str, tuple[str, ...]]  # "F"/"M" -> names usable for that sex (U in both)
    ambiguous_first_by_sex: dict[str, tuple[str, ...]]
    surnames: tuple[str, ...]
    ambiguous_first: tuple[str, ...]
    ambiguous_surnames: tuple[str, ...]
    cities: tuple[City, ...]
    hospitals: tuple[Hospital, ...]
    streets: tuple[str, ...]
    professions: tuple[str, ...]
    organizations: tuple[str, ...]
    departments: tuple[str, ...]
    countries: tuple[str, ...]
    locations_other: tuple[str, ...]
    syllables: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _lines(name: str) -> list[str]:
    out = []
    for raw in (DATA_DIR / name).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def _names(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """All names (marker stripped) and the subset marked as common words/places."""
    names, ambiguous = [], []
    for line in _lines(name):
        if line.endswith("*"):
            line = line[:-1].strip()
            ambiguous.append(line)
        names.append(line)
    return tuple(names), tuple(ambiguous)


def _first_names() -> list[tuple[str, str, bool]]:
    """(name, sex, ambiguous) from ``first_names.txt`` (name<TAB>F|M|U)."""
    out = []
    for line in _lines("first_names.txt"):
        name, _, sex = line.partition("\t")
        name, sex = name.strip(), (sex.strip() or "U")
        if sex not in ("F", "M", "U"):
            raise ValueError("first_names.txt: sex must be F, M or U")
        amb = name.endswith("*")
        out.append((name.rstrip("*").strip(), sex, amb))
    return out


@lru_cache(maxsize=1)
def load_pools() -> Pools:
    rows = _first_names()
    first = tuple(n for n, _, _ in rows)
    amb_first = tuple(n for n, _, a in rows if a)
    by_sex = {x: tuple(n for n, s, _ in rows if s in (x, "U")) for x in ("F", "M")}
    amb_by_sex = {x: tuple(n for n, s, a in rows if a and s in (x, "U")) for x in ("F", "M")}
    last, amb_last = _names("surnames.txt")
    cities = []
    for line in _lines("cities.tsv"):
        parts = line.split("\t")
        if len(parts) != 4:
            raise ValueError(f"cities.tsv: expected 4 tab-separated fields, got {len(parts)}")
        cities.append(City(*parts))
    hospitals = []
    for line in _lines("hospitals.txt"):
        full, _, short = line.partition("|")
        hospitals.append(Hospital(full.strip(), (short or full).strip()))
    syl = _lines("name_syllables.txt")
    return Pools(
        first_names=first, first_by_sex=by_sex, ambiguous_first_by_sex=amb_by_sex, surnames=last, ambiguous_first=amb_first, ambiguous_surnames=amb_last,
        cities=tuple(cities), hospitals=tuple(hospitals), streets=tuple(_lines("streets.txt")),
        professions=tuple(_lines("professions.txt")), organizations=tuple(_lines("organizations.txt")),
        departments=tuple(_lines("departments.txt")), countries=tuple(_lines("countries.txt")),
        locations_other=tuple(_lines("locations_other.txt")),
        syllables=(tuple(syl[0].split()), tuple(syl[1].split()), tuple(syl[2].split())),
    )
