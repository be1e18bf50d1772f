"""The wide generator's lists: larger name and place lists, generated hospitals, streets,
organisations, departments and landmarks, each split into a train and a held-out part.

Apart from :mod:`pipeline.synthetic.wide` (which writes notes) because the ward generator
(:mod:`pipeline.synthetic.ward`) draws its people from the same parts. Every value of the narrow
generator's lists counts as train; given the same ``split_seed`` a part's lists are the same.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from pipeline.synthetic.partition import check_part, part_of
from pipeline.synthetic.pools import DATA_DIR, City, Hospital, Pools, load_pools

WIDE_DIR = DATA_DIR / "wide"


def _lines(name: str) -> list[str]:
    return [ln.strip() for ln in (WIDE_DIR / name).read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")]


STREET_SUFFIXES = ("Street", "St", "St.", "Avenue", "Ave", "Ave.", "Road", "Rd", "Lane", "Ln", "Drive", "Dr",
                   "Court", "Ct", "Boulevard", "Blvd", "Way", "Place", "Pl", "Terrace", "Circle", "Parkway", "Pike",
                   "Highway", "Trail", "Row")
TREES = ("Birch", "Cedar", "Willow", "Aspen", "Hawthorn", "Juniper", "Magnolia", "Sycamore", "Chestnut", "Poplar",
         "Linden", "Alder", "Cypress", "Hickory", "Laurel", "Rowan", "Spruce", "Hazel", "Beech", "Mulberry")
HOSPITAL_PATTERNS = ("{city} General Hospital|{city} General", "{city} Medical Center|{city} Medical",
                     "{city} Regional Hospital|{city} Regional", "{last} Memorial Hospital|{last} Memorial",
                     "St. {first}'s Hospital|St. {first}'s", "{city} Community Hospital|{city} Community",
                     "{last} Clinic|{last} Clinic", "{city} Health Center|{city} Health",
                     "University Hospital of {city}|University Hospital", "{last} Children's Hospital|{last} Children's")
ORG_PATTERNS = ("{last} & {last2} LLP", "{city} Public Schools", "{last} Industries", "{city} Transit Authority",
                "{last} Construction", "{city} Fire Department", "{last} Bakery", "{city} County Library",
                "{last} Brothers Trucking", "{city} Police Department", "{last} Dental Group", "{city} Credit Union")
DEPT_PATTERNS = ("{last} {n} Medicine", "{last} {n} Surgical ICU", "{last} {n} Oncology", "{last} Pavilion {n}",
                 "{last} {n} Step-Down", "{last} Wing {n}", "{last} {n} Orthopedics")
LANDMARK_PATTERNS = ("{last} Park", "Lake {last}", "the {city} Zoo", "the {last} Library", "{last} Beach",
                     "the {city} YMCA", "{last} State Forest", "the {city} Mall", "Mount {last}", "{last} Marina")
NEW_PROFESSIONS = ("bus driver", "software engineer", "dental hygienist", "paralegal", "welder", "barista",
                   "line cook", "pharmacist", "school counselor", "librarian", "roofer", "court reporter",
                   "flight attendant", "real estate agent", "veterinary technician", "landscaper", "tailor",
                   "firefighter", "security guard", "bank teller", "machinist", "home health aide", "architect",
                   "social worker", "dock worker", "hairdresser", "plumber's apprentice", "farmhand", "cashier",
                   "massage therapist", "graphic designer", "translator", "crane operator", "pastor",
                   "insurance adjuster", "auto mechanic", "data analyst", "baker", "meat cutter", "postal clerk")


def _generated(patterns: tuple[str, ...], count: int, tag: str, lasts, firsts, cities) -> list[str]:
    """``count`` distinct names from ``patterns`` filled from the lists, fixed by ``tag`` alone."""
    rng = random.Random(f"wide-lists:{tag}")
    out: dict[str, None] = {}
    for _ in range(count * 4):
        if len(out) >= count:
            break
        pat = rng.choice(patterns)
        out[pat.format(last=rng.choice(lasts), last2=rng.choice(lasts), first=rng.choice(firsts),
                       city=rng.choice(cities), n=rng.randint(2, 19))] = None
    return list(out)


@dataclass(frozen=True)
class WideLists:
    """Every list of the wide generator, before the split."""

    first: tuple[tuple[str, str], ...]
    surnames: tuple[str, ...]
    cities: tuple[City, ...]
    intl_cities: tuple[tuple[str, str], ...]
    countries: tuple[str, ...]
    hospitals: tuple[Hospital, ...]
    streets: tuple[str, ...]
    organizations: tuple[str, ...]
    departments: tuple[str, ...]
    landmarks: tuple[str, ...]
    professions: tuple[str, ...]


@lru_cache(maxsize=1)
def wide_lists() -> WideLists:
    narrow = load_pools()
    first = [tuple(ln.split("\t")) for ln in _lines("first_names.tsv")]
    first_names = [f for f, _ in first]
    surnames = _lines("surnames.txt")
    cities = [City(*ln.split("\t")) for ln in _lines("cities_us.tsv")]
    city_names = [c.name for c in cities]
    hospitals = []
    for h in _generated(HOSPITAL_PATTERNS, 700, "hospitals", surnames, first_names, city_names):
        full, _, short = h.partition("|")
        hospitals.append(Hospital(full, short or full))
    hosp_full = {h.name for h in narrow.hospitals}
    streets = _generated(tuple(f"{{{k}}} {s}" for k in ("last", "first", "city") for s in STREET_SUFFIXES)
                         + tuple(f"{t} {s}" for t in TREES for s in STREET_SUFFIXES[:6]), 2000, "streets",
                         surnames, first_names, city_names)
    return WideLists(
        first=tuple((f, s) for f, s in first) + tuple((n, "U") for n in narrow.first_names if n not in set(first_names)),
        surnames=tuple(dict.fromkeys(list(narrow.surnames) + surnames)),
        cities=tuple({c.name: c for c in list(narrow.cities) + cities}.values()),
        intl_cities=tuple(tuple(ln.split("\t")) for ln in _lines("cities_intl.tsv")),
        countries=tuple(dict.fromkeys(list(narrow.countries) + _lines("countries.txt"))),
        hospitals=tuple(narrow.hospitals) + tuple(h for h in hospitals if h.name not in hosp_full),
        streets=tuple(dict.fromkeys(list(narrow.streets) + streets)),
        organizations=tuple(dict.fromkeys(list(narrow.organizations)
                                          + _generated(ORG_PATTERNS, 600, "orgs", surnames, first_names, city_names))),
        departments=tuple(dict.fromkeys(list(narrow.departments)
                                        + _generated(DEPT_PATTERNS, 400, "depts", surnames, first_names, city_names))),
        landmarks=tuple(dict.fromkeys(list(narrow.locations_other)
                                      + _generated(LANDMARK_PATTERNS, 400, "landmarks", surnames, first_names, city_names))),
        professions=tuple(dict.fromkeys(list(narrow.professions) + list(NEW_PROFESSIONS))),
    )


@dataclass(frozen=True)
class WidePools:
    """The lists of one part: a :class:`Pools` for the people and the narrow templates, plus
    what only the new templates use."""

    pools: Pools
    intl_cities: tuple[tuple[str, str], ...]


@lru_cache(maxsize=8)
def wide_pools(part: str = "all", split_seed: int = 0) -> WidePools:
    """The lists of ``part``; every value of the narrow lists is in the train part."""
    check_part(part)
    narrow, lists = load_pools(), wide_lists()
    keep = frozenset

    def sel(kind, values, old, key=str):
        return part_of(kind, values, part, split_seed, key=key, always_train=keep(old))

    first = sel("first_names", lists.first, narrow.first_names, key=lambda x: x[0])
    by_sex = {x: tuple(n for n, s in first if s in (x, "U")) for x in ("F", "M")}
    amb_by_sex = narrow.ambiguous_first_by_sex if part != "heldout" else by_sex
    if part == "all":
        amb_by_sex = narrow.ambiguous_first_by_sex
    surnames = sel("surnames", lists.surnames, narrow.surnames)
    pools = Pools(
        first_names=tuple(n for n, _ in first), first_by_sex=by_sex, ambiguous_first_by_sex=amb_by_sex,
        surnames=surnames, ambiguous_first=narrow.ambiguous_first if part != "heldout" else (),
        ambiguous_surnames=narrow.ambiguous_surnames if part != "heldout" else surnames,
        cities=sel("cities", lists.cities, [c.name for c in narrow.cities], key=lambda c: c.name),
        hospitals=sel("hospitals", lists.hospitals, [h.name for h in narrow.hospitals], key=lambda h: h.name),
        streets=sel("streets", lists.streets, narrow.streets),
        professions=sel("professions", lists.professions, narrow.professions),
        organizations=sel("organizations", lists.organizations, narrow.organizations),
        departments=sel("departments", lists.departments, narrow.departments),
        countries=sel("countries", lists.countries, narrow.countries),
        locations_other=sel("landmarks", lists.landmarks, narrow.locations_other),
        syllables=narrow.syllables,
    )
    intl = part_of("intl_cities", lists.intl_cities, part, split_seed, key=lambda x: x[0])
    return WidePools(pools, intl)
