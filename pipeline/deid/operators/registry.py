"""The registry of de-identification operators: :func:`register` adds one under its action name.

An operator turns one span of the document being rewritten into its output text:
``fn(run, i) -> Outcome`` (:class:`~pipeline.deid.operators.base.DocRewrite`,
:class:`~pipeline.deid.operators.base.Outcome`). The profile's action for a span
(:meth:`pipeline.deid.profile.Profile.action_for`) names its operator and the engine looks it
up here (:func:`operator_for`), so adding an action is adding a module, not a branch. Apart
from :mod:`pipeline.deid.operators` so that the operator modules import the registry without
importing the package that loads them (as :mod:`pipeline.detection.rules.registry`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pipeline.deid.operators.base import DocRewrite, Outcome
from pipeline.deid.profile import ProfileError

OperatorFn = Callable[[DocRewrite, int], Outcome]
PrepareFn = Callable[[DocRewrite], None]


@dataclass(frozen=True)
class Operator:
    """A registered operator: its action name, its function and what the leak check must know.

    * ``rewrites``: False when the original stays (``keep``): such a span need not be covered by
      a rewrite, and a kept span never shields a rewritten one's characters from an overlap.
    * ``fixed_text``: what it writes is the original or the profile's template, never a made-up
      value, so a hit of some PHI string inside it is not a leak (a patient called "Age" is not
      in "[AGE]").
    * ``prepare``: run once per document before any span (the paraphrase model's one call).
    """

    name: str
    fn: OperatorFn
    rewrites: bool = True
    fixed_text: bool = False
    prepare: PrepareFn | None = None
    description: str = ""

    def __call__(self, run: DocRewrite, i: int) -> Outcome:
        return self.fn(run, i)


OPERATORS: dict[str, Operator] = {}


def register(name: str, *, rewrites: bool = True, fixed_text: bool = False,
             prepare: PrepareFn | None = None) -> Callable[[OperatorFn], OperatorFn]:
    """Decorator: the function becomes the operator of action ``name`` (registering a name again
    replaces the earlier operator, as for recognizers and surrogate generators)."""
    def deco(fn: OperatorFn) -> OperatorFn:
        OPERATORS[name] = Operator(name, fn, rewrites=rewrites, fixed_text=fixed_text, prepare=prepare,
                                   description=(fn.__doc__ or "").strip().split("\n")[0])
        return fn
    return deco


def operator_for(action: str) -> Operator:
    """The operator of a profile's action; ProfileError for an action none is registered for."""
    try:
        return OPERATORS[action]
    except KeyError:
        raise ProfileError(f"no de-identification operator for action {action!r}; "
                           f"use one of {', '.join(OPERATORS)}") from None


def prepare_document(run: DocRewrite) -> None:
    """Every operator's once-per-document step, in registration order, before any span."""
    for op in OPERATORS.values():
        if op.prepare is not None:
            op.prepare(run)


def rewrites(action: str) -> bool:
    """Whether a span with this action is rewritten (everything but ``keep``)."""
    return operator_for(action).rewrites


def fixed_text(action: str) -> bool:
    """Whether this action writes the original or a template (``keep``, ``redact``)."""
    return operator_for(action).fixed_text
