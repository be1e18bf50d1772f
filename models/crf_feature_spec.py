"""What the CRF member's features are: the shared word helpers and the readable specification.

Clinical notes are half prose, half forms ("Nombre: ...", "NHC: ...", "Domicilio: ..."): the key
before the colon on a token's line is the strongest single clue for the header fields, so each
token carries the key of its line and its distance from the colon. Digit runs carry their length
(postal codes, phone numbers and IDs differ mostly by length).

Here are the pieces every extractor shares (normal form, shape, length buckets, the line key,
capitalised runs, the line-context and tag feature groups) and :func:`token_features_reference`,
which builds each token's list plainly from them: the specification that
:func:`models.crf_features.token_features` (the fast path) and :mod:`models.crf_index` (feature
ids for the stack) must match exactly, as tests check. Kept apart from the fast path so that what
a feature *is* stays readable in one place while the hot loop is tuned there, and so that both
import the same helpers without a circle.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from models.words import Words

_MAX_KEY_CHARS = 40


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


@lru_cache(maxsize=200_000)
def shape_caseless(tok: str) -> str:
    """The shape without case: letters "a", digits "d", other characters themselves, runs
    collapsed. "Foley", "FOLEY" and "foley" read alike, so a note in capitals or in lower case
    gives the ``caseless`` group the same signal as a cased one."""
    out = []
    for ch in tok:
        c = "a" if ch.isalpha() else ("d" if ch.isdigit() else ch)
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


def _add_caseless(feats: list[list[str]], toks: list[str]) -> None:
    """The ``caseless`` group (both extractors share it): the shape without case of the token
    and of its neighbours at -1 and 1, beside the cased shapes, so that a model trained on cased
    notes still has a word-shape signal on notes written in capitals or in lower case (the word
    itself, its affixes and the gazetteer's tags are lower-cased already)."""
    n = len(toks)
    shapes = [shape_caseless(t) for t in toks]
    for i, f in enumerate(feats):
        f.append("shn=" + shapes[i])
        if i > 0:
            f.append("shn[-1]=" + shapes[i - 1])
        if i + 1 < n:
            f.append("shn[1]=" + shapes[i + 1])


def token_features_reference(text: str, words: Words, gazetteer_tags: list[set[str]] | None = None,
                   extended: bool = False, clusters: dict[str, list[int]] | None = None,
                   line_context: bool = False, caseless: bool = False) -> list[list[str]]:
    """Feature strings per word token (pycrfsuite takes lists of ``name=value`` strings): the
    readable specification. :func:`token_features` computes exactly the same lists, faster.

    A token's features, in order: its own word (:func:`_reference_word`), its place in its line
    (:func:`_reference_line`), its neighbours (:func:`_reference_context`); then with
    ``extended`` its capitalised run and wider context (:func:`_reference_runs`), with
    ``line_context`` its line's first word and length, with ``caseless`` its own and its
    neighbours' shapes without case (:func:`_add_caseless`), with ``clusters`` the word clusters
    at offsets -2..2, and with ``gazetteer_tags`` its own and its neighbours' tags."""
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
    if caseless:
        _add_caseless(feats, toks)
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
