"""Text normalisation shared by consistency keys, collision checks and the leak scan: case
styles, accents, and which particles a name keeps. The folding itself (:func:`norm_key`,
:func:`fold_same_length`) and the words of names that are not names (titles, particles) live
where detection reads them too (:mod:`pipeline.text_fold`, :mod:`pipeline.locales.shared_words`);
they are imported here so de-identification has one place to import them from.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from pipeline.locales.shared_words import NAME_PARTICLES, NAME_TITLES  # noqa: F401  (re-exported)
from pipeline.text_fold import fold_same_length, norm_key  # noqa: F401  (re-exported)


def case_style(s: str) -> str:
    """``upper``, ``lower``, ``title`` or ``mixed``, judged on letters only."""
    letters = [c for c in s if c.isalpha()]
    if not letters:
        return "mixed"
    if all(c.isupper() for c in letters) and (len(letters) > 1 or len(s) == 1):
        return "upper"
    if all(c.islower() for c in letters):
        return "lower"
    if letters[0].isupper():
        return "title"
    return "mixed"


def apply_case(value: str, style: str) -> str:
    """Give ``value`` the case style of an original (``title`` capitalises each word's first letter)."""
    if style == "upper":
        return value.upper()
    if style == "lower":
        return value.lower()
    if style == "title":
        return re.sub(r"(^|[\s\-'’])(\w)", lambda m: m.group(1) + m.group(2).upper(), value)
    return value


def strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))


_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


@lru_cache(maxsize=1 << 15)
def kept_particles(name: str) -> frozenset[int]:
    """Start offsets of the particles a person's name keeps as they are.

    A particle is kept only *between* two words of the name, within one comma-separated part:
    "del" of "María del Carmen", "van" of "Ludwig van Beethoven", "de" and "la" of "Ana de la
    Cruz", and "Van der" of "Van der Berg, Hunter" (two particles before a surname). The same
    word alone where a name starts ("Del Farrissey", "Ben Carter", "Al Smith", "Van
    Morrison", or after the comma of "Smith, Al") or ends ("Anna Le") is the person's given name
    or surname: kept, it would carry the original through the surrogate (the surrogate engine
    replaces it, the leak check and propagation search it). Titles ("Dr.", "MD") are not words
    of the name here.
    """
    words = [m for m in _NAME_WORD.finditer(name) if norm_key(m.group()).rstrip(".") not in NAME_TITLES]
    particle = [norm_key(w.group()) in NAME_PARTICLES for w in words]
    out = []
    for i in range(len(words) - 1):
        word, nxt = words[i], words[i + 1]
        if not particle[i] or "," in name[word.end():nxt.start()]:
            continue
        opens = i == 0 or "," in name[words[i - 1].end():word.start()]
        # inside the name; or opening it as the first of two particles before a word ("VAN DER
        # BERG, Hunter"): "Van Der" is never a given name, and the same person's "Hunter Van der
        # Berg" keeps it, so replacing it in one note and keeping it in another would pair them
        if not opens or (i + 2 < len(words) and particle[i + 1] and "," not in name[nxt.end():words[i + 2].start()]):
            out.append(word.start())
    return frozenset(out)

