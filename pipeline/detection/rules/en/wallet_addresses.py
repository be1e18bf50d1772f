"""Cryptocurrency wallet addresses that their check digits cannot vouch for, after a word that says
a wallet follows: "LTC deposit address for Obinna: LQ3B5Y4s...", "send 0.2 BTC to 1Fz9...".

Why beside :func:`pipeline.detection.rules.checked_ids.crypto_addresses`: that rule proves an
address by its base58check or bech32 checksum, and marks it wherever it stands. Addresses that are
mistyped, shortened in a chat, of another coin (Litecoin's "L"/"M" legacy and "ltc1" segwit
forms), or invented for a form (the public synthetic PII sets' values carry no valid checksum)
fail it, and still single out whose money it is. Without a checksum the shape alone is too weak
(a session token or a hash looks alike), so the line must name a coin or a wallet (btc, bitcoin,
ltc, litecoin, crypto, wallet, deposit address, payout) within 80 characters before the address.
The shape: base58 (no 0, O, I or l), 26 to 35 characters after "1", "3", "L" or "M", with
capitals, small letters and digits; or a segwit address ("bc1", "ltc1", "tb1") of 25 to 62
bech32 characters. Found on the second invented PII set's find half (f_fin_10, f_fin_41).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_B58 = "1-9A-HJ-NP-Za-km-z"
_LEGACY = re.compile(rf"(?<![\w])[13LM][{_B58}]{{25,34}}(?![\w])")
_SEGWIT = re.compile(r"(?<![\w])(?:bc|ltc|tb)1[02-9ac-hj-np-z]{25,62}(?![\w])", re.IGNORECASE)
_COIN = re.compile(r"(?i)\b(?:btc|bitcoin|ltc|litecoin|crypto|wallet|deposit[ \t]+address|payout|coin)s?\b")


def _mixed(value: str) -> bool:
    return (sum(c.isupper() for c in value) >= 2 and sum(c.islower() for c in value) >= 2
            and sum(c.isdigit() for c in value) >= 2)


@register(LOCALE, "wallet_addresses", "ID", score=0.84)
def wallet_addresses(text: str, doc_id: str) -> list[Span]:
    """Legacy and segwit wallet addresses without a valid checksum, after a coin's or a wallet's word."""
    out: list[Span] = []
    for rx, shape_ok in ((_LEGACY, _mixed), (_SEGWIT, lambda v: sum(c.isdigit() for c in v) >= 3)):
        for m in rx.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if shape_ok(m.group()) and _COIN.search(text, max(line_start, m.start() - 80), m.start()):
                out.append(mk(doc_id, m.start(), m.end(), "ACCOUNT"))
    return out
