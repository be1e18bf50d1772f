"""The registry of boundary steps, and of the locale packs that list them.

A boundary step is a function ``(spans, context) -> spans`` registered by name with
:func:`boundary_step`, for one stage of detection's model-first combination
(:meth:`pipeline.detection.detector.Detector._combine`):

* ``candidates``: the rule and dictionary spans once :func:`~pipeline.detection.combine.combine`
  has resolved them among themselves;
* ``model``: the model's spans, before rule and dictionary spans join them;
* ``merged``: everything, after :func:`~pipeline.detection.merge_policy.merge_model_first`.

A locale pack (``pipeline/locales/<code>/__init__.py``) calls :func:`register_pack` with its
words and the names of the steps it uses, in order. :func:`pack_for` imports the pack of a
locale the first time it is asked for (``es-ES`` counts as ``es``); a locale without a pack
gets the default pack (:data:`DEFAULT_PACK`), the steps and words every locale had before packs
held them. Adding a locale is adding a folder.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Sequence

from pipeline.detection.steps.words import BoundaryWords
from pipeline.schemas import LabelSchema, get_schema
from pipeline.spans import Span

STAGES = ("candidates", "model", "merged")
#: the pack of a locale that has none of its own (``pipeline/locales/western.py``)
DEFAULT_PACK = "western"
LOCALES_PACKAGE = "pipeline.locales"


@dataclass(frozen=True)
class StepContext:
    """What a step may read besides the spans it moves: the document's text, the project's
    schema (which types play which role), the locale's words, and the rule and dictionary spans
    as found (``candidates``, may overlap) and as resolved (``resolved``, non-overlapping)."""

    text: str
    schema: LabelSchema
    words: BoundaryWords
    candidates: Sequence[Span] = ()
    resolved: Sequence[Span] = ()

    @classmethod
    def for_locale(cls, text: str, schema: LabelSchema | str, locale: str, *, candidates: Sequence[Span] = (),
                   resolved: Sequence[Span] = ()) -> "StepContext":
        """The context of ``text`` with ``locale``'s words (:func:`pack_for`); ``schema`` may be a name."""
        sch = get_schema(schema) if isinstance(schema, str) else schema
        return cls(text, sch, pack_for(locale).words, candidates, resolved)

    def plays(self, span: Span, role: str) -> bool:
        """Whether ``span``'s type plays ``role`` (``organisation``, ``street``, ``relative``)."""
        return span.label in self.schema.types_in_role(role)


StepFn = Callable[[list[Span], StepContext], list[Span]]


@dataclass(frozen=True)
class BoundaryStep:
    """A registered step: its name, its stage, its function."""

    name: str
    stage: str
    fn: StepFn
    description: str = ""

    def __call__(self, spans: list[Span], ctx: StepContext) -> list[Span]:
        return self.fn(spans, ctx)


@dataclass(frozen=True)
class LocalePack:
    """A locale's boundary steps, in the order they run within each stage, and its words;
    ``model_view``: the text its models read instead of the note (same length, so the same
    offsets; English truecases lines written in one case), ``None`` for the note as written;
    ``detection_view``: the text the whole of detection (model, rules, lists, steps) reads
    instead of the note, also of the same length (English reads no-break spaces, CRLF line ends
    and curly apostrophes as plain characters and a hard-wrapped note's wrap breaks as blanks),
    ``None`` for the note as written."""

    code: str
    words: BoundaryWords
    steps: tuple[str, ...] = ()
    model_view: Callable[[str], str] | None = None
    detection_view: Callable[[str], str] | None = None

    def text_for_detection(self, text: str) -> str:
        """What the pack's detection reads for ``text``: its view, or the text itself."""
        if self.detection_view is None:
            return text
        view = self.detection_view(text)
        return view if len(view) == len(text) else text

    def text_for_model(self, text: str) -> str:
        """What the pack's models read for ``text``: its view, or the text itself."""
        if self.model_view is None:
            return text
        view = self.model_view(text)
        return view if len(view) == len(text) else text

    def steps_in(self, stage: str) -> list[BoundaryStep]:
        if stage not in STAGES:
            raise ValueError(f"unknown stage {stage!r}; use one of {', '.join(STAGES)}")
        return [_STEPS[n] for n in self.steps if _STEPS[n].stage == stage]

    def run(self, stage: str, spans: list[Span], ctx: StepContext) -> list[Span]:
        """``spans`` through each of the pack's steps of ``stage``, in order."""
        for step in self.steps_in(stage):
            spans = step(spans, ctx)
        return spans


_STEPS: dict[str, BoundaryStep] = {}
_PACKS: dict[str, LocalePack] = {}
_TRIED: set[str] = set()


def boundary_step(name: str, stage: str, *, description: str = "") -> Callable[[StepFn], StepFn]:
    """Decorator: register the function as the step ``name`` of ``stage``. Registering a name
    again replaces the earlier step (tests and plug-ins may swap one)."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; use one of {', '.join(STAGES)}")

    def deco(fn: StepFn) -> StepFn:
        _STEPS[name] = BoundaryStep(name, stage, fn, description or (fn.__doc__ or "").strip().split("\n")[0])
        return fn
    return deco


def register_pack(code: str, words: BoundaryWords, steps: Sequence[str],
                  model_view: Callable[[str], str] | None = None,
                  detection_view: Callable[[str], str] | None = None) -> LocalePack:
    """Give locale ``code`` its words and steps (names of registered steps, in order), the view
    of a note its models read (:attr:`LocalePack.model_view`) and the one its whole detection
    reads (:attr:`LocalePack.detection_view`)."""
    unknown = [n for n in steps if n not in _STEPS]
    if unknown:
        raise KeyError(f"locale pack {code!r} lists unregistered boundary steps: {', '.join(unknown)}")
    pack = LocalePack(code, words, tuple(steps), model_view, detection_view)
    _PACKS[code] = pack
    return pack


def _base(locale: str) -> str:
    return locale.split("-")[0].split("_")[0].lower()


def _load(code: str) -> None:
    """Import ``pipeline.locales.<code>`` once, so its pack registers; a locale without a
    package of its own (no folder, or lists only) registers nothing."""
    if code in _PACKS or code in _TRIED or not code.isidentifier():
        return
    _TRIED.add(code)
    name = f"{LOCALES_PACKAGE}.{code}"
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise


def pack_for(locale: str) -> LocalePack:
    """The boundary pack of ``locale``, or the default pack when it has none."""
    code = _base(locale)
    _load(code)
    if code not in _PACKS:
        _load(DEFAULT_PACK)
        code = DEFAULT_PACK
    return _PACKS[code]


def default_words() -> BoundaryWords:
    """The default pack's words: what span cleaning uses when no locale is given."""
    return pack_for(DEFAULT_PACK).words
