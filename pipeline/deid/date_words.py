"""The words and tokens a written date is made of, in English and Spanish: the one place that
knows the language of dates.

A date span is cut into tokens (a time, a number, a word, any other character). Every token
that is not a number gets its role here (a separator or allowed filler word such as "of", "de",
"año" kept literally; an ordinal suffix; a month, season or weekday name with its language and
form), and the same tables write a name back for a new value in the original's language, form
and letter case. Reading what the numbers mean is :mod:`pipeline.deid.date_parse`'s job;
putting the pieces back together, :mod:`pipeline.deid.dates`'.

:class:`DateParseError` lives here, the lowest of the three date modules, because every step
(this one first) raises it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.deid.normalize import case_style, strip_accents

_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
              "october", "november", "december")
_ES_MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
              "octubre", "noviembre", "diciembre")
_EN_ABBR = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ES_ABBR = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic")
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EN_WD_ABBR = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ES_WEEKDAYS = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")
# season index: 0 winter, 1 spring, 2 summer, 3 autumn (winter of Y = the one starting Dec Y-1)
_EN_SEASONS = ("winter", "spring", "summer", "autumn")
_ES_SEASONS = ("invierno", "primavera", "verano", "otoño")

_FILLERS = {
    "of", "the", "in", "on", "year", "early", "mid", "late", "around", "about", "circa", "ca", "approximately",
    "de", "del", "el", "en", "año", "ano", "mes", "a", "principios", "mediados", "finales", "hacia", "durante",
    "los", "las", "dia", "día",
}
_TIME_FILLERS = {"h", "hs", "hrs", "horas", "hours", "hr"}
_ORDINALS = {"st", "nd", "rd", "th", "º", "ª", "er", "o"}
_SEPARATORS = set(" \t\n\r/-.,'’()–\u00a0")

_TOKEN = re.compile(
    r"(?P<time>\d{1,2}:\d{2}(?::\d{2})?(?:\s*[aApP]\.?\s?[mM]\.?)?|\d{1,2}\s*[aApP]\.?[mM]\.?(?!\w))"
    r"|(?P<num>\d+)"
    r"|(?P<word>[^\W\d_]+\.?)"
    r"|(?P<other>.)",
    re.S,
)


def _lookup() -> tuple[dict[str, list[tuple[str, int, str]]], dict[str, tuple[str, int]], dict[str, tuple[str, int]]]:
    months: dict[str, list[tuple[str, int, str]]] = {}
    for lang, full, abbr in (("en", _EN_MONTHS, _EN_ABBR), ("es", _ES_MONTHS, _ES_ABBR)):
        for i, name in enumerate(full):
            months.setdefault(name, []).append((lang, i + 1, "full"))
        for i, name in enumerate(abbr):
            if name not in full:
                months.setdefault(name, []).append((lang, i + 1, "abbr"))
    months.setdefault("sept", []).extend([("en", 9, "abbr4"), ("es", 9, "abbr4")])
    months.setdefault("setiembre", []).append(("es", 9, "full"))
    months.setdefault("set", []).append(("es", 9, "abbr"))
    weekdays: dict[str, tuple[str, int]] = {}
    for i, name in enumerate(_EN_WEEKDAYS):
        weekdays[name] = ("en", i)
    for i, name in enumerate(_EN_WD_ABBR):
        weekdays[name] = ("en", i)
    weekdays.update({"tues": ("en", 1), "thur": ("en", 3), "thurs": ("en", 3)})
    for i, name in enumerate(_ES_WEEKDAYS):
        weekdays[strip_accents(name)] = ("es", i)
    seasons: dict[str, tuple[str, int]] = {}
    for i, name in enumerate(_EN_SEASONS):
        seasons[name] = ("en", i)
    seasons["fall"] = ("en", 3)
    for i, name in enumerate(_ES_SEASONS):
        seasons[strip_accents(name)] = ("es", i)
    return months, weekdays, seasons


_MONTHS, _WEEKDAYS, _SEASONS = _lookup()


@dataclass
class _Tok:
    kind: str        # time, num, word, other
    text: str
    role: str = ""   # day, month, year, month_name, weekday, season, ordinal, literal
    lang: str = ""
    form: str = ""   # full / abbr / abbr4 for month names; fall/autumn for seasons


class DateParseError(ValueError):
    """The span is not a date these modules can re-render (the message carries no text)."""


def tokenize(text: str) -> list[_Tok]:
    return [_Tok(m.lastgroup or "other", m.group()) for m in _TOKEN.finditer(text)]


@dataclass
class _Words:
    """Token indices of a date's numbers and of its month, season and weekday words."""

    nums: list[int] = field(default_factory=list)
    month: int | None = None
    season: int | None = None
    weekday: int | None = None


def _mark_words(toks: list[_Tok], locale: str) -> _Words:
    """Give every token that is not a number its role (literal, ordinal, month name, season,
    weekday) and say where the numbers are; raises on anything a date cannot hold."""
    words = _Words()
    has_time = any(t.kind == "time" for t in toks)
    for i, t in enumerate(toks):
        if t.kind == "num":
            words.nums.append(i)
        elif t.kind == "time":
            t.role = "literal"
        elif t.kind == "other":
            if t.text not in _SEPARATORS:
                raise DateParseError("unexpected character in date")
            t.role = "literal"
        else:
            _mark_word(toks, i, locale, has_time, words)
    if words.month is not None and words.season is not None:
        raise DateParseError("month and season in one date")
    return words


def _mark_word(toks: list[_Tok], i: int, locale: str, has_time: bool, words: _Words) -> None:
    """The role of the word ``toks[i]``: an ordinal suffix after a number, a month name (in the
    locale's language where both have it), a season, the first weekday, or a filler word."""
    t = toks[i]
    bare = strip_accents(t.text.rstrip(".")).lower()
    prev = toks[i - 1] if i else None
    if prev is not None and prev.kind == "num" and bare in _ORDINALS:
        t.role = "ordinal"
    elif bare in _MONTHS:
        if words.month is not None:
            raise DateParseError("more than one month name")
        words.month = i
        cands = _MONTHS[bare]
        lang, _, form = next((c for c in cands if c[0] == locale), cands[0])
        t.role, t.lang = "month_name", lang
        t.form = "abbr" if t.text.endswith(".") and form == "full" and bare == "may" else form
    elif bare in _SEASONS:
        if words.season is not None:
            raise DateParseError("more than one season")
        words.season = i
        t.role, t.lang = "season", _SEASONS[bare][0]
        t.form = bare
    elif bare in _WEEKDAYS and words.weekday is None:
        words.weekday = i
        t.role, t.lang = "weekday", _WEEKDAYS[bare][0]
        t.form = "abbr" if len(bare) <= 4 else "full"
    elif bare in _FILLERS or (has_time and bare in _TIME_FILLERS):
        t.role = "literal"
    else:
        raise DateParseError("word that is not part of a date")


# -- writing a name back ------------------------------------------------------------------------

def _en_suffix(n: int) -> str:
    if 11 <= n % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _cased(word: str, like: str) -> str:
    style = case_style(like)
    if style == "upper":
        return word.upper()
    if style == "lower":
        return word.lower()
    return word[:1].upper() + word[1:]


def _month_name(t: _Tok, month: int) -> str:
    bare = t.text.rstrip(".")
    if t.form == "full":
        name = (_EN_MONTHS if t.lang == "en" else _ES_MONTHS)[month - 1]
    elif t.form == "abbr4" and month == 9:
        name = "sept"
    else:
        name = (_EN_ABBR if t.lang == "en" else _ES_ABBR)[month - 1]
    return _cased(name, bare) + ("." if t.text.endswith(".") else "")


def _season_name(t: _Tok, season: int) -> str:
    bare = t.text.rstrip(".")
    if t.lang == "en":
        name = _EN_SEASONS[season]
        if season == 3 and t.form == "fall":
            name = "fall"
    else:
        name = _ES_SEASONS[season]
    return _cased(name, bare)


def _weekday_name(t: _Tok, wd: int) -> str:
    bare = t.text.rstrip(".")
    if t.lang == "en":
        name = _EN_WEEKDAYS[wd] if t.form == "full" else _EN_WD_ABBR[wd]
    else:
        name = _ES_WEEKDAYS[wd]
    return _cased(name, bare) + ("." if t.text.endswith(".") else "")

