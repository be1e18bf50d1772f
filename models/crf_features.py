"""Features for the CRF member: word form, shape, affixes, context window, line key, gazetteers.

Clinical notes are half prose, half forms ("Nombre: ...", "NHC: ...", "Domicilio: ..."): the key
before the colon on a token's line is the strongest single clue for the header fields, so each
token carries the key of its line and its distance from the colon. Digit runs carry their length
(postal codes, phone numbers and IDs differ mostly by length). Gazetteer hits (first names,
surnames, places from the locale lists, when given) mark tokens inside a listed phrase.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Iterable

from models.words import Words, tokenize

_MAX_KEY_CHARS = 40

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


@lru_cache(maxsize=200_000)
def _shape(tok: str) -> str:
    out = []
    for ch in tok:
        if ch.isupper():
            c = "X"
        elif ch.islower():
            c = "x"
        elif ch.isdigit():
            c = "d"
        else:
            c = ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)[:6]


def _strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")


@lru_cache(maxsize=200_000)
def norm_token(tok: str) -> str:
    """Lower case, accents dropped (cached: the same few thousand words recur in every note)."""
    return _strip_accents(tok.lower())


def _len_bucket(n: int) -> str:
    return str(n) if n <= 6 else ("7-9" if n <= 9 else "10+")


def _line_info(text: str, words: Words) -> tuple[list[str], list[int], list[int], list[int]]:
    """Per token: the key of its line (lowercased words before the first colon), its distance
    after the colon (0 = before or no colon), its token index within the line, and line number."""
    n = len(words)
    keys = [""] * n
    dist = [0] * n
    pos = [0] * n
    line_no = [0] * n
    i = 0
    line = 0
    line_start = 0
    while i < n:
        # collect tokens of the current line
        nl = text.find("\n", words.starts[i])
        line_end = len(text) if nl < 0 else nl
        j = i
        while j < n and words.starts[j] < line_end:
            j += 1
        colon = -1
        for k in range(i, j):
            if words.tokens[k] == ":" and words.starts[k] - words.starts[i] <= _MAX_KEY_CHARS:
                colon = k
                break
        key = ""
        if colon > i:
            key_words = [w.lower() for w in words.tokens[i:colon] if w[0].isalpha()][-2:]
            key = _strip_accents(" ".join(key_words))
        for k in range(i, j):
            pos[k] = k - i
            line_no[k] = line
            if colon >= 0 and k > colon:
                keys[k] = key
                dist[k] = k - colon
        if j == i:  # defensive: never loop forever
            j = i + 1
        i = j
        line += 1
        line_start = line_end
    return keys, dist, pos, line_no


_CONNECTORS = frozenset({"de", "del", "la", "las", "los", "el", "y", "i", "e", "-", ".", "'", "d", "of", "the", "and"})


def _cap_runs(toks: list[str], low: list[str]) -> list[str]:
    """Position of each token in its run of capitalised words (connectors allowed inside):
    'S' alone, 'B'/'I'/'E' in a longer run, '' outside. Runs delimit names, hospitals, streets."""
    n = len(toks)
    cap = [t[:1].isupper() for t in toks]
    out = [""] * n
    i = 0
    while i < n:
        if not cap[i]:
            i += 1
            continue
        j = i + 1
        last = i
        while j < n and (cap[j] or (low[j] in _CONNECTORS and j + 1 < n)):
            if cap[j]:
                last = j
            j += 1
        if last == i:
            out[i] = "S"
        else:
            out[i] = "B"
            for k in range(i + 1, last):
                out[k] = "I"
            out[last] = "E"
        i = last + 1
    return out


# Per word form, the features that depend on the form alone, built once and reused: most of a
# note's tokens are words seen thousands of times, and building their strings again for every
# occurrence (and every context position) was most of the cost of feature extraction.
_FORM_CACHE: dict[str, tuple] = {}
_FORM_CACHE_MAX = 200_000


def _form(tok: str) -> tuple:
    """``(own features, context features per offset -3..3 except 0 (index d + 3), w[-4], w[4])``."""
    got = _FORM_CACHE.get(tok)
    if got is not None:
        return got
    lw = norm_token(tok)
    shp = _shape(tok)
    own = ["w=" + lw, "sh=" + shp, "s3=" + lw[-3:], "s2=" + lw[-2:], "p3=" + lw[:3], "p2=" + lw[:2]]
    digit = tok.isdigit()
    if digit:
        own.append("dlen=" + _len_bucket(len(tok)))
    elif tok[0].isalpha():
        own.append("alen=" + _len_bucket(len(tok)))
    ctx: list[tuple[str, ...] | None] = [None] * 7
    for d in (-3, -2, -1, 1, 2, 3):
        c = ["w[%d]=%s" % (d, lw)]
        if abs(d) <= 2:
            c.append("sh[%d]=%s" % (d, shp))
            if digit:
                c.append("dlen[%d]=%s" % (d, _len_bucket(len(tok))))
        ctx[d + 3] = tuple(c)
    got = (tuple(own), ctx, "w[-4]=" + lw, "w[4]=" + lw, lw)
    if len(_FORM_CACHE) >= _FORM_CACHE_MAX:
        _FORM_CACHE.clear()
    _FORM_CACHE[tok] = got
    return got


_PAD = {d: "pad[%d]" % d for d in (-3, -2, -1, 1, 2, 3)}
_LPOS = tuple("lpos=%d" % k for k in range(6))
_LINE = tuple("line=%d" % k for k in range(9))
# word -> its cluster features at offsets -2..2, per clusters table (the table itself is held, so
# its id is never reused while cached)
_CLUSTER_TABLES: dict[int, tuple[dict, dict[str, tuple | None]]] = {}


def _cluster_feats(clusters: dict[str, list[int]], words: list[str]) -> list[tuple | None]:
    entry = _CLUSTER_TABLES.get(id(clusters))
    if entry is None or entry[0] is not clusters:
        if len(_CLUSTER_TABLES) >= 8:
            _CLUSTER_TABLES.clear()
        entry = _CLUSTER_TABLES[id(clusters)] = (clusters, {})
    cache = entry[1]
    out: list[tuple | None] = []
    for w in words:
        if w in cache:
            out.append(cache[w])
            continue
        ids = clusters.get(w)
        got = None
        if ids is not None:
            got = tuple(tuple("c%d[%d]=%d" % (level, d, c) for level, c in enumerate(ids if abs(d) <= 1 else ids[:1]))
                        for d in (-2, -1, 0, 1, 2))
        if len(cache) < _FORM_CACHE_MAX:
            cache[w] = got
        out.append(got)
    return out


_TAG_STRINGS: dict[str, tuple[str, str, str]] = {}


def _tag_strings(tags: list[set[str]]) -> list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """Per token: its tags as ``gz=``, ``gz[-1]=`` and ``gz[1]=`` features, each sorted."""
    out = []
    empty = ((), (), ())
    for t in tags:
        if not t:
            out.append(empty)
            continue
        parts = []
        for g in sorted(t):
            got = _TAG_STRINGS.get(g)
            if got is None:
                got = _TAG_STRINGS[g] = ("gz=" + g, "gz[-1]=" + g, "gz[1]=" + g)
            parts.append(got)
        out.append(tuple(zip(*parts)))
    return out


def token_features(text: str, words: Words, gazetteer_tags: list[set[str]] | None = None,
                   extended: bool = False, clusters: dict[str, list[int]] | None = None,
                   line_context: bool = False) -> list[list[str]]:
    """Feature strings per word token (pycrfsuite takes lists of ``name=value`` strings).

    Exactly the lists of :func:`token_features_reference` (the readable specification; a test
    compares them), built from per-form pieces cached across documents. A token's list is its
    base features, then each switched-on group in turn (runs, line context, clusters, tags):
    one pass over the tokens per group, in that order."""
    toks = words.tokens
    forms = [_form(t) for t in toks]
    low = [f[4] for f in forms]
    lines = _line_info(text, words)
    feats = _base_rows(words, forms, low, lines)
    if extended:
        _add_run_rows(feats, toks, low, forms)
    if line_context:
        _add_line_context(feats, low, lines[2])
    if clusters:
        _add_cluster_rows(feats, _cluster_feats(clusters, low))
    if gazetteer_tags is not None:
        _add_tag_rows(feats, _tag_strings(gazetteer_tags))
    return feats


def _base_rows(words: Words, forms: list[tuple], low: list[str],
               lines: tuple[list[str], list[int], list[int], list[int]]) -> list[list[str]]:
    """Every token's base features: its form, glue, line key and position, the words and shapes
    at offsets -3..3, and the bigrams around it (the hot loop of feature extraction)."""
    toks = words.tokens
    n = len(toks)
    starts, ends = words.starts, words.ends
    keys, dist, pos, line_no = lines
    glued = [False] + [starts[i] == ends[i - 1] for i in range(1, n)]
    is_colon = [t == ":" for t in toks]
    feats: list[list[str]] = []
    for i in range(n):
        form = forms[i]
        lw = low[i]
        f = ["b"]
        f.extend(form[0])
        if glued[i]:
            f.append("glued")
        if i + 1 < n and glued[i + 1]:
            f.append("glued+1")
        if keys[i]:
            k_ = keys[i]
            f.append("key=" + k_)
            f.append("key=%s|d=%s" % (k_, min(dist[i], 4)))
            f.append("key=%s|sh=%s" % (k_, form[0][1][3:]))
        elif dist[i] == 0 and any(is_colon[i + 1:i + 4]):
            f.append("inkey")
        f.append(_LPOS[min(pos[i], 5)])
        f.append(_LINE[min(line_no[i], 8)])
        for d in (-3, -2, -1, 1, 2, 3):
            j = i + d
            if 0 <= j < n:
                f.extend(forms[j][1][d + 3])
            else:
                f.append(_PAD[d])
        if i > 0:
            f.append("bi-1=%s|%s" % (low[i - 1], lw))
        if i + 1 < n:
            f.append("bi+1=%s|%s" % (lw, low[i + 1]))
        if i > 1:
            f.append("bi-2=%s|%s" % (low[i - 2], low[i - 1]))
        feats.append(f)
    return feats


def _add_run_rows(feats: list[list[str]], toks: list[str], low: list[str], forms: list[tuple]) -> None:
    """The ``extended`` group: capitalised-run positions, w[-4]/w[4], bi+2, sentence start."""
    runs = _cap_runs(toks, low)
    n = len(toks)
    for i, f in enumerate(feats):
        f.append("run=" + runs[i])
        if i > 0:
            f.append("run[-1]=" + runs[i - 1])
        if i + 1 < n:
            f.append("run[1]=" + runs[i + 1])
        if i >= 4:
            f.append(forms[i - 4][2])
        if i + 4 < n:
            f.append(forms[i + 4][3])
        if i + 2 < n:
            f.append("bi+2=%s|%s" % (low[i + 1], low[i + 2]))
        if i > 0 and toks[i - 1] in ".;" or i == 0:
            f.append("sent_start")


def _line_lengths(pos: list[int]) -> list[int]:
    """Per token, how many tokens its line has (``pos``: each token's index within its line)."""
    n = len(pos)
    line_len = [0] * n
    k = 0
    while k < n:
        j = k + 1
        while j < n and pos[j] != 0:
            j += 1
        for m in range(k, j):
            line_len[m] = j - k
        k = j
    return line_len


def _add_line_context(feats: list[list[str]], low: list[str], pos: list[int]) -> None:
    """The ``line_context`` group (both extractors share it): 4-character affixes, the first
    word of the token's line and the line's length."""
    line_len = _line_lengths(pos)
    for i, f in enumerate(feats):
        lw = low[i]
        f.append("s4=" + lw[-4:])
        f.append("p4=" + lw[:4])
        if pos[i] > 0:
            f.append("lfirst=" + low[i - pos[i]])
        f.append("llen=" + _len_bucket(line_len[i]))


def _add_cluster_rows(feats: list[list[str]], cfeats: list[tuple | None]) -> None:
    """The clusters group: each neighbour's (-2..2) cluster features at its offset."""
    n = len(feats)
    for i, f in enumerate(feats):
        for d in (-2, -1, 0, 1, 2):
            j = i + d
            if 0 <= j < n and cfeats[j] is not None:
                f.extend(cfeats[j][d + 2])


def _add_tag_rows(feats: list[list[str]], gz: list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]) -> None:
    """The tags group: the token's own tags, then its left and right neighbours'."""
    n = len(feats)
    for i, f in enumerate(feats):
        f.extend(gz[i][0])
        if i > 0:
            f.extend(gz[i - 1][1])
        if i + 1 < n:
            f.extend(gz[i + 1][2])


def token_features_reference(text: str, words: Words, gazetteer_tags: list[set[str]] | None = None,
                   extended: bool = False, clusters: dict[str, list[int]] | None = None,
                   line_context: bool = False) -> list[list[str]]:
    """Feature strings per word token (pycrfsuite takes lists of ``name=value`` strings): the
    readable specification. :func:`token_features` computes exactly the same lists, faster.

    A token's features, in order: its own word (:func:`_reference_word`), its place in its line
    (:func:`_reference_line`), its neighbours (:func:`_reference_context`); then with
    ``extended`` its capitalised run and wider context (:func:`_reference_runs`), with
    ``line_context`` its line's first word and length, with ``clusters`` the word clusters at
    offsets -2..2, and with ``gazetteer_tags`` its own and its neighbours' tags."""
    toks = words.tokens
    n = len(toks)
    low = [norm_token(t) for t in toks]
    lines = _line_info(text, words)
    runs = _cap_runs(toks, low) if extended else None
    cl = [clusters.get(w) for w in low] if clusters else None
    feats: list[list[str]] = []
    for i in range(n):
        f = _reference_word(toks[i], low[i]) + _reference_line(words, lines, i) + _reference_context(toks, low, i)
        if runs is not None:
            f += _reference_runs(toks, low, runs, i)
        feats.append(f)
    if line_context:
        _add_line_context(feats, low, lines[2])
    for i, f in enumerate(feats):
        if cl is not None:
            for d in (-2, -1, 0, 1, 2):
                j = i + d
                if 0 <= j < n and cl[j] is not None:
                    ids = cl[j] if abs(d) <= 1 else cl[j][:1]
                    for level, c in enumerate(ids):
                        f.append("c%d[%d]=%d" % (level, d, c))
        if gazetteer_tags is not None:
            _add_tag_features(f, gazetteer_tags, i)
    return feats


def _reference_word(t: str, lw: str) -> list[str]:
    """The token's own features: its lowercased form, shape, affixes, and length by kind."""
    f = ["b", "w=" + lw, "sh=" + _shape(t), "s3=" + lw[-3:], "s2=" + lw[-2:], "p3=" + lw[:3], "p2=" + lw[:2]]
    if t.isdigit():
        f.append("dlen=" + _len_bucket(len(t)))
    elif t[0].isalpha():
        f.append("alen=" + _len_bucket(len(t)))
    return f


def _reference_line(words: Words, lines: tuple[list[str], list[int], list[int], list[int]], i: int) -> list[str]:
    """Glued to a neighbour, the key of its line (or "inkey" inside one), place in the line."""
    toks, n = words.tokens, len(words.tokens)
    keys, dist, pos, line_no = lines
    f = []
    if i > 0 and words.starts[i] == words.ends[i - 1]:
        f.append("glued")
    if i + 1 < n and words.starts[i + 1] == words.ends[i]:
        f.append("glued+1")
    if keys[i]:
        f.append("key=" + keys[i])
        f.append("key=%s|d=%s" % (keys[i], min(dist[i], 4)))
        f.append("key=%s|sh=%s" % (keys[i], _shape(toks[i])))
    elif dist[i] == 0 and any(toks[k] == ":" for k in range(i + 1, min(n, i + 4))):
        f.append("inkey")
    f.append("lpos=%d" % min(pos[i], 5))
    f.append("line=%d" % min(line_no[i], 8))
    return f


def _reference_context(toks: list[str], low: list[str], i: int) -> list[str]:
    """Words at offsets -3..3 (shapes and digit lengths at -2..2), pads past the ends, bigrams."""
    n = len(toks)
    f = []
    for d in (-3, -2, -1, 1, 2, 3):
        j = i + d
        if 0 <= j < n:
            f.append("w[%d]=%s" % (d, low[j]))
            if abs(d) <= 2:
                f.append("sh[%d]=%s" % (d, _shape(toks[j])))
                if toks[j].isdigit():
                    f.append("dlen[%d]=%s" % (d, _len_bucket(len(toks[j]))))
        else:
            f.append("pad[%d]" % d)
    if i > 0:
        f.append("bi-1=%s|%s" % (low[i - 1], low[i]))
    if i + 1 < n:
        f.append("bi+1=%s|%s" % (low[i], low[i + 1]))
    if i > 1:
        f.append("bi-2=%s|%s" % (low[i - 2], low[i - 1]))
    return f


def _reference_runs(toks: list[str], low: list[str], runs: list[str], i: int) -> list[str]:
    """The ``extended`` features: run positions at -1..1, words at -4 and 4, bi+2, sentence start."""
    n = len(toks)
    f = ["run=" + runs[i]]
    for d in (-1, 1):
        j = i + d
        if 0 <= j < n:
            f.append("run[%d]=%s" % (d, runs[j]))
    for d in (-4, 4):
        j = i + d
        if 0 <= j < n:
            f.append("w[%d]=%s" % (d, low[j]))
    if i + 2 < n:
        f.append("bi+2=%s|%s" % (low[i + 1], low[i + 2]))
    if i > 0 and toks[i - 1] in ".;" or i == 0:
        f.append("sent_start")
    return f


def _add_tag_features(f: list[str], tags: list[set[str]], i: int) -> None:
    for g in sorted(tags[i]):
        f.append("gz=" + g)
    for d in (-1, 1):
        j = i + d
        if 0 <= j < len(tags):
            for g in sorted(tags[j]):
                f.append("gz[%d]=%s" % (d, g))


def tag_features(tags: list[set[str]]) -> list[list[str]]:
    """The features :func:`token_features` derives from per-token tags, alone: they are additive,
    so a member with extra tags (rule hits) can reuse another member's features and add these."""
    out: list[list[str]] = []
    for i in range(len(tags)):
        f: list[str] = []
        _add_tag_features(f, tags, i)
        out.append(f)
    return out


# Locale lists that only steer surrogate choice (sex of a first name): subsets of first_names,
# they would add nothing as features and would change the features of every model trained after
# they appeared.
SURROGATE_ONLY_LISTS = frozenset({"first_names_female", "first_names_male"})
# Locale lists that detection matches as dictionaries but the CRF does not see as features: the
# manufacturers list as a feature cost span recall on MEDDOCAN dev (three default models retrained
# with it: 0.9724 / 0.9693 / 0.9705 against 0.9736 / 0.9693 / 0.9729 without, missed PHI tokens per
# 1,000 1.02 against 0.97 on average), as a dictionary it adds makers the model did not mark. The
# official country names are kept out so that the features of every model stay as they were.
DICTIONARY_ONLY_LISTS = frozenset({"manufacturers", "countries_official"})

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


def doc_features(docs: Iterable[tuple[str, Words]]) -> list[list[list[str]]]:
    return [token_features(text, words) for text, words in docs]
