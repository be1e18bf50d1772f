"""The word lists dictionaries match: the ones shipped per locale (:mod:`pipeline.locales`) with
their categories and generic types, and the ones a lead uploads for a project (:func:`make_list`).

Entries are cleaned once here: stripped, titles removed ("Dr." is never part of a name),
de-duplicated after normalisation, and entries shorter than :data:`MIN_ENTRY_LEN` dropped (state
codes "MD", "OR", "IN" are clinical words). Apart from the matcher
(:mod:`pipeline.detection.dictionaries`) because a project's settings check an uploaded list
without building an automaton, and boundary steps read :data:`SHIPPED_KINDS`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from pipeline.detection.dictionary_text import normalize_entry
from pipeline.locales import available_lists, load_list
from pipeline.schemas import LabelSchema, SchemaError, get_schema

MIN_ENTRY_LEN = 3

# shipped list file -> (category, generic type, proper noun?). Professions are shipped for
# surrogates but not matched by default (see DETECT_BY_DEFAULT): "médico", "nurse" are everywhere
# in clinical text and are PHI only when they describe the patient.
SHIPPED_KINDS: dict[str, tuple[str, str, bool]] = {
    "first_names": ("NAME", "PATIENT", True),
    "surnames": ("NAME", "PATIENT", True),
    "cities": ("LOCATION", "CITY", True),
    # detection only (never a surrogate's source): the English pack's GeoNames towns, benchmarks/build_en_towns.py
    "towns": ("LOCATION", "CITY", True),
    # detection only: the English pack's post-acute, dialysis and home-care chains ("Kindred", "Apria")
    "care_chains": ("LOCATION", "HOSPITAL", True),
    "states": ("LOCATION", "STATE", True),
    "provinces": ("LOCATION", "STATE", True),
    "countries": ("LOCATION", "COUNTRY", True),
    "countries_official": ("LOCATION", "COUNTRY", True),
    "hospitals": ("LOCATION", "HOSPITAL", True),
    "organizations": ("LOCATION", "ORGANIZATION", True),
    "manufacturers": ("LOCATION", "ORGANIZATION", True),
    "streets": ("LOCATION", "STREET", True),
    "professions": ("PROFESSION", "PROFESSION", False),
}

DETECT_BY_DEFAULT = frozenset(k for k in SHIPPED_KINDS if k != "professions")

#: shipped lists whose hits are weaker evidence than a rule that read the context: their score is
#: multiplied by this, so a rule's span of the same stretch wins the combination (a gazetteer of
#: 10,000 towns holds surnames too: "Bruton" after "wife" is the wife, whatever GeoNames says)
SHIPPED_WEIGHTS: dict[str, float] = {"towns": 0.75}

_TITLE_WORDS = ("Dr", "Dra", "Drs", "Dres", "Sr", "Sra", "Srta", "Mr", "Mrs", "Ms", "Miss", "Prof", "Profa",
                "Dña", "Dª", "DR", "DRA")
_ENTRY_TITLE = re.compile(r"^(?:(?:%s)\.?\s+)+" % "|".join(_TITLE_WORDS))


@dataclass(frozen=True)
class DictionaryList:
    """A named word list: every entry is a ``category``/``type`` value.

    ``proper_noun`` lists (names, places) never match a lower-case word against a capitalised
    entry. ``type`` may be generic (mapped per schema) or the schema's own.
    """

    name: str
    category: str
    type: str
    entries: tuple[str, ...]
    proper_noun: bool = True
    origin: str = "shipped"

    def __len__(self) -> int:
        return len(self.entries)


def _clean_entries(entries: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for raw in entries:
        if not isinstance(raw, str):
            continue
        e = _ENTRY_TITLE.sub("", raw.strip().lstrip("\ufeff")).strip()
        if not e or e.startswith("#"):
            continue
        key = normalize_entry(e)
        if len(key) < MIN_ENTRY_LEN or key in seen:
            continue
        seen.add(key)
        out.append(e)
    return tuple(out)


def make_list(category: str, type_: str, name: str, entries: Iterable[str], *,
              schema: LabelSchema | str | None = None, proper_noun: bool | None = None) -> DictionaryList:
    """A list uploaded by a lead: validates the label against ``schema`` and cleans the entries.

    Entries are stripped, de-duplicated (after normalisation), comment lines (``#``) and
    entries shorter than three characters dropped, leading titles removed. Raises
    :class:`SchemaError` for a label the schema lacks and ``ValueError`` for an empty list or a
    bad name; messages never quote entries (they may be patients' names).
    """
    if not name or not re.fullmatch(r"[\w .()-]{1,80}", name):
        raise ValueError("dictionary name must be 1-80 letters, digits, spaces, '.', '-', '_' or brackets")
    if schema is not None:
        sch = get_schema(schema) if isinstance(schema, str) else schema
        if category not in sch.categories:
            raise SchemaError(f"dictionary {name!r}: category {category!r} is not in schema {sch.name!r}")
        if type_ and type_ not in sch.categories[category]:
            raise SchemaError(f"dictionary {name!r}: type {type_!r} is not under {category} in schema {sch.name!r}")
    cleaned = _clean_entries(entries)
    if not cleaned:
        raise ValueError(f"dictionary {name!r} has no usable entries (at least {MIN_ENTRY_LEN} characters each)")
    if proper_noun is None:
        proper_noun = category not in ("PROFESSION", "OTHER")
    return DictionaryList(name=name, category=category, type=type_, entries=cleaned,
                          proper_noun=proper_noun, origin="uploaded")


def shipped_lists(locale: str, names: Iterable[str] | None = None) -> list[DictionaryList]:
    """The lists shipped for ``locale`` with their categories and generic types.

    ``names`` selects lists; by default all but professions (:data:`DETECT_BY_DEFAULT`).
    """
    wanted = set(names) if names is not None else DETECT_BY_DEFAULT
    out: list[DictionaryList] = []
    for name in available_lists(locale):
        if name not in SHIPPED_KINDS or name not in wanted:
            continue
        cat, gtype, proper = SHIPPED_KINDS[name]
        out.append(DictionaryList(name=name, category=cat, type=gtype, entries=_clean_entries(load_list(locale, name)),
                                  proper_noun=proper, origin="shipped"))
    return out
