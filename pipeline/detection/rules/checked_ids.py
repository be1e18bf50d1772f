"""Identifiers that carry their own proof: a number or code is marked without any label around it
only when its check digits or its structure say it is one (a payment card's Luhn digit, an IBAN's
mod-97, a VIN's check character, a DEA number's checksum, a crypto address's hash, an IPv6 address
the standard library parses). Case does not decide: a note in ALL CAPS or in lower case writes
them in its case too, so every pattern but the crypto ones (whose case is part of the value) reads
either.

Why without a label: in forms, exports and free text written outside a ward (e-mails, letters,
the public PII sets teams test on) these identifiers stand alone, where the labelled rules of the
packs never see them. Why only with a check: a bare long number in a note is as often a lab value,
a lot number or a timestamp; a check digit makes a chance match rare (1 in 10 for Luhn, 1 in 97
for an IBAN, 1 in 11 for a VIN, about one in a billion for a crypto address), and each shape's
other constraints (the card's issuer prefix and length, the IBAN's length per country) cut it
further. They are the same in every language, so every pack carries them
(:func:`register_checked`).
"""
from __future__ import annotations

import ipaddress
import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.registry import register
from pipeline.id_checks import B58, base58check_ok, bech32_ok, card_issuer_ok, dea_ok, iban_ok, luhn_ok, vin_ok
from pipeline.spans import Span, dedupe


# -- payment cards ----------------------------------------------------------------------------
# 13-19 digits, written whole or in groups of four (Amex 4-6-5) split by one space or dash
_CARD = re.compile(r"(?<![\w.,/:-])(?:\d{4}(?P<sep>[ -]?)\d{4}(?P=sep)\d{4}(?P=sep)\d{1,7}|\d{4}[ -]?\d{6}[ -]?\d{5})"
                   r"(?![\w/:-]|[.,]\d)")


def cards(text: str, doc_id: str) -> list[Span]:
    """Payment card numbers: an issuer's prefix and length, and a valid Luhn digit."""
    out = []
    for m in _CARD.finditer(text):
        d = re.sub(r"\D", "", m.group())
        if 13 <= len(d) <= 19 and card_issuer_ok(d) and luhn_ok(d):
            out.append(mk(doc_id, m.start(), m.end(), "ACCOUNT"))
    return out


# -- IBAN -------------------------------------------------------------------------------------
# whole ("GB82WEST12345698765432") or in groups of four ("GB82 WEST 1234 5698 7654 32")
_IBAN = re.compile(r"(?<![\w-])[A-Za-z]{2}\d{2}(?:[A-Za-z0-9]{11,30}|(?: [A-Za-z0-9]{4}){2,7}(?: [A-Za-z0-9]{1,4})?)(?![\w-])")


def ibans(text: str, doc_id: str) -> list[Span]:
    """International bank account numbers with a valid length and check digits."""
    return [mk(doc_id, m.start(), m.end(), "ACCOUNT") for m in _IBAN.finditer(text) if iban_ok(m.group())]


# -- VIN --------------------------------------------------------------------------------------
_VIN = re.compile(r"(?i)(?<![\w-])(?=[A-HJ-NPR-Z0-9]*\d)(?=[A-HJ-NPR-Z0-9]*[A-HJ-NPR-Z])[A-HJ-NPR-Z0-9]{17}(?![\w-])")


def vins(text: str, doc_id: str) -> list[Span]:
    """Vehicle identification numbers whose check character is right."""
    return [mk(doc_id, m.start(), m.end(), "VEHICLE") for m in _VIN.finditer(text) if vin_ok(m.group())]


# -- DEA registration numbers --------------------------------------------------------------------
_DEA = re.compile(r"(?i)(?<![\w-])[ABCDEFGHJKLMPRSTUX][A-Z9]\d{7}(?![\w-])")


def deas(text: str, doc_id: str) -> list[Span]:
    """US DEA registration numbers (a prescriber's licence) with a valid check digit."""
    return [mk(doc_id, m.start(), m.end(), "LICENSE") for m in _DEA.finditer(text) if dea_ok(m.group())]


# -- network and crypto addresses --------------------------------------------------------------
# an IPv6 address with "::" (the full eight-group form is :data:`common.IPV6_RE`'s)
_IPV6_SHORT = re.compile(r"(?<![\w:.])(?=[0-9A-Fa-f:]*::)[0-9A-Fa-f:]{2,39}(?:%\w+)?(?![\w:])")
_MAC = re.compile(r"(?<![\w:-])[0-9A-Fa-f]{2}(?P<sep>[:-])(?:[0-9A-Fa-f]{2}(?P=sep)){4}[0-9A-Fa-f]{2}(?![\w:-])")
_BTC_LEGACY = re.compile(rf"(?<![\w])[13][{B58}]{{25,34}}(?![\w])")
_BECH32 = re.compile(r"(?<![\w])(?:bc|tb)1[02-9ac-hj-np-z]{11,71}(?![\w])", re.IGNORECASE)
# "0X" too: a note written in capitals writes its prefix so (hex digits have no case to check)
_ETH = re.compile(r"(?<![\w])0[xX][0-9a-fA-F]{40}(?![\w])")


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
