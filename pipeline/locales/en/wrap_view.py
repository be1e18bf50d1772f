"""The text English detection reads: a hard-wrapped note's wrap breaks read as blanks.

Why: notes exported from a charting system, pasted from a fixed-width screen or faxed arrive
hard-wrapped, a line break every 60-80 characters wherever the next word did not fit. A name or a
place then sits across a break ("seen by Dr.⏎Smith", "from Mass⏎General") and the context that
says PHI is on the line before. The rules read a line break as the end of a field, a sign-off or a
list item, as it is in notes typed line by line, so on hard-wrapped copies of the hand-written ICU
check halves (a blank before column 60 turned into a line break, offsets unchanged) the starter
with its rules lost up to 0.05 of recall.

A break is read as a wrap only in a note that is wrapped (at least three lines, a quarter of its
lines or more, end within 15 characters of its longest line), and only where a wrapping tool
would have put it: the line before is full (within 20 characters of the longest line) and the
next line's first word would not have fitted on it, and the next line opens no list item or field
("- ", "2.", "Neuro:") and is no sign-off (a paragraph's last line that is one word without a
full stop, "mtanaka2", or ends in a credential, "J. Rivera RN": spec_invented find f04). Each
such break becomes a blank, so the view has the note's length and every offset stands: spans
found on it are the note's spans, a span may hold a break, and de-identification cuts spans at
line breaks before rewriting (:mod:`pipeline.deid.span_hygiene`).
A note typed line by line (short lines, a break after each field) is read as written.

>>> unwrap_hard_breaks("Pt is a 67 yo man admitted from Mass\\nGeneral with chest pain, seen by Dr.\\n"
...                    "Smith in the ED overnight and then sent\\nup to the unit on a heparin drip.\\nNeuro: a+ox3.")
'Pt is a 67 yo man admitted from Mass General with chest pain, seen by Dr. Smith in the ED overnight and then sent up to the unit on a heparin drip.\\nNeuro: a+ox3.'
>>> unwrap_hard_breaks("Neuro: a+ox3\\nCV: HR 80s SR\\nResp: LS clear")
'Neuro: a+ox3\\nCV: HR 80s SR\\nResp: LS clear'
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.staff_closings import CREDENTIAL_WORDS

#: a wrapped note's lines: at least this many end near its longest line ...
MIN_FULL_LINES = 3
#: ... and they are at least this share of its lines with text
MIN_FULL_SHARE = 0.25
#: how near the longest line a line ends to count as full (a wrap leaves at most a word's room)
FULL_WITHIN = 15
#: how near the longest line the line before a break must end for the break to be a wrap
BREAK_WITHIN = 20
#: the narrowest wrap read as one (narrower "lines" are a list's)
MIN_WIDTH = 35

#: a line that opens a list item or a field: a bullet, a number's item, a label and its colon
_OPENS_ITEM = re.compile(r"[ \t]*(?:[-*•#>]|\d{1,2}[.)][ \t]|[A-Za-z][A-Za-z /&]{0,24}:(?:[ \t]|$))")
_FIRST_WORD = re.compile(r"[ \t]*(\S+)")


def _signs_off(before: str, line: str, after: str | None) -> bool:
    """Whether ``line`` (``before``: the line above it; ``after``: the line below it, None at the
    note's end) is a sign-off: the last line of its paragraph, one word without a sentence's end
    or ending in a credential, and not the rest of a name whose initial ends the line above
    ("DR HOLLINGWORTH. T.⏎MWANGI-BRAUN RRT": a wrap of icu_invented_b find f39)."""
    if (after is not None and after.strip()) or re.search(r"(?<![\w.])[A-Za-z]\.?$", before.rstrip()):
        return False
    words = line.split()
    if len(words) == 1 and not re.search(r"[.!?,;:)\"']$", words[0]):
        return True
    return bool(words) and words[-1].strip(".,").lower() in CREDENTIAL_WORDS


def soft_breaks(text: str) -> list[int]:
    """The offsets of the line breaks in ``text`` that a wrapping tool put there (see the module's
    docstring); none in a note typed line by line."""
    lines = text.split("\n")
    lengths = [len(line.rstrip()) for line in lines]
    filled = [n for n in lengths if n]
    if len(filled) < MIN_FULL_LINES + 1:
        return []
    width = max(filled)
    if width < MIN_WIDTH:
        return []
    full = sum(n >= width - FULL_WITHIN for n in filled)
    if full < MIN_FULL_LINES or full < MIN_FULL_SHARE * len(filled):
        return []
    out, at = [], 0
    for k, line in enumerate(lines[:-1]):
        at += len(line)
        nxt = lines[k + 1]
        first = _FIRST_WORD.match(nxt)
        if (first is not None and lengths[k] >= width - BREAK_WITHIN
                and lengths[k] + 1 + len(first.group(1)) > width and not _OPENS_ITEM.match(nxt)
                and not _signs_off(line, nxt, lines[k + 2] if k + 2 < len(lines) else None)):
            out.append(at)
        at += 1
    return out


def unwrap_hard_breaks(text: str) -> str:
    """``text`` with its wrap breaks (:func:`soft_breaks`) read as blanks; the same length."""
    breaks = soft_breaks(text)
    if not breaks:
        return text
    chars = list(text)
    for i in breaks:
        chars[i] = " "
    return "".join(chars)
