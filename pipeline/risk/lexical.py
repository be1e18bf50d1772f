"""Evidence of PHI left that needs no model: words in a released note, outside every span, whose
form or vocabulary says a person may still be named. A second opinion built differently from the
detector (which is confident exactly where it misses), cheap at release time:

* **kinship** (only where the schema has a relatives type, e.g. MEDDOCAN's
  FAMILIARES_SUJETO_ASISTENCIA): a kinship word of the locale's pack ("su madre", "his wife
  Maria") left as written, with a possessive before it or a capitalised word after it on its line
  (``kinship_any``: any kinship word left counts);
* **rare capitalised word**: a capitalised word, not opening a sentence or a line, whose
  frequency in the languages' general vocabulary (wordfreq, Zipf scale) is below a bound and that
  is not in the locale's clinical safe vocabulary: beside a replaced span on its line
  (``rare_near_zipf``: a surname left next to a surrogate first name) or anywhere
  (``rare_any_zipf``, off by default: drug names are rare words too);
* **unknown word** (only where the locale ships a clinical safe vocabulary, English today: without
  one, drug names and misspellings are unknown words too): a word of letters unknown to the
  languages' general vocabulary (Zipf 0) and to the safe vocabulary, left as written (a login
  "jdoe", a surname "Quagliarello"); off by default: on the demo's detected run it flags every
  note with PHI left but leaves 30 % of the others green (long drug and device names);
* **identifier-shaped number**: a token of letters and digits with at least ``id_digits`` digits
  (a record number, an identity number "12345678Z").

Each is returned as a candidate (:class:`DeidSpan`, ``source`` ``lexical:<kind>``, score 1.0)
that :func:`pipeline.risk.residual.candidate_reasons` turns into a reason in words at
``RiskConfig.lexical_level`` (amber). The defaults of :class:`LexicalConfig` are what
``benchmarks/risk_separation.py`` chose on MEDDOCAN train (see there).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Sequence

from pipeline.risk.types import DeidDocument, DeidSpan

KINDS = ("kinship", "rare_word", "id_shape")
WHY = {
    "kinship": "is a relative's kinship word with a name or possessive beside it",
    "rare_word": "is a rare capitalised word (not in the languages' common vocabulary) beside a replaced span",
    "rare_word_anywhere": "is a rare capitalised word (not in the languages' common vocabulary)",
    "unknown_word": "is a word unknown to the languages' vocabulary and to the clinical safe vocabulary",
    "id_shape": "has the shape of an identifier (letters and digits, many digits)",
}


@dataclass(frozen=True)
class LexicalConfig:
    """Which lexical evidence is looked for, and how strict each is (0 / 0.0 / False: off).

    The defaults are the variant ``benchmarks/risk_separation.py`` chose on MEDDOCAN train
    (cross-fitted half, 250 notes; the highest share of notes with missed PHI flagged while >= 72 %
    of the others stay green): identifier shapes only, flagged 0.612 / green 0.746 against 0.592 /
    0.751 without. Kinship words (``kinship_any``) reached 0.714 flagged but 0.711 green, under
    that bar; a project that prefers recall turns them on."""
    kinship: bool = False
    kinship_any: bool = False
    rare_near_zipf: float = 0.0
    rare_any_zipf: float = 0.0
    id_digits: int = 6
    unknown_words: bool = False   # the demo (English): flagged 0.84 -> 1.00 but green 0.79 -> 0.30
    languages: tuple[str, ...] = ("es", "en")


@dataclass(frozen=True)
class LexicalWords:
    """What the locale gives: its kinship words (a regex alternation, or "" when none), the
    relatives type of the schema ("" when it has none, then kinship is not looked for) and its
    category, and its clinical safe vocabulary (lower-case words never PHI alone)."""
    kinship: str = ""
    relative_type: str = ""
    relative_category: str = "NAME"
    safe: frozenset[str] = frozenset()


_CAP = re.compile(r"(?<![\w.@])[A-ZÁÉÍÓÚÑÜ][a-záéíóúñü'\-]{2,}(?![\w@])")
_SENTENCE_START = re.compile(r"(?:^|[.:;!?¿¡•*\-\n(\"]\s*)$")
_ID = re.compile(r"(?<![\w.,/-])(?=[\w\-/]*\d)\w[\w\-/]{4,}(?![\w])")
_POSSESSIVE = re.compile(r"(?i)(?:\b(?:su|sus|mi|mis|tu|his|her|their|my|patient's|pt's)\s+)(?:\w+\s+)?$")
_NAME_AFTER = re.compile(r"[ \t]*,?[ \t]*[A-ZÁÉÍÓÚÑ][a-záéíóúñü]{2,}")


def _free(spans: Sequence[DeidSpan], start: int, end: int) -> bool:
    return not any(s.start < end and start < s.end for s in spans)


def _beside(doc: DeidDocument, start: int, end: int, gap: int = 3) -> bool:
    """A replaced span ends just before or starts just after [start, end) on the same line."""
    t = doc.text
    for s in doc.spans:
        if 0 <= start - s.end <= gap and "\n" not in t[s.end:start]:
            return True
        if 0 <= s.start - end <= gap and "\n" not in t[end:s.start]:
            return True
    return False


@lru_cache(maxsize=200_000)
def zipf(word: str, languages: tuple[str, ...]) -> float:
    """The word's highest Zipf frequency among ``languages`` (0 when unknown to all)."""
    from wordfreq import zipf_frequency
    return max((zipf_frequency(word, lang) for lang in languages), default=0.0)


def kinship_spans(doc: DeidDocument, words: LexicalWords, any_word: bool = False) -> Iterable[tuple[int, int]]:
    """Kinship words left as written with a possessive before or a capitalised word after."""
    if not (words.kinship and words.relative_type):
        return
    t = doc.text
    for m in re.finditer(rf"(?i)(?<!\w)(?:{words.kinship})(?!\w)", t):
        a, b = m.span()
        if not _free(doc.spans, a, b):
            continue
        line_start = t.rfind("\n", 0, a) + 1
        if any_word or _POSSESSIVE.search(t[line_start:a]) or _NAME_AFTER.match(t, b):
            yield a, b


def rare_words(doc: DeidDocument, words: LexicalWords, bound: float, near: bool,
               languages: tuple[str, ...], freq: Callable[[str, tuple[str, ...]], float] = zipf
               ) -> Iterable[tuple[int, int]]:
    """Capitalised words left as written, not opening a sentence or line, rarer than ``bound``."""
    t = doc.text
    for m in _CAP.finditer(t):
        a, b = m.span()
        if not _free(doc.spans, a, b) or _SENTENCE_START.search(t[max(0, a - 4):a]):
            continue
        w = m.group().lower()
        if w in words.safe or (near and not _beside(doc, a, b)):
            continue
        if freq(w, languages) < bound:
            yield a, b


_LETTERS = re.compile(r"(?<![\w@.\-/])[^\W\d_]{4,}(?![\w@\-/])")


def unknown_words(doc: DeidDocument, words: LexicalWords, languages: tuple[str, ...],
                  freq: Callable[[str, tuple[str, ...]], float] = zipf) -> Iterable[tuple[int, int]]:
    """Words of letters left as written that neither the languages nor the locale's safe
    vocabulary know (none without a safe vocabulary: see the module's note)."""
    if not words.safe:
        return
    for m in _LETTERS.finditer(doc.text):
        w = m.group().lower()
        if w not in words.safe and _free(doc.spans, *m.span()) and freq(w, languages) == 0.0:
            yield m.span()


def id_shapes(doc: DeidDocument, digits: int) -> Iterable[tuple[int, int]]:
    """Tokens of letters/digits/dashes with at least ``digits`` digits, left as written."""
    for m in _ID.finditer(doc.text):
        if sum(c.isdigit() for c in m.group()) >= digits and _free(doc.spans, *m.span()):
            yield m.span()


def lexical_candidates(doc: DeidDocument, words: LexicalWords, config: LexicalConfig = LexicalConfig()
                       ) -> list[DeidSpan]:
    """The lexical evidence in ``doc`` as candidates (``source`` ``lexical:<kind>``), one per
    stretch, first kind wins where two overlap."""
    found: list[tuple[int, int, str, str, str]] = []
    if config.kinship:
        found += [(a, b, words.relative_category, words.relative_type, "kinship")
                  for a, b in kinship_spans(doc, words, config.kinship_any)]
    if config.rare_near_zipf > 0:
        found += [(a, b, "NAME", "", "rare_word")
                  for a, b in rare_words(doc, words, config.rare_near_zipf, True, config.languages)]
    if config.rare_any_zipf > 0:
        found += [(a, b, "NAME", "", "rare_word_anywhere")
                  for a, b in rare_words(doc, words, config.rare_any_zipf, False, config.languages)]
    if config.unknown_words:
        found += [(a, b, "NAME", "", "unknown_word") for a, b in unknown_words(doc, words, config.languages)]
    if config.id_digits > 0:
        found += [(a, b, "ID", "", "id_shape") for a, b in id_shapes(doc, config.id_digits)]
    out: list[DeidSpan] = []
    for a, b, cat, typ, kind in found:
        if any(c.start < b and a < c.end for c in out):
            continue
        out.append(DeidSpan(a, b, cat, typ or cat, action="none", score=1.0, source=f"lexical:{kind}"))
    return sorted(out, key=lambda s: s.start)
