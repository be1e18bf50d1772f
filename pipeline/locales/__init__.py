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
detection matches and surrogates never draw from. ``word_towns`` (en: towns whose one-word name is
an ordinary word, "reading") is no dictionary: the English rules read it after "lives in".
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


@lru_cache(maxsize=None)
def load_vocabulary(locale: str) -> "Vocabulary":
    """The locale's safe vocabulary and word frequencies (``<locale>/vocab/``), empty when it
    ships none. Kept apart from the lists above so that dictionaries and surrogates never read
    them: these words are what a note says that is *not* PHI."""
    d = LOCALES_DIR / locale / "vocab"
    if not locale.replace("_", "").replace("-", "").isalnum() or not d.is_dir():
        return Vocabulary(frozenset(), {})
    safe: set[str] = set()
    zipf: dict[str, int] = {}
    p = d / "safe_words.txt"
    if p.is_file():
        safe = {w.strip() for w in p.read_text(encoding="utf-8").splitlines() if w.strip() and not w.startswith("#")}
    ambiguous: set[str] = set()
    p = d / "ambiguous_words.txt"
    if p.is_file():
        ambiguous = {w.strip() for w in p.read_text(encoding="utf-8").splitlines() if w.strip() and not w.startswith("#")}
    p = d / "word_zipf.tsv"
    if p.is_file():
        for line in p.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                w, _, b = line.partition("\t")
                zipf[w] = int(b)
    return Vocabulary(frozenset(safe), zipf, frozenset(ambiguous))


class Vocabulary:
    """Lower-case words never PHI alone (``safe``) and each common word's integer Zipf bucket
    (``zipf``: 3 to 7; a word absent is rarer), and the ``ambiguous`` words: clinical or ordinary
    words that are also a listed surname ("foley", "brown"), PHI only with context. Built from
    maintained packages by ``benchmarks/build_en_vocab.py``; see README, "English safe vocabulary"."""

    def __init__(self, safe: frozenset[str], zipf: dict[str, int], ambiguous: frozenset[str] = frozenset()):
        self.safe = safe
        self.zipf = zipf
        self.ambiguous = ambiguous

    def __bool__(self) -> bool:
        return bool(self.safe or self.zipf)

    def is_safe(self, word: str) -> bool:
        return word.lower() in self.safe
