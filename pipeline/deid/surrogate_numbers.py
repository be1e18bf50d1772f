"""Surrogates for values with a format: phones, e-mail and web addresses, identifiers, dates, ages.

Each keeps the original's shape (separators, digit counts, a public top-level domain, the date
order of the locale) and re-draws what identifies: digits and words piece by piece, dates and
ages by the patient's offset (:mod:`pipeline.deid.dates`, :mod:`pipeline.deid.ages`). Kept apart
from :mod:`pipeline.deid.surrogate_names` (drawn from lists) so each room stays small;
:mod:`pipeline.deid.surrogates` imports it after that one, so the registry fills in the order
it always had.
"""
from __future__ import annotations

import re

from pipeline.deid.ages import OVER_MAX, AgeParseError, shift_age
from pipeline.deid.context import SurrogateContext
from pipeline.deid.date_words import DateParseError
from pipeline.deid.dates import shift_date
from pipeline.deid.keys import choose, keyed_stream
from pipeline.deid.surrogate_checked import checked_surrogate
from pipeline.deid.normalize import norm_key, strip_accents
from pipeline.deid.surrogate_kit import PHONE_WORDS, NoSurrogate, Unparseable, check_words, pattern_surrogate, register


# -- e-mail and URL parts ------------------------------------------------------------------------

def _ascii_word(value: str) -> str:
    return re.sub(r"[^a-z]", "", strip_accents(value).lower())


def _word_surrogate(piece: str, ctx: SurrogateContext, kind: str) -> str:
    """A lower-case ASCII word from the surname list, for e-mail and URL parts."""
    pool = ctx.derived("surnames", "ascii", lambda items: tuple(w for w in (_ascii_word(x) for x in items)
                                                              if len(w) >= 3))
    if not pool:
        return pattern_surrogate(piece, ctx, kind)
    picked = choose(pool, ctx.deid.secret, (ctx.patient_id, kind, norm_key(piece)),  # type: ignore[arg-type]
                    ctx.acceptable(piece))
    if picked is None:
        return pattern_surrogate(piece, ctx, kind)
    return picked.upper() if piece.isupper() else picked


def _alnum_runs(s: str, ctx: SurrogateContext, kind: str) -> str:
    """Letters runs of 3+ become words, shorter ones and digits keep their pattern."""
    def repl(m: re.Match) -> str:
        run = m.group()
        if run.isdigit():
            return pattern_surrogate(run, ctx, kind + "-digits", letters=False)
        if len(run) >= 3:
            return _word_surrogate(run, ctx, kind)
        return pattern_surrogate(run, ctx, kind + "-letters")
    return re.sub(r"[A-Za-z]+|\d+", repl, s)


# -- contacts -------------------------------------------------------------------------------------

@register("phone")
def phone(original: str, ctx: SurrogateContext) -> str:
    check_words(original, PHONE_WORDS, "phone")
    return pattern_surrogate(original, ctx, "PHONE", letters=False)


_EMAIL = re.compile(r"^(?P<local>[A-Za-z0-9._%+\-]+)@(?P<domain>[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)$")
_TLDS = frozenset({"com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "name", "pro", "health",
                   "med", "cat", "eus", "gal", "io", "co"})


def _plain_tld(label: str) -> bool:
    """A top-level domain that says nothing about anyone: generic, or a two-letter country code."""
    low = label.lower()
    return low in _TLDS or (len(low) == 2 and low.isalpha())


def _tld(label: str, ctx: SurrogateContext) -> str:
    return label if _plain_tld(label) else _alnum_runs(label, ctx, "TLD")


_WEBMAIL = frozenset({"gmail", "yahoo", "hotmail", "outlook", "live", "msn", "aol", "icloud", "me", "mail",
                      "protonmail", "gmx", "terra", "telefonica", "movistar", "ono", "orange", "wanadoo"})


@register("email")
def email(original: str, ctx: SurrogateContext) -> str:
    """``local@domain.tld`` keeps its shape: name-like parts stay name-like, digits keep their
    count, separators (``.``, ``_``, ``-``) and the top-level domain stay; public webmail
    domains (gmail, yahoo...) are kept, other domain labels are replaced."""
    m = _EMAIL.match(original)
    if not m:      # not a bare address (words around it): every word is replaced, none passes through
        out = _alnum_runs(original, ctx, "EMAIL")
        if not ctx.acceptable(original)(out):
            raise NoSurrogate("e-mail surrogate clashes")
        return out
    local, domain = m.group("local"), m.group("domain")
    new_local = _alnum_runs(local, ctx, "EMAIL")
    labels = domain.split(".")
    if len(labels) >= 2 and labels[-2].lower() in _WEBMAIL and _plain_tld(labels[-1]):
        new_domain = domain
    else:
        new_domain = ".".join([_alnum_runs(lab, ctx, "EMAIL-DOMAIN") for lab in labels[:-1]]
                              + [_tld(labels[-1], ctx)])
    out = f"{new_local}@{new_domain}"
    if not ctx.acceptable(original)(out):
        raise NoSurrogate("e-mail surrogate clashes")
    return out


_IPV4 = re.compile(r"^\s*(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\s*$")


@register("ip")
def ip_address(original: str, ctx: SurrogateContext) -> str:
    m = _IPV4.match(original)
    if not m:
        return checked_surrogate(original, ctx) or pattern_surrogate(original, ctx, "IP")
    stream = keyed_stream(ctx.deid.secret, ctx.patient_id, "IP", norm_key(original))
    octets = []
    for g in m.groups():
        v = int(g)
        new = (v + 1 + next(stream) % 253) % 254 + 1
        octets.append(str(new))
    return original[:m.start(1)] + ".".join(octets) + original[m.end(4):]


_URL = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*://)?(?P<www>www\d?\.)?(?P<host>[^/?#:\s]+)"
                  r"(?P<port>:\d+)?(?P<rest>.*)$", re.I | re.S)


@register("url")
def url(original: str, ctx: SurrogateContext) -> str:
    """Scheme, ``www.``, top-level domain and punctuation kept; host labels and path words replaced."""
    m = _URL.match(original.strip())
    if not m or "." not in m.group("host"):
        return _alnum_runs(original, ctx, "URL")
    lead = original[:len(original) - len(original.lstrip())]
    trail = original[len(original.rstrip()):]
    labels = m.group("host").split(".")
    host = ".".join([_alnum_runs(lab, ctx, "URL-HOST") for lab in labels[:-1]] + [_tld(labels[-1], ctx)])
    rest = _alnum_runs(m.group("rest"), ctx, "URL-PATH")
    port = m.group("port") or ""
    out = lead + (m.group("scheme") or "") + (m.group("www") or "") + host + port + rest + trail
    if not ctx.acceptable(original)(out):
        raise NoSurrogate("URL surrogate clashes")
    return out


@register("net_address")
def net_address(original: str, ctx: SurrogateContext) -> str:
    """MEDDOCAN's DIREC_PROT_INTERNET: an IP address or a URL."""
    return ip_address(original, ctx) if _IPV4.match(original) else url(original, ctx)


# -- identifiers ----------------------------------------------------------------------------------

@register("id")
def identifier(original: str, ctx: SurrogateContext) -> str:
    """A card, IBAN, VIN or DEA number keeps a valid check, a MAC or Ethereum address stays hex
    (:mod:`pipeline.deid.surrogate_checked`); any other code is re-drawn in place."""
    return checked_surrogate(original, ctx) or pattern_surrogate(original, ctx, "ID")


# -- dates and ages -------------------------------------------------------------------------------

@register("date")
def date(original: str, ctx: SurrogateContext) -> str:
    try:
        return shift_date(original, ctx.date_offset(), ctx.locale)
    except DateParseError:
        raise Unparseable("date") from None


@register("age")
def age(original: str, ctx: SurrogateContext) -> str:
    """The patient's offset; if that would give another real age of the patient, the nearest
    other offset that does not (deterministic, so the same age still maps to the same value)."""
    p = ctx.profile
    accept = ctx.acceptable(original)
    pick = ctx.key("AGE-BAND", norm_key(original))
    try:
        for i, off in enumerate(ctx.age_offsets()):
            out = shift_age(original, offset=off, mode=p.age_mode, band=p.age_band, band_pick=pick + i,
                            locale=ctx.locale)
            if accept(out) or OVER_MAX in out and norm_key(out) != norm_key(original):
                return out
    except AgeParseError:
        raise Unparseable("age") from None
    raise NoSurrogate("every shifted age is another real age of the patient")

