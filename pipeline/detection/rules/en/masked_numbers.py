"""Masked card and account numbers: the digits a statement or a receipt leaves showing
("************4821", "**** 7731", "xxxx-1234") and the last four after "ending" ("card ending in
4417", "checking ending x4419", "account ending 0926").

Why: e-mails, chats and statements name a card or an account by its last digits, and those digits
with the bank's name narrow an account down to one person (the public synthetic PII sets label the
masked number). A mask needs two stars or bullets, or three x's, before four digits; "ending" needs
a card's or an account's word within a few words before it, so a protocol "ending 1200" stays.
Found on the invented PII texts' "find" half (benchmarks/pii_invented.py).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_MASKED = re.compile(r"(?<![\w*•#])(?:[*•#]{2,}|[xX]{3,})(?:[ -]?(?:[*•#]{2,}|[xX]{3,}))*[ -]?\d{3,6}(?!\d)")
_ENDING = re.compile(r"(?i)\b(?:card|account|acct|checking|savings|visa|mastercard|amex|debit|credit|iban|loan)\b"
                     r"[^\n.]{0,25}?\b(?:ending|ends)(?:[ \t]+(?:in|with))?[ \t]*:?[ \t]*"
                     r"(?P<num>(?:[*•#xX]+[ -]?)?\d{4})(?!\d)")


@register(LOCALE, "masked_numbers", "ID", score=0.88)
def masked_numbers(text: str, doc_id: str) -> list[Span]:
    """Masked numbers with their mask, and the last four digits after a card's or an account's "ending"."""
    out = [mk(doc_id, m.start(), m.end(), "ACCOUNT") for m in _MASKED.finditer(text)]
    out += [mk(doc_id, *m.span("num"), "ACCOUNT") for m in _ENDING.finditer(text)]
    return dedupe(out)
