"""From a rewrite back to the original: which characters the placeholders replaced.

A generative member (:mod:`models.llm_member`) asks a language model to copy a note with every
piece of PHI replaced by a placeholder (``[PHI]``, or typed ones such as ``[NAME]``). The model
does not copy faithfully: it changes whitespace, drops or adds words, writes a preamble,
repeats the placeholder for each word of a name, stops early. This module recovers, from the
original and the rewrite alone, the original character ranges the placeholders stand for.

How (pure Python, :class:`difflib.SequenceMatcher` from the standard library):

1. Both texts are cut into tokens: letter runs, digit runs, single symbols, and one ``\\n``
   token per line break (a run of blank lines is one token, so reflowed paragraphs still
   anchor). Tokens compare case- and accent-insensitively; whitespace inside a line is ignored.
   Each placeholder in the rewrite is one token that never equals anything in the original.
2. ``SequenceMatcher`` (``autojunk=False``: "de" or "," must stay usable anchors in a long
   note) finds the tokens the rewrite copied. Between two copied stretches lies a *gap*: some
   original tokens, some rewrite tokens. Inside a gap, near-equal words (``ingresado`` /
   ``ingresó``, ratio >= 0.75) are paired too, in order, so a paraphrase around a placeholder
   does not widen its span.
3. A (sub-)gap whose rewrite side holds a placeholder and whose original side holds tokens is
   PHI: its original tokens form the span, split at line breaks (a placeholder at a line end
   never swallows the next line) with sentence punctuation trimmed off its edges (not the
   full stop of an abbreviation, not a bracket the span opened). Several placeholders over one
   stretch separated only by spaces (``[PHI] [PHI]`` for a first and last name) give one span:
   two adjacent PHI spans with only a space between come back as one. A placeholder with no
   original text under it (inserted, or in a preamble) gives none; original text dropped
   without a placeholder is a deletion, not PHI (unless it touches a placeholder: then it is
   inside that placeholder's stretch).
   Punctuation between placeholders (``[PHI], [PHI]``) is a guess when the original has more
   such marks than the rewrite (``Avda. X, 3, 28001``): those copied marks are not trusted as
   anchors, and each is bound to the original mark spaced like it, not ending an
   abbreviation, latest first (:func:`pipeline.detection.rewrite_gaps._segments`).
4. After the last copied token nothing anchors the right edge. If the model chose to end
   there, ``k`` placeholders cover at most ``k`` lines of the original. If generation was cut
   at its token limit (``truncated=True``), placeholders there are not placed at all: how far
   their PHI ran is unknown, and the caller rewrites the rest again from
   :attr:`Alignment.covered_end`, where the rewrite stopped accounting for the original.

Labels (:mod:`pipeline.detection.rewrite_labels`): a typed placeholder's tag is resolved against
the project's schema by :func:`~pipeline.detection.rewrite_labels.resolve_tag` (a fine type, a category, or a generic i2b2 type via
:mod:`pipeline.detection.rules.typemap`); an untyped placeholder's spans get the *generic
label*: by default the schema's ``OTHER`` category (PHI of unstated kind), else the one the
caller names (:func:`~pipeline.detection.rewrite_labels.generic_label`).

The steps live in their own modules: the placeholder and the result types in
:mod:`pipeline.detection.rewrite_placeholders`, tokens and fuzzy pairs (steps 1 and 2) in
:mod:`pipeline.detection.rewrite_tokens`, the spans of a gap (step 3) in
:mod:`pipeline.detection.rewrite_gaps`; this module matches the two token lists and walks the gaps.
"""
from __future__ import annotations

from difflib import SequenceMatcher

from pipeline.detection.rewrite_gaps import gap_spans
from pipeline.detection.rewrite_placeholders import DEFAULT_PLACEHOLDER, Alignment, Placeholder
from pipeline.detection.rewrite_tokens import Tok, is_punct, rewrite_tokens, tokens


def _weak(blocks: list, otoks: list[Tok], rtoks: list[Tok]) -> list:
    """The matching blocks without the weak ones: one or two punctuation marks copied between
    two placeholders. Which of several equal marks the rewrite copied is a guess there
    (:func:`pipeline.detection.rewrite_gaps._segments` makes it, for the whole stretch at once)."""
    keep = []
    prev_b = 0
    for k, b in enumerate(blocks):
        nxt = blocks[k + 1].b if k + 1 < len(blocks) else len(rtoks)
        weak = (0 < b.size <= 2 and all(is_punct(t) for t in otoks[b.a:b.a + b.size])
                and any(t.is_placeholder for t in rtoks[prev_b:b.b])
                and any(t.is_placeholder for t in rtoks[b.b + b.size:nxt]))
        if not weak:
            keep.append(b)
        prev_b = b.b + b.size
    return keep


def align_rewrite(original: str, rewrite: str, placeholder: Placeholder | str = DEFAULT_PLACEHOLDER, *,
                  truncated: bool = False) -> Alignment:
    """Where the placeholders of ``rewrite`` sit in ``original`` (see the module notes).

    >>> a = align_rewrite("Seen by Dr. Ana Ruiz on 3 May.", "Seen by Dr. [PHI] on [PHI].")
    >>> [(s.start, s.end) for s in a.spans], a.faithfulness
    ([(12, 20), (24, 29)], 1.0)
    """
    ph = Placeholder(placeholder) if isinstance(placeholder, str) else placeholder
    otoks = tokens(original)
    rtoks = rewrite_tokens(rewrite, ph)
    result = Alignment(placeholders=sum(t.is_placeholder for t in rtoks))
    sm = SequenceMatcher(None, [t.key for t in otoks], [t.key for t in rtoks], autojunk=False)
    blocks = sm.get_matching_blocks()          # ends with a (len_a, len_b, 0) sentinel
    copied = sum(b.size for b in blocks)
    blocks = _weak(blocks, otoks, rtoks)
    own = sum(1 for t in rtoks if not t.is_placeholder)
    result.faithfulness = round(copied / own, 4) if own else 0.0
    oi = rj = 0
    last_matched_end = 0
    reach = -1
    for k, b in enumerate(blocks):
        if truncated and b.size == 0:
            break                                # the cut-off tail: left to the caller's next try
        r = gap_spans(otoks[oi:b.a], rtoks[rj:b.b], k == 0, b.size == 0, result)
        reach = max(reach, r)
        if b.size:
            last_matched_end = otoks[b.a + b.size - 1].end
        oi, rj = b.a + b.size, b.b + b.size
    result.covered_end = max(last_matched_end, reach)
    result.spans.sort(key=lambda s: (s.start, s.end))
    return result
