"""Shipped word lists per locale: names, places, hospitals, organisations, professions.

Detection (dictionaries) and de-identification (surrogates) read the same lists, so a surrogate
is drawn from the kind of value a dictionary would have found. Each list is a UTF-8 text file
``pipeline/locales/<locale>/<name>.txt``, one entry per line; lines starting with ``#`` (the
source header) and blank lines are skipped. Lists are compiled for this project, not copied
from any corpus, so they never hold real patients' data.

Lists (both locales unless noted): ``first_names``, ``first_names_female`` and
``first_names_male`` (subsets of ``first_names`` by common usage in the locale's language; names
used for both sexes are in neither; read by surrogates so a given name keeps its sex, not matched
by dictionaries), ``surnames``, ``cities``, ``states`` (en), ``provinces`` (es), ``countries``,
``hospitals``, ``organizations``, ``streets`` (street names without numbers), ``professions``,
``manufacturers`` (es, en) and ``countries_official`` (es: "República Argentina"), which
detection matches and surrogates never draw from.
``states`` and ``provinces`` are aliases of each other, so a caller asking for a locale's
first-level regions gets them under either name.

A locale folder may also be a package (``<locale>/__init__.py``) that registers the locale's
boundary steps and their words (:mod:`pipeline.detection.steps.registry`); ``es``, ``en`` and
``de`` list the shared Western pack's (:mod:`pipeline.locales.western`), which a locale without
a package of its own gets too.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

LOCALES_DIR = Path(__file__).resolve().parent

# A caller may ask for a locale's regions under either name.
_ALIASES = {"states": "provinces", "provinces": "states"}


def available_locales() -> list[str]:
    """Locales that ship at least one list."""
    return sorted(p.name for p in LOCALES_DIR.iterdir() if p.is_dir() and any(p.glob("*.txt")))


def available_lists(locale: str) -> list[str]:
    """Names of the lists shipped for ``locale`` (file stems), sorted; empty for an unknown locale."""
    d = LOCALES_DIR / locale
    if not d.is_dir():
        return []
    return sorted(p.stem for p in d.glob("*.txt"))


def _path(locale: str, name: str) -> Path:
    if not locale.replace("_", "").replace("-", "").isalnum() or not name.replace("_", "").isalnum():
        raise KeyError(f"invalid list name {locale!r}/{name!r}")
    p = LOCALES_DIR / locale / f"{name}.txt"
    if not p.is_file() and name in _ALIASES:
        p = LOCALES_DIR / locale / f"{_ALIASES[name]}.txt"
    if not p.is_file():
        raise KeyError(f"no list {name!r} for locale {locale!r}; available: {', '.join(available_lists(locale))}")
    return p


@lru_cache(maxsize=None)
def _load(locale: str, name: str) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for raw in _path(locale, name).read_text(encoding="utf-8-sig").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line in seen:
            continue
        seen.add(line)
        out.append(line)
    return tuple(out)


def load_list(locale: str, name: str) -> list[str]:
    """Entries of list ``name`` for ``locale``, in file order, without header, blanks or duplicates.

    Raises ``KeyError`` (naming the available lists) when the list does not exist. Returns a new
    list each call, so callers may mutate it.
    """
    return list(_load(locale, name))
