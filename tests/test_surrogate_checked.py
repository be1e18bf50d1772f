"""Surrogates of identifiers with a check or an alphabet of their own stay valid of their kind
(:mod:`pipeline.deid.surrogate_checked`), through the whole engine, and share nothing with the
original but what the format fixes. Every value is invented (or a standard's example)."""
from __future__ import annotations

import ipaddress
import re

import pytest

from pipeline.deid import DeidContext, builtin_profiles, deidentify
from pipeline.deid.shapes import shape_ok
from pipeline.id_checks import card_issuer_ok, dea_ok, iban_ok, luhn_ok, vin_ok
from pipeline.spans import Document, Span

SECRETS = [bytes([i]) * 32 for i in range(1, 9)]


def _valid_card(v: str) -> bool:
    d = re.sub(r"\D", "", v)
    return luhn_ok(d) and card_issuer_ok(d)


def _ipv6(v: str) -> bool:
    ipaddress.IPv6Address(v.partition("%")[0])
    return True


CASES = [  # (value, fine type, validity of the surrogate, characters that must stay)
    ("4539 1488 0343 6467", "ACCOUNT", _valid_card, 1),
    ("5425-2334-3010-9903", "ACCOUNT", _valid_card, 1),
    ("371449635398431", "ACCOUNT", _valid_card, 1),
    ("GB82 WEST 1234 5698 7654 32", "ACCOUNT", iban_ok, 2),
    ("ES9121000418450200051332", "ACCOUNT", iban_ok, 2),
    ("1M8GDM9AXKP042788", "VEHICLE", vin_ok, 0),
    ("AB1234563", "LICENSE", lambda v: dea_ok(v.upper()), 1),
    ("00:1A:2B:3C:4D:5E", "DEVICE", lambda v: re.fullmatch(r"(?:[0-9A-F]{2}:){5}[0-9A-F]{2}", v), 0),
    ("2001:db8::8a2e:370:7334", "IPADDR", _ipv6, 0),
    ("fe80::1ff:fe23:4567:890a%eth0", "IPADDR", _ipv6, 0),
    ("0x52908400098527886E0F7030069857D2E4169EE7", "ACCOUNT", lambda v: re.fullmatch(r"0x[0-9A-F]{40}", v), 2),
    ("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "ACCOUNT", lambda v: re.fullmatch(r"0x[0-9a-f]{40}", v), 2),
]


def _replace(value: str, gtype: str, secret: bytes) -> str:
    text = f"Value: {value} on file."
    start = text.index(value)
    span = Span(doc_id="d", start=start, end=start + len(value), category="ID", type=gtype)
    out = deidentify(Document(doc_id="d", text=text), [span], builtin_profiles()["replace"],
                     DeidContext(secret=secret, locale="en")).text
    assert out.startswith("Value: ") and out.endswith(" on file.")
    return out[len("Value: "):-len(" on file.")]


@pytest.mark.parametrize("value,gtype,valid,kept", CASES)
def test_the_surrogate_is_valid_of_its_kind_and_keeps_only_the_format(value, gtype, valid, kept):
    for secret in SECRETS:
        new = _replace(value, gtype, secret)
        assert new != value and valid(new), new
        assert [i for i, c in enumerate(new) if not c.isalnum()] == [i for i, c in enumerate(value) if not c.isalnum()]
        body = [(a, b) for a, b in zip(value[kept:].partition("%")[0], new[kept:]) if a.isalnum()]
        # at most the check position(s) can repeat the original's character (an IPv6 zone is kept)
        assert sum(a.lower() == b.lower() for a, b in body) <= 2, new


def test_the_same_value_gets_the_same_surrogate_and_another_value_another():
    assert _replace("4539 1488 0343 6467", "ACCOUNT", SECRETS[0]) == _replace("4539 1488 0343 6467", "ACCOUNT", SECRETS[0])
    assert _replace("4539 1488 0343 6467", "ACCOUNT", SECRETS[0]) != _replace("4556 7375 8689 9855", "ACCOUNT", SECRETS[0])


def test_a_code_without_a_check_is_redrawn_in_place_as_before():
    """A record number that only looks long is not given a card's surrogate (its first digit is
    not kept): the pattern surrogate changes every digit."""
    value = "1234567890123452"          # Luhn-valid, but no card issuer starts with 12
    new = _replace(value, "IDNUM", SECRETS[0])
    assert all(a != b for a, b in zip(value, new))


def test_the_ip_shape_check_reads_ipv6():
    assert shape_ok("ip", "2001:db8::1", "en") and shape_ok("ip", "fe80::1%eth0", "en")
    assert not shape_ok("ip", "2001:dg8::1", "en") and not shape_ok("ip", "12", "en")
