"""The locale's address table: rows of a city with its state, abbreviation, region and postcode stem.

``pipeline/locales/<locale>/addresses.tsv`` (tab-separated; ``#`` lines are comments) is what
:mod:`pipeline.deid.addresses` draws one address from, so that its parts agree, and what the
shape checks (:mod:`pipeline.deid.shapes`) read as the locale's places. A ``.tsv`` and not a
``.txt`` list: dictionaries and the CRF's gazetteer read every ``.txt`` list of a locale, and
these rows are surrogate sources only. Apart from both readers so neither imports the other.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pipeline.locales import LOCALES_DIR


@dataclass(frozen=True)
class AddressRecord:
    """One row of a locale's address table; ``postcode`` is a stem (its leading digits)."""

    city: str
    state: str
    abbr: str
    region: str
    postcode: str

    def value(self, role: str) -> str:
        return getattr(self, role)


@lru_cache(maxsize=None)
def address_records(locale: str) -> tuple[AddressRecord, ...]:
    """The locale's address table (empty when it ships none)."""
    if not locale.replace("_", "").replace("-", "").isalnum():
        return ()
    p = LOCALES_DIR / locale / "addresses.tsv"
    if not p.is_file():
        return ()
    out = []
    for line in p.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = [x.strip() for x in line.split("\t")] + [""] * 5
        out.append(AddressRecord(*f[:5]))
    return tuple(out)


@lru_cache(maxsize=None)
def address_entries(locale: str) -> tuple[str, ...]:
    """Every name and postcode stem of the table: public values, like the entries of a list
    (the keyed set of a project's values does not refuse them)."""
    return tuple(sorted({v for r in address_records(locale) for v in (r.city, r.state, r.abbr, r.region, r.postcode)
                         if v}))
