"""The span editor's word units in Python (:mod:`pipeline.annotation.units`; the JavaScript
twin is compared with it in ``test_editor_keyboard_browser.py``): a date, a phone number, an id,
an e-mail or a time is one unit; punctuation is none; every word character is in exactly one."""
from __future__ import annotations

import random

from pipeline.annotation.edits import is_word_char
from pipeline.annotation.units import JOINERS, units


def _pieces(text: str) -> list[str]:
    return [text[a:b] for a, b in units(text)]


def test_dates_phones_ids_and_emails_are_one_unit():
    text = "Seen on 03/14/2021 at 10:30; MRN-55-1234 (617) 555-1234, 617-555-1234 a.b@x.org 2021-03-14."
    assert _pieces(text) == ["Seen", "on", "03/14/2021", "at", "10:30", "MRN-55-1234", "(617) 555-1234",
                             "617-555-1234", "a.b@x.org", "2021-03-14"]


def test_a_joiner_without_a_word_after_it_ends_the_unit():
    assert _pieces("Boston.  Next - then 3/ 4, x@ y") == ["Boston", "Next", "then", "3", "4", "x", "y"]
    assert _pieces("(617) 555-12345") == ["617", "555-12345"]       # no phone: a digit follows


def test_every_word_character_is_in_exactly_one_unit():
    rng = random.Random(4)
    alphabet = "ab9Ñé_ /.-@:,;()\n"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 40)))
        us = units(text)
        covered = [0] * len(text)
        for a, b in us:
            assert a < b and text[a] not in JOINERS and text[b - 1] not in JOINERS
            for i in range(a, b):
                covered[i] += 1
        for i, c in enumerate(text):
            assert covered[i] <= 1
            if is_word_char(c):
                assert covered[i] == 1
