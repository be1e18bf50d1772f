"""Places a ward note names besides hospitals: nursing homes, rehabs, LTACHs, dialysis units and
hospices, employers, congregations, ambulance and air services, shelters and family lodging,
foreign cities.

Why: a starter model trained on ward notes whose only places were a hospital and a town missed
most location characters of hand-written ICU social-work, case-management and nursing notes
("screened for LTACH, Maple Ridge has a bed", "HD at Riverbend Dialysis MWF", "pastor from Grace
Bible Fellowship visited", "brought in by Pike County EMS"). Each name here is put together from
the parts in ``data/ward/places.txt`` (shapes such as ``{nn} {facility_heads}`` and word lists)
and the generator's own surname and town lists, so a ward sees many such names, none real.

Parts: every section of the file is split into a train and a held-out part like the phrase pools
(``ward_places:<section>``), and the surnames and towns come from the part's wide lists, so a
held-out note names facilities from shapes and words no training note used.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache

from pipeline.synthetic.partition import check_part, part_of
from pipeline.synthetic.pools import DATA_DIR, Pools

PLACES_FILE = DATA_DIR / "ward" / "places.txt"
_FIELD = re.compile(r"\{([a-z_]+)\}")
#: fields a shape fills from the generator's name and town lists rather than from a section
NAME_FIELDS = frozenset({"nn", "town", "county", "last", "first"})
#: tails that also close a one-word place name ("Riverbend", "Oakwood", "Stonecrest")
COMPOUND_TAILS = frozenset({"Ridge", "Creek", "Brook", "Crest", "Glen", "Haven", "Bend", "View", "Wood", "Side",
                            "Field", "Gate", "Vale", "Run", "Grove"})
#: slot name -> (shape section, i2b2 2014 type): dialysis units and hospices count as hospitals
KINDS = {"facility": ("facility_shapes", "HOSPITAL"), "dialysis": ("dialysis_shapes", "HOSPITAL"),
         "hospice": ("hospice_shapes", "HOSPITAL"), "employer": ("employer_shapes", "ORGANIZATION"),
         "church": ("church_shapes", "ORGANIZATION"), "ems": ("ems_shapes", "ORGANIZATION"),
         "lodging": ("lodging_shapes", "ORGANIZATION")}


@lru_cache(maxsize=1)
def all_parts() -> dict[str, tuple[str, ...]]:
    """Every section of ``places.txt`` in file order (checked: shapes name known fields)."""
    out: dict[str, list[str]] = {}
    current = None
    for raw in PLACES_FILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = out.setdefault(line[1:-1], [])
            continue
        if current is None:
            raise ValueError("places.txt: a value before the first [section]")
        current.append(line)
    for name, values in out.items():
        for v in values:
            if v.count("{") != v.count("}"):
                raise ValueError(f"places.txt [{name}]: unbalanced braces")
            for field in _FIELD.findall(v):
                if field not in NAME_FIELDS and field not in out:
                    raise ValueError(f"places.txt [{name}]: unknown field {{{field}}}")
    missing = {s for s, _ in KINDS.values()} - set(out)
    if missing:
        raise ValueError(f"places.txt: missing sections {', '.join(sorted(missing))}")
    return {k: tuple(dict.fromkeys(v)) if not k.endswith("_shapes") else tuple(v) for k, v in out.items()}


@lru_cache(maxsize=8)
def place_parts(part: str = "all", split_seed: int = 0) -> dict[str, tuple[str, ...]]:
    """The parts of ``part``: each section split on its own (repeated shapes stay together)."""
    check_part(part)
    return {name: part_of(f"ward_places:{name}", values, part, split_seed) for name, values in all_parts().items()}


@dataclass(frozen=True)
class PlaceMaker:
    """Makes the names of one part from its parts and its name and town lists."""

    parts: dict[str, tuple[str, ...]]
    pools: Pools
    abroad: tuple[tuple[str, str], ...]   # (city, country): the part's foreign cities

    def nn(self, rng: random.Random) -> str:
        """A made-up place name: "Maple Ridge", "Golden Acres", now and then one word ("Riverbend")."""
        a, b = rng.choice(self.parts["nature"]), rng.choice(self.parts["nature_tail"])
        if b.lower().startswith(a.lower()) or a.lower().startswith(b.lower()):
            return a
        return a + b.lower() if b in COMPOUND_TAILS and rng.random() < 0.3 else f"{a} {b}"

    def town(self, rng: random.Random) -> str:
        return rng.choice(self.pools.cities).name

    def county(self, rng: random.Random) -> str:
        """A one-word county name (a surname or a town of the part)."""
        for _ in range(6):
            c = rng.choice((rng.choice(self.pools.surnames), self.town(rng)))
            if " " not in c and c.isalpha():
                return c
        return rng.choice(self.pools.surnames)

    def fill(self, shape: str, rng: random.Random, town: str | None = None) -> str:
        def one(m: re.Match) -> str:
            f = m.group(1)
            if f == "nn":
                return self.nn(rng)
            if f == "town":
                return town if town and rng.random() < 0.5 else self.town(rng)
            if f == "county":
                return self.county(rng)
            if f == "last":
                return rng.choice(self.pools.surnames)
            if f == "first":
                return rng.choice(self.pools.first_names)
            return rng.choice(self.parts[f])

        return re.sub(r"\s+", " ", _FIELD.sub(one, shape)).strip()

    def make(self, kind: str, rng: random.Random, town: str | None = None) -> tuple[str, str, str]:
        """``(name, i2b2 type, shape)`` of a place of ``kind`` (a key of :data:`KINDS`);
        ``town``: the patient's, used for about half of the ``{town}`` fields."""
        section, typ = KINDS[kind]
        shape = rng.choice(self.parts[section])
        return self.fill(shape, rng, town), typ, shape


@lru_cache(maxsize=8)
def ward_places(part: str = "all", split_seed: int = 0) -> PlaceMaker:
    """The :class:`PlaceMaker` of ``part``: its parts, its wide name and town lists, and its foreign
    cities (this file's and the wide generator's, each split on its own)."""
    from pipeline.synthetic.wide_lists import wide_pools

    wp = wide_pools(part, split_seed)
    parts = place_parts(part, split_seed)
    abroad = tuple(tuple(v.split("|", 1)) for v in parts["abroad"]) + tuple(wp.intl_cities)
    return PlaceMaker(parts, wp.pools, abroad)


__all__ = ["PlaceMaker", "ward_places", "place_parts", "all_parts", "KINDS", "NAME_FIELDS", "PLACES_FILE"]
