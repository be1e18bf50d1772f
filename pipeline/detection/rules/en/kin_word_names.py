"""A relative's first name that is also an ordinary word, where the verb after it shows it is the
relative's name: "Son Will is main contact", "GRANDDAUGHTER HOPE IS HCP", "daughter Hope lives
nearby", "gf dawn here most of day" ("BROTHER ART IS CLOSEST FAMILY" stays: no list holds "Art").

Why: the name rules leave a word English writes every day after "son" or "wife" ("son will call",
"daughter hopes to visit" are no names), so a relative called Will, Hope, Art, Dawn or Joy is
missed in every case. The word after the relative decides: a verb that takes the relative as its
subject ("is", "was", "lives", "called", "here", "at bedside") cannot follow a modal or a verb
("son will is", "wife rose is" are not English), so there the word is a name; the word must be a
listed first name. Found on the blind find notes of ``icu_invented_p`` (f279, f284, f324, f347)
and checked on the other sets' check halves.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.name_words import is_first_name
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_KIN = (r"wife|husband|son|daughter|sister|brother|mother|father|mom|dad|friend|fianc[eé]e?|partner|niece|nephew|"
        r"aunt|uncle|cousin|grandson|granddaughter|grandmother|grandfather|girlfriend|boyfriend|gf|bf|neighbou?r|"
        r"spouse|stepson|stepdaughter|roommate")
# what only a subject is followed by: a verb in the third person or a place the person is at
_SUBJECT_VERB = (r"is|was|lives|lived|called|calls|visited|visits|visiting|aware|here|present|at[ \t]+bedside|"
                 r"in[ \t]+to[ \t]+visit|updated|notified|states|stated|reports|reported|requests|requested|"
                 r"agrees|agreed|brought|signed|asked|asking")
_KIN_WORD_NAME = re.compile(rf"(?i:\b(?:{_KIN})[ \t]+)(?P<name>[A-Za-z][a-z]+|[A-Z]+)(?=[ \t]+(?i:{_SUBJECT_VERB})\b)")


@register(LOCALE, "kin_word_names", "NAME", score=0.8)
def kin_word_names(text: str, doc_id: str) -> list[Span]:
    """A listed first name after a relative's word and before a verb its subject takes.

    >>> text = "Son Will is main contact. son will call tonight. GRANDDAUGHTER HOPE IS HCP."
    >>> [text[s.start:s.end] for s in kin_word_names(text, "d")]
    ['Will', 'HOPE']
    """
    return [mk(doc_id, *m.span("name"), "PATIENT") for m in _KIN_WORD_NAME.finditer(text)
            if is_first_name(m.group("name"))]   # ("Will", "May" are function words as well: the verb decides)
