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
  is upper-case is dropped ("blanco" is a colour, "Blanco" a surname);
- words of the locale's stop-list ("Will", "May", "Hope"; "Dolores", "Mayo", "Luz") match only
  when capitalised, not all-caps, and not at the start of a sentence or line;
- entries of one or two characters are ignored (state codes "MD", "OR", "IN" are clinical words);
- titles ("Dr.", "Dra.", "Sr.", "Mrs.", "Prof.", ...) are never part of a name: they are stripped
  from entries, and a name right after a doctor's title is typed DOCTOR;
- shipped first names and surnames after "San", "Santa", "St." are places, not people;
- of nested hits in one category only the longest is kept ("Santa Cruz de Tenerife", not "Santa Cruz").

Scores: 1.0 when the text equals the entry exactly, 0.9 when it differs in case or accents.
Source: ``dict:<list name>``.
"""
from __future__ import annotations

import numpy as np

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

import ahocorasick

from pipeline.locales import available_lists, load_list
from pipeline.detection.rules.typemap import GENERIC_CATEGORY, map_type
from pipeline.schemas import LabelSchema, SchemaError, get_schema
from pipeline.spans import Span

EXACT_SCORE = 1.0
VARIANT_SCORE = 0.9
MIN_ENTRY_LEN = 3

# shipped list file -> (category, generic type, proper noun?). Professions are shipped for
# surrogates but not matched by default (see DETECT_BY_DEFAULT): "médico", "nurse" are everywhere
# in clinical text and are PHI only when they describe the patient.
SHIPPED_KINDS: dict[str, tuple[str, str, bool]] = {
    "first_names": ("NAME", "PATIENT", True),
    "surnames": ("NAME", "PATIENT", True),
    "cities": ("LOCATION", "CITY", True),
    "states": ("LOCATION", "STATE", True),
    "provinces": ("LOCATION", "STATE", True),
    "countries": ("LOCATION", "COUNTRY", True),
    "countries_official": ("LOCATION", "COUNTRY", True),
    "hospitals": ("LOCATION", "HOSPITAL", True),
    "organizations": ("LOCATION", "ORGANIZATION", True),
    "manufacturers": ("LOCATION", "ORGANIZATION", True),
    "streets": ("LOCATION", "STREET", True),
    "professions": ("PROFESSION", "PROFESSION", False),
}

DETECT_BY_DEFAULT = frozenset(k for k in SHIPPED_KINDS if k != "professions")
AMBIGUOUS_NAME_FACTOR = 0.95

DOCTOR_TITLES = ("Dr", "Dra", "Drs", "Dres", "Doctor", "Doctora", "Prof", "Profa", "DR", "DRA")
_TITLE_WORDS = ("Dr", "Dra", "Drs", "Dres", "Sr", "Sra", "Srta", "Mr", "Mrs", "Ms", "Miss", "Prof", "Profa",
                "Dña", "Dª", "DR", "DRA")
_ENTRY_TITLE = re.compile(r"^(?:(?:%s)\.?\s+)+" % "|".join(_TITLE_WORDS))
_DOCTOR_BEFORE = re.compile(r"(?:\b(?:%s)\.?|\bdoctora?)[ \t]+$" % "|".join(DOCTOR_TITLES))

# Words that are names or places but also ordinary words; they need a capital letter and must
# not open a sentence. Compared after normalisation (lower case, no accents).
STOP_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset("""
        will may hope faith grace joy june april august bill mark art rich frank gene sue pat bob don ray rose
        lily page holly dawn summer autumn sunny brown white black green gray grey long short young king bell
        cook hill wood stone rice park lane ward hall ball best good love little small strong wise price rose
        case chase cross day early hart page bush bass bird fox wolf may marsh moss reed shaw snow west north
        south miles hunter baker parker carter walker turner porter mason major person rush glass hope human
        chance christian sharp holiday lake land guy norman pierce power summers winter winters lamb
        georgia jordan chad turkey guinea china india chile mali niger togo""".split()),
    "es": frozenset("""
        mayo dolores luz sol paz consuelo amparo mercedes salud reyes pilar rey mayor real nuevo nueva santos
        cruz fe gracia asuncion concepcion soledad remedios angeles gloria esperanza victoria mar nieves
        blanco moreno rubio delgado calvo bueno rico leal pastor franco bravo cano lobo toro vega luna mesa
        campos ramos mora sierra rivera rios soto plaza prado pozo valle vera roca mata sala costa campo
        corral barrio huerta puerta granada merida leon palma cuenca ronda guinea chile china india turquia
        georgia granados lorca salvador angel caridad piedad olvido socorro rocio alba sagrario trinidad
        purificacion encarnacion milagros inmaculada montserrat belen candela clara blanca aurora fatima
        flores castillo iglesias marin cuesta herrero herrera serrano navarro medina guerra ferrer merino
        vidal marcos santiago rosario dia norte sur este oeste centro madrid general mas diez hierro salud
        vila campo lucas""".split()),
}


# --- normalisation with an offset map --------------------------------------------------------

@lru_cache(maxsize=4096)
def _norm_char(c: str) -> str:
    if c in "’´`ʼ‘":
        return "'"
    if c in "‐‑‒–—":
        return "-"
    d = unicodedata.normalize("NFKD", c)
    d = "".join(ch for ch in d if not unicodedata.combining(ch))
    return d.casefold()


def _normalize_slow(text: str) -> tuple[str, list[int]]:
    """The definition of :func:`normalize`, one character at a time."""
    out: list[str] = []
    owner: list[int] = []
    prev_space = False
    for i, c in enumerate(text):
        if c != "\n" and c.isspace():
            if prev_space:
                continue
            out.append(" ")
            owner.append(i)
            prev_space = True
            continue
        prev_space = False
        n = c.lower() if c.isascii() else _norm_char(c)
        for ch in n:
            out.append(ch)
            owner.append(i)
    return "".join(out), owner


# character -> what it normalises to (" " for blanks), for the fast path of normalize()
_CHAR_MAP: dict[str, str] = {}


def _char_map(c: str) -> str:
    got = _CHAR_MAP.get(c)
    if got is None:
        got = " " if (c != "\n" and c.isspace()) else (c.lower() if c.isascii() else _norm_char(c))
        if not (c != "\n" and c.isspace()) and (len(got) != 1 or got.isspace() and got != c):
            got = ""   # expands, vanishes or becomes a blank: only the slow path is exact
        _CHAR_MAP[c] = got
    return got


def normalize(text: str) -> tuple[str, list[int]]:
    """``(normalised text, owner)``: ``owner[i]`` is the index in ``text`` of normalised char ``i``.

    Runs of spaces/tabs (and other non-newline blanks) become one space; newlines stay. Lower
    case, accents dropped, casefolded. When every character maps to exactly one character (all
    but a few exotic texts) the text is translated in one call and the blank runs collapsed with
    numpy; otherwise :func:`_normalize_slow` (the same result, character by character).
    """
    table = {}
    for c in set(text):
        m = _char_map(c)
        if not m:
            return _normalize_slow(text)
        table[ord(c)] = m
    t = text.translate(table)
    if "  " not in t:
        return t, list(range(len(text)))
    codes = np.frombuffer(t.encode("utf-32-le"), dtype=np.uint32)
    sp = codes == 32
    keep = ~(sp & np.concatenate(([False], sp[:-1])))
    return codes[keep].tobytes().decode("utf-32-le"), np.flatnonzero(keep).tolist()


def normalize_entry(entry: str) -> str:
    return normalize(entry.strip())[0]


# --- lists -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class DictionaryList:
    """A named word list: every entry is a ``category``/``type`` value.

    ``proper_noun`` lists (names, places) never match a lower-case word against a capitalised
    entry. ``type`` may be generic (mapped per schema) or the schema's own.
    """

    name: str
    category: str
    type: str
    entries: tuple[str, ...]
    proper_noun: bool = True
    origin: str = "shipped"

    def __len__(self) -> int:
        return len(self.entries)


def _clean_entries(entries: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for raw in entries:
        if not isinstance(raw, str):
            continue
        e = _ENTRY_TITLE.sub("", raw.strip().lstrip("\ufeff")).strip()
        if not e or e.startswith("#"):
            continue
        key = normalize_entry(e)
        if len(key) < MIN_ENTRY_LEN or key in seen:
            continue
        seen.add(key)
        out.append(e)
    return tuple(out)


def make_list(category: str, type_: str, name: str, entries: Iterable[str], *,
              schema: LabelSchema | str | None = None, proper_noun: bool | None = None) -> DictionaryList:
    """A list uploaded by a lead: validates the label against ``schema`` and cleans the entries.

    Entries are stripped, de-duplicated (after normalisation), comment lines (``#``) and
    entries shorter than three characters dropped, leading titles removed. Raises
    :class:`SchemaError` for a label the schema lacks and ``ValueError`` for an empty list or a
    bad name; messages never quote entries (they may be patients' names).
    """
    if not name or not re.fullmatch(r"[\w .()-]{1,80}", name):
        raise ValueError("dictionary name must be 1-80 letters, digits, spaces, '.', '-', '_' or brackets")
    if schema is not None:
        sch = get_schema(schema) if isinstance(schema, str) else schema
        if category not in sch.categories:
            raise SchemaError(f"dictionary {name!r}: category {category!r} is not in schema {sch.name!r}")
        if type_ and type_ not in sch.categories[category]:
            raise SchemaError(f"dictionary {name!r}: type {type_!r} is not under {category} in schema {sch.name!r}")
    cleaned = _clean_entries(entries)
    if not cleaned:
        raise ValueError(f"dictionary {name!r} has no usable entries (at least {MIN_ENTRY_LEN} characters each)")
    if proper_noun is None:
        proper_noun = category not in ("PROFESSION", "OTHER")
    return DictionaryList(name=name, category=category, type=type_, entries=cleaned,
                          proper_noun=proper_noun, origin="uploaded")


def shipped_lists(locale: str, names: Iterable[str] | None = None) -> list[DictionaryList]:
    """The lists shipped for ``locale`` with their categories and generic types.

    ``names`` selects lists; by default all but professions (:data:`DETECT_BY_DEFAULT`).
    """
    wanted = set(names) if names is not None else DETECT_BY_DEFAULT
    out: list[DictionaryList] = []
    for name in available_lists(locale):
        if name not in SHIPPED_KINDS or name not in wanted:
            continue
        cat, gtype, proper = SHIPPED_KINDS[name]
        out.append(DictionaryList(name=name, category=cat, type=gtype, entries=_clean_entries(load_list(locale, name)),
                                  proper_noun=proper, origin="shipped"))
    return out


# --- matcher ---------------------------------------------------------------------------------

@dataclass
class DictionaryMatcher:
    """All lists of a project in one automaton; :meth:`match` returns spans typed for ``schema``."""

    lists: list[DictionaryList] = field(default_factory=list)
    schema: LabelSchema | None = None
    stop_words: frozenset[str] = frozenset()
    _automaton: object = field(default=None, init=False, repr=False)

    @classmethod
    def from_lists(cls, lists: Sequence[DictionaryList], *, schema: LabelSchema | str | None = None,
                   locale: str | None = None, stop_words: Iterable[str] | None = None) -> "DictionaryMatcher":
        """A matcher over ``lists``; the stop-list is ``locale``'s plus ``stop_words``."""
        sch = get_schema(schema) if isinstance(schema, str) else schema
        sw = set(STOP_WORDS.get((locale or "").split("-")[0], frozenset()))
        sw.update(normalize_entry(w) for w in (stop_words or ()))
        return cls(lists=list(lists), schema=sch, stop_words=frozenset(sw))

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
        return self._to_spans(hits, text, doc_id)

    def _score(self, text: str, start: int, surface: str, entry: str, key: str, lst: DictionaryList) -> float | None:
        first_s, first_e = surface[:1], entry[:1]
        if lst.proper_noun and first_s.islower() and not first_e.islower():
            return None
        if (lst.category == "NAME" and surface.isupper() and len(surface) <= 5 and " " not in surface
                and not _caps_neighbour(text, start, start + len(surface))):
            return None  # "ANA", "EVA", "ELISA": acronyms far more often than names, unless in "GARCÍA LÓPEZ"
        if lst.category == "NAME" and lst.origin == "shipped" and (
                _SAINT_BEFORE.search(text[max(0, start - 8):start]) or _NOT_NAME_AFTER.match(text, start + len(surface))):
            return None  # "San Miguel de Salinas", "Santa Teresa": places; "Rosa de Bengala": a lab test
        if key in self.stop_words:
            if not first_s.isupper() or (len(surface) > 1 and surface.isupper()) or _sentence_start(text, start):
                return None
            if _PREPOSITION_BEFORE.search(text[max(0, start - 12):start]):
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
            gtype = lst.type
            if lst.category == "NAME" and _DOCTOR_BEFORE.search(text[max(0, s - 12):s]):
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


_SAINT_BEFORE = re.compile(r"\b(?:San|Santa|Sant|Santo|Sta\.|Sto\.|Sao|São|St\.|Saint)[ \t]+$")
_NOT_NAME_AFTER = re.compile(r"[ \t]+de[ \t]+Bengala\b")
_PREPOSITION_BEFORE = re.compile(r"(?i)\b(?:in|on|of|since|until|by|early|late|mid|en|de|desde|hasta|el)[ \t]+$")


def _caps_neighbour(text: str, start: int, end: int) -> bool:
    """Whether the word just before or after (across one blank) is also an all-capitals word."""
    before = re.search(r"(\w+)[ \t]$", text[max(0, start - 30):start])
    after = re.match(r"[ \t](\w+)", text[end:end + 30])
    return any(m and len(m.group(1)) >= 3 and m.group(1).isalpha() and m.group(1).isupper() for m in (before, after))


def _sentence_start(text: str, i: int) -> bool:
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] in "\n.!?¡¿:;\"'(«-•*" or text[j] == "\ufeff"
