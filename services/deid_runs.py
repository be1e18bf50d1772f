"""De-identification of a project's documents as a run (a job), and the run's entry points for
the De-identify page and the command line (start, resume, list, read).

:func:`deidentify_job` (job kind ``deidentify``): documents of a project -> a run with one
output per document (``store.save_deid_outputs``, upserted on (run, document)), then risk
scoring (:func:`services.risk.score_run_risk`); inputs, profile and figures come from
:mod:`services.deid_batch`. Outputs are saved in chunks as the run goes, so an interrupted run
keeps its work; rerunning it (``run_id``) writes only the documents it lacks. A document whose
spans were detected for the run keeps them with its output (``DeidOutput.input_spans``), so a
reviewer sees what was replaced.

Why a resumed run de-identifies its finished documents again (in memory, not saved): every
document of a patient informs the others' surrogates and leak scan (see
:mod:`pipeline.deid.batch`), so their spans are needed anyway, de-identification alone runs at
hundreds of notes a second, and it gives an exact summary for the whole run and a check that
the stored outputs are what this run would write: one that is not is written again, so what is
exported is what was leak-checked (counted in ``resume_mismatches``). A resume with another
profile, secret key or (paraphrase) language model is refused before anything is written: a
run stores their fingerprint (:func:`pipeline.deid.run_fingerprint`) and the resume recomputes
it; a run from before fingerprints is checked output by output first.

Leaks fail a run: a run whose leak check (:mod:`pipeline.deid.leaks`) finds input PHI left is
closed ``failed`` with ``counts["failure"] = "leaks"`` (:attr:`store.DeidRun.failed_leak_check`):
its outputs stay stored, so the page can show where the leaks are, but it is not scored for
risk, not resumable (a resume would rewrite the same outputs) and not exported. An interrupted
run is ``failed`` too, without that mark, and stays resumable.

Nothing here logs or returns document text: results, run counts and errors name ids,
offsets, categories and numbers only.
"""
from __future__ import annotations

import logging
import os
from collections import Counter
from typing import Sequence

from sqlite_utils import Database

import store
from store.deid import LEAK_FAILURE
from pipeline.deid import DeidContext, Profile, mismatch, run_fingerprint
from pipeline.deid.batch import summarize
from pipeline.layers import DETECTED, GOLD
from pipeline.spans import Span
from services import access
from services.deid_batch import (DeidentificationError, DeidInputs, RunDeidentifier, gather_inputs, infiller_for,
                                 output_spans, quality_comparison, resolve_profile, selected_ids, summary_dicts)
from services.jobs import JobCancelled, JobContext, start_job
from services.risk import risk_line, score_run_risk
from services.settings import STALE_JOB_SECONDS, db_path_of, project_locale, project_secret

log = logging.getLogger(__name__)

DEFAULT_LAYER = GOLD
SAVE_EVERY = 64                   # outputs per store transaction


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
    detected: dict[int, list[Span]] = {}     # spans detected for the run, kept with its outputs
    mismatches = saved = 0
    total = len(inputs.docs)

    def flush() -> None:
        nonlocal saved
        if pending:
            saved += store.save_deid_outputs(db, run_id, pending, user=user, input_spans=detected)
            pending.clear()
            detected.clear()

    try:
        for i, doc in enumerate(inputs.docs, start=1):
            ctx.check_stop()
            r = deid(doc)
            results.append(r)
            did = int(doc.doc_id)
            if did in done and store.get_deid_output(db, run_id, did).text == r.text:
                pass            # verified: what this run writes (and leak-checks), already stored
            else:
                if did in done:     # stored, but not what this run writes: written again, counted
                    mismatches += 1
                pending.append((did, r.text, output_spans(r, inputs.input_layer[doc.doc_id]), len(r.leaks),
                                r.output_id))
                if inputs.input_layer[doc.doc_id] == DETECTED:
                    detected[did] = list(doc.spans)
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
