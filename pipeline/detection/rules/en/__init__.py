"""English rule pack, following i2b2 2014 annotation boundaries.

i2b2 conventions that decide boundaries here:

- AGE is the number alone ("45" in "45 yo", "45-year-old", "45 y/o", "aged 45");
- DATE is the date expression without a weekday's comma or "on": "01/20/2071", "1/20",
  "4/66", "January 5, 2071", "Jan 2071", "5th of March", "Spring 2071", "2071" after "in/since";
- phone numbers keep their punctuation: "(617) 555-1234", "617.555.1234", with "x123" extensions;
  "Fax" before a number makes it FAX, "pager/beeper/pgr" a PHONE;
- record numbers are the value after the label ("MRN: 1234567" -> "1234567").

The pack is a package, one job per module: :mod:`.dates`, :mod:`.ages`, :mod:`.contact` (phones, record
numbers, ZIP codes, streets), :mod:`.names` (names after titles), :mod:`.context_names` and
:mod:`.places` (names, hospitals and towns as ward notes write them: after "wife", "per", "RN",
"transferred from", in any case, and staff signatures), with :mod:`.name_pairs` (how a name's words
hold together when case says nothing) and :mod:`.towns` (towns and listed places in one case),
:mod:`.name_lines` (names a note's shape announces: dictation initials, "is a 57-year-old",
"Sincerely,", "Mary (daughter)"), :mod:`.professions` (after "works as a"), :mod:`.workplaces`
(rooms, wards by building and floor, acronyms before "ED", employers), :mod:`.landmarks` (parks,
lakes, airports by name);
:mod:`.caseless_names` (a first name and a rare surname, or a titled name before a colon, in a line
of one case);
:mod:`.numbers` says when a number is a measurement rather
than an age, a date or a phone number, and :mod:`.name_words` whether a word may be a name. A
pack runs its rules in registration order, which can decide ties, so the shared rules come first
and the modules are imported below in the order their rules have always run.
"""
from __future__ import annotations

from pipeline.detection.rules.checked_ids import register_checked
from pipeline.detection.rules.common import register_common
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.ascii_view import fold_accents
from pipeline.detection.rules.registry import set_rules_view

register_common(LOCALE)
set_rules_view(LOCALE, fold_accents)  # the rules read accented letters as their base letters

from pipeline.detection.rules.en import dates, ages, contact, names, context_names, name_lines, places, professions, workplaces, landmarks, bare_names, caseless_names, labelled_ids, world_addresses, address_parts, companies, letters_chat, handles, masked_numbers, coordinates, form_fields, weekday_dates, record_fields, wallet_addresses, job_titles, route_towns, prose_names, role_names, saints, nicknames, highways, year_ranges, named_sites, kin_word_names, kind_brackets  # noqa: E402,F401,E501  (register, in this order)

register_checked(LOCALE)  # last: identifiers proven by their check digits (never tie-breakers for the rules above)
