"""Dictionary recognizers: whole-word, case- and accent-insensitive lookup of listed names.

Lists come from two places: the ones shipped per locale (:mod:`pipeline.locales`: first names,
surnames, cities, hospitals, ...) and the ones a lead uploads for a project (ward names, local
clinics, staff rosters) through :func:`make_list`. Every list has a category and a type; shipped
lists use generic (i2b2-style) types that are mapped onto the project's schema like rule output
(:mod:`pipeline.detection.rules.typemap`), uploaded lists name the schema's own types.

Matching uses one Aho-Corasick automaton (pyahocorasick) over all entries, so the cost does not
grow with the number of entries. Text and entries are normalised the same way (NFKD, combining
marks dropped, case-folded, runs of spaces/tabs collapsed, typographic apostrophes unified)
and an offset map sends every match back to exact offsets in the original text, also where
normalisation changes length (``ß`` -> ``ss``, ``ﬁ`` -> ``fi``, decomposed accents).

Rules that keep precision:

- whole words only (no alphanumeric character on either side of the match);
- names and places are proper nouns: a hit whose first letter is lower-case while the entry's
  is upper-case is dropped ("blanco" is a colour, "Blanco" a surname); but in a line written all
  in lower case, where case says nothing, English (``LOWER_LINES_VOUCHED``) keeps the hits that
  their words or context vouch for ("new orleans", "texas", "wife susan"; see
  :mod:`pipeline.detection.dictionary_lower`);
- words of the locale's stop-list ("Will", "May", "Hope"; "Dolores", "Mayo", "Luz") match only
  when capitalised, not all-caps, and not at the start of a sentence or line;
- in a line written in capitals case says nothing (Spanish; see ``CAPS_NEED_COMPANY``): a
  shipped person's name of one word ("OJO IZQUIERDO", "POLO SUPERIOR": words that are also
  surnames) stays only beside another name hit ("GARCIA LOPEZ"), after a doctor's title or after
  a field label ("NOMBRE: "); on MEDDOCAN train in capitals the surname list otherwise marked
  369 "IZQUIERDO" and 65 "POLO";
- entries of one or two characters are ignored (state codes "MD", "OR", "IN" are clinical words);
- titles ("Dr.", "Dra.", "Sr.", "Mrs.", "Prof.", ...) are never part of a name: they are stripped
  from entries, and a name right after a doctor's title is typed DOCTOR;
- shipped first names and surnames after "San", "Santa", "St." are places, not people;
- of nested hits in one category only the longest is kept ("Santa Cruz de Tenerife", not "Santa Cruz").

Scores: 1.0 when the text equals the entry exactly, 0.9 when it differs in case or accents.
Source: ``dict:<list name>``.

The parts live in their own modules: the lists and their cleaning in
:mod:`pipeline.detection.dictionary_lists`, the normalisation and its offset map in
:mod:`pipeline.detection.dictionary_text`, the words and patterns around a hit (stop-lists, titles,
"San", prepositions) in :mod:`pipeline.detection.dictionary_context`; this module matches.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import ahocorasick

from pipeline.detection.dictionary_context import (CAPS_NEED_COMPANY, DOCTOR_BEFORE, LOWER_LINES_VOUCHED,
                                                   NOT_NAME_AFTER, PREPOSITION_BEFORE, SAINT_BEFORE, STOP_WORDS, THING_BEFORE,
                                                   caps_line, caps_neighbour, held_up, sentence_start)
from pipeline.detection.dictionary_lists import (MIN_ENTRY_LEN, SHIPPED_WEIGHTS, DictionaryList, make_list,
                                                shipped_lists)
from pipeline.detection.dictionary_lower import (ORDINARY_PLACES, LowerHit, doctor_before, lower_line,
                                               ordinary_place_in_context, vouched)
from pipeline.detection.dictionary_text import normalize, normalize_entry
from pipeline.detection.rules.typemap import GENERIC_CATEGORY, map_type
from pipeline.schemas import LabelSchema, get_schema
from pipeline.spans import Span

EXACT_SCORE = 1.0
VARIANT_SCORE = 0.9
AMBIGUOUS_NAME_FACTOR = 0.95
# the list types whose one-word entries a lower-case line may show alone (dictionary_lower)
_PLACE_TYPES = frozenset({"CITY", "STATE", "COUNTRY"})


# --- matcher ---------------------------------------------------------------------------------

def _person(lst: DictionaryList) -> bool:
    return lst.category == "NAME" and lst.proper_noun and lst.origin == "shipped"


def _without_caseless_lone_names(hits: list, text: str) -> list:
    """``hits`` (start, end, list, entry, score) less the one-word person names in lines written in
    capitals that nothing holds up (:func:`pipeline.detection.dictionary_context.held_up`)."""
    names = [(s, e) for s, e, lst, _, _ in hits if _person(lst)]
    return [h for h in hits
            if not (_person(h[2]) and " " not in text[h[0]:h[1]] and caps_line(text, h[0])
                    and not held_up(text, h[0], h[1], [n for n in names if n != (h[0], h[1])]))]


@dataclass
class DictionaryMatcher:
    """All lists of a project in one automaton; :meth:`match` returns spans typed for ``schema``."""

    lists: list[DictionaryList] = field(default_factory=list)
    schema: LabelSchema | None = None
    stop_words: frozenset[str] = frozenset()
    caps_need_company: bool = False
    #: the locale whose lower-case lines let list hits through when vouched for
    #: (:mod:`pipeline.detection.dictionary_lower`); ``None``: never
    lower_locale: str | None = None
    #: the lists' language ("en" for "en-US"): what an article or possessive before a one-word
    #: name looks like there (:data:`~pipeline.detection.dictionary_context.THING_BEFORE`)
    language: str = ""
    _automaton: object = field(default=None, init=False, repr=False)

    @classmethod
    def from_lists(cls, lists: Sequence[DictionaryList], *, schema: LabelSchema | str | None = None,
                   locale: str | None = None, stop_words: Iterable[str] | None = None) -> "DictionaryMatcher":
        """A matcher over ``lists``; the stop-list is ``locale``'s plus ``stop_words``."""
        sch = get_schema(schema) if isinstance(schema, str) else schema
        lang = (locale or "").split("-")[0]
        sw = set(STOP_WORDS.get(lang, frozenset()))
        sw.update(normalize_entry(w) for w in (stop_words or ()))
        return cls(lists=list(lists), schema=sch, stop_words=frozenset(sw), caps_need_company=lang in CAPS_NEED_COMPANY,
                   lower_locale=lang if lang in LOWER_LINES_VOUCHED else None, language=lang)

    @classmethod
    def shipped(cls, locale: str, schema: LabelSchema | str | None = None,
                extra: Sequence[DictionaryList] = ()) -> "DictionaryMatcher":
        """The locale's shipped lists plus ``extra`` (uploaded) lists."""
        return cls.from_lists([*shipped_lists(locale), *extra], schema=schema, locale=locale)

    def add_list(self, category: str, type_: str, name: str, entries: Iterable[str]) -> DictionaryList:
        """Add an uploaded list (validated by :func:`make_list`); replaces a list of the same name."""
        new = make_list(category, type_, name, entries, schema=self.schema)
        self.lists = [lst for lst in self.lists if lst.name != name] + [new]
        self._automaton = None
        return new

    def _build(self):
        auto = ahocorasick.Automaton()
        table: dict[str, list[tuple[int, str]]] = {}
        for li, lst in enumerate(self.lists):
            for e in lst.entries:
                key = normalize_entry(e)
                if len(key) < MIN_ENTRY_LEN:
                    continue
                table.setdefault(key, []).append((li, e))
        for key, vals in table.items():
            auto.add_word(key, (len(key), tuple(vals)))
        if len(auto):
            auto.make_automaton()
        self._automaton = auto
        return auto

    def _typed(self, lst: DictionaryList, gtype: str) -> tuple[str, str] | None:
        if self.schema is None:
            return lst.category, gtype
        return map_type(self.schema, lst.category or GENERIC_CATEGORY.get(gtype, ""), gtype)

    def match(self, text: str, doc_id: str) -> list[Span]:
        """Dictionary hits in ``text`` as spans (may overlap across categories; see :func:`pipeline.detection.combine.combine`)."""
        auto = self._automaton if self._automaton is not None else self._build()
        if not len(auto) or not text:
            return []
        norm, owner = normalize(text)
        n = len(norm)
        hits: list[tuple[int, int, DictionaryList, str, float]] = []
        pending: list[tuple[LowerHit, tuple]] = []
        for end_idx, (klen, vals) in auto.iter(norm):
            ns, ne = end_idx - klen + 1, end_idx + 1
            if (ns > 0 and norm[ns - 1].isalnum()) or (ne < n and norm[ne].isalnum()):
                continue
            os_, oe = owner[ns], owner[ne - 1] + 1
            while oe < len(text) and unicodedata.combining(text[oe]):
                oe += 1  # a decomposed accent belongs to the letter before it
            # the match must cover whole original characters (not half of an expanded "ß")
            if (ns > 0 and owner[ns - 1] == os_) or (ne < n and owner[ne] == oe - 1):
                continue
            surface = text[os_:oe]
            key = norm[ns:ne]
            for li, entry in vals:
                lst = self.lists[li]
                score = self._score(text, os_, surface, entry, key, lst)
                if score is not None:
                    hits.append((os_, oe, lst, entry, score))
                elif self._lower_candidate(text, os_, surface, entry, lst):
                    score = self._score(text, os_, surface, entry, key, lst, caseless=True)
                    if score is not None:
                        pending.append((LowerHit(os_, oe, lst.category, lst.category == "NAME", key,
                                                 lst.type in _PLACE_TYPES),
                                        (os_, oe, lst, entry, score)))
        if pending:
            hits += self._vouched(pending, hits, text)
        if self.caps_need_company:
            hits = _without_caseless_lone_names(hits, text)
        return self._to_spans(hits, text, doc_id)

    def _lower_candidate(self, text: str, start: int, surface: str, entry: str, lst: DictionaryList) -> bool:
        """Whether a hit the proper-noun rule dropped is a lower-case name or place in a line
        written all in lower case, of a locale that lets such hits be vouched for."""
        return (self.lower_locale is not None and lst.proper_noun and lst.category in ("NAME", "LOCATION")
                and surface[:1].islower() and not entry[:1].islower() and lower_line(text, start))

    def _vouched(self, pending: list, hits: list, text: str) -> list:
        cased = [(s, e, lst.category) for s, e, lst, _, _ in hits]
        ok = vouched([p for p, _ in pending], cased, text, self.lower_locale, self.stop_words)
        return [h for p, h in pending if (p.start, p.end, p.category) in ok]

    def _score(self, text: str, start: int, surface: str, entry: str, key: str, lst: DictionaryList,
               caseless: bool = False) -> float | None:
        """The hit's score, or ``None`` when a rule drops it; ``caseless``: a hit in a lower-case
        line judged by :mod:`pipeline.detection.dictionary_lower`, so case and the stop-list
        (which asks for a capital) are not asked here."""
        first_s, first_e = surface[:1], entry[:1]
        if lst.proper_noun and first_s.islower() and not first_e.islower() and not caseless:
            return None
        if (lst.category == "NAME" and surface.isupper() and len(surface) <= 5 and " " not in surface
                and not caps_neighbour(text, start, start + len(surface))):
            return None  # "ANA", "EVA", "ELISA": acronyms far more often than names, unless in "GARCÍA LÓPEZ"
        thing = THING_BEFORE.get(self.language)
        if lst.category == "NAME" and " " not in surface and thing is not None and thing.search(text[max(0, start - 8):start]):
            return None  # "onto hood", "the Bell": what an article or a possessive heads is no person
        if lst.category == "NAME" and lst.origin == "shipped" and (
                SAINT_BEFORE.search(text[max(0, start - 8):start]) or NOT_NAME_AFTER.match(text, start + len(surface))):
            return None  # "San Miguel de Salinas", "Santa Teresa": places; "Rosa de Bengala": a lab test
        if (not caseless and self.lower_locale and lst.category == "LOCATION"
                and key in ORDINARY_PLACES.get(self.lower_locale, ())
                and ((len(surface) > 1 and surface.isupper()) or sentence_start(text, start))
                and not ordinary_place_in_context(text, start, start + len(surface), self.lower_locale)):
            return None
        if key in self.stop_words and not caseless:
            if not first_s.isupper() or (len(surface) > 1 and surface.isupper()) or sentence_start(text, start):
                return None
            if PREPOSITION_BEFORE.search(text[max(0, start - 12):start]):
                return None  # "in May", "en Mayo": the month or the word, not the person
        return EXACT_SCORE if surface == entry else VARIANT_SCORE

    def _to_spans(self, hits, text: str, doc_id: str) -> list[Span]:
        # a stretch that is both a name and a place ("Madrid", "Toledo") is more often the place
        # when it stands alone; next to other names the NAME cluster wins in combine anyway
        cats_at: dict[tuple[int, int], set[str]] = {}
        for s, e, lst, _, _ in hits:
            cats_at.setdefault((s, e), set()).add(lst.category)
        out: list[Span] = []
        for s, e, lst, entry, score in hits:
            if lst.category == "NAME" and len(cats_at[(s, e)]) > 1:
                score = round(score * AMBIGUOUS_NAME_FACTOR, 4)
            if lst.origin == "shipped" and lst.name in SHIPPED_WEIGHTS:
                score = round(score * SHIPPED_WEIGHTS[lst.name], 4)
            gtype = lst.type
            if lst.category == "NAME" and (DOCTOR_BEFORE.search(text[max(0, s - 12):s])
                                           or (self.lower_locale is not None and doctor_before(text, s))):
                gtype = "DOCTOR" if gtype in ("PATIENT", "") else gtype
                if self.schema is not None and lst.origin == "uploaded" and gtype not in self.schema._type_to_category:
                    gtype = lst.type
            typed = self._typed(lst, gtype)
            if typed is None:
                continue
            out.append(Span(doc_id=doc_id, start=s, end=e, category=typed[0], type=typed[1],
                            source=f"dict:{lst.name}", score=score))
        # of nested hits in one category keep the longest; of identical ones the best score
        out.sort(key=lambda x: (x.start, -x.end, -x.score))
        kept: list[Span] = []
        for sp in out:
            if any(k.category == sp.category and k.start <= sp.start and sp.end <= k.end
                   and (k.end - k.start > sp.end - sp.start or (k.start, k.end, k.label) == (sp.start, sp.end, sp.label))
                   for k in kept):
                continue
            kept.append(sp)
        return kept
