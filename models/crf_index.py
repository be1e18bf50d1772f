"""A CRF stack's feature ids per token, gathered from per-form tables instead of strings.

Scoring a note needs, per token, the rows of the weight matrix its features select.
:func:`models.crf_features.token_features` builds some 60 strings per token and the stack looked
each one up in its vocabulary: on MEDDOCAN dev that was half of detection time (3.3 s of strings
and 2.0 s of lookups for 250 notes on one core). Yet every feature comes from a fixed template that
gives at most one feature per token, except the tag features, and most templates read the word form
alone ("w=", "sh=", the affixes, the context words, the clusters). So :class:`FeatureIndex` looks a
form's template strings up once, keeps their ids in a table row, and for a note gathers those rows
with numpy at each context offset; only the templates that read more than the form (the line's
key, word pairs, tags) touch Python per token, through caches of their own.

The ids come out in exactly the order of ``token_features``'s strings, unknown ones dropped, so
the sparse matrix, and the float32 product with the weights, are bit-for-bit those of the strings
(tests/test_detection_speedups.py checks every switch). The training path keeps the strings:
crfsuite needs them, and :func:`models.crf_feature_spec.token_features_reference` stays the readable
specification of both.
"""
from __future__ import annotations

import threading
from typing import Sequence

import numpy as np

from models.crf_feature_spec import _cap_runs, _len_bucket, _line_info, _shape, norm_token, shape_caseless
from models.words import Words

_OFFSETS = (-3, -2, -1, 1, 2, 3)
_CTX_WIDTH = {d: (1 if abs(d) == 3 else 3) for d in _OFFSETS}   # w[d], and sh[d], dlen[d] when |d| <= 2
_CACHE_MAX = 200_000
_RUN_CODES = ("", "S", "B", "I", "E")


def _from_neighbour(out: np.ndarray, slots: slice | int, values: np.ndarray, d: int) -> tuple[int, int]:
    """``out[i, slots] = values[i + d]`` for the tokens ``i`` whose neighbour at offset ``d``
    exists; returns those tokens' range ``lo:hi`` (the others are left for a pad)."""
    n = len(out)
    lo = min(n, max(0, -d))
    hi = max(lo, min(n, n - d))
    if lo < hi:
        out[lo:hi, slots] = values[lo + d:hi + d]
    return lo, hi


class FeatureIndex:
    """Feature ids per token for one vocabulary and one feature configuration.

    ``vocab`` maps feature strings to rows (a :class:`models.crf_stack.CRFStack`'s union
    vocabulary); the switches are those of :func:`models.crf_features.token_features`. The
    per-form table grows as new forms arrive and is emptied when it reaches its bound, so memory
    stays flat over any number of notes."""

    def __init__(self, vocab: dict[str, int], extended: bool, line_context: bool,
                 clusters: dict[str, list[int]] | None, caseless: bool = False):
        self.vocab = vocab
        self.extended = extended
        self.line_context = line_context
        self.caseless = caseless
        self.clusters = clusters or None
        self.levels = max((len(v) for v in self.clusters.values()), default=0) if self.clusters else 0
        get = self._id
        # the form table's columns: own templates, context templates per offset, then the extras
        col = 7
        self._ctx_cols: dict[int, slice] = {}
        for d in _OFFSETS:
            self._ctx_cols[d] = slice(col, col + _CTX_WIDTH[d])
            col += _CTX_WIDTH[d]
        self._c_w4m, self._c_w4p, self._c_s4, self._c_p4, self._c_lfirst, self._c_sent = range(col, col + 6)
        col += 6
        self._c_shn = col          # "shn=", "shn[-1]=", "shn[1]=" of the form (the caseless group)
        col += 3
        self._cl_cols: dict[int, slice] = {}
        for d in (-2, -1, 0, 1, 2):
            w = self.levels if abs(d) <= 1 else min(1, self.levels)
            self._cl_cols[d] = slice(col, col + w)
            col += w
        self._form_width = col
        # the output row's slots, in token_features' order
        slot = 0

        def take(k: int) -> slice:
            nonlocal slot
            s = slice(slot, slot + k)
            slot += k
            return s

        self._s_b, self._s_own, self._s_glued, self._s_key, self._s_lpos = take(1), take(7), take(2), take(3), take(2)
        self._s_ctx = {d: take(_CTX_WIDTH[d]) for d in _OFFSETS}
        self._s_bi = take(3)
        self._s_ext = take(7) if extended else None
        self._s_line = take(4) if line_context else None
        self._s_shn = take(3) if caseless else None
        self._s_cl = {d: take(self._cl_cols[d].stop - self._cl_cols[d].start) for d in (-2, -1, 0, 1, 2)} \
            if self.clusters else None
        self._slots = slot
        # ids of the features that do not depend on the word
        self._b = get("b")
        self._glued = np.array([get("glued"), get("glued+1")])
        self._inkey = get("inkey")
        self._lpos = np.array([get("lpos=%d" % k) for k in range(6)])
        self._line = np.array([get("line=%d" % k) for k in range(9)])
        self._pad = {d: get("pad[%d]" % d) for d in _OFFSETS}
        self._run = np.array([[get("run=" + r), get("run[-1]=" + r), get("run[1]=" + r)] for r in _RUN_CODES])
        self._sent = get("sent_start")
        self._llen: dict[int, int] = {}
        self._lock = threading.Lock()
        self._clear()

    def _id(self, feature: str) -> int:
        return self.vocab.get(feature, -1)

    def _clear(self) -> None:
        self._forms: dict[str, int] = {}
        self._low: list[str] = []
        self._shp: list[str] = []
        self._table = np.full((1024, self._form_width), -1, dtype=np.int32)
        self._pairs: dict[tuple[str, str], tuple[int, int, int, int]] = {}
        self._keys: dict[tuple[str, int, str], tuple[int, int, int]] = {}
        self._tags: dict[tuple[str, ...], tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}

    # ------------------------------------------------------------------ per form
    def _form_strings(self, tok: str, lw: str, shp: str) -> list[str | None]:
        """``tok``'s form-only template strings, one per table column (None where the form has
        no such feature; see ``_form`` in models.crf_features)."""
        row: list[str | None] = [None] * self._form_width
        digit = tok.isdigit()
        row[:6] = ["w=" + lw, "sh=" + shp, "s3=" + lw[-3:], "s2=" + lw[-2:], "p3=" + lw[:3], "p2=" + lw[:2]]
        if digit:
            row[6] = "dlen=" + _len_bucket(len(tok))
        elif tok[0].isalpha():
            row[6] = "alen=" + _len_bucket(len(tok))
        for d in _OFFSETS:
            c = self._ctx_cols[d].start
            row[c] = "w[%d]=%s" % (d, lw)
            if abs(d) <= 2:
                row[c + 1] = "sh[%d]=%s" % (d, shp)
                if digit:
                    row[c + 2] = "dlen[%d]=%s" % (d, _len_bucket(len(tok)))
        row[self._c_w4m] = "w[-4]=" + lw
        row[self._c_w4p] = "w[4]=" + lw
        row[self._c_s4] = "s4=" + lw[-4:]
        row[self._c_p4] = "p4=" + lw[:4]
        row[self._c_lfirst] = "lfirst=" + lw
        shn = shape_caseless(tok)
        row[self._c_shn:self._c_shn + 3] = ["shn=" + shn, "shn[-1]=" + shn, "shn[1]=" + shn]
        ids = self.clusters.get(lw) if self.clusters else None
        if ids is not None:
            for d in (-2, -1, 0, 1, 2):
                c = self._cl_cols[d].start
                for level, cid in enumerate(ids if abs(d) <= 1 else ids[:1]):
                    row[c + level] = "c%d[%d]=%d" % (level, d, cid)
        return row

    def _form_rows(self, toks: Sequence[str]) -> list[int]:
        """The table row of each token's form, new forms added (every cache is emptied first
        when one of them would pass its bound)."""
        if len(self._forms) + len(toks) > _CACHE_MAX or len(self._pairs) + len(toks) > _CACHE_MAX:
            self._clear()
        forms = self._forms
        rows = list(map(forms.get, toks))
        new: list[list[int]] = []
        get = self.vocab.get
        for i, r in enumerate(rows):
            if r is not None:
                continue
            tok = toks[i]
            r = forms.get(tok)
            if r is None:
                lw, shp = norm_token(tok), _shape(tok)
                ids = [-1 if f is None else get(f, -1) for f in self._form_strings(tok, lw, shp)]
                ids[self._c_sent] = 1 if tok in ".;" else 0
                r = forms[tok] = len(self._low)
                self._low.append(lw)
                self._shp.append(shp)
                new.append(ids)
            rows[i] = r
        if new:
            k = len(self._low) - len(new)
            while len(self._low) > len(self._table):
                self._table = np.concatenate([self._table, np.full_like(self._table, -1)])
            self._table[k:k + len(new)] = new
        return rows

    def _pair_ids(self, low: list[str]) -> np.ndarray:
        """Per pair of neighbouring words the ids of "bi-1=", "bi+1=", "bi-2=" and "bi+2=" for
        it (one row per pair, ``len(low) - 1`` rows)."""
        keys = list(zip(low, low[1:]))
        got = list(map(self._pairs.get, keys))
        for k, g in enumerate(got):
            if g is None:
                s = "%s|%s" % keys[k]
                got[k] = self._pairs[keys[k]] = (self._id("bi-1=" + s), self._id("bi+1=" + s),
                                                 self._id("bi-2=" + s), self._id("bi+2=" + s))
        return np.array(got, dtype=np.int64).reshape(-1, 4)

    def _tag_ids(self, tags: set[str]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        key = tuple(sorted(tags))
        got = self._tags.get(key)
        if got is None:
            got = tuple(tuple(i for i in (self._id(p + g) for g in key) if i >= 0)
                        for p in ("gz=", "gz[-1]=", "gz[1]="))
            if len(self._tags) < _CACHE_MAX:
                self._tags[key] = got
        return got  # type: ignore[return-value]

    # -------------------------------------------------------------- per document
    def ids(self, text: str, words: Words, tags: Sequence[list[set[str]] | None] = ()) -> tuple[np.ndarray, np.ndarray]:
        """``(indices, indptr)`` of the document's feature matrix in CSR form: per token the
        vocabulary rows of its features, in ``token_features``' order. ``tags``: lists of
        per-token tag sets (gazetteer and patterns, then rule hits), each giving the ``gz``
        features in turn, as the stack appends the rule-hit features after the base ones.

        One document at a time: a detector cached by the app serves every session's thread, and
        a form half added by one thread must never be read by another."""
        with self._lock:
            return self._ids(text, words, tags)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _ids(self, text: str, words: Words, tags: Sequence[list[set[str]] | None]) -> tuple[np.ndarray, np.ndarray]:
        toks = words.tokens
        n = len(toks)
        if n == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
        row_list = self._form_rows(toks)
        rows = np.asarray(row_list, dtype=np.int64)
        ft = self._table[rows]
        low = [self._low[r] for r in row_list]
        out = np.full((n, self._slots), -1, dtype=np.int64)
        out[:, self._s_b] = self._b
        out[:, self._s_own] = ft[:, :7]
        starts = np.asarray(words.starts)
        glued = np.zeros(n + 1, dtype=bool)
        glued[1:n] = starts[1:] == np.asarray(words.ends)[:-1]
        g = self._s_glued.start
        out[glued[:n], g] = self._glued[0]
        out[glued[1:], g + 1] = self._glued[1]
        keys, dist, pos_, line_no_ = _line_info(text, words)
        pos, line_no = np.asarray(pos_, dtype=np.int64), np.asarray(line_no_, dtype=np.int64)
        self._fill_keys(out, words, keys, dist, row_list)
        out[:, self._s_lpos.start] = self._lpos[np.minimum(pos, 5)]
        out[:, self._s_lpos.start + 1] = self._line[np.minimum(line_no, 8)]
        for d in _OFFSETS:
            s = self._s_ctx[d]
            lo, hi = _from_neighbour(out, s, ft[:, self._ctx_cols[d]], d)
            out[:lo, s.start] = self._pad[d]
            out[hi:, s.start] = self._pad[d]
        pairs = self._pair_ids(low)
        b0 = self._s_bi.start
        out[1:, b0] = pairs[:, 0]            # bi-1 at i: (i-1, i)
        out[:-1, b0 + 1] = pairs[:, 1]       # bi+1 at i: (i, i+1)
        out[2:, b0 + 2] = pairs[:-1, 2]      # bi-2 at i: (i-2, i-1)
        if self._s_ext is not None:
            e = self._s_ext.start
            runs = _cap_runs(toks, low)
            code = np.fromiter((_RUN_CODES.index(r) for r in runs), dtype=np.int64, count=n)
            out[:, e] = self._run[code, 0]
            _from_neighbour(out, e + 1, self._run[code, 1], -1)
            _from_neighbour(out, e + 2, self._run[code, 2], 1)
            _from_neighbour(out, e + 3, ft[:, self._c_w4m], -4)
            _from_neighbour(out, e + 4, ft[:, self._c_w4p], 4)
            out[:-2, e + 5] = pairs[1:, 3]   # bi+2 at i: (i+1, i+2)
            sent = np.zeros(n, dtype=bool)
            sent[0] = True
            sent[1:] = ft[:-1, self._c_sent] == 1
            out[sent, e + 6] = self._sent
        if self._s_line is not None:
            self._fill_line_context(out, ft, pos)
        if self._s_shn is not None:
            c = self._s_shn.start
            out[:, c] = ft[:, self._c_shn]
            _from_neighbour(out, c + 1, ft[:, self._c_shn + 1], -1)
            _from_neighbour(out, c + 2, ft[:, self._c_shn + 2], 1)
        if self._s_cl is not None:
            for d in (-2, -1, 0, 1, 2):
                _from_neighbour(out, self._s_cl[d], ft[:, self._cl_cols[d]], d)
        return self._with_tags(out, tags)

    def _fill_keys(self, out: np.ndarray, words: Words, keys: list[str], dist: list[int], rows: list[int]) -> None:
        """The line-key templates: "key=", "key=|d=" and "key=|sh=" after a line's colon, or
        "inkey" on a word just before one."""
        n = len(keys)
        k0 = self._s_key.start
        has_key = np.zeros(n, dtype=bool)
        for i, key in enumerate(keys):
            if not key:
                continue
            has_key[i] = True
            shp = self._shp[rows[i]]
            ck = (key, min(dist[i], 4), shp)
            got = self._keys.get(ck)
            if got is None:
                got = (self._id("key=" + key), self._id("key=%s|d=%s" % ck[:2]), self._id("key=%s|sh=%s" % (key, shp)))
                if len(self._keys) < _CACHE_MAX:
                    self._keys[ck] = got
            out[i, k0:k0 + 3] = got
        colon = np.fromiter((t == ":" for t in words.tokens), dtype=bool, count=n)
        ahead = np.zeros(n, dtype=bool)
        for s in (1, 2, 3):
            ahead[:-s] |= colon[s:]
        inkey = ~has_key & (np.asarray(dist) == 0) & ahead
        out[inkey, k0] = self._inkey

    def _fill_line_context(self, out: np.ndarray, ft: np.ndarray, pos: np.ndarray) -> None:
        """The line-context templates: "s4=", "p4=", "lfirst=" (the line's first word) and
        "llen=" (the line's length in tokens)."""
        n = len(pos)
        s = self._s_line.start
        out[:, s] = ft[:, self._c_s4]
        out[:, s + 1] = ft[:, self._c_p4]
        idx = np.arange(n)
        later = pos > 0
        out[later, s + 2] = ft[(idx - pos)[later], self._c_lfirst]
        # the length of each line in tokens ("llen="): lines start where pos is 0
        first = np.flatnonzero(pos == 0)
        lengths = np.diff(np.append(first, n))
        line_len = np.repeat(lengths, lengths)
        for length in np.unique(line_len):
            if int(length) not in self._llen:
                self._llen[int(length)] = self._id("llen=" + _len_bucket(int(length)))
            out[line_len == length, s + 3] = self._llen[int(length)]

    def _with_tags(self, out: np.ndarray, tags: Sequence[list[set[str]] | None]) -> tuple[np.ndarray, np.ndarray]:
        """Append each token's tag features and flatten the rows to CSR ``(indices, indptr)``.

        Per tag list in turn, token i gets "gz=" of its own tags, "gz[-1]=" of token i-1's and
        "gz[1]=" of token i+1's (as ``token_features`` and ``tag_features`` list them)."""
        n = len(out)
        extra: list[list[int]] = [[] for _ in range(n)]
        for tag_list in tags:
            if tag_list is None:
                continue
            per = [self._tag_ids(t) if t else None for t in tag_list]
            has = np.fromiter((p is not None for p in per), dtype=bool, count=n)
            near = has.copy()
            near[1:] |= has[:-1]
            near[:-1] |= has[1:]
            for i in np.flatnonzero(near).tolist():
                e = extra[i]
                if per[i] is not None:
                    e.extend(per[i][0])
                if i > 0 and per[i - 1] is not None:
                    e.extend(per[i - 1][1])
                if i + 1 < n and per[i + 1] is not None:
                    e.extend(per[i + 1][2])
        lens = np.fromiter(map(len, extra), dtype=np.int64, count=n)
        if lens.any():
            width = out.shape[1]
            wide = np.full((n, width + int(lens.max())), -1, dtype=np.int64)
            wide[:, :width] = out
            flat = np.fromiter((i for e in extra for i in e), dtype=np.int64, count=int(lens.sum()))
            first = np.cumsum(lens) - lens
            wide[np.repeat(np.arange(n), lens), width + np.arange(len(flat)) - np.repeat(first, lens)] = flat
            out = wide
        known = out >= 0
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(known.sum(axis=1), out=indptr[1:])
        return out[known], indptr
