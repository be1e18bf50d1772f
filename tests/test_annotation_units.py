"""The span editor's word units and phrases in Python (:mod:`pipeline.annotation.units`; the
JavaScript twins are compared with them in ``test_editor_keyboard_browser.py`` and
``test_editor_phrases_browser.py``): a date, a phone number, an id, an e-mail or a time is one
unit; punctuation is none; every word character is in exactly one; a phrase is a name, an address
or a date written out, and every unit is in exactly one phrase."""
from __future__ import annotations

import random

from pipeline.annotation.edits import is_word_char
from pipeline.annotation.units import JOINERS, phrases, units


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


def _phrases(text: str) -> list[str]:
    return [text[a:b] for a, b in phrases(text)]


def test_phrases_are_names_addresses_and_dates_written_out():
    text = ("Seen Walter Austin MD at 1234 Main Street, Apt #4B, Boston MA 02115 on Mar 14, 2021 and 9th of May. "
            "María de la Cruz; John A. Smith; Johnson & Johnson.")
    assert _phrases(text) == ["Seen Walter Austin", "MD", "at", "1234 Main Street", "Apt #4B", "Boston", "MA", "02115",
                              "on", "Mar 14, 2021", "and", "9th of May", "María de la Cruz", "John A. Smith",
                              "Johnson & Johnson"]


def test_a_long_number_after_a_capitalised_word_begins_its_own_phrase():
    assert _phrases("Columbus, Ohio 44101; Suite 300, call Ana 617-555-1234 or 1234 Elm St") == [
        "Columbus", "Ohio", "44101", "Suite 300", "call", "Ana", "617-555-1234", "or", "1234 Elm St"]


def test_two_spaces_a_line_break_or_punctuation_end_a_phrase():
    assert _phrases("Walter  Austin\nBoston General, Dr. Smith; de la Cruz") == [
        "Walter", "Austin", "Boston General", "Dr", "Smith", "de", "la", "Cruz"]
    assert _phrases("Ana de  la Cruz, May 3, 21 and 14th of may") == [
        "Ana", "de", "la", "Cruz", "May 3", "21", "and", "14th", "of", "may"]


def test_every_unit_is_in_exactly_one_phrase():
    rng = random.Random(9)
    alphabet = "aB9 ,.#&\n"
    words = ["de", "of", "la", "Ana", "MD", "12", "2021", "x"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet + "".join(words)) if rng.random() < 0.7 else rng.choice(words)
                       for _ in range(rng.randrange(1, 30)))
        ps, us = phrases(text), units(text)
        assert all(a < b for a, b in ps) and all(b1 <= a2 for (_, b1), (a2, _) in zip(ps, ps[1:]))
        for a, b in us:
            assert sum(x <= a and b <= y for x, y in ps) == 1
        assert {a for a, _ in ps} <= {a for a, _ in us} and {b for _, b in ps} <= {b for _, b in us}
