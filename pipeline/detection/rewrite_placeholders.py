"""What a generative member writes for PHI and what a rewrite says about its original.

A placeholder (``[PHI]``, or typed ones such as ``[NAME]``) is what the model is asked to write
in place of each piece of PHI; :class:`PlacedSpan` and :class:`Alignment` are what
:func:`pipeline.detection.rewrite_align.align_rewrite` recovers from a rewrite. Apart from the
alignment because the prompt, the content-preservation score (:mod:`pipeline.metrics.rewriting`)
and the label resolution (:mod:`pipeline.detection.rewrite_labels`) need the placeholder and the
result types without the matching itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable


DEFAULT_PLACEHOLDER = "[PHI]"
_LABEL_GROUP = r"(?P<label>[A-Za-z][A-Za-z0-9_\-]*)"


@dataclass(frozen=True)
class Placeholder:
    """What the model writes for PHI: a literal (``[PHI]``) or a template with ``{label}``
    (``[{label}]`` matches ``[NAME]``, ``[DATE]``...). Matching ignores case and spaces just
    inside brackets (``[ phi ]``). ``labels``: the tags a typed template accepts (upper case;
    ``None`` = any word), so that bracketed words of the note itself (``[sic]``) are not
    taken for placeholders."""

    template: str = DEFAULT_PLACEHOLDER
    labels: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if not self.template.strip():
            raise ValueError("the placeholder must not be empty")
        if self.template.count("{label}") > 1:
            raise ValueError("the placeholder template may hold {label} once")

    @property
    def typed(self) -> bool:
        return "{label}" in self.template

    def pattern(self) -> re.Pattern:
        return _compile(self.template)

    def render(self, label: str = "") -> str:
        """The placeholder as the prompt shows it (``[NAME]`` for a typed one with ``label``)."""
        return self.template.replace("{label}", label) if self.typed else self.template

    def finditer(self, text: str) -> Iterable[tuple[int, int, str]]:
        """``(start, end, tag)`` of each placeholder in ``text`` (tag ``""`` when untyped)."""
        for m in self.pattern().finditer(text):
            tag = m.group("label").upper() if self.typed else ""
            if self.typed and self.labels is not None and tag not in self.labels:
                continue
            yield m.start(), m.end(), tag


@lru_cache(maxsize=64)
def _compile(template: str) -> re.Pattern:
    """The regular expression of a placeholder template (see :class:`Placeholder`)."""
    parts = []
    for piece in re.split(r"(\{label\})", template.strip()):
        if piece == "{label}":
            parts.append(_LABEL_GROUP)
            continue
        for ch in piece:
            if ch.isspace():
                parts.append(r"\s+")
            elif ch in "[(<{":
                parts.append(re.escape(ch) + r"[ \t]*")
            elif ch in "])>}":
                parts.append(r"[ \t]*" + re.escape(ch))
            else:
                parts.append(re.escape(ch))
    return re.compile("".join(parts), re.IGNORECASE)


@dataclass(frozen=True)
class PlacedSpan:
    """An original character range a placeholder replaced; ``tag``: the placeholder's label."""

    start: int
    end: int
    tag: str = ""


@dataclass
class Alignment:
    """What one rewrite says about its original.

    ``faithfulness``: the share of the rewrite's own tokens (placeholders aside) that are
    copied from the original, in order (1.0: nothing invented; the member uses it as the spans'
    score; 0.0 for a rewrite of placeholders only). ``covered_end``: the original offset up to
    which the rewrite accounts for the text (its last copied token or placed span).
    ``unplaced``: placeholders with no original text under them.
    """

    spans: list[PlacedSpan] = field(default_factory=list)
    placeholders: int = 0
    unplaced: int = 0
    faithfulness: float = 1.0
    covered_end: int = 0



def strip_placeholders(rewrite: str, placeholder: Placeholder | str = DEFAULT_PLACEHOLDER) -> str:
    """``rewrite`` with every placeholder removed (for the content-preservation score)."""
    ph = Placeholder(placeholder) if isinstance(placeholder, str) else placeholder
    pieces, cursor = [], 0
    for s, e, _ in ph.finditer(rewrite):
        pieces.append(rewrite[cursor:s])
        cursor = e
    pieces.append(rewrite[cursor:])
    return " ".join(p for p in pieces)
