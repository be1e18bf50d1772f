"""What every operator reads and returns: the document being rewritten, one span's outcome, and
the shared way to put a surrogate in place of an original (or a placeholder when none is safe).

A surrogate operator (``replace``, ``shift``, ``paraphrase``) only finds a new value for the
span's trimmed core; :func:`surrogate_outcome` then applies the one acceptance test all of them
share (never the original, never another real value of the note or the patient) and keeps the
span's surrounding whitespace.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from pipeline.deid.addresses import AddressPlan
from pipeline.deid.ages import OVER_MAX
from pipeline.deid.context import DeidContext, DocState, Original, SurrogateContext
from pipeline.deid.normalize import norm_key
from pipeline.deid.paraphrase import ParaphraseOutcome
from pipeline.deid.profile import Profile
from pipeline.deid.surrogate_kit import NoSurrogate, Unparseable
from pipeline.deid.surrogates import generator_for
from pipeline.spans import Span


@dataclass
class DocRewrite:
    """One document being rewritten: what every operator may read.

    ``spans[i]`` (input offsets, overlaps resolved) has the value ``originals[i]``; ``state``
    holds the values a surrogate must avoid (the note's and the patient's); ``paraphrase`` is
    filled once per document by the ``paraphrase`` operator's preparation (one model call);
    ``addresses`` by the ``replace`` operator's (the parts of each address drawn together,
    :mod:`pipeline.deid.addresses`)."""

    text: str
    spans: Sequence[Span]
    originals: Sequence[Original]
    profile: Profile
    ctx: DeidContext
    state: DocState
    patient_id: str
    locale: str
    paraphrase: ParaphraseOutcome = field(default_factory=ParaphraseOutcome)
    addresses: AddressPlan = field(default_factory=AddressPlan)

    def surrogate_context(self, category: str, type_: str) -> SurrogateContext:
        """What a generator of this category and type needs (the secret, the patient, the values to avoid)."""
        return SurrogateContext(self.ctx, self.profile, self.patient_id, category, type_, self.locale, self.state)


@dataclass(frozen=True)
class QualityRecord:
    """One surrogate's quality facts; originals appear only as in-process hashes (no PHI).
    ``action``: ``replace`` (a list surrogate), ``paraphrase`` (infilled) or ``shift``."""

    category: str
    same: bool
    similarity: float
    original_digest: int
    surrogate_digest: int
    action: str = "replace"


@dataclass(frozen=True)
class Outcome:
    """What an operator wrote for one span, and the facts the run's summary counts.

    ``action`` is the action as recorded: a surrogate operator that could not make a safe
    surrogate writes the placeholder and records ``redact`` (``fallback``); ``unparseable``: the
    value could not be read as its type (a date or an age that is none)."""

    text: str
    action: str
    quality: QualityRecord | None = None
    fallback: bool = False
    unparseable: bool = False


@lru_cache(maxsize=1 << 10)       # small: a set per value costs ~1.5 KB, and surrogates rarely repeat
def _trigrams(s: str) -> frozenset[str]:
    s = f"  {s} "
    return frozenset(s[i:i + 3] for i in range(len(s) - 2))


def trigram_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the character trigrams of two normalised strings (1 = same)."""
    ta, tb = _trigrams(norm_key(a)), _trigrams(norm_key(b))
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb)


def quality_digest(value: str) -> int:
    """An in-process stand-in for a value (Python's per-process salted hash of its normalised
    form): enough to count distinct values in a batch, useless outside this process."""
    return hash(("deid-quality", norm_key(value)))


def _top_coded(span: Span, value: str) -> bool:
    """"90+" is the Safe Harbor group for every age over 89, not anyone's value: it may repeat."""
    return span.category == "AGE" and OVER_MAX in value


def list_surrogate(run: DocRewrite, i: int) -> tuple[str | None, bool]:
    """The surrogate generator of the span's type applied to its trimmed value: (surrogate or
    None, whether the value was unparseable). A date's generator shifts it, an age's too."""
    span = run.spans[i]
    core = run.originals[i].text.strip()
    gen = generator_for(span.category, span.type)
    if gen is None or not core:
        return None, False
    try:
        return gen(core, run.surrogate_context(span.category, span.type)), False
    except Unparseable:
        return None, True
    except NoSurrogate:
        return None, False


def surrogate_outcome(run: DocRewrite, i: int, action: str, new_core: str | None, *,
                      unparseable: bool = False, project_checked: bool = False) -> Outcome:
    """``new_core`` in place of the span's trimmed value (its surrounding whitespace kept), or
    the profile's placeholder (recorded as ``redact``) when there is none or it is the original
    or another real value of the note or the patient, or of the project (the run's keyed set;
    ``project_checked``: the operator's own gate did that check and counted its hits)."""
    span = run.spans[i]
    original = run.originals[i].text
    core = original.strip()
    if new_core is not None and (norm_key(new_core) == norm_key(core)
                                 or (run.state.clashes(new_core) and not _top_coded(span, new_core))
                                 or (not project_checked
                                     and run.ctx.project_value_hits(new_core, run.locale, span.category))):
        new_core = None      # never the original, another real value of the patient, nor of the project
    if new_core is None:
        return Outcome(run.profile.placeholder_for(span.category, span.type, original), "redact",
                       fallback=True, unparseable=unparseable)
    lead = original[:len(original) - len(original.lstrip())]
    trail = original[len(original.rstrip()):]
    quality = QualityRecord(span.category, norm_key(new_core) == norm_key(core), trigram_similarity(core, new_core),
                            quality_digest(core), quality_digest(new_core), action)
    return Outcome(lead + new_core + trail, action, quality)
