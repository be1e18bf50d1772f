"""The leak check of one de-identified document, read from its *input* spans: characters left
outside every rewritten span, originals found in the output's text, metadata, ids and file
names, and real project values inside the surrogates the engine made up.

Apart from :mod:`pipeline.deid.engine` because the check must stand on its own: it is given the
engine's edits and trusts nothing else the engine decided (the needles and the search live in
:mod:`pipeline.deid.leaks`).
"""
from __future__ import annotations

import bisect
from typing import Callable, Sequence

from pipeline.deid.leaks import Leak, Needle, field_text, find_leaks, merge_needles, needles, scan_fields, uncovered
from pipeline.deid.operators import fixed_text, rewrites
from pipeline.deid.profile import Profile
from pipeline.deid.pseudonyms import blank_generated, file_names
from pipeline.spans import Document, Span


def _identifier_needles(doc: Document, pid: str | None) -> list[Needle]:
    """The input's own names (document id, patient id, file name) as needles for the non-text
    locations: an output id or metadata value that repeats one of them is a leak."""
    values = [("ID", "DOCUMENT_ID", str(doc.doc_id), "document")]
    if pid:
        values.append(("ID", "PATIENT_ID", str(pid), "patient"))
    if doc.source_file:
        stem = str(doc.source_file).replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        values.append(("ID", "FILE_NAME", stem, "document"))
    return needles(values)[0]


def _output_offsets(placed: Sequence[tuple[Span, int, int]]) -> Callable[[int], int]:
    """Maps an input offset outside every edit to its output offset."""
    edits = sorted(((s.start, s.end, ne - ns) for s, ns, ne in placed))
    ends = [e for _, e, _ in edits]
    shift = [0]
    for start, end, new_len in edits:
        shift.append(shift[-1] + new_len - (end - start))

    def to_output(pos: int) -> int:
        return pos + shift[bisect.bisect_right(ends, pos)]
    return to_output


ProjectHits = Callable[[str, str], list[tuple[int, int]]]


def project_value_leaks(doc_id: str, new_text: str, placed: Sequence[tuple[Span, int, int]],
                        actions: Sequence[str], project_hits: ProjectHits) -> list[Leak]:
    """Real project values inside the surrogates written (output offsets; never the value)."""
    out = []
    for (s, ns, ne), a in zip(placed, actions):
        if not rewrites(a) or fixed_text(a):
            continue
        for x, y in project_hits(new_text[ns:ne], s.category):
            out.append(Leak(doc_id, s.category, s.type, ns + x, ns + y, "project", "text", "project_value"))
    return out


def check_leaks(doc: Document, spans: Sequence[Span], profile: Profile, *, new_text: str,
                placed: Sequence[tuple[Span, int, int]], actions: Sequence[str], prepared: Sequence[Needle],
                output_id: str, output_patient_id: str | None, meta: dict,
                patient_id: str | None = None,
                project_hits: ProjectHits | None = None) -> tuple[list[Leak], int]:
    """The leak check of one output, from the *input* spans; returns (leaks, uncovered characters).

    * coverage: each input span the profile does not keep must lie inside rewritten spans
      (``placed``/``actions``: the engine's edits); a stretch outside them is a leak at its
      output offsets;
    * strings: ``prepared`` (every original of the input spans and of the patient's other
      notes, see :func:`pipeline.deid.leaks.needles`) searched in the text outside kept spans
      and placeholders, and with the input's own ids in the metadata, the ids and the file names;
    * project values: ``project_hits(text, category)`` (the run's keyed set of the project's PHI
      values, :meth:`pipeline.deid.context.DeidContext.project_value_hits`) over every surrogate
      the engine made up (not kept text, not placeholders): a real value of *another* note of the
      project, not a public list entry, is a leak too (``kind="project_value"``).
    """
    rewritten = [(s.start, s.end) for (s, _, _), a in zip(placed, actions) if rewrites(a)]
    must = [s for s in spans if rewrites(profile.action_for(s.category, s.type))]
    to_output = _output_offsets(placed)
    leaks: list[Leak] = []
    holes: list[tuple[int, int]] = []
    n_uncovered = 0
    for s, a, b in uncovered(must, rewritten, doc.text):
        n_uncovered += sum(not c.isspace() for c in doc.text[a:b])
        oa, ob = to_output(a), to_output(b)
        holes.append((oa, ob))
        leaks.append(Leak(doc.doc_id, s.category, s.type, oa, ob, "document", "text", "uncovered"))
    # not leaks: hits inside a kept span (the profile keeps it) or inside a placeholder (the
    # profile's template, "[AGE]", whatever the original was: a patient called "Age" is not in it)
    fixed = [(ns, ne) for (_, ns, ne), a in zip(placed, actions) if fixed_text(a)]
    found, _ = find_leaks(doc.doc_id, new_text, kept_ranges=fixed, prepared=prepared)
    leaks += [lk for lk in found if not any(a <= lk.start and lk.end <= b for a, b in holes)]
    if project_hits is not None:
        leaks += project_value_leaks(doc.doc_id, new_text, placed, actions, project_hits)
    # the prefix and extension the tool writes are no one's PHI ("Ann" is not in "doc-….ann")
    fields = {"meta": field_text([meta]) if meta else "",
              "id": blank_generated("id", field_text([output_id, output_patient_id])),
              "name": blank_generated("name", field_text(file_names(output_id)))}
    leaks += scan_fields(doc.doc_id, fields, merge_needles(prepared, _identifier_needles(doc, patient_id)))
    order = {"text": 0, "meta": 1, "id": 2, "name": 3}
    leaks.sort(key=lambda x: (order.get(x.location, 9), x.start, x.end, x.category, x.kind))
    return leaks, n_uncovered
