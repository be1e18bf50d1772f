"""The text an English model reads: lines written in one case, truecased.

Why: a CRF learns capitals as a strong name and place signal, and ALL CAPS or all lower-case
lines take that signal away (on the pooled check halves of the hand-written ICU sets the 328-note
loop model alone found 0.894 of PHI characters as written, 0.824 in UPPER and 0.780 in lower
case, even with case copies in its training). Such a line is given to the model as a mixed-case
line would have been written: a word English uses often, or one of the safe clinical vocabulary,
in lower case, any other word capitalised. Rules and lists still read the line as written; the
copy has the same length, so the model's offsets stand (a line whose length would change is left
as written). Mixed-case lines are never touched.

Only a cold start's model reads it (``TrainConfig.case_view``, set by ``train-starter``): on the
blind sets it gave the starter recall in one-case text (the PII sets' UPPER and lower copies
0.804 -> 0.871 and 0.793 -> 0.863) at some precision (up to 0.07 on the terse ICU sets), the
right trade when the goal is to find; a ward's own model, which must also be precise and has
learnt its notes' case from its gold, reads the note as written. A first name English uses often
("john", "mary") stays in lower case: capitalising the pack's listed names too cost precision on
nine check halves for 0.001-0.005 more recall on two.

>>> truecase_one_case_lines("PT SEEN BY DR KOWALCZYK\\nBP 120/80, Wife Mary at bedside")
'pt seen by dr Kowalczyk\\nBP 120/80, Wife Mary at bedside'
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.caseless import one_case
from pipeline.detection.rules.en.name_words import TOWN_WORD_ZIPF, is_safe_word, zipf

#: a word: letters of any script (accented names such as "JOSÉ" or "MÜLLER" included), with
#: apostrophes inside ("O'BRIEN"); digits and underscores are not letters.
_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|')*")


def _common(word: str) -> bool:
    low = word.lower()
    return is_safe_word(low) or (zipf(low) or 0.0) >= TOWN_WORD_ZIPF


def _truecased(m: re.Match) -> str:
    w = m.group()
    return w.lower() if _common(w) else w[0].upper() + w[1:].lower()


def truecase_one_case_lines(text: str) -> str:
    """``text`` with every line written in one case truecased (same length, same offsets)."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if one_case(line):
            new = _WORD.sub(_truecased, line)
            if len(new) == len(line):
                lines[k] = new
    return "\n".join(lines)
