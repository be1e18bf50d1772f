"""The generated notes an English starter model learns from: which generators, in what share.

Why a recipe of its own: a new English team has no gold, and the cold start is rules, dictionaries
and a CRF trained on generated notes. What those notes look like decides what the CRF learns. The
wide generator alone (a PHI value in every sentence) taught "capitalised word = name" and marked
Foley and Afebrile as patients on ward text; the ward generator alone (PHI sparse, clinical text
around it) is precise but misses formats it never wrote. :data:`DEFAULT_RECIPE` is the mix chosen
by ``benchmarks/english_recipe.py`` on held-out notes of another split of templates and lists
(``split_seed=1``), not on the notes it is reported on (see docs/benchmarks.md).

Pure: generation only; training is the caller's (``python -m pipeline train-starter``).
"""
from __future__ import annotations

from dataclasses import dataclass

from pipeline.spans import Document


@dataclass(frozen=True)
class StarterRecipe:
    """``ward_share`` of the notes from the ward generator, the rest from the wide one;
    ``case_copies`` as in the training config (UPPER / lower copies of every note learnt from)."""
    ward_share: float = 1.0
    case_copies: int = 1
    notes: int = 500

    def __post_init__(self) -> None:
        if not 0.0 <= self.ward_share <= 1.0:
            raise ValueError("ward share must be between 0 and 1")
        if self.case_copies not in (0, 1, 2):
            raise ValueError("case copies must be 0, 1 or 2")
        if self.notes < 1:
            raise ValueError("a starter model needs at least one note")

    def counts(self, n: int | None = None) -> tuple[int, int]:
        """(ward notes, wide notes) for ``n`` notes (default ``notes``)."""
        n = self.notes if n is None else n
        ward = round(n * self.ward_share)
        return ward, n - ward


#: the recipe ``train-starter`` uses unless told otherwise (chosen on split_seed=1, see module doc)
DEFAULT_RECIPE = StarterRecipe(ward_share=0.75, case_copies=1, notes=500)


def starter_corpus(recipe: StarterRecipe = DEFAULT_RECIPE, seed: int = 11, *, n: int | None = None,
                   part: str = "all", split_seed: int = 0) -> list[Document]:
    """The generated gold notes of ``recipe``: ward notes then wide notes, each generator's own
    patients (their ids differ, so a patient-disjoint dev split keeps each patient whole)."""
    from pipeline.synthetic.generator import generate_corpus

    ward, wide = recipe.counts(n)
    docs = generate_corpus(ward, seed, variety="ward", part=part, split_seed=split_seed) if ward else []
    if wide:
        docs += generate_corpus(wide, seed, variety="wide", part=part, split_seed=split_seed)
    return docs
