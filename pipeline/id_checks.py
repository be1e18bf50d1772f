"""Check digits of identifiers: whether a value passes its check, and the check that makes a
value pass.

Two users, which is why this sits beside :mod:`pipeline.spans` and in neither of them: detection
(:mod:`pipeline.detection.rules.checked_ids`) marks a bare number as a card or an IBAN only when
its check holds, and de-identification (:mod:`pipeline.deid.surrogate_checked`) gives a card,
IBAN, VIN or DEA number a surrogate whose check holds too, so the released note still reads as
one (a validator downstream accepts it) and a replaced value cannot be told from a kept one by
its check. Pure arithmetic, no patterns.
"""
from __future__ import annotations

import hashlib

IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "CH": 21,
    "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18,
    "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23,
    "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24,
    "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_VIN_VALUE = {**{str(d): d for d in range(10)},
              **dict(zip("ABCDEFGH", range(1, 9))), **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9,
              **dict(zip("STUVWXYZ", range(2, 10)))}
_VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)


def _luhn_sum(digits: str) -> int:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total


def luhn_ok(digits: str) -> bool:
    """The Luhn check (payment cards, Canadian SINs, IMEIs).

    >>> luhn_ok("4111111111111111"), luhn_ok("4111111111111112")
    (True, False)
    """
    return _luhn_sum(digits) % 10 == 0


def luhn_digit(body: str) -> str:
    """The last digit that makes ``body + digit`` pass the Luhn check.

    >>> luhn_digit("411111111111111")
    '1'
    """
    return str(-_luhn_sum(body + "0") % 10)


def card_issuer_ok(d: str) -> bool:
    """The card number's length fits an issuer whose prefix it carries (Visa, Mastercard, Amex,
    Discover, JCB, Diners, Maestro/UnionPay); ``d`` is digits only.

    >>> card_issuer_ok("4539148803436467"), card_issuer_ok("1234567890123456")
    (True, False)
    """
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


def _iban_mod(s: str) -> int:
    return int("".join(str(int(ch, 36)) for ch in s[4:] + s[:4])) % 97


def iban_ok(code: str) -> bool:
    """An IBAN's country length and its mod-97 check (ISO 13616); spaces and case ignored.

    >>> iban_ok("GB82 WEST 1234 5698 7654 32"), iban_ok("GB82 WEST 1234 5698 7654 33")
    (True, False)
    """
    s = code.replace(" ", "").upper()
    return IBAN_LENGTHS.get(s[:2]) == len(s) and s.isalnum() and _iban_mod(s) == 1


def iban_check_digits(code: str) -> str:
    """The two check digits (positions 3-4) that make ``code`` a valid IBAN, whatever it has there.

    >>> iban_check_digits("GB00 WEST 1234 5698 7654 32")
    '82'
    """
    s = code.replace(" ", "").upper()
    return f"{98 - _iban_mod(s[:2] + '00' + s[4:]):02d}"


def vin_check_char(vin: str) -> str:
    """The ninth character a VIN must have (North American check), whatever it has there."""
    total = sum(_VIN_VALUE[ch] * w for ch, w in zip(vin.upper(), _VIN_WEIGHTS))
    return "X" if total % 11 == 10 else str(total % 11)


def vin_ok(vin: str) -> bool:
    """A vehicle identification number's check character (position 9).

    >>> vin_ok("1M8GDM9AXKP042788"), vin_ok("1M8GDM9A1KP042788")
    (True, False)
    """
    return vin[8].upper() == vin_check_char(vin)


def dea_check_digit(code: str) -> str:
    """The last digit of a DEA number: (d1 + d3 + d5) + 2 (d2 + d4 + d6), its units."""
    d = [int(c) for c in code[2:8]]
    return str((d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10)


def dea_ok(code: str) -> bool:
    """A DEA registration number's check digit holds.

    >>> dea_ok("AB1234563"), dea_ok("AB1234564")
    (True, False)
    """
    return code[8] == dea_check_digit(code)


def base58check_ok(code: str) -> bool:
    """A legacy Bitcoin address's base58 payload ends in the first four bytes of its double SHA-256."""
    n = 0
    for ch in code:
        n = n * 58 + B58.index(ch)
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
    if any(c not in charset for c in data):
        return False
    values = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + [charset.index(c) for c in data]
    return _bech32_polymod(values) in (1, 0x2BC830A3)
