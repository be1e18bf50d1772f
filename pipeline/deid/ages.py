"""Ages: move every number in an age span by the patient's offset, keep the words around it.

"45 años" -> "47 años", "45-year-old" -> "47-year-old", "sesenta y tres años" -> "sesenta y
cinco años": only the number changes, in the way it was written (digits or Spanish/English
words). Ages over 89 become "90+" (HIPAA Safe Harbor aggregates them), and so does a shifted age
that would pass 89. A span without any number ("recién nacido") cannot be shifted and falls
back to a placeholder at the caller.

Two modes, chosen by the profile: ``shift`` adds the patient's non-zero year offset (ages in
months, weeks or days move by the same count in their own unit, never below 1); ``band`` draws
another age inside the same band (e.g. 45 -> one of 46..49, 40 -> one of 41..44), keyed by
patient so it is consistent.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.deid.normalize import case_style, strip_accents

MAX_AGE = 89
OVER_MAX = "90+"

_ES_UNITS = {
    "cero": 0, "un": 1, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
    "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14,
    "quince": 15, "dieciseis": 16, "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20,
    "veintiun": 21, "veintiuno": 21, "veintiuna": 21, "veintidos": 22, "veintitres": 23, "veinticuatro": 24,
    "veinticinco": 25, "veintiseis": 26, "veintisiete": 27, "veintiocho": 28, "veintinueve": 29,
}
_ES_TENS = {"treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80,
            "noventa": 90, "cien": 100}
_EN_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
            "ninety": 90, "hundred": 100}

_ES_WORDS_OUT = ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
                 "once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho",
                 "diecinueve", "veinte", "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco",
                 "veintiséis", "veintisiete", "veintiocho", "veintinueve"]
_ES_TENS_OUT = {30: "treinta", 40: "cuarenta", 50: "cincuenta", 60: "sesenta", 70: "setenta", 80: "ochenta",
                90: "noventa"}
_EN_WORDS_OUT = list(_EN_UNITS)
_EN_TENS_OUT = {v: k for k, v in _EN_TENS.items() if v < 100}

_UNIT_WORDS = {
    "year": {"anos", "ano", "a", "y", "yo", "yr", "yrs", "year", "years", "aa", "anyos"},
    "month": {"meses", "mes", "month", "months", "mo", "mos", "m"},
    "week": {"semanas", "semana", "week", "weeks", "wk", "wks", "sem"},
    "day": {"dias", "dia", "day", "days", "d"},
}
_FEMININE = {"semana", "semanas"}

_TOKEN = re.compile(r"\d+|[^\W\d_]+")


#: Words an age span may hold besides numbers and units; anything else (a name caught in an
#: over-wide span) makes the span unparseable, so it is redacted rather than passed through.
_AGE_WORDS = frozenset({
    "de", "del", "edad", "y", "e", "o", "medio", "media", "a", "al", "los", "las", "el", "la", "un", "una",
    "aprox", "aproximadamente", "unos", "unas", "casi", "mas", "menos", "cumplidos", "vida", "gestacion",
    "gestacional", "old", "aged", "age", "about", "approximately", "approx", "around", "nearly", "almost",
    "over", "under", "than", "of", "and", "half", "and", "an", "yr", "yrs", "years", "year", "yo", "mo", "mos",
    "sus", "su", "tiene", "has", "is", "now", "actualmente", "currently",
})


class AgeParseError(ValueError):
    """No number to shift in the age span (the message carries no text)."""


@dataclass
class _Num:
    start: int
    end: int
    value: int
    style: str      # digits | es | en
    unit: str       # year | month | week | day
    case: str = "lower"
    joiner: str = " "
    feminine: bool = False
    plus_after: bool = False
    unit_span: tuple[int, int] | None = None   # the unit word, when it follows after a space


def _words(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]


def _unit_after(words: list[tuple[int, int, str]], j: int, locale: str) -> tuple[str, bool, int | None]:
    """Unit of the number whose last token is ``words[j-1]``: the next word, if it names one."""
    if j < len(words):
        w = strip_accents(words[j][2]).lower()
        if w == "y" and locale != "en":
            return "year", False, None   # Spanish "y" is "and": the count before it is in years
        for unit, names in _UNIT_WORDS.items():
            if w in names:
                return unit, w in _FEMININE, j
    return "year", False, None


_PLURAL = {"año": "años", "mes": "meses", "semana": "semanas", "día": "días", "dia": "dias",
           "year": "years", "month": "months", "week": "weeks", "day": "days"}
_SINGULAR = {v: k for k, v in _PLURAL.items()}


def _agree(word: str, count: int) -> str:
    """The unit word in the number the new count needs ("1 año" -> "3 años", "2 meses" -> "1 mes")."""
    low = word.lower()
    table = _SINGULAR if count == 1 else _PLURAL
    if low not in table:
        return word
    new = table[low]
    style = case_style(word)
    if style == "upper":
        return new.upper()
    if style == "title":
        return new[:1].upper() + new[1:]
    return new


def find_numbers(text: str, locale: str = "es") -> list[_Num]:
    words = _words(text)
    out: list[_Num] = []
    j = 0
    while j < len(words):
        s, e, w = words[j]
        lw = strip_accents(w).lower()
        if w.isdigit():
            j += 1
            unit, fem, uj = _unit_after(words, j, locale)
            plus = text[e:e + 1] == "+"
            out.append(_Num(s, e, int(w), "digits", unit, plus_after=plus,
                            unit_span=_unit_span(text, e, words, uj)))
            continue
        lang = "es" if (lw in _ES_UNITS or lw in _ES_TENS) else "en" if (lw in _EN_UNITS or lw in _EN_TENS) else ""
        if lang == "es" and lw in _ES_TENS:
            value, end, k = _ES_TENS[lw], e, j + 1
            if (k + 1 < len(words) and strip_accents(words[k][2]).lower() == "y"
                    and strip_accents(words[k + 1][2]).lower() in _ES_UNITS
                    and 1 <= _ES_UNITS[strip_accents(words[k + 1][2]).lower()] <= 9):
                value += _ES_UNITS[strip_accents(words[k + 1][2]).lower()]
                end, k = words[k + 1][1], k + 2
        elif lang == "en" and lw in _EN_TENS:
            value, end, k = _EN_TENS[lw], e, j + 1
            if k < len(words) and strip_accents(words[k][2]).lower() in _EN_UNITS \
                    and 1 <= _EN_UNITS[strip_accents(words[k][2]).lower()] <= 9 \
                    and text[e:words[k][0]] in ("-", " "):
                value += _EN_UNITS[strip_accents(words[k][2]).lower()]
                end, k = words[k][1], k + 1
        elif lang:
            value = (_ES_UNITS if lang == "es" else _EN_UNITS)[lw]
            end, k = e, j + 1
        else:
            j += 1
            continue
        unit, fem, uj = _unit_after(words, k, locale)
        joiner = "-" if text[s:end].count("-") else " "
        out.append(_Num(s, end, value, lang, unit, case_style(text[s:end]), joiner, fem,
                        unit_span=_unit_span(text, end, words, uj)))
        j = k
    return out


def _unit_span(text: str, num_end: int, words: list[tuple[int, int, str]], uj: int | None) -> tuple[int, int] | None:
    """The unit word's offsets when only spaces separate it from the number ("45-year-old" keeps
    its singular, so hyphenated units are left alone)."""
    if uj is None:
        return None
    us, ue, _ = words[uj]
    if text[num_end:us].strip(" ") != "":
        return None
    return us, ue


def _check_words(text: str, nums: list[_Num]) -> None:
    """Refuse a span holding words that are neither numbers, units nor age phrasing."""
    inside = [(n.start, n.end) for n in nums]
    units = set().union(*_UNIT_WORDS.values())
    for m in _TOKEN.finditer(text):
        w = m.group()
        if w.isdigit() or len(w) < 3 or any(s <= m.start() < e for s, e in inside):
            continue
        k = strip_accents(w).lower()
        if k not in units and k not in _AGE_WORDS:
            raise AgeParseError("age span holds words that are not part of an age")


def _es_words(n: int, apocope: bool, feminine: bool) -> str:
    if n < 30:
        w = _ES_WORDS_OUT[n]
    else:
        tens, unit = divmod(n, 10)
        w = _ES_TENS_OUT[tens * 10] + ("" if unit == 0 else " y " + _ES_WORDS_OUT[unit])
    if w.endswith("uno") and apocope:
        w = w[:-3] + ("una" if feminine else ("ún" if w != "uno" else "un"))
        if w == "veintiún" and feminine:
            w = "veintiuna"
    return w


def _en_words(n: int, joiner: str) -> str:
    if n < 20:
        return _EN_WORDS_OUT[n]
    tens, unit = divmod(n, 10)
    return _EN_TENS_OUT[tens * 10] + ("" if unit == 0 else joiner + _EN_WORDS_OUT[unit])


def _render(num: _Num, value: int, text: str) -> str:
    if num.style == "digits":
        return str(value)
    if num.style == "es":
        w = _es_words(value, apocope=num.unit_span is not None, feminine=num.feminine)
    else:
        w = _en_words(value, num.joiner)
    if num.case == "upper":
        return w.upper()
    if num.case == "title":
        return w[:1].upper() + w[1:]
    return w


def shift_age(text: str, *, offset: int, mode: str = "shift", band: int = 5,
              band_pick: int = 0, locale: str = "es") -> str:
    """The age span with each number moved; raises :class:`AgeParseError` when it has none.

    ``offset``: the patient's non-zero offset (years, or the count in the span's own unit).
    ``band_pick``: a keyed integer that chooses the age inside the band in ``band`` mode.
    """
    if offset == 0:
        raise ValueError("an age offset of 0 would leave the age unchanged")
    nums = find_numbers(text, locale)
    if not nums:
        raise AgeParseError("no number in age span")
    _check_words(text, nums)
    pieces: list[str] = []
    cursor = 0
    for num in nums:
        if num.start < cursor:      # a unit word already rewritten (never a number)
            continue
        pieces.append(text[cursor:num.start])
        cursor = num.end
        n = num.value
        if num.unit == "year" and (n > MAX_AGE or (num.plus_after and n >= 80)):
            # "89+" is itself the top group: it stays top-coded rather than moving to "87+"
            pieces.append("90" if num.plus_after else OVER_MAX)
            continue
        if num.unit == "year" and mode == "band":
            lo = n - n % band
            choices = [a for a in range(lo, lo + band) if a != n and a <= MAX_AGE and a >= 0]
            new = choices[band_pick % len(choices)]
        else:
            new = n + offset
            if new < 1:
                new = n + abs(offset)
        if num.unit == "year" and new > MAX_AGE:
            pieces.append("90" if num.plus_after else OVER_MAX)
            continue
        pieces.append(_render(num, new, text))
        if num.unit_span is not None and (n == 1) != (new == 1):
            us, ue = num.unit_span
            pieces.append(text[cursor:us])
            pieces.append(_agree(text[us:ue], new))
            cursor = ue
    pieces.append(text[cursor:])
    return "".join(pieces)
