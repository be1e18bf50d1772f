"""How a generative member's vote joins the others': "PHI here", with the type left to them.

A rewriting member with the untyped ``[PHI]`` placeholder knows *that* a stretch is PHI, not
*which* type. Its :meth:`~models.llm_member.LLMMember.predict_proba` spreads its PHI mass evenly
over every type, the only honest distribution it can give on its own, and averaged as it is
that vote is weak: the decoder (:mod:`models.decode`) weighs ``O`` against each type separately,
and 1/29 of the mass on each MEDDOCAN type barely moves any of them.

:func:`average_with_llm` averages like :func:`models.decode.average`, except that before it
each LLM member's PHI mass at a token is moved among the types it allows (all of them for
``[PHI]``, one category's for ``[NAME]``) in proportion to the other members' mass on those
types at that token (evenly where they put none there). The LLM thus votes at full strength
against ``O`` and the others decide the type, which is what "the LLM found PHI here" means.
Its B/I structure (first token of a span B, the rest I) is kept.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from models.decode import average


def reweight_types(llm: np.ndarray, others: np.ndarray) -> np.ndarray:
    """``llm`` (one note's ``(n_tokens, n_labels)`` matrix from a generative member) with each
    token's PHI mass spread over its allowed types in proportion to ``others``' mass on them."""
    if llm.shape != others.shape:
        raise ValueError("the LLM's and the other members' matrices differ in shape")
    out = llm.astype(np.float64).copy()
    lb, li = out[:, 1::2], out[:, 2::2]
    allowed = (lb + li) > 0
    mass = lb.sum(axis=1) + li.sum(axis=1)
    theirs = np.where(allowed, others[:, 1::2].astype(np.float64) + others[:, 2::2], 0.0)
    total = theirs.sum(axis=1, keepdims=True)
    even = allowed / np.maximum(allowed.sum(axis=1, keepdims=True), 1)
    share = np.where(total > 1e-9, theirs / np.maximum(total, 1e-12), even)
    is_b = lb.sum(axis=1) > 0
    out[:, 1::2] = np.where(is_b[:, None], share * mass[:, None], 0.0)
    out[:, 2::2] = np.where(is_b[:, None], 0.0, share * mass[:, None])
    return out.astype(np.float32)


def average_with_llm(per: dict[str, list[np.ndarray]], weights: dict[str, float],
                     llm_names: Sequence[str]) -> list[np.ndarray]:
    """Per note, the weighted mean of the members' matrices, the LLM members' reweighted by the
    others'. Weights as the ensemble uses them: a missing weight counts 1, a member at weight 0
    takes no part (unless every member is at 0: then all count 1). Without LLM members this is
    exactly :func:`models.decode.average` of the members that take part."""
    w = {n: float(weights.get(n, 1.0)) for n in per}
    names = [n for n in per if w[n] > 0] or list(per)
    w = {n: w[n] or 1.0 for n in names}
    llms = [n for n in names if n in set(llm_names)]
    rest = [n for n in names if n not in set(llm_names)]
    n_docs = len(per[names[0]]) if names else 0
    out = []
    for k in range(n_docs):
        if not rest or not llms:
            out.append(average([per[n][k] for n in names], [w[n] for n in names]))
            continue
        base = average([per[n][k] for n in rest], [w[n] for n in rest])
        mats = [base] + [reweight_types(per[n][k], base) for n in llms]
        out.append(average(mats, [sum(w[n] for n in rest)] + [w[n] for n in llms]))
    return out
