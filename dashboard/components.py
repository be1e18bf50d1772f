"""Widgets and view helpers shared by the pages: error display, the test injection point of the
span editor (``dashboard/editor``), the colour-coded read-only view of spans, and cached overview figures.

Error display (:func:`guard`, :func:`report_error`): only messages of the workbench's own error
types are shown (they never quote document text); anything else becomes "Something went wrong
(error id ...)" and one log line with the id and the exception's type - no message, no
traceback, because either could quote a document.
"""
from __future__ import annotations

import contextlib
import html
import logging
import uuid
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import streamlit as st

from pipeline.annotation.work import spans_to_json
from pipeline.errors import is_user_error
from pipeline.risk.marks import reason_marks
from pipeline.spans import Span
from services import jobs, session, worklists

log = logging.getLogger("workbench.app")

# --------------------------------------------------------------------------- errors


def report_error(e: BaseException) -> None:
    """Show ``e`` to the user: its message if it is a workbench error, else an error id."""
    if is_user_error(e):
        if getattr(e, "show_as", "error") == "info":  # e.g. "there is no project yet": not a failure
            st.info(str(e), icon=":material/info:")
        else:
            st.error(str(e), icon=":material/error:")
        return
    eid = uuid.uuid4().hex[:10]
    log.error("error id %s: %s", eid, type(e).__name__)
    st.error(f"Something went wrong (error id {eid}). Nothing you did not see confirmed was saved.",
             icon=":material/error:")


@contextlib.contextmanager
def guard() -> Iterator[None]:
    """Run a block, showing any exception with :func:`report_error` instead of a traceback.
    Streamlit's own control flow (``st.rerun``, ``st.stop``) is a ``BaseException`` and passes."""
    try:
        yield
    except Exception as e:  # noqa: BLE001 - the point is to catch everything the page raised
        report_error(e)


# --------------------------------------------------------------------------- test injection

#: Environment flag set by the tests (``tests/apptest_helpers.py``). Only when it is "1" does the
#: span editor (:func:`dashboard.editor.span_editor`) honour an injected value: AppTest cannot run
#: a component's JavaScript.
TEST_ENV = "WORKBENCH_APPTEST"
INJECT_PREFIX = "_test_inject:"


def inject_key(key: str) -> str:
    """Session-state key a test sets to stand in for what the browser component ``key`` sends."""
    return INJECT_PREFIX + key


# --------------------------------------------------------------------------- colour-coded view

CATEGORY_COLOURS: dict[str, str] = {
    "NAME": "#ffadad", "PROFESSION": "#ffd6a5", "LOCATION": "#fdffb6", "AGE": "#caffbf",
    "DATE": "#9bf6ff", "CONTACT": "#a0c4ff", "ID": "#bdb2ff", "OTHER": "#ffc6ff",
}
_FALLBACK = ("#e0e0e0", "#d7ccc8", "#c8e6c9", "#b3e5fc", "#f8bbd0", "#fff9c4")


def category_colour(category: str) -> str:
    if category in CATEGORY_COLOURS:
        return CATEGORY_COLOURS[category]
    return _FALLBACK[sum(map(ord, category)) % len(_FALLBACK)]


def legend_html(categories: Iterable[str]) -> str:
    items = "".join(
        f'<span style="background:{category_colour(c)};padding:1px 6px;margin-right:6px;border-radius:3px">'
        f"{html.escape(c)}</span>" for c in categories)
    return f'<div style="font-size:0.85em;margin-bottom:4px">{items}</div>'


def _span_title(s: Span) -> str:
    return f"{s.label} ({s.category}) | {s.source or '-'} | score {s.score:.2f}"


def spans_html(text: str, spans: Sequence[Span], *, low_confidence: float = 0.7,
               marks: Mapping[int, str] | None = None) -> str:
    """Read-only HTML of ``text`` with every span marked in its category's colour.

    Text is HTML-escaped. Each span carries a tooltip (label, category, source, score) and a
    small tag after it with its label; spans scored below ``low_confidence`` get a dashed red
    border and their score in the tag. Overlapping stretches get a double outline. ``marks``
    (span index -> extra tag text, e.g. "#3") lets a page number spans.
    """
    spans = sorted(spans, key=lambda s: (s.start, s.end))
    cuts = sorted({0, len(text), *(max(0, min(len(text), s.start)) for s in spans),
                   *(max(0, min(len(text), s.end)) for s in spans)})
    ends_at: dict[int, list[int]] = {}
    for i, s in enumerate(spans):
        ends_at.setdefault(s.end, []).append(i)
    out: list[str] = []
    for a, b in zip(cuts, cuts[1:]):
        piece = html.escape(text[a:b])
        covering = [s for s in spans if s.start <= a and b <= s.end]
        if covering:
            s = covering[0]
            low = s.score < low_confidence
            border = "2px dashed #c62828" if low else ("3px double #333" if len(covering) > 1 else "1px solid #999")
            out.append(f'<span title="{html.escape(_span_title(s))}" style="background:{category_colour(s.category)};'
                       f'border:{border};border-radius:3px;padding:0 1px">{piece}</span>')
        else:
            out.append(piece)
        for i in ends_at.get(b, []):
            s = spans[i]
            tag = s.label + (f" {s.score:.2f}" if s.score < low_confidence else "")
            if marks and i in marks:
                tag = f"{marks[i]} {tag}"
            colour = "#c62828" if s.score < low_confidence else "#555"
            out.append(f'<sup style="font-size:0.65em;color:{colour};margin-left:1px">{html.escape(tag)}</sup>')
    body = "".join(out)
    return ('<div class="wb-spans" style="white-space:pre-wrap;line-height:2.0;font-family:ui-monospace,monospace;'
            f'font-size:0.9em;border:1px solid #ddd;padding:8px;border-radius:4px">{body}</div>')


def spans_rows(spans: Sequence[Span]) -> list[dict[str, Any]]:
    """Table rows (offsets, labels, source, score; no text) for ``st.dataframe``."""
    return [{"start": s.start, "end": s.end, "type": s.type, "category": s.category, "source": s.source,
             "score": round(float(s.score), 3)} for s in spans]


# --------------------------------------------------------------------------- cached figures

@st.cache_data(show_spinner=False, max_entries=64)
def project_overview(db_path: str, project_id: int, version: int) -> dict[str, Any]:
    """:func:`services.worklists.project_overview`, cached (counts only, no text).
    ``version`` (``state.data_version``) is part of the cache key, so any write to the store
    refreshes it."""
    return worklists.project_overview(session.thread_db(db_path), project_id)


# --------------------------------------------------------------------------- refused saves

def stale_panel(work: Any, *, key: str, file_name: str, latest_version: Any) -> bool:
    """What a page shows after a refused (stale) save: the message, that the spans are kept,
    a JSON download of them, "reload the saved version" and "keep mine on top of the latest".

    ``work`` is a :class:`pipeline.annotation.work.WorkState`; ``latest_version()`` reads the
    stored version. Returns True when the user chose to reload (the caller drops its work).
    """
    if not work.stale:
        return False
    st.error(f"Not saved: {work.stale}")
    st.info("Your unsaved spans are kept in this session. Download them, then either reload the saved "
            "version (discarding yours) or keep yours on top of the latest version and save again.")
    c1, c2, c3 = st.columns(3)
    c1.download_button("Download my spans (JSON)", key=f"{key}.download",
                       data=spans_to_json(work.doc_id, work.layer, work.base_version, work.current),
                       file_name=file_name, mime="application/json")
    if c2.button("Reload the saved version", key=f"{key}.reload"):
        return True
    if c3.button("Keep mine on top of the latest version", key=f"{key}.rebase"):
        version = int(latest_version())
        work.rebase(version)
        work.notice = f"Your spans now build on version {version}; save to overwrite it."
        st.rerun()
    return False


# --------------------------------------------------------------------------- messages across a rerun

FLASH_KEY = "wb.flash"


def flash(message: str) -> None:
    """Keep a success message for the next run (then ``st.rerun()`` so tables show the change)."""
    st.session_state.setdefault(FLASH_KEY, []).append(message)


def show_flash() -> None:
    """Show and clear the messages kept by :func:`flash`."""
    for message in st.session_state.pop(FLASH_KEY, []):
        st.success(message)


def render_job(db, job, *, user: session.User, key: str, counts: bool = False, title: bool = False,
               chart: Callable[[Any], None] | None = None) -> None:
    """One running job: its progress bar and message, an optional chart, and a Cancel button
    (the right to cancel is checked on the server, :func:`services.jobs.cancel_job`).

    ``title`` puts "Job N · kind · status · started by" above the bar (pages that list several
    jobs); otherwise the bar's text names the job. ``counts`` adds "(done/total)"."""
    text = job.message or job.status
    if title:
        who = f" · started by {job.created_by}" if job.created_by else ""
        st.markdown(f"**Job {job.id} · {jobs.KIND_WORDS.get(job.kind, job.kind)}** · {job.status}{who}")
    else:
        text = f"Job #{job.id}: {text}"
    if counts:
        text += f" ({int(job.progress or 0)}/{int(job.total or 0)})"
    st.progress(job.fraction or 0.0, text=text)
    if chart is not None:
        chart(job)
    if job.cancel_requested:
        st.caption("Cancellation requested.")
    elif st.button("Cancel", key=f"{key}.cancel.{job.id}", icon=":material/cancel:"):
        with guard():
            jobs.cancel_job(db, user, job.id)
            st.info(f"Cancellation of job {job.id} requested; the worker stops at its next check.")


def job_progress(job_id: int | None, *, user: session.User, key: str, counts: bool = False):
    """A running job's progress (:func:`render_job`, polled every second in a fragment), or the
    finished job for the page to report on; ``None`` when there is no job to show.

    The job is read from the store on every run, so a reload or another browser shows the same
    progress; a job whose worker stopped beating is marked failed first.
    """
    from dashboard import state

    if job_id is None:
        return None
    db = state.get_db()
    job = jobs.get_job(db, int(job_id))
    if job.finished:
        return job
    jobs.fail_stale_jobs(db)

    @st.fragment(run_every=1.0)
    def _poll() -> None:
        fdb = state.get_db()
        j = jobs.get_job(fdb, int(job_id))
        if j.finished:
            st.rerun()
        render_job(fdb, j, user=user, key=key, counts=counts)

    _poll()
    return None


#: How a de-identified text marks what was done to each span, so a reader tells a surrogate
#: from an original at a glance and a missed name (unmarked) stands out.
OUTPUT_MARKS = {
    "replace": ("surrogate", "border-bottom:2px solid #2e7d32;background:#e8f5e9;"),
    "shift": ("shifted date or age", "border-bottom:2px solid #2e7d32;background:#e8f5e9;"),
    "redact": ("placeholder", "background:#eceff1;color:#37474f;border-radius:3px;"),
    "keep": ("kept as written", "border-bottom:2px dashed #f9a825;"),
}


def output_legend_html() -> str:
    items = "".join(f'<span style="{style}padding:0 4px;margin-right:10px">{html.escape(words)}</span>'
                    for words, style in dict.fromkeys(OUTPUT_MARKS.values()))
    return (f'<div style="font-size:0.8em;margin-bottom:4px">{items}'
            '<span style="color:#555">unmarked text: as in the original</span></div>')


def deid_output_html(text: str, spans: Sequence[Span], *, actions: Sequence[str] | None = None,
                     reasons: Sequence[dict] = (), reason_words: Mapping[str, str] | None = None,
                     css_class: str = "wb-deid") -> str:
    """A de-identified text (escaped, line breaks kept) with every output span marked by what
    was done to it (:data:`OUTPUT_MARKS`: surrogate, placeholder, kept) and, for risk triage,
    each reason's entity boxed in red and its context shaded. Tooltips name the action, the
    label and the reasons (kinds only, no text). The action of a span is ``actions[i]`` when given
    (a fresh result), else what its stored ``deid:<action>:...`` layer says."""
    from pipeline.layers import parse_output_layer

    reason_words = reason_words or {}
    n = len(text)
    marks = reason_marks(list(reasons), n)
    acts = list(actions) if actions is not None else [parse_output_layer(s.layer)[0] for s in spans]
    action_of = {id(s): a for s, a in zip(spans, acts)}
    spans = sorted((s for s in spans if 0 <= s.start < s.end <= n), key=lambda s: (s.start, s.end))
    cuts = sorted({0, n, *(a for a, _, _ in marks), *(b for _, b, _ in marks),
                   *(s.start for s in spans), *(s.end for s in spans)})
    kinds: dict[tuple[int, int], set[str]] = {}
    for r in reasons:
        for a, b in ((r.get("start"), r.get("end")), (r.get("context_start"), r.get("context_end"))):
            if a is not None and b is not None:
                kinds.setdefault((int(a), int(b)), set()).add(reason_words.get(r.get("kind", ""), r.get("kind", "")))
    out = []
    for a, b in zip(cuts, cuts[1:]):
        piece = html.escape(text[a:b])
        span = next((s for s in spans if s.start <= a and b <= s.end), None)
        ent = [m for m in marks if m[2] == "entity" and m[0] <= a and b <= m[1]]
        con = [m for m in marks if m[2] == "context" and m[0] <= a and b <= m[1]]
        if span is None and not ent and not con:
            out.append(piece)
            continue
        title, style = [], ""
        if con:
            style += "background:#fff3cd;"
        if span is not None:
            words, s_style = OUTPUT_MARKS.get(action_of.get(id(span), "replace"), OUTPUT_MARKS["replace"])
            style += s_style
            title.append(f"{words} ({span.label})")
        if ent:
            style += "border:2px solid #c62828;border-radius:3px;font-weight:600;"
        title += sorted({k for m in ent + con for k in kinds.get((m[0], m[1]), ())})
        out.append(f'<span title="{html.escape("; ".join(title))}" style="{style}">{piece}</span>')
    return (f'<div class="{css_class}" style="white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.9;'
            'font-family:ui-monospace,monospace;font-size:0.9em;border:1px solid #ddd;padding:8px;border-radius:4px">'
            + "".join(out) + "</div>")
