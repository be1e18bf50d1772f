"""``replace``: a realistic surrogate of the span's type from the locale's lists
(:mod:`pipeline.deid.surrogates`); the placeholder when none is safe (counted as a fallback).

The parts of one address (city, state, postcode) are drawn together from one record of the
locale's address table, once per document (:func:`prepare`, :mod:`pipeline.deid.addresses`),
so they agree; every other span takes its type's generator."""
from __future__ import annotations

from pipeline.deid.addresses import plan_addresses
from pipeline.deid.operators.base import DocRewrite, Outcome, list_surrogate, surrogate_outcome
from pipeline.deid.operators.registry import register


def prepare(run: DocRewrite) -> None:
    """The document's address plan (the ``replace`` and ``paraphrase`` spans that are address parts)."""
    run.addresses = plan_addresses(run)


@register("replace", prepare=prepare)
def replace(run: DocRewrite, i: int) -> Outcome:
    """A list surrogate of the span's type, keyed on the secret, the patient and the value."""
    if i in run.addresses.values:
        return surrogate_outcome(run, i, "replace", run.addresses.values[i])
    new_core, unparseable = list_surrogate(run, i)
    return surrogate_outcome(run, i, "replace", new_core, unparseable=unparseable)
