"""Features for the CRF member, fast: :func:`token_features`, the hot path of training and detection.

It computes exactly the lists of :func:`models.crf_feature_spec.token_features_reference` (the
readable specification, whose word helpers it shares), but builds each word form's strings once and
reuses them across tokens and documents, then adds each switched-on group in one pass. It lives
apart from the specification so that caching and loop tuning can change here while the definition
of every feature stays in one readable place. Tags (gazetteer hits, surface patterns) come from
:mod:`models.crf_tags`.
"""
from __future__ import annotations

from typing import Iterable

from models.crf_feature_spec import _add_caseless, _add_line_context, _cap_runs, _len_bucket, _line_info, _shape, norm_token
from models.words import Words


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
                   line_context: bool = False, caseless: bool = False) -> list[list[str]]:
    """Feature strings per word token (pycrfsuite takes lists of ``name=value`` strings).

    Exactly the lists of :func:`token_features_reference` (the readable specification; a test
    compares them), built from per-form pieces cached across documents. A token's list is its
    base features, then each switched-on group in turn (runs, line context, caseless shapes,
    clusters, tags):
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
    if caseless:
        _add_caseless(feats, toks)
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


def doc_features(docs: Iterable[tuple[str, Words]]) -> list[list[list[str]]]:
    return [token_features(text, words) for text, words in docs]
