"""Helpers for AppTests of the pages that hold the span editor (``dashboard/editor``).

AppTest cannot run the editor's JavaScript: with ``$WORKBENCH_APPTEST=1`` (set by the
``demo_app`` fixture) a test stands in for the browser by putting what the editor would send
under the page's injection key (:func:`inject`), and reads what the page gave the editor from
the component element (:func:`shown`). Offsets are the editor's (UTF-16 code units).
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from dashboard.components import inject_key
from pipeline.annotation import edits as ops
from pipeline.spans import Span


def items(text: str, spans: Iterable[Span], schema, *, accepted: bool | None = None) -> list[dict]:
    """Spans as the editor sends them; ``accepted`` None keeps open suggestions open."""
    return [{"start": it["start"], "end": it["end"], "type": it["type"],
             "accepted": (not it["suggestion"]) if accepted is None else accepted}
            for it in ops.to_editor(text, spans, schema)]


def inject(at, test_key: str, *, action: str | None = None, spans: list[dict] | None = None,
           draft: list[dict] | None = None, decided: list[int] | None = None, seq: int = 1) -> None:
    """Make the editor ``test_key`` send an action (for the next run only) with ``spans``, and/or
    keep a draft (until replaced). An action without a draft drops the kept draft (the browser's
    draft belongs to the document it was made on)."""
    k = inject_key(test_key)
    value = dict(at.session_state[k]) if k in at.session_state else {}
    if action is not None:
        value.pop("draft", None)
        value["action"] = {"name": action, "seq": seq, "spans": spans or [], "decided": decided or []}
    if draft is not None:
        value["draft"] = {"seq": seq, "spans": draft, "decided": decided or []}
    at.session_state[k] = value


def _walk(node: Any):
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _walk(child)


def shown(at) -> dict:
    """The ``data`` the page mounted the editor with on the last run (never print it: it holds
    the note)."""
    for node in _walk(at._tree):  # noqa: SLF001
        proto = getattr(node, "proto", None)
        if getattr(node, "type", None) == "bidi_component" and proto is not None:
            kind = proto.WhichOneof("data")
            raw = proto.json if kind == "json" else proto.mixed.json if kind == "mixed" else None
            return json.loads(raw) if raw else {}
    raise AssertionError("the page did not mount the span editor")


def shown_spans(at) -> list[tuple[int, int, str, bool]]:
    """``(start, end, type, open suggestion)`` of the spans the editor was started from."""
    return [(s["start"], s["end"], s["type"], s["suggestion"]) for s in shown(at)["spans"]]
