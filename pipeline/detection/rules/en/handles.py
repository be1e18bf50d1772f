"""Logins and social handles where no "username" label stands before them: an @handle ("@mira_builds",
"@dario-vanucci"), a handle joined by underscores ("satoshi_fan21", "admin_kgriffin"), the
value of a log's or an export's key ("user=dmitri.kovalenko", "login=jdoe"), and the user of a web
server's access log line ("198.51.100.23 - bturner [10/Mar/2025:13:55:36]").

Why: chats, tickets, logs and sign-up e-mails name people by their logins (the public synthetic
PII sets label USERNAME), and :func:`.labelled_ids.sentence_ids` reads a login only after its
label. An @handle must start with a letter and hold a digit, "_", "." or "-", or be a word English
does not use ("@0800" and "@ rate" stay); an underscore handle must have letters on both sides of
an underscore and not be written in capitals (a constant's "MAX_DOSE"); in a line written in one
case ("SATOSHI_FAN21", "max_dose") it needs a digit or a part that is no safe word instead,
never inside a path, an e-mail or a URL, nor a record's key ("\"full_name\": ...", "last_seen=...").
Found on the invented PII texts' "find" half (benchmarks/pii_invented.py).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.en.name_words import is_safe_word, zipf
from pipeline.detection.rules.en.record_fields import key_type
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_AT = re.compile(r"(?<![\w@.])(?P<h>@(?P<name>[A-Za-z][\w.-]{1,28}[A-Za-z0-9]))(?![\w@-]|\.[A-Za-z])")
_UNDERSCORE = re.compile(r"(?<![\w@./:\\-])(?P<h>[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+)(?![\w@/\\-]|\.[A-Za-z])")
_KEY = re.compile(r"(?i)(?<![\w])(?:user|username|user_?name|login|uid|userid|user_id|account_name|handle)[ \t]*="
                  r"[ \t]*[\"']?(?P<h>[A-Za-z][\w.@-]{2,40})(?<![.-])")


# a web server's access log: address, identity, user, then the bracketed time ("198.51.100.23 - bturner [10/Mar/2025")
_ACCESS_LOG = re.compile(r"(?m)(?:^|(?<=\s))(?:\d{1,3}\.){3}\d{1,3}[ \t]+\S+[ \t]+(?P<h>[A-Za-z][\w.@-]{1,40})[ \t]+\[")


# a record's key is no login: a key before "=" ("last_seen=2025-04-01") or a JSON key in its quotes
# before ":" ("\"customer_id\": 88213"); found on the second invented PII set's find half (f_json_31, f_kv_33)
_EQUALS_AFTER = re.compile(r"[ \t]*=")
_QUOTED_KEY_END = re.compile(r"[\"'][ \t]*:")


def _is_key(text: str, start: int, end: int) -> bool:
    """A key before "=" or a quoted key before ":", or a record's known key ("first_name" in a CSV header)."""
    if _EQUALS_AFTER.match(text, end) or key_type(text[start:end]):
        return True
    return start > 0 and text[start - 1] in "\"'" and bool(_QUOTED_KEY_END.match(text, end))


# a chat log's bracketed speakers at lines' starts ("[pixelmonk] ok I'll be in ..."): a login in
# small letters (or with a digit, "_", "." or "-"), no safe word, two such lines or more (second
# invented PII set's find half, f_chat_30); "[Neuro] A+Ox3" and "[REDACTED]" stay
_BRACKET_SPEAKER = re.compile(r"(?m)^[ \t]*\[(?P<h>[A-Za-z][\w.-]{2,30})\][ \t]+\S")


def _bracket_speakers(text: str, doc_id: str) -> list[Span]:
    found = [m for m in _BRACKET_SPEAKER.finditer(text)
             if (m.group("h").islower() or re.search(r"[\d_.-]", m.group("h"))) and not is_safe_word(m.group("h"))
             and not m.group("h").isupper()]
    return [mk(doc_id, *m.span("h"), "USERNAME") for m in found] if len(found) >= 2 else []


def _handle(h: str) -> bool:
    return bool(re.search(r"[\d_.-]", h)) or (zipf(h) or 0.0) < 2.5


def _caseless_handle(h: str) -> bool:
    """A handle in a line written in one case, where its capitals say nothing: a digit or a part
    that is no safe word ("JDOE_1984", "admin_kgriffin"; "MAX_DOSE", "max_dose" stay)."""
    return any(c.isdigit() for c in h) or any(not is_safe_word(p) for p in h.split("_") if p)


@register(LOCALE, "handles", "NAME", score=0.82)
def handles(text: str, doc_id: str) -> list[Span]:
    """@handles (with their "@"), underscore-joined logins and ``user=`` values."""
    out = [mk(doc_id, *m.span("h"), "USERNAME") for m in _AT.finditer(text) if _handle(m.group("name"))]
    for m in _UNDERSCORE.finditer(text):
        h = m.group("h")
        letters = sum(c.isalpha() for c in h)
        if _is_key(text, *m.span("h")):
            continue
        if len(h) >= 5 and letters >= 3 and (_caseless_handle(h) if one_case_at(text, m.start()) else h != h.upper()):
            out.append(mk(doc_id, *m.span("h"), "USERNAME"))
    out += [mk(doc_id, *m.span("h"), "USERNAME") for rx in (_KEY, _ACCESS_LOG) for m in rx.finditer(text)]
    out += _bracket_speakers(text, doc_id)
    return dedupe(out)
