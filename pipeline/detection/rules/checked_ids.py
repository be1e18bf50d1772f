"""Identifiers that carry their own proof: a number or code is marked without any label around it
only when its check digits or its structure say it is one (a payment card's Luhn digit, an IBAN's
mod-97, a VIN's check character, a DEA number's checksum, a crypto address's hash, an IPv6 address
the standard library parses). Case does not decide: a note in ALL CAPS or in lower case writes
them in its case too, so every pattern but the crypto ones (whose case is part of the value) reads
either.

Why without a label: in forms, exports and free text written outside a ward (e-mails, letters,
the public PII sets teams test on) these identifiers stand alone, where the labelled rules of the
packs never see them. Why only with a check: a bare long number in a note is as often a lab value,
a lot number or a timestamp; a check digit makes a chance match rare (1 in 10 for Luhn, 1 in 97 for
an IBAN, 1 in 11 for a VIN, 2^-32 for a crypto address), and each shape's other constraints (the
card's issuer prefix and length, the IBAN's length per country) cut it further. They are the same
in every language, so every pack carries them (:func:`register_checked`).
"""
from __future__ import annotations

import hashlib
import ipaddress
import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe


def luhn_ok(digits: str) -> bool:
    """The Luhn check (payment cards, Canadian SINs, NPIs with their prefix).

    >>> luhn_ok("4111111111111111"), luhn_ok("4111111111111112")
    (True, False)
    """
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# -- payment cards ----------------------------------------------------------------------------
# 13-19 digits, written whole or in groups of four (Amex 4-6-5) split by one space or dash
_CARD = re.compile(r"(?<![\w.,/:-])(?:\d{4}(?P<sep>[ -]?)\d{4}(?P=sep)\d{4}(?P=sep)\d{1,7}|\d{4}[ -]?\d{6}[ -]?\d{5})"
                   r"(?![\w/:-]|[.,]\d)")


def _card_issuer(d: str) -> bool:
    """The number's length fits an issuer whose prefix it carries (Visa, Mastercard, Amex,
    Discover, JCB, Diners, Maestro/UnionPay)."""
    n, p2, p4 = len(d), int(d[:2]), int(d[:4])
    if d[0] == "4":
        return n in (13, 16, 19)
    if 51 <= p2 <= 55 or 2221 <= p4 <= 2720:
        return n == 16
    if p2 in (34, 37):
        return n == 15
    if d.startswith("6011") or p2 == 65 or 644 <= int(d[:3]) <= 649:
        return 16 <= n <= 19
    if 3528 <= p4 <= 3589:
        return 16 <= n <= 19
    if p2 in (36, 38, 39) or 300 <= int(d[:3]) <= 305:
        return 14 <= n <= 19
    if p2 in (50, 56, 57, 58, 62, 63, 67):
        return 16 <= n <= 19
    return False


def cards(text: str, doc_id: str) -> list[Span]:
    """Payment card numbers: an issuer's prefix and length, and a valid Luhn digit."""
    out = []
    for m in _CARD.finditer(text):
        d = re.sub(r"\D", "", m.group())
        if 13 <= len(d) <= 19 and _card_issuer(d) and luhn_ok(d):
            out.append(mk(doc_id, m.start(), m.end(), "ACCOUNT"))
    return out


# -- IBAN -------------------------------------------------------------------------------------
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "CH": 21,
    "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18,
    "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23,
    "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24,
    "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}
# whole ("GB82WEST12345698765432") or in groups of four ("GB82 WEST 1234 5698 7654 32")
_IBAN = re.compile(r"(?<![\w-])[A-Za-z]{2}\d{2}(?:[A-Za-z0-9]{11,30}|(?: [A-Za-z0-9]{4}){2,7}(?: [A-Za-z0-9]{1,4})?)(?![\w-])")


def iban_ok(code: str) -> bool:
    """An IBAN's country length and its mod-97 check (ISO 13616).

    >>> iban_ok("GB82 WEST 1234 5698 7654 32"), iban_ok("GB82 WEST 1234 5698 7654 33")
    (True, False)
    """
    s = code.replace(" ", "").upper()
    if _IBAN_LENGTHS.get(s[:2]) != len(s) or not s.isalnum():
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def ibans(text: str, doc_id: str) -> list[Span]:
    """International bank account numbers with a valid length and check digits."""
    return [mk(doc_id, m.start(), m.end(), "ACCOUNT") for m in _IBAN.finditer(text) if iban_ok(m.group())]


# -- VIN --------------------------------------------------------------------------------------
_VIN = re.compile(r"(?i)(?<![\w-])(?=[A-HJ-NPR-Z0-9]*\d)(?=[A-HJ-NPR-Z0-9]*[A-HJ-NPR-Z])[A-HJ-NPR-Z0-9]{17}(?![\w-])")
_VIN_VALUE = {**{str(d): d for d in range(10)},
              **dict(zip("ABCDEFGH", range(1, 9))), **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9,
              **dict(zip("STUVWXYZ", range(2, 10)))}
_VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)


def vin_ok(vin: str) -> bool:
    """A vehicle identification number's check character (position 9, as North America requires).

    >>> vin_ok("1M8GDM9AXKP042788"), vin_ok("1M8GDM9A1KP042788")
    (True, False)
    """
    vin = vin.upper()
    total = sum(_VIN_VALUE[ch] * w for ch, w in zip(vin, _VIN_WEIGHTS))
    return vin[8] == ("X" if total % 11 == 10 else str(total % 11))


def vins(text: str, doc_id: str) -> list[Span]:
    """Vehicle identification numbers whose check character is right."""
    return [mk(doc_id, m.start(), m.end(), "VEHICLE") for m in _VIN.finditer(text) if vin_ok(m.group())]


# -- DEA registration numbers --------------------------------------------------------------------
_DEA = re.compile(r"(?i)(?<![\w-])[ABCDEFGHJKLMPRSTUX][A-Z9]\d{7}(?![\w-])")


def dea_ok(code: str) -> bool:
    """A DEA number's check digit: (d1 + d3 + d5) + 2 (d2 + d4 + d6), its last digit.

    >>> dea_ok("AB1234563"), dea_ok("AB1234564")
    (True, False)
    """
    d = [int(c) for c in code[2:]]
    return (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10 == d[6]


def deas(text: str, doc_id: str) -> list[Span]:
    """US DEA registration numbers (a prescriber's licence) with a valid check digit."""
    return [mk(doc_id, m.start(), m.end(), "LICENSE") for m in _DEA.finditer(text) if dea_ok(m.group())]


# -- network and crypto addresses --------------------------------------------------------------
# an IPv6 address with "::" (the full eight-group form is :data:`common.IPV6_RE`'s)
_IPV6_SHORT = re.compile(r"(?<![\w:.])(?=[0-9A-Fa-f:]*::)[0-9A-Fa-f:]{2,39}(?:%\w+)?(?![\w:])")
_MAC = re.compile(r"(?<![\w:-])[0-9A-Fa-f]{2}(?P<sep>[:-])(?:[0-9A-Fa-f]{2}(?P=sep)){4}[0-9A-Fa-f]{2}(?![\w:-])")
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BTC_LEGACY = re.compile(rf"(?<![\w])[13][{_B58}]{{25,34}}(?![\w])")
_BECH32 = re.compile(r"(?<![\w])(?:bc|tb)1[02-9ac-hj-np-z]{11,71}(?![\w])", re.IGNORECASE)
_ETH = re.compile(r"(?<![\w])0x[0-9a-fA-F]{40}(?![\w])")


def ipv6_short(text: str, doc_id: str) -> list[Span]:
    """IPv6 addresses written with "::" ("2001:db8::8a2e:370:7334"), as the standard library reads
    them, with a digit and three hex digits at least ("::", "::1" and "A::B" are not taken)."""
    out = []
    for m in _IPV6_SHORT.finditer(text):
        value = m.group().split("%")[0]
        if sum(ch.isalnum() for ch in value) < 3 or not re.search(r"\d", value):
            continue
        try:
            ipaddress.IPv6Address(value)
        except ValueError:
            continue
        out.append(mk(doc_id, m.start(), m.end(), "IPADDR"))
    return out


def macs(text: str, doc_id: str) -> list[Span]:
    """Hardware (MAC) addresses: six hex pairs split by one kind of separator."""
    return [mk(doc_id, m.start(), m.end(), "DEVICE") for m in _MAC.finditer(text)
            if re.search(r"[A-Fa-f]", m.group()) or len(set(m.group())) > 3]


def base58check_ok(code: str) -> bool:
    """A legacy Bitcoin address's base58 payload ends in the first four bytes of its double SHA-256."""
    n = 0
    for ch in code:
        n = n * 58 + _B58.index(ch)
    raw = n.to_bytes(25, "big") if n.bit_length() <= 200 else b""
    return len(raw) == 25 and hashlib.sha256(hashlib.sha256(raw[:-4]).digest()).digest()[:4] == raw[-4:]


def _bech32_polymod(values: list[int]) -> int:
    gen = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if (top >> i) & 1 else 0
    return chk


def bech32_ok(code: str) -> bool:
    """A segwit address's BCH checksum (BIP 173 or BIP 350), in one case only."""
    if code != code.lower() and code != code.upper():
        return False
    hrp, data = code.lower().rsplit("1", 1)
    charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
    values = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + [charset.index(c) for c in data]
    return _bech32_polymod(values) in (1, 0x2BC830A3)


def crypto_addresses(text: str, doc_id: str) -> list[Span]:
    """Cryptocurrency wallet addresses: Bitcoin legacy (base58check) and segwit (bech32), and
    Ethereum (0x and 40 hex digits, mixed or one case)."""
    out = [mk(doc_id, m.start(), m.end(), "ACCOUNT") for m in _BTC_LEGACY.finditer(text) if base58check_ok(m.group())]
    out += [mk(doc_id, m.start(), m.end(), "ACCOUNT") for m in _BECH32.finditer(text) if bech32_ok(m.group())]
    out += [mk(doc_id, m.start(), m.end(), "ACCOUNT") for m in _ETH.finditer(text)]
    return out


_CHECKED = (("payment_cards", "ID", 0.93, cards), ("ibans", "ID", 0.95, ibans), ("vins", "ID", 0.9, vins),
            ("dea_numbers", "ID", 0.9, deas), ("ipv6_short", "CONTACT", 0.9, ipv6_short),
            ("mac_addresses", "ID", 0.9, macs), ("crypto_addresses", "ID", 0.95, crypto_addresses))


def checked_ids(text: str, doc_id: str) -> list[Span]:
    """Every checked identifier of the module (what :func:`register_checked` registers, as one list)."""
    return dedupe([s for _, _, _, fn in _CHECKED for s in fn(text, doc_id)])


def register_checked(locale: str) -> None:
    """Register the checked identifiers in ``locale``'s pack, one recognizer each."""
    for name, category, score, fn in _CHECKED:
        register(locale, name, category, score=score)(fn)
