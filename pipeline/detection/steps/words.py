"""The words a locale pack gives its boundary steps, and the patterns built from them.

Why a dataclass and not module constants: the steps are shared by every language, the words
are not. A pack (:mod:`pipeline.locales`) fills one :class:`BoundaryWords`; the steps read it
from their context (:class:`pipeline.detection.steps.registry.StepContext`) and
:func:`pipeline.detection.combine.clean_span` from its policy. Each field says what the words do
in a span, not which language they come from.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field


def title_pattern(titles: tuple[str, ...]) -> re.Pattern:
    """One or more titles at the start of a name, with the colon or blanks after them. A title
    without a dot must be followed by a blank ("Dr" but not "Drake"); longer titles first."""
    longest_first = sorted(titles, key=len, reverse=True)
    return re.compile(r"(?:(?:%s)(?::|(?<=\.)|(?=\s))\s*)+" % "|".join(
        re.escape(t) if t.endswith(".") else re.escape(t) + r"(?![\w.])" for t in longest_first))


def _tail(alternatives: str) -> re.Pattern:
    return re.compile(r"\s+(?:%s)$" % alternatives)


@dataclass(frozen=True)
class BoundaryWords:
    """A language's words at the edges of spans. ``capitals`` is the body of a regex character
    class of the language's capital letters (``A-ZÁÉÍÓÚÑ``); the phrases of ``age_tails`` are
    matched with any blanks between their words."""

    titles: tuple[str, ...] = ()                 # never part of a name: "Dr.", "Mrs", "Doctora"
    abbreviations: tuple[str, ...] = ()          # keep their dot at a span's end: "Jr", "Avda"
    capitals: str = "A-Z"                        # initials ("J."), acronyms ("HULP"); not in lower-case words
    abbreviations_4: frozenset[str] = frozenset()    # four-letter words written with a dot: "Avda", "Hosp"
    function_words: tuple[str, ...] = ()         # never end an entity: "de", "y", "of"
    age_tails: tuple[str, ...] = ()              # follow an age, no part of it: "de edad"
    glued_label: str = r"(?!)"                   # a contact label glued to a name's last word ("...Correo")
    contact_glue: str = r"(?!)"                  # separators and labels between a contact line's values
    street_words: tuple[str, ...] = ()           # open a street: "Calle", "Avda"
    name_goes_on: frozenset[str] = frozenset()   # a place after these (lower case) is part of the name
    title: re.Pattern = field(init=False, compare=False, repr=False)
    abbreviation_end: re.Pattern = field(init=False, compare=False, repr=False)
    function_word_tail: re.Pattern = field(init=False, compare=False, repr=False)
    age_tail: re.Pattern = field(init=False, compare=False, repr=False)
    glued_label_tail: re.Pattern = field(init=False, compare=False, repr=False)
    contact_separators: re.Pattern = field(init=False, compare=False, repr=False)
    street_opener: re.Pattern = field(init=False, compare=False, repr=False)
    name_continuations: frozenset[str] = field(init=False, compare=False, repr=False)
    kinship: re.Pattern = field(init=False, compare=False, repr=False)
    bracketed_acronym: re.Pattern = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        cap = self.capitals
        built = {
            "title": title_pattern(self.titles),
            "abbreviation_end": re.compile(r"(?:(?:\b\w{1,3}\.){2,}|(?<![\w.])[%s]\.|\b(?:%s)\.)$" % (
                cap, "|".join(map(re.escape, self.abbreviations)) or "(?!)")),
            "function_word_tail": _tail("|".join(map(re.escape, self.function_words)) or "(?!)"),
            "age_tail": _tail("|".join(r"\s+".join(map(re.escape, p.split())) for p in self.age_tails) or "(?!)"),
            "glued_label_tail": re.compile(self.glued_label),
            "contact_separators": re.compile(self.contact_glue, re.IGNORECASE),
            "street_opener": re.compile(r"\s(?:%s)\.?$" % ("|".join(map(re.escape, self.street_words)) or "(?!)")),
            "name_continuations": self.name_goes_on | {w.lower() for w in self.street_words},
            # lower-case words: a relative's kinship words before a name ("hermana mayor ")
            "kinship": re.compile(r"[^\W\d_%s]+(?: [^\W\d_%s]+){0,2} " % (cap, cap)),
            # two capitals or more in brackets, up to ten characters ("HULP", "HU12O", "CHUVI")
            "bracketed_acronym": re.compile(r"[ \t]*\(([%s][%s0-9\-]{1,9})\)" % (cap, cap)),
        }
        for name, value in built.items():
            object.__setattr__(self, name, value)
