"""A loaded model version plus a generative member added at detection time.

Until training writes LLM members into versions (the integration described in the issue-17
report), ``python -m pipeline detect-llm --model DIR --members ...,llm`` adds one to a loaded
version here. :class:`LLMEnsemble` is :class:`models.ensemble.Ensemble` with one change: the
generative members' votes join through :func:`models.llm_vote.average_with_llm` (the LLM says
"PHI here", the other members say which type). Everything else (decoding, per-type thresholds,
sources) is the version's own.
"""
from __future__ import annotations

import numpy as np

from models.ensemble import Ensemble
from models.llm_member import KIND, LLMMember
from models.llm_vote import average_with_llm
from models.words import Words


class LLMEnsemble(Ensemble):
    @classmethod
    def adding(cls, ensemble: Ensemble, member: LLMMember, weight: float = 1.0) -> "LLMEnsemble":
        """``ensemble``'s version with ``member`` added at ``weight`` (the loaded version is not changed)."""
        if member.name in ensemble.members:
            raise ValueError(f"model {ensemble.info.name} already has a member {member.name}")
        if list(member.labels) != list(ensemble.info.labels):
            raise ValueError(f"LLM member {member.name}: its labels are not the model's")
        from dataclasses import replace

        info = replace(ensemble.info, members=[*ensemble.info.members, member.name],
                       weights={**ensemble.info.weights, member.name: float(weight)})
        return cls(info, ensemble.schema, {**ensemble.members, member.name: member})

    def combined_probs(self, items: list[tuple[str, Words]],
                       rule_hits: list[dict] | None = None) -> list[np.ndarray]:
        names = self.active_members
        llms = [n for n in names if getattr(self.members[n], "kind", "") == KIND]
        rest = [n for n in names if n not in llms]
        if not llms or not rest:
            return super().combined_probs(items, rule_hits=rule_hits)
        saved = self.members
        self.members = {n: saved[n] for n in rest}     # the version's own members, as it averages them
        try:
            base = super().combined_probs(items, rule_hits=rule_hits)
        finally:
            self.members = saved
        per = {"_rest": base, **{n: self.members[n].predict_proba(items) for n in llms}}
        w = {"_rest": sum(float(self.info.weights.get(n, 1.0)) or 1.0 for n in rest),
             **{n: self.info.weights.get(n, 1.0) for n in llms}}
        return average_with_llm(per, w, llms)
