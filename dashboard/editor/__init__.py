"""The span editor of Annotate and Review: the note exactly as written with every span in place,
keyboard first. A Streamlit Components v2 component (``st.components.v2.component``) whose
HTML is built by ``editor.js`` (with the pure functions of ``core.js`` in front of it, and after
it the files that each add one job's methods to its class, :data:`JS_FILES`: drawing, the
selection and the mouse, keys, span edits, Review, saving, moves, hints and phrases) and styled
by ``editor.css``, all beside this one, loaded here as strings: no build step.

Why our own: ``streamlit-annotation-tools`` (the ``text_labeler`` the pages used before) shows
a note as one paragraph, only the chosen label's spans, has no keys at all and lets people type
labels outside the schema; the other text-annotation components on the package index
(``streamlit-text-label``, ``st-ner-annotate``, ``streamlit-annotator``) each lack line breaks,
suggestions shown apart from accepted spans, or a keyboard. See the README.

**Keyboard and focus** (issue 31). The note is the editor's one stop in the Tab order (the
toolbar comes before it); its keys act only while it, or one of the editor's buttons, has the
focus, so nothing is taken from the rest of the page. Tab and Shift+Tab always move the focus
(``.`` and ``,`` walk the spans); Esc closes what is open, then clears the selection, then gives
the keys back to the page; Enter and Space on a focused button press it. Ctrl+F jumps to text;
``;`` and ``:`` put hint letters on the spans / words in view (``hints.js``: typing one picks it;
typed with Shift, from the word to the end of its phrase, a full name or street address:
``phrases.js``, and so does Shift+Enter in jump to text; ``;`` also numbers the cut points where
a second phrase begins inside a span: a digit and a label's key split it there; after a word
hint, outlined digits on the words of its line extend the selection to one of them,
``extend.js``: "Last, First" or "12 Oak St, Apt 3" in four keys); PageDown and
PageUp page by the part of the note below the toolbar;
the arrows step by units (:mod:`pipeline.annotation.units`: a date, phone number, id or e-mail
is one); Shift+arrows resize the current span (merging into a neighbour; Shift+← then a label's
key splits). Spans are ``role="mark"`` named "Louis, patient name" (:func:`spoken`), their
badges hidden from screen readers.

**Protocol.** Python mounts the editor with ``data`` (:func:`editor_data`): the note, the
schema's labels (with a hotkey each where a letter is free), the spans (UTF-16 offsets; open
machine suggestions flagged, with their score), what was last saved, the position in the queue,
a message for the status line, and for Review the disagreements with each annotator's spans.
``data["token"]`` names one start of the editor: while it stays the same the browser keeps its
working spans (and undo history) across reruns; a new token starts it afresh from ``spans``.
The browser sends back

* the state value ``draft`` (``{"token", "seq", "spans", "decided"}``), about a second after
  the last edit: the unsaved spans, so leaving the document keeps them in the session;
* the trigger value ``action`` (the same plus ``"name"``: ``save``, ``finish``, ``save_next``,
  ``next`` or ``prev``), once, for the run it causes. ``finish`` with open suggestions is sent
  only after the editor asked (naming the count) and the annotator chose: accept those at or
  above the threshold (in bulk), or finish leaving them open; "go to the first one" sends nothing.

The browser also keeps the unsaved spans (offsets and labels, no text) in its own storage under
``data["local_key"]``; after a reload it offers them back ("Restore them"), but only while the
stored layer is still at ``data["version"]``, so a newer save is never overwritten.

``seq`` counts edits, so an older draft never overwrites newer spans; ``spans`` are
``[{"start", "end", "type", "accepted", "how"}]`` (``how``: how a person's span came to be,
``created``, ``changed``, ``accepted`` or ``bulk``) and go through
:func:`pipeline.annotation.edits.from_editor` (checked against the text and the schema) before
anything is kept or saved. ``decided`` lists the disagreements the reviewer settled.

**Tests.** ``AppTest`` cannot run the component's JavaScript. With ``$WORKBENCH_APPTEST=1`` a
test puts ``{"action": {...}, "draft": {...}}`` (either may be left out) under
``st.session_state[dashboard.components.inject_key(test_key)]``; the action is used for one run
(like a trigger), the draft stays (like a state value). Without the flag the key is ignored.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import streamlit as st

from dashboard.components import TEST_ENV, category_colour, inject_key
from pipeline.annotation import edits as ops
from pipeline.annotation.work import WorkState
from pipeline.schemas import LabelSchema
from pipeline.spans import Span

HERE = Path(__file__).resolve().parent
NAME = "workbench_span_editor"
#: core.js (pure functions), editor.js (the SpanEditor class: building, Python's data), then the
#: files that each add one job's methods to the class: drawing, the selection and the mouse, keys,
#: span edits, Review's disagreements, saving, moves, hints (; and :), phrases (Shift picks a
#: phrase) and extending a picked selection by a digit. Joined in this order: a file uses only
#: what comes before it when it is loaded.
JS_FILES = ("core.js", "editor.js", "render.js", "selection.js", "keys.js", "editing.js", "review.js", "saving.js",
            "moves.js", "hints.js", "phrases.js", "extend.js")
JS = "\n".join((HERE / name).read_text(encoding="utf-8") for name in JS_FILES)
CSS = (HERE / "editor.css").read_text(encoding="utf-8")
ACTIONS = ("save", "finish", "save_next", "next", "prev")

# Not in a shadow root: selecting text and reading the selection need the page's own DOM.
_mount = st.components.v2.component(NAME, html="", css=CSS, js=JS, isolate_styles=False)

#: Types that get the first pick of the letters (the commonest PHI in clinical notes), then the
#: schema's order.
HOTKEY_FIRST = ("DATE", "AGE", "PATIENT", "DOCTOR", "HOSPITAL", "PHONE", "CITY", "STREET", "STATE", "ZIP",
                "MEDICALRECORD", "IDNUM", "FECHAS", "EDAD_SUJETO_ASISTENCIA", "NOMBRE_SUJETO_ASISTENCIA",
                "NOMBRE_PERSONAL_SANITARIO", "HOSPITAL", "TERRITORIO", "CALLE")
#: Letters only: digits choose an annotator's version in Review.
LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: When the letters run out (i2b2 has 30 types), Shift+letter: every label has a key. Shift+A is
#: taken (accept all at or above the threshold).
SHIFTED = "BCDEFGHIJKLMNOPQRSTUVWXYZ"


#: Page CSS for the pages that hold the editor: less blank space above the title, so the note's
#: first lines are above the fold at 1280x800.
PAGE_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.9rem; padding-top: 0.2rem; padding-bottom: 0.2rem; }
/* focus: the editor's blue ring on the page's own controls too (Streamlit's red reads as an error) */
:is(button, a, summary, input, textarea, [role="tab"]):focus-visible { outline: 3px solid #1565c0 !important; outline-offset: 2px; box-shadow: none !important; }
[data-baseweb="select"] > div:focus-within, [data-baseweb="input"]:focus-within { border-color: #1565c0 !important; }
</style>"""


def compact_page() -> None:
    """Apply :data:`PAGE_CSS` to the page being drawn (gone when another page is opened)."""
    st.html(PAGE_CSS)


def hotkeys(types: Sequence[str]) -> dict[str, str]:
    """A key for every type while keys last: a letter (each type's first letter if free, then
    another letter of its name, then any free letter; types of :data:`HOTKEY_FIRST` choose
    first), and when the 26 letters are taken, Shift+letter (written as the capital, same rules;
    not ``A``). Only a schema of more than 51 types leaves some to filtering (``/``).

    >>> keys = hotkeys(["DATE", "DOCTOR", "DEVICE"])
    >>> keys["DATE"], keys["DOCTOR"], keys["DEVICE"]
    ('d', 'o', 'e')
    """
    order = [t for t in HOTKEY_FIRST if t in types] + [t for t in types if t not in HOTKEY_FIRST]
    order = list(dict.fromkeys(order))
    taken: dict[str, str] = {}
    used: set[str] = set()

    for alphabet, case in ((LETTERS, str.lower), (SHIFTED, str.upper)):
        def letters(t: str) -> list[str]:
            return [c for c in case(t) if c in alphabet]

        for rule in (lambda t: letters(t)[:1], letters, lambda t: list(alphabet)):
            for t in order:
                if t in taken:
                    continue
                key = next((c for c in rule(t) if c not in used), None)
                if key:
                    taken[t] = key
                    used.add(key)
    return taken


#: How a screen reader names a span of a type ("Louis, patient name"); other types are read as
#: their name in lower case.
SPOKEN = {"PATIENT": "patient name", "DOCTOR": "doctor name", "USERNAME": "user name", "MEDICALRECORD": "medical record number",
          "IDNUM": "id number", "PHONE": "phone number", "FAX": "fax number", "EMAIL": "e-mail address",
          "URL": "web address", "HEALTHPLAN": "health plan number", "ACCOUNT": "account number",
          "LICENSE": "licence number", "BIOID": "biometric id", "ZIP": "zip code", "DEVICE": "device id",
          "LOCATION_OTHER": "other location"}


def spoken(type_: str) -> str:
    """What a screen reader says for a label.

    >>> spoken("PATIENT"), spoken("NOMBRE_SUJETO_ASISTENCIA")
    ('patient name', 'nombre sujeto asistencia')
    """
    return SPOKEN.get(type_, type_.replace("_", " ").lower())


def editor_labels(schema: LabelSchema) -> list[dict]:
    """The schema's fine types in schema order, each with its category, colour, hotkey (a
    capital means Shift and that letter) and the words a screen reader says for it."""
    keys = hotkeys(schema.types)
    return [{"type": t, "category": schema.category_of(t), "colour": category_colour(schema.category_of(t)),
             "key": keys.get(t), "spoken": spoken(t)} for t in schema.types]


def disagreements_data(text: str, found: Sequence[Any], per: Sequence[Mapping[str, Sequence[Span]]],
                       schema: LabelSchema, choices: Mapping[int, str] | None = None) -> list[dict]:
    """Review's disagreements for the editor: UTF-16 extent, kind, and each annotator's spans
    under the key that takes them (``"1"``, ``"2"``, ... in name order); ``choice`` when known."""
    astral = ops._astral_positions(text) if ops._has_astral(text) else []  # noqa: SLF001 - same module family
    u = (lambda i: ops.to_utf16(text, i, astral)) if astral else (lambda i: i)
    out = []
    for i, (d, spans) in enumerate(zip(found, per)):
        options = [{"who": who, "key": str(n + 1), "spans": ops.to_editor(text, spans[who], schema)}
                   for n, who in enumerate(sorted(spans))]
        out.append({"start": u(d.start), "end": u(d.end), "kind": d.kind, "options": options,
                    "choice": (choices or {}).get(i)})
    return out


def editor_data(*, token: str, mode: str, text: str, spans: Sequence[Span], schema: LabelSchema,
                saved: Sequence[Span] | None, position: str = "", has_prev: bool = False, has_next: bool = False,
                threshold: float = 0.8, low_confidence: float = 0.0, message: str | None = None, message_kind: str = "info",
                message_id: int = 0, disagreements: list[dict] | None = None, local_key: str | None = None,
                version: int = 0, require_decided: bool = False) -> dict:
    """What the editor is mounted with (see the module docstring). ``saved`` is ``None`` when the
    layer was never saved (the editor then says "not saved yet"). ``local_key`` names the draft the
    browser keeps of unsaved spans (offsets and labels only) across a reload, offered back only
    while the stored layer is still at ``version``. ``require_decided``: the project requires every
    suggestion decided before a note is finished (the finish question then offers no "finish
    leaving them open"; Python refuses such a finish too)."""
    return {"token": token, "mode": mode, "text": text, "labels": editor_labels(schema),
            "spans": ops.to_editor(text, spans, schema),
            "saved": None if saved is None else ops.to_editor(text, saved, schema),
            "position": position, "has_prev": has_prev, "has_next": has_next, "threshold": float(threshold),
            "low_confidence": float(low_confidence),
            "message": message, "message_kind": message_kind, "message_id": int(message_id),
            "disagreements": disagreements or [], "local_key": local_key, "version": int(version),
            "require_decided": bool(require_decided)}


@dataclass
class EditorValue:
    """What came back from the browser on this run: an action (``name``) or a draft (``name``
    ``None``). ``spans`` are still unchecked: pass them to ``edits.from_editor``."""

    name: str | None
    spans: list = field(default_factory=list)
    seq: int = 0
    decided: list[int] = field(default_factory=list)


def _value(raw: Any, token: str, *, action: bool) -> EditorValue | None:
    if not isinstance(raw, Mapping) or str(raw.get("token", token)) != token:
        return None
    name = raw.get("name") if action else None
    if action and name not in ACTIONS:
        return None
    try:
        seq = int(raw.get("seq", 0))
    except (TypeError, ValueError, OverflowError):     # OverflowError: an infinite number
        seq = 0
    spans = raw.get("spans")
    decided = raw.get("decided")
    return EditorValue(name=name, spans=list(spans) if isinstance(spans, list) else [], seq=seq,
                       decided=[int(i) for i in decided if isinstance(i, int)] if isinstance(decided, list) else [])


def span_editor(data: dict, *, key: str, test_key: str) -> EditorValue | None:
    """Mount the editor (``key`` must change with ``data["token"]``) and return the action of this
    run, else the latest draft, else ``None``. ``test_key`` names the injection point."""
    token = str(data["token"])
    result = _mount(key=key, data=data, default={"draft": None}, on_draft_change=lambda: None,
                    on_action_change=lambda: None)
    if os.environ.get(TEST_ENV) == "1":
        injected = st.session_state.get(inject_key(test_key))
        if isinstance(injected, Mapping):
            act = injected.get("action")
            if act is not None:
                st.session_state[inject_key(test_key)] = {k: v for k, v in injected.items() if k != "action"}
                return _value(act, token, action=True)
            return _value(injected.get("draft"), token, action=False)
    return _value(result.get("action"), token, action=True) or _value(result.get("draft"), token, action=False)


# --- what Annotate and Review do with the editor's value ------------------------------------------
_RANK = ("info", "success", "warn", "error")


def notify(message_key: str, text: str, kind: str = "info") -> None:
    """A message for the editor's status line (shown once, next to the toolbar that caused it);
    messages of one run are joined, the most serious kind wins."""
    old = st.session_state.get(message_key)
    if old:
        text = f"{old['text']} {text}"
        kind = max(old["kind"], kind, key=_RANK.index)
    st.session_state[message_key] = {"text": text, "kind": kind, "id": time.monotonic_ns()}


def take_value(value: EditorValue, work: WorkState, *, text: str, schema: LabelSchema, doc_id: int,
               layer: str, user: str) -> tuple[ops.EditorSpans, bool]:
    """Check the browser's spans (:func:`pipeline.annotation.edits.from_editor`) and take them into
    ``work`` unless newer ones were taken (an action takes them whatever its sequence number);
    spans the note or the schema does not allow restart the editor from the checked ones.
    ``(checked, taken)``."""
    checked = ops.from_editor(value.spans, text, schema, doc_id, previous=[*work.base, *work.current],
                              source=f"human:{user}", layer=layer)
    taken = work.take(checked.spans, max(value.seq, work.seq) if value.name else value.seq)
    if checked.changed:
        work.restart_from(checked.spans)
    return checked, taken


def follow(value: EditorValue, *, before: Any, after: Any, doc_key: str) -> None:
    """"next"/"prev": open the neighbour in the queue as the user sees it (if there is one)."""
    if value.name in ("next", "prev"):
        target = after if value.name == "next" else before
        if target is not None:
            st.session_state[doc_key] = target
