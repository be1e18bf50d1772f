"""Where a CRF token's tags come from: surface patterns and the gazetteer's phrase lists.

Gazetteer hits (first names, surnames, places from the locale lists, when given, and built-in word
classes) and surface patterns (dates, e-mails, phone numbers) mark the tokens they cover; the
features made from those tags are defined with the others in :mod:`models.crf_feature_spec`.
Which locale lists become features (and which stay surrogate- or dictionary-only) is decided here,
and a gazetteer's entries are saved with its member, so a model's features never change when the
shipped lists are edited later. Apart from the extractors because this is matching words against
lists, not building feature strings, and training, the parallel fitter and the dictionary tests
need it without them.
"""
from __future__ import annotations

import re
from typing import Iterable

from models.crf_feature_spec import _strip_accents, norm_token
from models.words import Words, tokenize

# Surface patterns marked on the tokens they cover (a feature, not a decision: the CRF weighs them).
PATTERNS: dict[str, re.Pattern] = {
    "date": re.compile(r"(?<!\d)\d{1,2}\s?[/.-]\s?\d{1,2}\s?[/.-]\s?\d{2,4}(?!\d)"),
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "url": re.compile(r"(?:https?://|www\.)\S+", re.I),
    "phone": re.compile(r"(?<!\d)(?:\+\d{2,3}[ .-]?)?\d{3}[ .-]?\d{2,3}[ .-]?\d{2,3}(?:[ .-]?\d{2})?(?!\d)"),
    "year": re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)"),
}


def pattern_tags(text: str, words: Words, into: list[set[str]] | None = None) -> list[set[str]]:
    """Per token the surface patterns it is part of ("re:date", ...); added to the sets of
    ``into`` when given (the token's other tags), which is returned."""
    import bisect

    tags: list[set[str]] = into if into is not None else [set() for _ in range(len(words))]
    starts, ends = words.starts, words.ends
    for name, rx in PATTERNS.items():
        for m in rx.finditer(text):
            i = bisect.bisect_right(ends, m.start())
            while i < len(starts) and starts[i] < m.end():
                tags[i].add("re:" + name)
                i += 1
    return tags


# Locale lists that only steer surrogate choice (sex of a first name): subsets of first_names,
# they would add nothing as features and would change the features of every model trained after
# they appeared.
SURROGATE_ONLY_LISTS = frozenset({"first_names_female", "first_names_male"})
# Locale lists that detection matches as dictionaries but the CRF does not see as features: the
# manufacturers list as a feature cost span recall on MEDDOCAN dev (three default models retrained
# with it: 0.9724 / 0.9693 / 0.9705 against 0.9736 / 0.9693 / 0.9729 without, missed PHI tokens per
# 1,000 1.02 against 0.97 on average), as a dictionary it adds makers the model did not mark. The
# official country names are kept out so that the features of every model stay as they were, and so
# is the English town gazetteer (19,588 GeoNames towns): a starter CRF trained with it as a feature
# scored no better on the blind check halves (icu_invented_b R 0.914 -> 0.923 as written but 0.891 ->
# 0.883 in UPPER; pii_invented_b 0.871 -> 0.862 at P 0.943 -> 0.938) than the same recipe without it.
DICTIONARY_ONLY_LISTS = frozenset({"manufacturers", "countries_official", "towns", "care_chains"})

# Word classes that generalise across rare forms: a month never seen in training is still a month.
WORD_CLASSES: dict[str, tuple[str, ...]] = {
    "month": ("enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre "
              "january february march april may june july august september october november december "
              "ene feb mar abr may jun jul ago sep sept oct nov dic jan apr aug dec").split(),
    "kin": ("padre madre padres hijo hija hijos hijas hermano hermana hermanos hermanas esposo esposa marido mujer "
            "abuelo abuela abuelos tio tia tios primo prima primos sobrino sobrina sobrinos nieto nieta nietos "
            "suegro suegra cuñado cuñada gemelo gemela pareja familiar familiares "
            "father mother parents son daughter brother sister husband wife grandfather grandmother uncle aunt "
            "cousin nephew niece grandson granddaughter twin").split(),
    "title": "dr dra doctor doctora sr sra srta dña don prof mr mrs ms".split(),
    "street": ("calle c avenida avda av plaza pza paseo ronda camino carretera ctra travesia glorieta callejon "
               "urbanizacion urb pasaje pje barrio poligono street st avenue ave road rd boulevard blvd lane").split(),
    "org": ("hospital clinica centro servicio unidad instituto universidad fundacion laboratorio laboratorios "
            "departamento facultad sociedad asociacion colegio consulta ambulatorio residencia sanatorio "
            "university institute clinic center centre department laboratory foundation").split(),
}


def vocabulary_lists(locale: str) -> dict[str, list[str]]:
    """The locale's safe vocabulary (``voc:safe``) and frequency buckets (``voc:zipf<b>``) as
    gazetteer lists, empty for a locale that ships none (today all but ``en``, so Spanish and
    German features are unchanged). Case-insensitive like every gazetteer list, so "FOLEY" and
    "foley" carry the tag "Foley" does."""
    try:
        from pipeline.locales import load_vocabulary
    except ImportError:  # pragma: no cover
        return {}
    voc = load_vocabulary(locale.split("-")[0].split("_")[0].lower())
    out: dict[str, list[str]] = {}
    if voc.safe:
        out["voc:safe"] = sorted(voc.safe)
    for w, b in voc.zipf.items():
        out.setdefault("voc:zipf%d" % b, []).append(w)
    return out


class Gazetteer:
    """Phrase lists matched on word tokens (case- and accent-insensitive); tags tokens B-/I-<list>.

    Kept inside the CRF member (entries saved with it), so a model's features never change when
    the shipped lists are edited later.
    """

    def __init__(self, lists: dict[str, Iterable[str]], max_words: int = 6):
        self.lists = {name: sorted(set(entries)) for name, entries in lists.items()}
        self.table: dict[str, set[str]] = {}
        self.max_len = 1
        for name, entries in self.lists.items():
            for e in entries:
                toks = [_strip_accents(t.lower()) for t in tokenize(e).tokens]
                if not toks or len(toks) > max_words:
                    continue
                if len(toks) == 1 and len(toks[0]) < 2:
                    continue
                self.table.setdefault(" ".join(toks), set()).add(name)
                self.max_len = max(self.max_len, len(toks))
        # every proper prefix of a listed phrase: a lookup grows a key only while it can still match
        self.prefixes = {" ".join(key.split(" ")[:k]) for key in self.table for k in range(1, key.count(" ") + 1)}

    @classmethod
    def for_locale(cls, locale: str) -> "Gazetteer":
        lists: dict[str, Iterable[str]] = {f"wc:{k}": v for k, v in WORD_CLASSES.items()}
        try:
            from pipeline.locales import available_lists, load_list
        except ImportError:  # pragma: no cover
            return cls(lists)
        for name in available_lists(locale):
            if name in SURROGATE_ONLY_LISTS or name in DICTIONARY_ONLY_LISTS:
                continue
            try:
                lists[name] = load_list(locale, name)
            except KeyError:
                continue
        lists.update(vocabulary_lists(locale))
        return cls(lists)

    def tag(self, words: Words) -> list[set[str]]:
        low = [norm_token(t) for t in words.tokens]
        n = len(low)
        tags: list[set[str]] = [set() for _ in range(n)]
        table, prefixes = self.table, self.prefixes
        for i in range(n):
            key = ""
            for k in range(i, min(n, i + self.max_len)):
                key = low[k] if k == i else key + " " + low[k]
                names = table.get(key)
                if names:
                    for nm in names:
                        tags[i].add("B-" + nm)
                        for j in range(i + 1, k + 1):
                            tags[j].add("I-" + nm)
                if key not in prefixes:
                    break
        return tags

    def to_json(self) -> dict:
        return {"lists": self.lists}

    @classmethod
    def from_json(cls, d: dict) -> "Gazetteer":
        return cls(d.get("lists", {}))
