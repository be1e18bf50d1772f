"""Identifiers proven by their check digits (:mod:`pipeline.detection.rules.checked_ids`), found
without a label, and never on clinical numbers.

Every identifier below is invented with a valid check (or is a published specification example:
ISO 13616's IBAN, BIP 173/350's segwit addresses, the VIN of the check-digit article), none is a
person's."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.detection.rules.checked_ids import checked_ids
from pipeline.id_checks import base58check_ok, bech32_ok, dea_ok, iban_ok, luhn_ok, vin_ok
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document

FOUND = [
    ("Charged to card 4539 1488 0343 6467 on file.", "4539 1488 0343 6467", "ACCOUNT"),
    ("Refund via 5425-2334-3010-9903 requested.", "5425-2334-3010-9903", "ACCOUNT"),
    ("Amex 3714 496353 98431 declined", "3714 496353 98431", "ACCOUNT"),
    ("card no. 6011000990139424.", "6011000990139424", "ACCOUNT"),
    ("Transfer to GB82 WEST 1234 5698 7654 32 by Friday", "GB82 WEST 1234 5698 7654 32", "ACCOUNT"),
    ("IBAN DE89370400440532013000", "DE89370400440532013000", "ACCOUNT"),
    ("cuenta ES9121000418450200051332 del paciente", "ES9121000418450200051332", "ACCOUNT"),
    ("His truck, 1M8GDM9AXKP042788, was towed", "1M8GDM9AXKP042788", "VEHICLE"),
    ("Prescriber AB1234563 signed", "AB1234563", "LICENSE"),
    ("login from 2001:db8::8a2e:370:7334 at night", "2001:db8::8a2e:370:7334", "IPADDR"),
    ("pump mac 00:1A:2B:3C:4D:5E reset", "00:1A:2B:3C:4D:5E", "DEVICE"),
    ("sent to 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2 yesterday", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "ACCOUNT"),
    ("wallet bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq.", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "ACCOUNT"),
    ("eth 0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886E0F7030069857D2E4169EE7", "ACCOUNT"),
]

# clinical numbers of every shape the patterns could touch, and identifiers one digit off
NOT_FOUND = [
    "HR 88 BP 118/64 RR 20 O2 sat 97% at 12:30:45",
    "Lot 4539148803436468 exp 2027",                 # a card's shape, Luhn wrong
    "Acct 1234 5678 9012 3456",                      # groups of four, no issuer prefix
    "GB82 WEST 1234 5698 7654 33",                   # IBAN check wrong
    "1M8GDM9A1KP042788",                             # VIN check character wrong
    "AB1234564 units",                               # DEA check digit wrong
    "A::B, ::1 and Dx:: follow-up",                  # colons that are not an address
    "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdx",    # segwit checksum wrong
    "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3",            # base58check wrong
    "Na 138 K 3.9 Cl 101 HCO3 24 BUN 24 Cr 1.1 Glu 145 WBC 12.4 Hgb 9.8 Plt 245",
    "Heparin 25000 units in 250 mL D5W at 1200 units/hr; PTT 65.4",
    "MRI 2024-01-15 10:42:00; EKG QTc 452; INR 1.2; TPN 1500 mL over 24 h",
]


@pytest.mark.parametrize("text,value,gtype", FOUND)
def test_a_checked_identifier_is_found_without_a_label(text, value, gtype):
    spans = checked_ids(text, "d")
    assert [(text[s.start:s.end], s.type) for s in spans] == [(value, gtype)]


@pytest.mark.parametrize("text", NOT_FOUND)
def test_clinical_numbers_and_failed_checks_are_not_identifiers(text):
    for copy in (str, str.upper, str.lower):
        assert checked_ids(copy(text), "d") == []


@pytest.mark.parametrize("text,value,gtype", [f for f in FOUND if not f[1].lower().startswith("1bv")])
def test_case_does_not_decide(text, value, gtype):
    """A note written in ALL CAPS or in lower case: the same identifiers, in its case (segwit and
    Ethereum addresses too, "0X..." in capitals; a base58 address's case is its checksum's)."""
    for copy in (str.upper, str.lower):
        spans = checked_ids(copy(text), "d")
        assert [(copy(text)[s.start:s.end], s.type) for s in spans] == [(copy(value), gtype)]


def test_the_checks_reject_one_changed_character():
    assert luhn_ok("4539148803436467") and not luhn_ok("4539148803436468")
    assert iban_ok("DE89 3704 0044 0532 0130 00") and not iban_ok("DE89 3704 0044 0532 0130 01")
    assert not iban_ok("DE89370400440532013")                # wrong length for Germany
    assert vin_ok("1M8GDM9AXKP042788") and not vin_ok("1M8GDM9AXKP042789")
    assert dea_ok("AB1234563") and not dea_ok("AB1234573")
    assert base58check_ok("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")
    assert bech32_ok("bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297")   # BIP 350 (taproot)
    assert not bech32_ok("bc1QAR0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")                   # mixed case


@pytest.mark.parametrize("schema,locale", [("i2b2-2014", "en"), (MEDDOCAN, "es")])
def test_every_pack_finds_them_through_the_detector(schema, locale):
    """The English and Spanish packs carry the checks; the spans come out of the whole rules-only
    detector (its steps and schema mapping), as an ID / contact category."""
    text = "Payment: 4539 1488 0343 6467. IBAN ES9121000418450200051332. Host 2001:db8::8a2e:370:7334."
    spans = Detector.without_model(schema, locale, dictionaries=False).detect(Document(doc_id="d", text=text))
    found = {text[s.start:s.end]: s.category for s in spans}
    assert found.get("4539 1488 0343 6467") == "ID"
    assert found.get("ES9121000418450200051332") == "ID"
    assert found.get("2001:db8::8a2e:370:7334") == "CONTACT"
