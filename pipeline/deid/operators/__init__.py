"""De-identification operators: one small module per profile action, found by name.

* :mod:`~pipeline.deid.operators.registry`: :func:`register`, :func:`operator_for` and the
  flags the leak check reads (:func:`rewrites`, :func:`fixed_text`).
* :mod:`~pipeline.deid.operators.base`: the document being rewritten (:class:`DocRewrite`),
  one span's :class:`Outcome`, and the surrogate acceptance test the surrogate operators share.
* ``keep``, ``redact``, ``replace``, ``shift``, ``paraphrase``: the operators themselves.

Every operator has one signature, ``fn(run, i) -> Outcome`` for span ``i`` of ``run``; the
engine asks the profile for a span's action and calls the operator registered under it.
"""
from pipeline.deid.operators.base import DocRewrite, Outcome, QualityRecord, quality_digest, trigram_similarity
from pipeline.deid.operators.registry import (OPERATORS, Operator, fixed_text, operator_for, prepare_document, register,
                                              rewrites)
# the operators register themselves on import, in the order of pipeline.deid.profile.ACTIONS
from pipeline.deid.operators import redact, replace, paraphrase, shift, keep  # noqa: F401,E402,I001

__all__ = ["DocRewrite", "OPERATORS", "Operator", "Outcome", "QualityRecord", "fixed_text", "operator_for",
           "prepare_document", "quality_digest", "register", "rewrites", "trigram_similarity"]
