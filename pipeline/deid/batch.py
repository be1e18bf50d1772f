"""Many documents: one pass to learn each patient's PHI, one to de-identify, then a summary.

The first pass gathers every patient's real values across the batch, so a surrogate avoids all
of them (not only those of its own note) and the leak scan looks for a patient's PHI in all of
that patient's notes; it is also what makes the choice of a patient's date offset the same for
each of their notes. Skipped documents (``done_ids``, for resuming) still take part in that
pass, so a resumed run writes exactly what an uninterrupted one would have.

Outputs are named by keyed pseudonyms (:mod:`pipeline.deid.pseudonyms`); the batch refuses two
inputs whose names would clash before it de-identifies anything.
"""
from __future__ import annotations

import io
import os
import tempfile
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Collection, Sequence

from pipeline.deid.context import DeidContext
from pipeline.detection.parallel import spread_map
from pipeline.deid.engine import deidentify, patient_id_of
from pipeline.deid.resolved import collect_originals
from pipeline.deid.result import DeidResult
from pipeline.deid.leaks import LOCATIONS, Leak
from pipeline.deid.profile import Profile
from pipeline.deid.pseudonyms import output_ids
from pipeline.spans import Document, Span

Progress = Callable[[int, int], None]
MAX_LEAK_DETAILS = 200      # leak locations listed in a summary (all are counted)


@dataclass
class BatchSummary:
    """Counts for a run; no document text, no PHI.

    ``leaks`` counts both checks of :mod:`pipeline.deid.leaks` (by category, by location: text,
    meta, id, name); ``leak_details`` lists the first :data:`MAX_LEAK_DETAILS` of them by output
    id, category and offsets. ``merged_overlaps``: input spans merged into an overlapping one
    (their union is rewritten); ``uncovered_chars``: input PHI characters left unrewritten (0
    unless something is wrong). ``renamed_documents``/``renamed_patients``: ids replaced by
    pseudonyms; ``dropped_meta_keys``: metadata keys the profile did not allow.
    ``paraphrased``: spans the project's language model filled; ``paraphrase_fallbacks``:
    ``paraphrase`` spans that got a list surrogate instead, by reason (``no_model``: there was
    no model; ``no_slot``: nothing in the span a model fills; ``no_candidate``: nothing it
    proposed passed the checks; ``project_value``: its fill was, or held, a real PHI value of the
    project, see :mod:`pipeline.deid.project_values`).
    """

    documents: int = 0
    skipped: int = 0
    spans: dict[str, dict[str, int]] = field(default_factory=dict)      # category -> action -> n
    leaks: int = 0
    leaks_by_category: dict[str, int] = field(default_factory=dict)
    leaks_by_location: dict[str, int] = field(default_factory=dict)
    leak_details: list[dict] = field(default_factory=list)
    uncovered_chars: int = 0
    unparseable_dates: int = 0
    unparseable_ages: int = 0
    fallbacks: int = 0
    paraphrased: int = 0
    paraphrase_fallbacks: dict[str, int] = field(default_factory=dict)
    merged_overlaps: int = 0
    propagated: int = 0
    renamed_documents: int = 0
    renamed_patients: int = 0
    dropped_meta_keys: int = 0
    surrogates: int = 0
    same_rate: float = 0.0
    mean_trigram_similarity: float = 0.0
    diversity: float = 0.0
    quality_by_category: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    @property
    def list_fallbacks(self) -> int:
        """``paraphrase`` spans that got a list surrogate (every reason)."""
        return sum(self.paraphrase_fallbacks.values())

    def fallback_note(self) -> str:
        """What the page and the command line say about paraphrase spans without a model ("" if none)."""
        return fallback_note(self.paraphrase_fallbacks)

    def line(self) -> str:
        """One line for logs and the CLI."""
        per_cat = ", ".join(f"{c}={sum(a.values())}" for c, a in sorted(self.spans.items()))
        acts = Counter()
        for a in self.spans.values():
            acts.update(a)
        per_act = ", ".join(f"{k}={v}" for k, v in sorted(acts.items()))
        where = ""
        if self.leaks:
            where = "[" + ", ".join(f"{k}={self.leaks_by_location[k]}" for k in LOCATIONS
                                    if self.leaks_by_location.get(k)) + "]"
        return (f"documents={self.documents} skipped={self.skipped} spans[{per_cat}] actions[{per_act}] "
                f"leaks={self.leaks}{where} uncovered_chars={self.uncovered_chars} "
                f"unparseable_dates={self.unparseable_dates} fallbacks={self.fallbacks} "
                f"propagated={self.propagated} merged_overlaps={self.merged_overlaps} "
                f"renamed[documents={self.renamed_documents}, patients={self.renamed_patients}] "
                f"dropped_meta_keys={self.dropped_meta_keys} "
                f"same_rate={self.same_rate:.3f} trigram_similarity={self.mean_trigram_similarity:.3f} "
                f"diversity={self.diversity:.3f}" + self._paraphrase_part())

    def _paraphrase_part(self) -> str:
        if not (self.paraphrased or self.paraphrase_fallbacks):
            return ""
        why = ", ".join(f"{k}={v}" for k, v in sorted(self.paraphrase_fallbacks.items()))
        return f" paraphrased={self.paraphrased} list_fallbacks={self.list_fallbacks}" + (f"[{why}]" if why else "")


def fallback_note(fallbacks: dict[str, int]) -> str:
    """"N spans fell back to list surrogates: no project language model" (and the other reasons)."""
    parts = []
    n = int(fallbacks.get("no_model", 0))
    if n:
        parts.append(f"{n} span{'s' if n != 1 else ''} fell back to list surrogates: no project language model")
    n = int(fallbacks.get("no_slot", 0))
    if n:
        parts.append(f"{n} span{'s' if n != 1 else ''} had nothing a language model fills (list surrogates)")
    n = int(fallbacks.get("no_candidate", 0))
    if n:
        parts.append(f"{n} span{'s' if n != 1 else ''} got no acceptable infill (list surrogates)")
    n = int(fallbacks.get("project_value", 0))
    if n:
        parts.append(f"{n} infill{'s' if n != 1 else ''} held a real value of the project and "
                     f"{'were' if n != 1 else 'was'} replaced by list surrogates")
    n = int(fallbacks.get("shape", 0))
    if n:
        parts.append(f"{n} infill{'s' if n != 1 else ''} lacked the shape of {'their' if n != 1 else 'its'} "
                     f"type and {'were' if n != 1 else 'was'} replaced by list surrogates")
    n = int(fallbacks.get("address", 0))
    if n:
        parts.append(f"{n} address part{'s' if n != 1 else ''} took {'their' if n != 1 else 'its'} "
                     f"address's list surrogate, so that city, state and postcode agree")
    return "; ".join(parts)


@dataclass
class BatchResult:
    results: list[DeidResult]
    summary: BatchSummary

    @property
    def leaks(self) -> list[Leak]:
        return [lk for r in self.results for lk in r.leaks]

    def documents(self) -> list[Document]:
        return [r.to_document() for r in self.results]


def _quality(results: Sequence[DeidResult]) -> tuple[int, float, float, float, dict[str, dict[str, float]]]:
    recs = [q for r in results for q in r.quality]

    def stats(rs) -> tuple[float, float, float]:
        if not rs:
            return 0.0, 0.0, 0.0
        same = sum(q.same for q in rs) / len(rs)
        sim = sum(q.similarity for q in rs) / len(rs)
        origs = {q.original_digest for q in rs}
        surrs = {q.surrogate_digest for q in rs}
        return same, sim, len(surrs) / len(origs)

    by_cat: dict[str, dict[str, float]] = {}
    for cat in sorted({q.category for q in recs}):
        rs = [q for q in recs if q.category == cat]
        same, sim, div = stats(rs)
        by_cat[cat] = {"surrogates": len(rs), "same_rate": same, "mean_trigram_similarity": round(sim, 4),
                       "diversity": round(div, 4)}
    same, sim, div = stats(recs)
    return len(recs), same, round(sim, 4), round(div, 4), by_cat


def leak_detail(r: DeidResult, lk: Leak) -> dict:
    """A leak as a summary lists it: the document by its output id (a pseudonym), never its input name."""
    return {**lk.to_dict(), "doc_id": r.output_id}


def summarize(results: Sequence[DeidResult], skipped: int = 0) -> BatchSummary:
    """Summary of per-document results. Diversity = distinct surrogates / distinct originals
    (normalised strings, over the whole batch): below 1 means different originals share a surrogate."""
    spans: dict[str, Counter] = {}
    leaks_by_cat: Counter = Counter()
    leaks_by_loc: Counter = Counter()
    details: list[dict] = []
    for r in results:
        for cat, acts in r.counts.items():
            spans.setdefault(cat, Counter()).update(acts)
        for lk in r.leaks:
            leaks_by_cat[lk.category] += 1
            leaks_by_loc[lk.location] += 1
            if len(details) < MAX_LEAK_DETAILS:
                details.append(leak_detail(r, lk))
    n, same, sim, div, by_cat = _quality(results)
    return BatchSummary(
        documents=len(results), skipped=skipped, spans={c: dict(v) for c, v in sorted(spans.items())},
        leaks=sum(leaks_by_cat.values()), leaks_by_category=dict(leaks_by_cat),
        leaks_by_location=dict(leaks_by_loc), leak_details=details,
        uncovered_chars=sum(r.uncovered_chars for r in results),
        unparseable_dates=sum(r.unparseable_dates for r in results),
        unparseable_ages=sum(r.unparseable_ages for r in results),
        fallbacks=sum(r.fallbacks for r in results), merged_overlaps=sum(r.merged_overlaps for r in results),
        paraphrased=sum(r.paraphrased for r in results),
        paraphrase_fallbacks=dict(sorted(sum((Counter(r.paraphrase_fallbacks) for r in results), Counter()).items())),
        propagated=sum(r.propagated for r in results),
        renamed_documents=sum(1 for r in results if r.output_id),
        renamed_patients=sum(1 for r in results if r.output_patient_id),
        dropped_meta_keys=sum(r.meta_dropped for r in results),
        surrogates=n, same_rate=same, mean_trigram_similarity=sim, diversity=div, quality_by_category=by_cat,
    )


def deidentify_batch(docs: Sequence[Document], profile: Profile, ctx: DeidContext, *,
                     progress: Progress | None = None, done_ids: Collection[str] = (),
                     spans: dict[str, list[Span]] | None = None, workers: int | None = 1) -> BatchResult:
    """De-identify ``docs`` (their own spans, or ``spans[doc_id]`` when given).

    ``done_ids``: documents already written by an interrupted run; they are skipped (but still
    inform each patient's surrogates, so the output is identical to a full run). ``progress``
    is called as ``progress(done, total)`` after each document (after each few, on workers).
    ``workers``: processes to spread the second pass over (None: every usable core, see
    :func:`pipeline.detection.parallel.spread_map`; whole patients per task, the results those
    of one process); 1 (default): this process, as the app's own process must.
    """
    spans = spans or {}
    done = set(done_ids)
    output_ids(docs, ctx.secret)        # two inputs that would share an output name: refused now
    run_ctx = DeidContext(secret=ctx.secret, locale=ctx.locale, extra_lists=ctx.extra_lists,
                          list_loader=ctx.list_loader,
                          patient_originals={k: list(v) for k, v in ctx.patient_originals.items()},
                          infiller=ctx.infiller, project_values=ctx.project_values)
    run_ctx._lists, run_ctx._sets, run_ctx._derived = ctx._lists, ctx._sets, ctx._derived
    for doc in docs:
        pid = patient_id_of(doc)
        run_ctx.add_patient_originals(pid, collect_originals(doc, spans.get(doc.doc_id, doc.spans), profile))
    todo = [d for d in docs if d.doc_id not in done]
    # paraphrase fills depend on the patient's earlier notes (pipeline.deid.paraphrase.PatientMemory):
    # skipped documents are de-identified too (and dropped), so a resume writes what a full run would
    replay = bool(done) and ctx.infiller is not None and profile.uses_paraphrase()
    results: list[DeidResult] = []
    if ctx.infiller is not None:    # a language model (torch) is never forked; paraphrase replays in order
        workers = 1
    work = [d for d in docs if d.doc_id not in done or replay]

    def one(doc: Document) -> DeidResult:
        return deidentify(doc, spans.get(doc.doc_id, doc.spans), profile, run_ctx)

    # one process: one task, in input order; workers: whole patients per task, results put back in input order
    tasks = [work] if workers == 1 else patient_tasks(work)
    for chunk in spread_map(one, tasks, workers=workers):
        for r in chunk:
            if r.doc_id in done:
                continue
            results.append(r)
            if progress:
                progress(len(results), len(todo))
    if len(tasks) > 1:
        order = {d.doc_id: k for k, d in enumerate(docs)}
        results.sort(key=lambda r: order[r.doc_id])
    return BatchResult(results, summarize(results, skipped=len(docs) - len(todo)))


def patient_tasks(docs: Sequence[Document], size: int = 8) -> list[list[Document]]:
    """``docs`` cut into tasks of about ``size`` notes that keep each patient's notes together
    and in order (their surrogates are chosen together); the tasks in order of their first
    note. Concatenated, the tasks are ``docs`` itself when each patient's notes are contiguous
    (as one process handles them); otherwise each patient's notes move up to their first one.
    """
    by_patient: dict[str, list[Document]] = {}
    for d in docs:
        by_patient.setdefault(patient_id_of(d), []).append(d)
    tasks: list[list[Document]] = [[]]
    for notes in by_patient.values():
        if tasks[-1] and len(tasks[-1]) + len(notes) > size:
            tasks.append([])
        tasks[-1].extend(notes)
    return tasks if tasks[0] else []


def _as_documents(items: Sequence[Document | DeidResult]) -> list[Document]:
    return [x.to_document() if isinstance(x, DeidResult) else x for x in items]


def write_outputs(items: Sequence[Document | DeidResult], out_dir: str | os.PathLike, fmt: str) -> list[Path]:
    """Write de-identified documents (with their new spans) through ``pipeline.formats``."""
    from pipeline.formats import write_collection
    return write_collection(_as_documents(items), out_dir, fmt)


def zip_outputs(items: Sequence[Document | DeidResult], fmt: str) -> bytes:
    """The written files as one zip (sorted names, fixed timestamps: same input, same bytes)."""
    docs = _as_documents(items)
    buf = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="deid-zip-") as tmp:
        write_outputs(docs, tmp, fmt)
        files = sorted(p for p in Path(tmp).rglob("*") if p.is_file())
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for p in files:
                info = zipfile.ZipInfo(p.relative_to(tmp).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o600 << 16
                zf.writestr(info, p.read_bytes())
    return buf.getvalue()
