"""Surrogates for identifiers that carry a check or an alphabet of their own: a payment card, an
IBAN, a VIN, a DEA number keep a valid check; a MAC address, an IPv6 address or an Ethereum
address stay hexadecimal.

Why: the plain pattern surrogate re-draws every digit and letter in place, so "00:1A:2B:3C:4D:5E"
became "48:3B:7G:4E:2Q:0B" and an IPv6 address stopped being one; a card number failed its Luhn
check, which tells a reader (or a validator downstream) exactly which numbers were replaced. Each
function here starts from that same in-place re-draw (nothing of the original's digits kept but
what a format fixes: a card's first digit, its industry; an IBAN's country; a DEA number's
registrant type) and sets the check position from :mod:`pipeline.id_checks`. It returns ``None``
for a value that is none of these, and the caller falls back to the pattern surrogate.
"""
from __future__ import annotations

import ipaddress
import re

from pipeline.deid.context import SurrogateContext
from pipeline.deid.keys import keyed_stream
from pipeline.deid.normalize import norm_key
from pipeline.deid.surrogate_kit import NoSurrogate, pattern_surrogate
from pipeline.id_checks import (card_issuer_ok, dea_check_digit, dea_ok, iban_check_digits, iban_ok, luhn_digit,
                                luhn_ok, vin_check_char, vin_ok)

_HEX = "0123456789abcdef"
_MAC = re.compile(r"[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}")
_ETH = re.compile(r"0x[0-9a-fA-F]{40}")
_CARD = re.compile(r"\d[\d -]{11,22}\d")
_VIN = re.compile(r"[A-HJ-NPR-Z0-9]{17}", re.I)
_DEA = re.compile(r"[ABCDEFGHJKLMPRSTUX][A-Z9]\d{7}", re.I)


def hex_surrogate(original: str, ctx: SurrogateContext, kind: str, *, keep: int = 0) -> str:
    """Every hex digit after the first ``keep`` characters becomes another hex digit; separators
    stay. Letters are capitals when the original's are all capitals, else lower case (a digit has
    no case, and an Ethereum address's mixed case is a checksum this does not redo)."""
    accept = ctx.acceptable(original)
    letters = [c for c in original[keep:] if c.isalpha()]
    upper = bool(letters) and all(c.isupper() for c in letters)
    for attempt in range(16):
        stream = keyed_stream(ctx.deid.secret, ctx.patient_id, kind, norm_key(original), str(attempt))
        out = list(original[:keep])
        for c in original[keep:]:
            i = _HEX.find(c.lower())
            if i < 0:
                out.append(c)
                continue
            new = _HEX[(i + 1 + next(stream) % 15) % 16]
            out.append(new.upper() if upper else new)
        cand = "".join(out)
        if accept(cand):
            return cand
    raise NoSurrogate("every hex surrogate clashes")


def ipv6_surrogate(original: str, ctx: SurrogateContext) -> str | None:
    """An IPv6 address for an IPv6 address (its "::" and zone kept), or ``None``."""
    address, _, zone = original.partition("%")
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        return None
    return hex_surrogate(address, ctx, "IPV6") + (f"%{zone}" if zone else "")


def _with_digits(template: str, digits: str) -> str:
    """``template``'s separators with ``digits`` in its digit positions."""
    it = iter(digits)
    return "".join(next(it) if c.isdigit() else c for c in template)


def _card(original: str, ctx: SurrogateContext) -> str:
    """Only the first digit (the card's industry: 4 Visa, 5 Mastercard, ...) is kept; the rest is
    re-drawn until an issuer of that length fits, and the last digit is the Luhn digit."""
    first = original.lstrip()[0]
    for attempt in range(32):
        drawn = pattern_surrogate(original, ctx, f"CARD#{attempt}", letters=False)
        body = first + re.sub(r"\D", "", drawn)[1:-1]
        digits = body + luhn_digit(body)
        if card_issuer_ok(digits):
            return _with_digits(drawn, digits)
    raise NoSurrogate("no card number of that issuer")


def _iban(original: str, ctx: SurrogateContext) -> str:
    drawn = pattern_surrogate(original, ctx, "IBAN")
    body = original[:2] + "00" + drawn.replace(" ", "")[4:]
    compact = body[:2] + iban_check_digits(body) + body[4:]
    it = iter(compact)
    return "".join(c if c == " " else next(it) for c in original)


def _vin(original: str, ctx: SurrogateContext) -> str:
    drawn = pattern_surrogate(original, ctx, "VIN").translate(str.maketrans("IOQioq", "JPRjpr"))
    check = vin_check_char(drawn)
    return drawn[:8] + (check.lower() if drawn.islower() else check) + drawn[9:]


def _dea(original: str, ctx: SurrogateContext) -> str:
    drawn = original[0] + pattern_surrogate(original, ctx, "DEA")[1:]
    return drawn[:8] + dea_check_digit(drawn)


def checked_surrogate(original: str, ctx: SurrogateContext) -> str | None:
    """A surrogate of the same kind for an identifier that passes its check or has a hex alphabet;
    ``None`` for any other identifier."""
    value = original.strip()
    if value != original:
        return None
    if _MAC.fullmatch(value):
        return hex_surrogate(value, ctx, "MAC")
    if _ETH.fullmatch(value):
        return hex_surrogate(value, ctx, "ETH", keep=2)
    if ":" in value:
        return ipv6_surrogate(value, ctx)
    digits = re.sub(r"[ -]", "", value)
    if _CARD.fullmatch(value) and digits.isdigit() and 13 <= len(digits) <= 19 and card_issuer_ok(digits) \
            and luhn_ok(digits):
        return _card(value, ctx)
    if iban_ok(value) and value[:2].isalpha():
        return _iban(value, ctx)
    if _VIN.fullmatch(value) and vin_ok(value):
        return _vin(value, ctx)
    if _DEA.fullmatch(value) and dea_ok(value.upper()):
        return _dea(value, ctx)
    return None
