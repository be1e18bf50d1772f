"""De-identification of a project's documents as a run (a job), of uploads (in the app's
process, nothing stored), and exports of the results.

* :func:`deidentify_job` (job kind ``deidentify``): documents of a project -> a
  de-identification run with one output per document (``store.save_deid_outputs``, upserted on
  (run, document)), then risk scoring of the run (:func:`services.risk.score_run_risk`). Spans
  come from a layer (``gold`` by default); a document without that layer is detected
  (:func:`services.detectors.detector_for`) unless ``missing="skip"``. Outputs are saved in
  chunks as the run goes, so an interrupted run keeps its work; rerunning it (``run_id``)
  writes only the documents it lacks.
* :func:`deidentify_documents` / :func:`deidentify_upload`: an upload on the De-identify page.
* :func:`stored_outputs_as_documents` / :func:`export_outputs`: a run or an upload as a zip.

Why a resumed run de-identifies its finished documents again (in memory, not saved): every
document of a patient informs the others' surrogates and leak scan (see
:mod:`pipeline.deid.batch`), so their spans are needed anyway, de-identification alone runs at
hundreds of notes a second, and it gives an exact summary for the whole run and a check that
the stored outputs are what this run would write (``resume_mismatches``).

A resume with another profile or secret key is refused before anything is written: a run
stores the fingerprint of both (:func:`pipeline.deid.run_fingerprint`, ``deid_runs.fingerprint``)
and the resume recomputes it. A run from before fingerprints is checked output by output first.

Leaks fail a run: a run whose leak check (:mod:`pipeline.deid.leaks`: input PHI left in the
text, metadata, ids or names) finds anything is closed ``failed`` with ``counts["failure"] =
"leaks"`` (:attr:`store.DeidRun.failed_leak_check`). Its outputs stay stored, so the page can
show where the leaks are, but it is not scored for risk (the Risk page does not list it), not
resumable (a resume would rewrite the same outputs: fix the spans and start a new run) and not
exported. An interrupted run is ``failed`` too, without that mark, and stays resumable.

Outputs are named by keyed pseudonyms (``doc-3f9a1c2b7e4d``): the name is stored with each
output (``deid_outputs.output_name``), the only place the mapping lives; exports use it for
file names and ids and carry no metadata.

What an output span carries: ``layer`` is ``deid:<action>:<input layer>``
(:func:`pipeline.layers.output_layer`) and ``source``/``score`` are the input span's, so risk
scoring can tell kept spans, machine-only and unreviewed low-confidence detections apart
without the inputs.

Paraphrase: a profile with the ``paraphrase`` action loads the project's masked language
model (:func:`services.infill.project_infiller`; list surrogates, counted, where the project has
none). The model goes into the run's fingerprint, so a resume after it was retrained is
refused. Such a run also computes its quality table against list surrogates (same documents
and spans, de-identified in memory; :func:`pipeline.deid.quality.compare_with_list_surrogates`,
figures only, on at most :data:`MAX_QUALITY_DOCS` documents) and stores it with the run
(``quality["comparison"]``).

Nothing here logs or returns document text: results, run counts and errors name ids,
offsets, categories and numbers only.
"""
from __future__ import annotations

import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from sqlite_utils import Database

import store
from store.deid import LEAK_FAILURE
from pipeline.deid import BatchResult, DeidContext, DeidResult, Profile, builtin_profiles, deidentify, deidentify_batch
from pipeline.deid import document_pseudonym, mismatch, patient_id_of, run_fingerprint, zip_outputs
from pipeline.deid.pseudonyms import output_ids
from pipeline.deid.batch import BatchSummary, summarize
from pipeline.deid.engine import collect_originals
from pipeline.errors import WorkbenchError
from pipeline.formats.uploads import read_upload
from pipeline.layers import DETECTED, GOLD, output_layer, parse_output_layer
from pipeline.spans import Document, Span
from services import access
from services.detectors import DetectorChoice, detect_documents, detector_for
from services.jobs import JobCancelled, JobContext, start_job
from services.risk import risk_line, score_run_risk
from services.settings import STALE_JOB_SECONDS, db_path_of, project_locale, project_secret

log = logging.getLogger(__name__)

DEFAULT_LAYER = GOLD
DEFAULT_PROFILE = "replace"
SAVE_EVERY = 64                   # outputs per store transaction
MAX_LEAK_DETAILS = 500            # leak locations kept with a run (ids, offsets, labels)
MISSING_CHOICES = ("detect", "skip")
EXPORT_FORMATS = ("brat", "xml", "jsonl", "text")
MAX_UPLOAD_DOCS = 5000            # de-identified in the app's process; more: import them and run a job
MAX_QUALITY_DOCS = 500            # documents of a paraphrase run compared with list surrogates


class DeidentificationError(WorkbenchError):
    """A de-identification request that cannot run as asked (safe to show)."""


# --------------------------------------------------------------------------- profiles

def saved_profiles(db: Database, project_id: int) -> dict[str, store.DeidProfile]:
    """Profiles saved for the project, by name."""
    return {p.name: p for p in store.list_deid_profiles(db, project_id)}


def resolve_profile(db: Database, project_id: int, spec: Any) -> Profile:
    """A :class:`pipeline.deid.Profile` from a built-in name (``redact``/``replace``/``paraphrase``), the name of a
    profile saved for the project, a profile dict, or its JSON text."""
    if spec is None or spec == "":
        spec = DEFAULT_PROFILE
    if isinstance(spec, Profile):
        return spec
    if isinstance(spec, dict):
        return Profile.from_json(spec)
    spec = str(spec)
    if spec.lstrip().startswith("{"):
        return Profile.from_json(spec)
    saved = saved_profiles(db, project_id)
    if spec in saved:
        data = dict(saved[spec].profile)
        data.setdefault("name", spec)
        return Profile.from_json(data)
    builtins = builtin_profiles()
    if spec in builtins:
        return builtins[spec]
    raise DeidentificationError(f"unknown de-identification profile {spec!r}: use "
                                f"{', '.join(sorted(set(builtins) | set(saved)))} or a profile JSON")


# --------------------------------------------------------------------------- inputs

@dataclass
class DeidInputs:
    """The documents of a run with the spans to apply and where each document's spans came from."""

    docs: list[Document]                       # spans set (layer or detected)
    input_layer: dict[str, str]                # doc id -> layer name or "detected"
    not_deidentified: list[int] = field(default_factory=list)   # lacked the layer, missing="skip"
    detector: str | None = None
    model_version: str | None = None


def selected_ids(db: Database, project_id: int, doc_ids: Any) -> list[int]:
    """``"all"`` or a list of document ids of the project (unknown ids are refused)."""
    if doc_ids in (None, "all"):
        return [r.id for r in store.list_documents(db, project_id)]
    if isinstance(doc_ids, (str, bytes)):
        raise DeidentificationError("doc_ids must be \"all\" or a list of document ids")
    ids = sorted({int(i) for i in doc_ids})
    known = {r.id for r in store.list_documents(db, project_id, ids=ids)}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise DeidentificationError(f"documents {', '.join(map(str, unknown[:10]))} are not in project {project_id}")
    return ids


def gather_inputs(db: Database, project: store.Project, ids: Sequence[int], layer: str, missing: str, *,
                  detector: DetectorChoice | Callable[[], DetectorChoice] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> DeidInputs:
    """Documents with the spans of ``layer``; those lacking it are detected (``missing="detect"``)
    or left out (``"skip"``)."""
    if missing not in MISSING_CHOICES:
        raise DeidentificationError(f"missing must be one of {', '.join(MISSING_CHOICES)}, not {missing!r}")
    docs = store.load_documents(db, project.id, ids=list(ids))
    by_layer = store.read_project_layer(db, project.id, layer)
    have = [d for d in docs if int(d.doc_id) in by_layer]
    lack = [d for d in docs if int(d.doc_id) not in by_layer]
    for d in have:
        d.spans = list(by_layer[int(d.doc_id)])
    inputs = DeidInputs(docs=have, input_layer={d.doc_id: layer for d in have})
    if lack and missing == "skip":
        inputs.not_deidentified = [int(d.doc_id) for d in lack]
    elif lack:
        choice = detector() if callable(detector) else (detector or detector_for(db, project))
        found = detect_documents(choice, lack, progress=progress)
        for d in lack:
            d.spans = found.get(d.doc_id, [])
            inputs.input_layer[d.doc_id] = DETECTED
        inputs.docs = sorted(have + lack, key=lambda d: int(d.doc_id))
        inputs.detector, inputs.model_version = choice.description, choice.model_version
    return inputs


class RunDeidentifier:
    """De-identifies a batch one document at a time with the batch's patient knowledge.

    Mirrors the first pass of :func:`pipeline.deid.deidentify_batch` (every document's PHI
    values are added to its patient's list before any document is rewritten) so a run can save
    its outputs as it goes; ``tests/test_release_jobs.py`` checks the outputs are identical to
    ``deidentify_batch``'s.
    """

    def __init__(self, docs: Sequence[Document], profile: Profile, ctx: DeidContext) -> None:
        output_ids(docs, ctx.secret)          # two documents sharing an output name: refused first
        self.profile = profile
        self.ctx = DeidContext(secret=ctx.secret, locale=ctx.locale, extra_lists=ctx.extra_lists,
                               list_loader=ctx.list_loader,
                               patient_originals={k: list(v) for k, v in ctx.patient_originals.items()},
                               infiller=ctx.infiller)
        for doc in docs:
            self.ctx.add_patient_originals(patient_id_of(doc), collect_originals(doc, doc.spans, profile))

    def __call__(self, doc: Document) -> DeidResult:
        return deidentify(doc, doc.spans, self.profile, self.ctx)


def output_spans(result: DeidResult, input_layer: str) -> list[Span]:
    """The result's spans as stored: action and input layer in ``layer`` (see :func:`output_layer`)."""
    return [s.with_(layer=output_layer(a, input_layer)) for s, a in zip(result.spans, result.actions)]


def infiller_for(profile: Profile, project: store.Project, db_path: str | os.PathLike):
    """The project's language model when ``profile`` paraphrases (None otherwise, or when the
    project has none: paraphrase spans then get list surrogates, counted)."""
    if not profile.uses_paraphrase():
        return None
    from services.infill import project_infiller

    return project_infiller(project, db_path)


def quality_comparison(docs: Sequence[Document], results: Sequence[DeidResult], profile: Profile, ctx: DeidContext,
                       *, progress: Callable[[int, int], None] | None = None) -> dict:
    """``{"comparison": [rows], "compared_documents": n, "embedding": name|None}`` for a run with
    the ``paraphrase`` action (figures only; see :mod:`pipeline.deid.quality`). The BERTScore
    columns need the project's language model (they are empty without one)."""
    from pipeline.deid.quality import compare_with_list_surrogates

    docs = list(docs)[:MAX_QUALITY_DOCS]
    keep = {d.doc_id for d in docs}
    chosen = [r for r in results if r.doc_id in keep]
    if progress:
        progress(0, 1)
    infiller = ctx.infiller
    embed = getattr(infiller, "embed", None)
    rows = compare_with_list_surrogates(docs, chosen, profile, ctx, embed=embed)
    if progress:
        progress(1, 1)
    return {"comparison": [r.to_dict() for r in rows], "compared_documents": len(chosen),
            "embedding": getattr(infiller, "name", None) if embed is not None else None}


def summary_dicts(summary: BatchSummary, leaks: Iterable[Any] = ()) -> tuple[dict, dict]:
    """``(counts, quality)`` for ``store.finish_deid_run`` from a ``BatchSummary`` (no text)."""
    d = summary.to_dict()
    quality_keys = ("surrogates", "same_rate", "mean_trigram_similarity", "diversity", "quality_by_category")
    quality = {k: d.pop(k) for k in quality_keys if k in d}
    details = [lk.to_dict() if hasattr(lk, "to_dict") else dict(lk) for lk in leaks]
    d["leak_details"] = details[:MAX_LEAK_DETAILS]
    return d, quality


# --------------------------------------------------------------------------- the job

def deidentify_job(ctx: JobContext) -> dict:
    """Params: ``project_id``; ``doc_ids`` (``"all"`` or ids); ``layer`` (``gold``); ``profile``
    (name or JSON); ``missing`` (``detect``/``skip``); ``user``; ``run_id`` to resume a run (a
    ``profile`` given with it must be the run's own); ``risk`` (default True) and
    ``risk_params`` for the scoring that follows (skipped when the run fails the leak check)."""
    p = dict(ctx.params)
    user = p.get("user")
    with store.connect(ctx.db_path) as db:
        resume_id = p.get("run_id")
        secret = project_secret(db_path_of(db))
        if resume_id is not None:
            run = store.get_deid_run(db, int(resume_id))
            _check_resumable(db, run, ctx.job_id)
            profile = Profile.from_json(dict(run.profile))
            asked = resolve_profile(db, run.project_id, p["profile"]) if p.get("profile") not in (None, "") else None
            run_project = store.get_project(db, run.project_id)
            locale = project_locale(run_project)
            check_resume_fingerprint(run, profile, secret, locale, asked=asked,
                                     infiller=infiller_for(profile, run_project, ctx.db_path))
            original = _original_params(db, run)
            p = {**original, **{k: v for k, v in p.items() if k not in ("doc_ids", "layer", "missing", "profile")}}
            p["project_id"] = run.project_id
        project = store.get_project(db, int(p["project_id"]))
        layer = str(p.get("layer") or DEFAULT_LAYER)
        missing = str(p.get("missing") or "detect")
        ids = selected_ids(db, project.id, p.get("doc_ids", "all"))
        if not ids:
            raise DeidentificationError(f"project {project.id} has no documents to de-identify")
        if resume_id is None:
            profile = resolve_profile(db, project.id, p.get("profile"))

        ctx.progress(0, len(ids), "reading", force=True)
        inputs = gather_inputs(db, project, ids, layer, missing, progress=ctx.stage("detecting"))
        if not inputs.docs:
            raise DeidentificationError(f"none of the {len(ids)} documents has a {layer} layer (and missing=skip)")
        infiller = infiller_for(profile, project, ctx.db_path)
        if resume_id is None:
            run_id = store.create_deid_run(db, project.id, profile.name, profile.to_dict(),
                                           model_version=inputs.detector, job_id=ctx.job_id, user=user,
                                           fingerprint=run_fingerprint(profile, secret, project_locale(project),
                                                                       infiller))
        else:
            run_id = int(resume_id)
        try:
            result = _deidentify_run(ctx, db, run_id, project, profile, inputs, user, secret, infiller)
        except BaseException:
            _fail_run(db, run_id, user)
            raise
        result.update(project_id=project.id, layer=layer, missing=missing, resumed=resume_id is not None,
                      not_deidentified=len(inputs.not_deidentified), detector=inputs.detector)
        if p.get("risk", True) and not result.get("failure"):
            result["risk"] = score_run_risk(ctx, db, run_id, dict(p.get("risk_params") or {}), user=user)
        return result


def check_resume_fingerprint(run: store.DeidRun, profile: Profile, secret: bytes, locale: str | None = None, *,
                             asked: Profile | None = None, infiller: object | None = None) -> None:
    """Refuse (one line, before anything is written) to resume a run that failed the leak check,
    or with another secret key (or project locale, or language model for a paraphrase profile)
    than the run's, or with a ``profile`` other than the run's own."""
    if run.failed_leak_check:
        raise DeidentificationError(f"run {run.id} failed the leak check and cannot be resumed (it would write the "
                                    "same outputs): fix the spans and start a new run")
    current = run_fingerprint(profile, secret, locale, infiller)
    if run.fingerprint is not None:
        what = mismatch(run.fingerprint, current)
        if what is not None:
            raise DeidentificationError(f"run {run.id} was made with another {what}; resuming it would mix the two: "
                                        f"restore the run's {what}, or start a new run")
    if asked is not None and mismatch(current, run_fingerprint(asked, secret, locale, infiller)) is not None:
        raise DeidentificationError(f"run {run.id} was made with profile {run.profile_name!r}, not {asked.name!r}; "
                                    "resume it without --profile, or start a new run")


def _check_resumable(db: Database, run: store.DeidRun, job_id: int | None) -> None:
    """Refuse to resume a run whose own job is still writing it (two writers would race)."""
    if run.status != "running" or run.job_id is None or run.job_id == job_id:
        return
    store.mark_stale_jobs_failed(db, STALE_JOB_SECONDS)
    try:
        job = store.get_job(db, run.job_id)
    except store.NotFoundError:
        return
    if not job.finished:
        raise DeidentificationError(f"run {run.id} is still being written by job {job.id}; wait for it to finish or "
                                    f"cancel it (a worker that died is noticed after {int(STALE_JOB_SECONDS)} s)")


def resumable(db: Database, run: store.DeidRun) -> bool:
    """Whether a run can be resumed now: not done, not failed by its leak check (a resume would
    write the same outputs), and its own job is no longer running."""
    if run.status == "done" or run.failed_leak_check:
        return False
    if run.status == "failed" or run.job_id is None:
        return True
    try:
        return store.get_job(db, run.job_id).finished
    except store.NotFoundError:
        return True


def _original_params(db: Database, run: store.DeidRun) -> dict:
    """What the interrupted run was asked to do (its job's params), to resume exactly that."""
    if run.job_id is None:
        return {"project_id": run.project_id}
    try:
        params = dict(store.get_job(db, run.job_id).params or {})
    except store.NotFoundError:
        return {"project_id": run.project_id}
    params.pop("run_id", None)
    return params


def _fail_run(db: Database, run_id: int, user: str | None) -> None:
    try:
        run = store.get_deid_run(db, run_id)
        if run.status == "running":
            store.finish_deid_run(db, run_id, counts=run.counts or {}, leaks=run.leaks or 0, quality=run.quality,
                                  status="failed", user=user)
    except Exception:  # noqa: BLE001 - the original failure matters more
        log.warning("run %s: could not be marked failed", run_id)


def _verify_legacy_outputs(db: Database, run_id: int, inputs: DeidInputs, profile: Profile, secret: bytes,
                           locale: str, done: set[int]) -> None:
    """A run from before fingerprints: recompute its finished outputs (in memory) and refuse to
    resume when any differs (another key), before anything is written."""
    check = RunDeidentifier(inputs.docs, profile, DeidContext(secret=secret, locale=locale))
    for doc in inputs.docs:
        did = int(doc.doc_id)
        if did in done and store.get_deid_output(db, run_id, did).text != check(doc).text:
            raise DeidentificationError(f"run {run_id} was made with another secret key (its outputs differ from "
                                        "what this key writes); resuming it would mix the two: start a new run")


def _deidentify_run(ctx: JobContext, db: Database, run_id: int, project: store.Project, profile: Profile,
                    inputs: DeidInputs, user: str | None, secret: bytes, infiller: object | None = None) -> dict:
    done = {o.doc_id for o in store.list_deid_outputs(db, run_id)}
    run = store.get_deid_run(db, run_id)
    locale = project_locale(project)
    if done and run.fingerprint is None:
        _verify_legacy_outputs(db, run_id, inputs, profile, secret, locale, done)
    deid = RunDeidentifier(inputs.docs, profile, DeidContext(secret=secret, locale=locale, infiller=infiller))
    results = []
    pending: list[tuple[int, str, list[Span], int, str]] = []
    mismatches = saved = 0
    total = len(inputs.docs)

    def flush() -> None:
        nonlocal saved
        if pending:
            saved += store.save_deid_outputs(db, run_id, pending, user=user)
            pending.clear()

    try:
        for i, doc in enumerate(inputs.docs, start=1):
            ctx.check_stop()
            r = deid(doc)
            results.append(r)
            did = int(doc.doc_id)
            if did in done:
                if store.get_deid_output(db, run_id, did).text != r.text:
                    mismatches += 1
            else:
                pending.append((did, r.text, output_spans(r, inputs.input_layer[doc.doc_id]), len(r.leaks),
                                r.output_id))
                if len(pending) >= SAVE_EVERY:
                    flush()
            ctx.progress(i, total, "de-identifying")
        flush()
    except (JobCancelled, KeyboardInterrupt):
        flush()     # keep what is done: a rerun with run_id writes only the rest
        raise
    summary = summarize(results)
    counts, quality = summary_dicts(summary, (lk for r in results for lk in r.leaks))
    if profile.uses_paraphrase() and not summary.leaks:
        ctx.check_stop()
        quality.update(quality_comparison(inputs.docs, results, profile, deid.ctx,
                                          progress=ctx.stage("comparing with list surrogates")))
    inputs_count = Counter(inputs.input_layer[d.doc_id] for d in inputs.docs)
    counts.update(inputs=dict(sorted(inputs_count.items())), not_deidentified=inputs.not_deidentified[:1000],
                  resume_mismatches=mismatches, detector=inputs.detector)
    status = "done"
    if summary.leaks:
        status = "failed"
        counts["failure"] = LEAK_FAILURE
    store.finish_deid_run(db, run_id, counts=counts, leaks=summary.leaks, quality=quality, user=user, status=status,
                          fingerprint=run_fingerprint(profile, secret, locale, infiller))
    out = {"run_id": run_id, "documents": summary.documents, "saved": saved, "already_saved": len(done),
           "leaks": summary.leaks, "resume_mismatches": mismatches, "summary": summary.line(),
           "inputs": counts["inputs"], "status": status}
    if summary.paraphrase_fallbacks:
        out["fallback_note"] = summary.fallback_note()
    if quality.get("comparison"):
        out["comparison"] = quality["comparison"]
    if status == "failed":
        out["failure"] = counts["failure"]
    return out


def summary_line(result: dict) -> str:
    """The CLI's one line for a de-identification job result (counts only)."""
    parts = [f"run={result.get('run_id')}", f"status={result.get('status', 'done')}", str(result.get("summary", ""))]
    if result.get("failure") == "leaks":
        parts.insert(2, "FAILED[leak check]")
    if result.get("inputs"):
        parts.append("inputs[" + ", ".join(f"{k}={v}" for k, v in result["inputs"].items()) + "]")
    if result.get("not_deidentified"):
        parts.append(f"not_deidentified={result['not_deidentified']}")
    if result.get("resume_mismatches"):
        parts.append(f"resume_mismatches={result['resume_mismatches']}")
    if result.get("fallback_note"):
        parts.append(f"({result['fallback_note']})")
    risk = result.get("risk")
    if isinstance(risk, dict):
        parts.append(risk_line(risk))
    return " ".join(p for p in parts if p)


# --------------------------------------------------------------------------- the De-identify page

def start_run(db_path: str | os.PathLike, user: store.User, project_id: int, *, doc_ids: Sequence[int] | str,
              layer: str, missing: str, profile: Profile) -> int:
    """De-identify project documents as a job (leads); returns the job id."""
    u = access.require(user, "deidentify")
    params = {"project_id": int(project_id), "doc_ids": doc_ids, "layer": layer, "missing": missing,
              "profile": profile.to_dict(), "user": u.username}
    return start_job(db_path, "deidentify", params, user=u.username)


def resume_run(db_path: str | os.PathLike, user: store.User, project_id: int, run_id: int) -> int:
    """Finish an interrupted run as a job (leads): only the documents it lacks are written."""
    u = access.require(user, "deidentify")
    return start_job(db_path, "deidentify", {"run_id": int(run_id), "project_id": int(project_id),
                                             "user": u.username}, user=u.username)


def runs(db: Database, user: store.User | str | None, project_id: int) -> list[store.DeidRun]:
    """The project's runs, newest first."""
    access.actor(user, "view_risk")
    return store.list_deid_runs(db, project_id)


def get_run(db: Database, user: store.User | str | None, run_id: int) -> store.DeidRun:
    access.actor(user, "view_risk")
    return store.get_deid_run(db, run_id)


def run_outputs(db: Database, user: store.User | str | None, run_id: int) -> list[store.DeidOutput]:
    """A run's outputs without their text (the navigator's list)."""
    access.actor(user, "view_risk")
    return store.list_deid_outputs(db, run_id)


def run_output(db: Database, user: store.User | str | None, run_id: int, doc_id: int) -> store.DeidOutput:
    """One de-identified document of a run, with its text and spans."""
    access.actor(user, "view_risk")
    return store.get_deid_output(db, run_id, doc_id)


# --------------------------------------------------------------------------- uploads and exports

@dataclass
class UploadRun:
    """An upload de-identified in the app's process (nothing stored)."""

    originals: list[Document]
    batch: BatchResult
    detected: list[str]              # doc ids whose spans were detected
    detector: str | None
    profile_name: str
    quality: dict = field(default_factory=dict)     # paraphrase: the comparison with list surrogates

    def __repr__(self) -> str:  # no text in reprs
        return f"UploadRun(documents={len(self.originals)}, detected={len(self.detected)})"


def deidentify_documents(docs: Sequence[Document], profile: Profile, secret: bytes, locale: str, *,
                         detector: DetectorChoice | Callable[[], DetectorChoice] | None = None,
                         progress: Callable[[int, int], None] | None = None,
                         infiller: object | None = None) -> UploadRun:
    """De-identify documents that are not in the store (an upload). Documents without spans are
    detected first with ``detector`` (a choice, or a function making one: only called when
    needed); without a detector they are refused, never released as they are. ``infiller``:
    the language model for the ``paraphrase`` action (with such a profile the result carries
    the quality comparison with list surrogates)."""
    docs = list(docs)
    lacking = [d for d in docs if not d.spans]
    det_name = None
    if lacking:
        if detector is None:
            raise DeidentificationError(f"{len(lacking)} uploaded document(s) carry no spans and there is no detector")
        choice = detector() if callable(detector) else detector
        found = detect_documents(choice, lacking, parallel=False)   # the app's process: never forked
        det_name = choice.description
        docs = [Document(doc_id=d.doc_id, text=d.text, spans=found[d.doc_id], meta=d.meta, patient_id=d.patient_id,
                         source_file=d.source_file) if d.doc_id in found else d for d in docs]
    deid_ctx = DeidContext(secret=secret, locale=locale, infiller=infiller)
    batch = deidentify_batch(docs, profile, deid_ctx, progress=progress)
    quality = {}
    if profile.uses_paraphrase() and not batch.summary.leaks:
        quality = quality_comparison(docs, batch.results, profile, deid_ctx)
    return UploadRun(originals=docs, batch=batch, detected=[d.doc_id for d in lacking], detector=det_name,
                     profile_name=profile.name, quality=quality)


def deidentify_upload(db: Database, user: store.User, project: store.Project, filename: str, data: bytes, fmt: str,
                      profile: Profile, *, detector: Callable[[], DetectorChoice],
                      progress: Callable[[int, int], None] | None = None) -> UploadRun:
    """The De-identify page's upload (leads): read and check it, detect spans where it has none
    (``detector`` is called only then), de-identify with the installation's key, and audit it
    (counts only). Nothing is stored."""
    u = access.require(user, "deidentify")
    docs = read_upload(filename, data, fmt, project.schema)
    if len(docs) > MAX_UPLOAD_DOCS:
        raise DeidentificationError(f"the upload holds {len(docs)} documents; more than {MAX_UPLOAD_DOCS} are "
                                    "de-identified as a job: import them into the project first")
    result = deidentify_documents(docs, profile, project_secret(db_path_of(db)), project_locale(project),
                                  detector=detector, progress=progress,
                                  infiller=infiller_for(profile, project, db_path_of(db)))
    store.audit(db, u.username, "deid.upload", f"project:{project.id}",
                detail={"documents": len(docs), "detected": len(result.detected), "profile": profile.name,
                        "leaks": result.batch.summary.leaks})
    return result


def stored_outputs_as_documents(db: Database, run_id: int) -> list[Document]:
    """A run's outputs as documents named by their pseudonyms (for writing/zipping): never by the
    documents' names, and without metadata. A run that failed the leak check is refused."""
    run = store.get_deid_run(db, run_id)
    if run.failed_leak_check:
        raise DeidentificationError(f"run {run_id} failed the leak check: its outputs cannot be exported")
    outputs = store.list_deid_outputs(db, run_id, with_text=True)
    secret = None
    docs = []
    for o in outputs:
        name = o.output_name
        if not name:    # an output saved before names were stored: the same keyed name, recomputed
            secret = secret or project_secret(db_path_of(db))
            name = document_pseudonym(secret, str(o.doc_id))
        spans = [s.with_(doc_id=name, source=f"deid:{parse_output_layer(s.layer)[0]}", layer="") for s in o.spans]
        docs.append(Document(doc_id=name, text=o.text or "", spans=spans, meta={}))
    return docs


def export_outputs(db: Database, user: store.User, items: Sequence[Document | DeidResult], fmt: str, *,
                   target: str) -> bytes:
    """De-identified documents (``Document`` or ``DeidResult``) as a zip in ``fmt``, after checking
    ``user`` may export, with an ``export`` audit row (counts, no text)."""
    u = access.require(user, "export")
    if fmt not in EXPORT_FORMATS:
        raise DeidentificationError(f"unknown export format {fmt!r}; use brat, xml, jsonl or text")
    leaky = sum(1 for x in items if isinstance(x, DeidResult) and x.leaks)
    if leaky:
        raise DeidentificationError(f"{leaky} document(s) failed the leak check: fix their spans and de-identify "
                                    "again before downloading")
    data = zip_outputs(list(items), fmt)
    store.audit(db, u.username, "export", target, detail={"documents": len(items), "format": fmt, "bytes": len(data)})
    return data
