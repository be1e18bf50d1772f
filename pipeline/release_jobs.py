"""Batch de-identification of a project and re-identification risk scoring, as jobs.

Two job kinds (:mod:`pipeline.jobs` registers them by importing this module):

* ``"deidentify"``: documents of a project -> a de-identification run with one output per
  document (``store.save_deid_outputs``, upserted on (run, document)), then risk scoring of the
  run. Spans come from a layer (``gold`` by default); a document without that layer is
  detected (the active model with rules and dictionaries, or rules and dictionaries alone)
  unless ``missing="skip"``. Outputs are saved in chunks as the run goes, so an interrupted
  run keeps its work; rerunning it (``run_id``) writes only the documents it lacks.
* ``"risk"``: the outputs of a run -> :func:`pipeline.risk.score_run` -> ``store.save_risk_scores``
  (decisions already taken are kept by the store).

Why a resumed run de-identifies its finished documents again (in memory, not saved): every
document of a patient informs the others' surrogates and leak scan (see
:mod:`pipeline.deid.batch`), so their spans are needed anyway, de-identification alone runs at
hundreds of notes a second, and it gives an exact summary for the whole run and a check that
the stored outputs are what this run would write (``resume_mismatches``: a changed secret
key or profile shows there).

What an output span carries: ``layer`` is ``deid:<action>:<input layer>`` (``input layer`` is
the layer the span came from, or ``detected``) and ``source``/``score`` are the input span's,
so risk scoring can tell kept spans, machine-only and unreviewed low-confidence detections
apart without the inputs (see :func:`output_layer`).

Nothing here logs or returns document text: results, run counts and errors name ids,
offsets, categories and numbers only.
"""
from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from pipeline.errors import WorkbenchError
from pipeline.jobs import JobCancelled, JobContext, register
from pipeline.spans import Document, Span

log = logging.getLogger(__name__)

DEFAULT_LAYER = "gold"
DEFAULT_PROFILE = "replace"
DETECTED = "detected"
SAVE_EVERY = 64                   # outputs per store transaction
MAX_LEAK_DETAILS = 500            # leak locations kept with a run (ids, offsets, labels)
MISSING_CHOICES = ("detect", "skip")
EMBEDDER_CHOICES = ("auto", "lexical")
STALE_JOB_SECONDS = 60.0          # a job whose heartbeat is older than this has lost its worker
LOCALE_OF_SCHEMA = {"meddocan": "es", "i2b2-2014": "en", "german-8": "de"}


class ReleaseError(WorkbenchError):
    """A de-identification or risk job that cannot run as asked (safe to show)."""


# --------------------------------------------------------------------------- small helpers

def output_layer(action: str, input_layer: str) -> str:
    """The ``layer`` of an output span: ``deid:<action>:<input layer>``."""
    return f"deid:{action}:{input_layer or DETECTED}"


def parse_output_layer(layer: str) -> tuple[str, str]:
    """``(action, input layer)`` of an output span (``("replace", "")`` for foreign spans)."""
    if layer.startswith("deid:"):
        parts = layer.split(":", 2)
        if len(parts) == 3:
            return parts[1], parts[2]
        return parts[1], ""
    return "replace", layer


def reviewed_layer(layer: str) -> bool:
    """Spans of ``gold`` and ``annotator:<user>`` layers were placed or checked by a person."""
    return layer == "gold" or layer.startswith("annotator:")


def project_locale(project: Any) -> str:
    """Locale of surrogate lists, date order and rules: the ``locale`` setting, else the schema's."""
    settings = getattr(project, "settings", None) or {}
    loc = settings.get("locale") if isinstance(settings, dict) else None
    return str(loc or LOCALE_OF_SCHEMA.get(project.schema.name, "en"))


def project_secret(db_path: str | Path) -> bytes:
    """The per-installation HMAC key beside the database (created 0600 on first use)."""
    from pipeline.project_secret import load_or_create_secret, secret_path_for
    return load_or_create_secret(secret_path_for(db_path))


def db_path_of(db: Any) -> str:
    """The file behind a connection (for the secret's location)."""
    for _seq, name, path in db.execute("PRAGMA database_list").fetchall():
        if name == "main" and path:
            return path
    raise ReleaseError("the database has no file (an in-memory store cannot hold a secret key beside it)")


def resolve_profile(db: Any, project_id: int, spec: Any) -> Any:
    """A :class:`pipeline.deid.Profile` from a built-in name (``redact``/``replace``), the name of a
    profile saved for the project, a profile dict, or its JSON text."""
    import store
    from pipeline.deid import Profile, builtin_profiles

    if spec is None or spec == "":
        spec = DEFAULT_PROFILE
    if isinstance(spec, Profile):
        return spec
    if isinstance(spec, dict):
        return Profile.from_json(spec)
    spec = str(spec)
    if spec.lstrip().startswith("{"):
        return Profile.from_json(spec)
    saved = {p.name: p for p in store.list_deid_profiles(db, project_id)}
    if spec in saved:
        data = dict(saved[spec].profile)
        data.setdefault("name", spec)
        return Profile.from_json(data)
    builtins = builtin_profiles()
    if spec in builtins:
        return builtins[spec]
    raise ReleaseError(f"unknown de-identification profile {spec!r}: use "
                       f"{', '.join(sorted(set(builtins) | set(saved)))} or a profile JSON")


def human_seen_ids(db: Any, project_id: int) -> set[int]:
    """Documents a person has worked on: one with a gold or an annotator layer."""
    import store

    return store.human_seen_doc_ids(db, project_id)


# --------------------------------------------------------------------------- detection

@dataclass
class DetectorChoice:
    """The detector for documents without spans, and how to name it in a run."""

    detector: Any
    description: str          # e.g. "model:v3+rules+dictionaries" or "rules+dictionaries"
    model_version: str | None


def detector_for(db: Any, project: Any) -> DetectorChoice:
    """The active model (with rules and dictionaries) if the project has one, else rules and
    dictionaries alone; :class:`ReleaseError` when neither exists for the project's locale."""
    import store
    from pipeline.detect import Detector

    mv = store.active_model(db, project.id)
    if mv is not None:
        try:
            det = Detector.load(mv.path)
        except Exception as e:  # noqa: BLE001 - any failure: say which model, never a message quoting files
            raise ReleaseError(f"the active model {mv.name} cannot be loaded from its folder ({type(e).__name__}); "
                               "activate another version or upload files that carry spans") from None
        return DetectorChoice(det, "+".join(det.parts) or f"model:{mv.name}", mv.name)
    locale = project_locale(project)
    from pipeline.rules import get_pack
    try:
        get_pack(locale)
    except KeyError:
        raise ReleaseError(f"no model is active and there are no detection rules for locale {locale!r}: "
                           "upload files that carry spans (brat, xml, jsonl), or train and activate a model") from None
    det = Detector.without_model(project.schema, locale)
    if not det.parts:
        raise ReleaseError("no model is active and no rules or dictionaries are available: upload files that "
                           "carry spans (brat, xml, jsonl)")
    return DetectorChoice(det, "+".join(det.parts), None)


def detect_documents(choice: DetectorChoice, docs: Sequence[Document], *,
                     progress: Callable[[int, int], None] | None = None, chunk: int = 32) -> dict[str, list[Span]]:
    """Spans for ``docs`` from ``choice.detector``, keyed by doc id."""
    out: dict[str, list[Span]] = {}
    for i in range(0, len(docs), chunk):
        part = list(docs[i:i + chunk])
        for d, spans in zip(part, choice.detector.detect_many(part)):
            out[d.doc_id] = [s.with_(doc_id=d.doc_id, layer=DETECTED) for s in spans]
        if progress:
            progress(min(i + chunk, len(docs)), len(docs))
    return out


# --------------------------------------------------------------------------- de-identification

@dataclass
class DeidInputs:
    """The documents of a run with the spans to apply and where each document's spans came from."""

    docs: list[Document]                       # spans set (layer or detected)
    input_layer: dict[str, str]                # doc id -> layer name or "detected"
    not_deidentified: list[int] = field(default_factory=list)   # lacked the layer, missing="skip"
    detector: str | None = None
    model_version: str | None = None


def selected_ids(db: Any, project_id: int, doc_ids: Any) -> list[int]:
    """``"all"`` or a list of document ids of the project (unknown ids are refused)."""
    import store
    if doc_ids in (None, "all"):
        return [r.id for r in store.list_documents(db, project_id)]
    if isinstance(doc_ids, (str, bytes)):
        raise ReleaseError("doc_ids must be \"all\" or a list of document ids")
    ids = sorted({int(i) for i in doc_ids})
    known = {r.id for r in store.list_documents(db, project_id, ids=ids)}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ReleaseError(f"documents {', '.join(map(str, unknown[:10]))} are not in project {project_id}")
    return ids


def gather_inputs(db: Any, project: Any, ids: Sequence[int], layer: str, missing: str, *,
                  detector: DetectorChoice | Callable[[], DetectorChoice] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> DeidInputs:
    """Documents with the spans of ``layer``; those lacking it are detected (``missing="detect"``)
    or left out (``"skip"``)."""
    import store

    if missing not in MISSING_CHOICES:
        raise ReleaseError(f"missing must be one of {', '.join(MISSING_CHOICES)}, not {missing!r}")
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

    def __init__(self, docs: Sequence[Document], profile: Any, ctx: Any) -> None:
        from pipeline.deid import DeidContext, patient_id_of
        from pipeline.deid.engine import collect_originals

        self.profile = profile
        self.ctx = DeidContext(secret=ctx.secret, locale=ctx.locale, extra_lists=ctx.extra_lists,
                               list_loader=ctx.list_loader,
                               patient_originals={k: list(v) for k, v in ctx.patient_originals.items()})
        for doc in docs:
            self.ctx.add_patient_originals(patient_id_of(doc), collect_originals(doc, doc.spans, profile))

    def __call__(self, doc: Document) -> Any:
        from pipeline.deid import deidentify
        return deidentify(doc, doc.spans, self.profile, self.ctx)


def output_spans(result: Any, input_layer: str) -> list[Span]:
    """The result's spans as stored: action and input layer in ``layer`` (see :func:`output_layer`)."""
    return [s.with_(layer=output_layer(a, input_layer)) for s, a in zip(result.spans, result.actions)]


def summary_dicts(summary: Any, leaks: Iterable[Any] = ()) -> tuple[dict, dict]:
    """``(counts, quality)`` for ``store.finish_deid_run`` from a ``BatchSummary`` (no text)."""
    d = summary.to_dict()
    quality_keys = ("surrogates", "same_rate", "mean_trigram_similarity", "diversity", "quality_by_category")
    quality = {k: d.pop(k) for k in quality_keys if k in d}
    details = [lk.to_dict() if hasattr(lk, "to_dict") else dict(lk) for lk in leaks]
    d["leak_details"] = details[:MAX_LEAK_DETAILS]
    return d, quality


def _progress_fn(ctx: JobContext, stage: str) -> Callable[[int, int], None]:
    def fn(done: int, total: int) -> None:
        ctx.progress(done, total, stage)
    return fn


def _check_stop(ctx: JobContext) -> None:
    if ctx.should_stop():
        raise JobCancelled("cancelled on request")


@register("deidentify")
def deidentify_job(ctx: JobContext) -> dict:
    """Params: ``project_id``; ``doc_ids`` (``"all"`` or ids); ``layer`` (``gold``); ``profile``
    (name or JSON); ``missing`` (``detect``/``skip``); ``user``; ``run_id`` to resume a run;
    ``risk`` (default True) and ``risk_params`` for the scoring that follows."""
    import store

    p = dict(ctx.params)
    user = p.get("user")
    db = ctx.connect()
    try:
        resume_id = p.get("run_id")
        if resume_id is not None:
            run = store.get_deid_run(db, int(resume_id))
            _check_resumable(db, run, ctx.job_id)
            original = _original_params(db, run)
            p = {**original, **{k: v for k, v in p.items() if k not in ("doc_ids", "layer", "missing", "profile")}}
            p["project_id"] = run.project_id
        project = store.get_project(db, int(p["project_id"]))
        layer = str(p.get("layer") or DEFAULT_LAYER)
        missing = str(p.get("missing") or "detect")
        ids = selected_ids(db, project.id, p.get("doc_ids", "all"))
        if not ids:
            raise ReleaseError(f"project {project.id} has no documents to de-identify")
        if resume_id is not None:
            from pipeline.deid import Profile
            profile = Profile.from_json(dict(run.profile))
        else:
            profile = resolve_profile(db, project.id, p.get("profile"))

        ctx.progress(0, len(ids), "reading", force=True)
        inputs = gather_inputs(db, project, ids, layer, missing, progress=_progress_fn(ctx, "detecting"))
        if not inputs.docs:
            raise ReleaseError(f"none of the {len(ids)} documents has a {layer} layer (and missing=skip)")
        if resume_id is None:
            run_id = store.create_deid_run(db, project.id, profile.name, profile.to_dict(),
                                           model_version=inputs.detector, job_id=ctx.job_id, user=user)
        else:
            run_id = int(resume_id)
        try:
            result = _deidentify_run(ctx, db, run_id, project, profile, inputs, user)
        except BaseException:
            _fail_run(db, run_id, user)
            raise
        result.update(project_id=project.id, layer=layer, missing=missing, resumed=resume_id is not None,
                      not_deidentified=len(inputs.not_deidentified), detector=inputs.detector)
        if p.get("risk", True):
            result["risk"] = score_run_risk(ctx, db, run_id, dict(p.get("risk_params") or {}), user=user)
        return result
    finally:
        db.conn.close()


def _check_resumable(db: Any, run: Any, job_id: int | None) -> None:
    """Refuse to resume a run whose own job is still writing it (two writers would race)."""
    import store
    if run.status != "running" or run.job_id is None or run.job_id == job_id:
        return
    store.mark_stale_jobs_failed(db, STALE_JOB_SECONDS)
    try:
        job = store.get_job(db, run.job_id)
    except store.NotFoundError:
        return
    if not job.finished:
        raise ReleaseError(f"run {run.id} is still being written by job {job.id}; wait for it to finish or cancel "
                           f"it (a worker that died is noticed after {int(STALE_JOB_SECONDS)} s)")


def resumable(db: Any, run: Any) -> bool:
    """Whether a run can be resumed now: not done, and its own job is no longer running."""
    import store
    if run.status == "done":
        return False
    if run.status == "failed" or run.job_id is None:
        return True
    try:
        return store.get_job(db, run.job_id).finished
    except store.NotFoundError:
        return True


def _original_params(db: Any, run: Any) -> dict:
    """What the interrupted run was asked to do (its job's params), to resume exactly that."""
    import store
    if run.job_id is None:
        return {"project_id": run.project_id}
    try:
        params = dict(store.get_job(db, run.job_id).params or {})
    except store.NotFoundError:
        return {"project_id": run.project_id}
    params.pop("run_id", None)
    return params


def _fail_run(db: Any, run_id: int, user: str | None) -> None:
    import store
    try:
        run = store.get_deid_run(db, run_id)
        if run.status == "running":
            store.finish_deid_run(db, run_id, counts=run.counts or {}, leaks=run.leaks or 0, quality=run.quality,
                                  status="failed", user=user)
    except Exception:  # noqa: BLE001 - the original failure matters more
        log.warning("run %s: could not be marked failed", run_id)


def _deidentify_run(ctx: JobContext, db: Any, run_id: int, project: Any, profile: Any, inputs: DeidInputs,
                    user: str | None) -> dict:
    import store
    from pipeline.deid import DeidContext
    from pipeline.deid.batch import summarize

    done = {o.doc_id for o in store.list_deid_outputs(db, run_id)}
    secret = project_secret(db_path_of(db))
    deid = RunDeidentifier(inputs.docs, profile, DeidContext(secret=secret, locale=project_locale(project)))
    results = []
    pending: list[tuple[int, str, list[Span], int]] = []
    mismatches = saved = 0
    total = len(inputs.docs)

    def flush() -> None:
        nonlocal saved
        if pending:
            saved += store.save_deid_outputs(db, run_id, pending, user=user)
            pending.clear()

    try:
        for i, doc in enumerate(inputs.docs, start=1):
            _check_stop(ctx)
            r = deid(doc)
            results.append(r)
            did = int(doc.doc_id)
            if did in done:
                if store.get_deid_output(db, run_id, did).text != r.text:
                    mismatches += 1
            else:
                pending.append((did, r.text, output_spans(r, inputs.input_layer[doc.doc_id]), len(r.leaks)))
                if len(pending) >= SAVE_EVERY:
                    flush()
            ctx.progress(i, total, "de-identifying")
        flush()
    except (JobCancelled, KeyboardInterrupt):
        flush()     # keep what is done: a rerun with run_id writes only the rest
        raise
    summary = summarize(results)
    counts, quality = summary_dicts(summary, (lk for r in results for lk in r.leaks))
    inputs_count = Counter(inputs.input_layer[d.doc_id] for d in inputs.docs)
    counts.update(inputs=dict(sorted(inputs_count.items())), not_deidentified=inputs.not_deidentified[:1000],
                  resume_mismatches=mismatches, detector=inputs.detector)
    store.finish_deid_run(db, run_id, counts=counts, leaks=summary.leaks, quality=quality, user=user)
    return {"run_id": run_id, "documents": summary.documents, "saved": saved, "already_saved": len(done),
            "leaks": summary.leaks, "resume_mismatches": mismatches, "summary": summary.line(),
            "inputs": counts["inputs"]}


# --------------------------------------------------------------------------- risk

def risk_documents(db: Any, run_id: int) -> list[Any]:
    """The run's outputs as :class:`pipeline.risk.DeidDocument`: spans with their action, score,
    whether a person reviewed them (gold/annotator input), and whether a person has seen the
    document (it has a gold or an annotator layer)."""
    import store
    from pipeline.risk import DeidDocument, DeidSpan

    run = store.get_deid_run(db, run_id)
    seen = human_seen_ids(db, run.project_id)
    outputs = store.list_deid_outputs(db, run_id, with_text=True)
    patients = {r.id: r.patient_id for r in store.list_documents(db, run.project_id, ids=[o.doc_id for o in outputs])}
    docs = []
    for o in outputs:
        spans = []
        for s in o.spans:
            action, in_layer = parse_output_layer(s.layer)
            spans.append(DeidSpan(start=s.start, end=s.end, category=s.category, type=s.type, action=action,
                                  score=float(s.score), reviewed=reviewed_layer(in_layer), source=s.source))
        docs.append(DeidDocument(doc_id=str(o.doc_id), text=o.text or "", spans=spans, human_seen=o.doc_id in seen,
                                 patient_id=patients.get(o.doc_id)))
    return docs


def choose_embedder(db: Any, project_id: int, how: str = "auto", lexical_dim: int = 256) -> tuple[Any, str]:
    """The active model's encoder (``auto``, when its folder holds one that loads), else the
    lexical TF-IDF fallback of :mod:`pipeline.risk.embedders`. Returns the embedder and a note
    saying which and, for a fallback, why."""
    import store
    from pipeline.risk import LexicalEmbedder, build_embedder

    if how not in EMBEDDER_CHOICES:
        raise ReleaseError(f"embedder must be one of {', '.join(EMBEDDER_CHOICES)}, not {how!r}")
    lexical = LexicalEmbedder(dim=lexical_dim)
    if how == "lexical":
        return lexical, f"{lexical.name} (asked for)"
    mv = store.active_model(db, project_id)
    if mv is None:
        return lexical, f"{lexical.name} (no active model)"
    try:
        emb = build_embedder(mv.path, lexical_dim=lexical_dim)
    except Exception as e:  # noqa: BLE001 - any failure to load means: use the fallback, and say why
        return lexical, f"{lexical.name} (active model {mv.name} has no usable encoder: {type(e).__name__})"
    return emb, f"{emb.name} (active model {mv.name})"


def score_run_risk(ctx: JobContext | None, db: Any, run_id: int, params: dict | None = None, *,
                   user: str | None = None) -> dict:
    """Score a run's outputs and save the scores (earlier decisions are kept by the store)."""
    import store
    from pipeline.risk import DEFAULT_METHOD, RiskConfig, score_run

    params = dict(params or {})
    run = store.get_deid_run(db, run_id)
    project = store.get_project(db, run.project_id)
    docs = risk_documents(db, run_id)
    if not docs:
        raise ReleaseError(f"run {run_id} has no outputs to score")
    cfg = RiskConfig(method=str(params.get("method") or DEFAULT_METHOD),
                     group_by_patient=bool(params.get("group_by_patient", True)))
    if params.get("threshold") is not None:
        cfg.threshold = float(params["threshold"])
    if params.get("k") is not None:
        cfg.k_threshold = int(params["k"])
    low = params.get("confidence", (project.settings or {}).get("low_confidence"))
    if low is not None:
        cfg.confidence_threshold = float(low)
    try:
        cfg.check()
    except ValueError as e:
        raise ReleaseError(str(e)) from None
    embedder, note = choose_embedder(db, project.id, str(params.get("embedder") or "auto"))

    def progress(stage: str, done: int, total: int) -> None:
        if ctx is not None:
            ctx.progress(done, total, f"scoring risk ({stage})")

    reports = score_run(docs, cfg, embedder=embedder, progress=progress)
    n = store.save_risk_scores(db, run_id, [r.to_row() for r in reports], method=cfg.method, user=user)
    colours = Counter(r.colour for r in reports)
    return {"run_id": run_id, "documents": n, "method": cfg.method, "threshold": cfg.threshold,
            "k": cfg.k_threshold, "embedder": note,
            "colours": {c: colours.get(c, 0) for c in ("red", "amber", "green")}}


@register("risk")
def risk_job(ctx: JobContext) -> dict:
    """Params: ``run_id``; ``method`` (``document-share``), ``threshold``, ``k``, ``embedder``
    (``auto``/``lexical``), ``user``."""
    p = dict(ctx.params)
    db = ctx.connect()
    try:
        return score_run_risk(ctx, db, int(p["run_id"]), p, user=p.get("user"))
    finally:
        db.conn.close()


def latest_risk_result(db: Any, run_id: int) -> dict | None:
    """The result of the newest finished job that scored ``run_id`` (which embedder, method...)."""
    import store
    for job in store.list_jobs(db, status="done", limit=500):
        if not isinstance(job.result, dict):
            continue
        res = job.result.get("risk") if job.kind == "deidentify" else job.result if job.kind == "risk" else None
        if isinstance(res, dict) and int(res.get("run_id", -1)) == int(run_id):
            return res
    return None


def reason_marks(reasons: Sequence[dict], text_len: int) -> list[tuple[int, int, str]]:
    """Stretches of a de-identified text to mark for its risk reasons: ``(start, end, what)``
    with ``what`` ``"entity"`` (the span a reason names) or ``"context"`` (its context window),
    clipped to the text, sorted, duplicates removed."""
    out: set[tuple[int, int, str]] = set()
    for r in reasons:
        for a, b, what in ((r.get("context_start"), r.get("context_end"), "context"),
                           (r.get("start"), r.get("end"), "entity")):
            if a is None or b is None:
                continue
            a, b = max(0, int(a)), min(text_len, int(b))
            if a < b:
                out.add((a, b, what))
    return sorted(out, key=lambda m: (m[0], -m[1], m[2]))


# --------------------------------------------------------------------------- uploads and exports

@dataclass
class UploadRun:
    """An upload de-identified in the app's process (nothing stored)."""

    originals: list[Document]
    batch: Any                       # pipeline.deid.BatchResult
    detected: list[str]              # doc ids whose spans were detected
    detector: str | None
    profile_name: str

    def __repr__(self) -> str:  # no text in reprs
        return f"UploadRun(documents={len(self.originals)}, detected={len(self.detected)})"


def deidentify_documents(docs: Sequence[Document], profile: Any, secret: bytes, locale: str, *,
                         detector: DetectorChoice | Callable[[], DetectorChoice] | None = None,
                         progress: Callable[[int, int], None] | None = None) -> UploadRun:
    """De-identify documents that are not in the store (an upload). Documents without spans are
    detected first with ``detector`` (a choice, or a function making one: only called when
    needed); without a detector they are refused, never released as they are."""
    from pipeline.deid import DeidContext, deidentify_batch

    docs = list(docs)
    lacking = [d for d in docs if not d.spans]
    det_name = None
    if lacking:
        if detector is None:
            raise ReleaseError(f"{len(lacking)} uploaded document(s) carry no spans and there is no detector")
        choice = detector() if callable(detector) else detector
        found = detect_documents(choice, lacking)
        det_name = choice.description
        docs = [Document(doc_id=d.doc_id, text=d.text, spans=found[d.doc_id], meta=d.meta, patient_id=d.patient_id,
                         source_file=d.source_file) if d.doc_id in found else d for d in docs]
    batch = deidentify_batch(docs, profile, DeidContext(secret=secret, locale=locale), progress=progress)
    return UploadRun(originals=docs, batch=batch, detected=[d.doc_id for d in lacking], detector=det_name,
                     profile_name=profile.name)


def stored_outputs_as_documents(db: Any, run_id: int) -> list[Document]:
    """A run's outputs as documents named like their originals (for writing/zipping)."""
    import store
    run = store.get_deid_run(db, run_id)
    outputs = store.list_deid_outputs(db, run_id, with_text=True)
    names = {r.id: r.name for r in store.list_documents(db, run.project_id, ids=[o.doc_id for o in outputs])}
    docs = []
    for o in outputs:
        name = names.get(o.doc_id, str(o.doc_id))
        spans = [s.with_(doc_id=name, source=f"deid:{parse_output_layer(s.layer)[0]}", layer="") for s in o.spans]
        docs.append(Document(doc_id=name, text=o.text or "", spans=spans, meta={"name": name}))
    return docs


def export_outputs(db: Any, user: Any, items: Sequence[Any], fmt: str, *, target: str) -> bytes:
    """De-identified documents (``Document`` or ``DeidResult``) as a zip in ``fmt``, after checking
    ``user`` may export, with an ``export`` audit row (counts, no text)."""
    import store
    from pipeline.deid import zip_outputs
    from store import access

    u = access.require(user, "export")
    if fmt not in ("brat", "xml", "jsonl", "text"):
        raise ReleaseError(f"unknown export format {fmt!r}; use brat, xml, jsonl or text")
    data = zip_outputs(list(items), fmt)
    store.audit(db, u.username, "export", target, detail={"documents": len(items), "format": fmt, "bytes": len(data)})
    return data


def summary_line(result: dict) -> str:
    """The CLI's one line for a de-identification job result (counts only)."""
    parts = [f"run={result.get('run_id')}", str(result.get("summary", ""))]
    if result.get("inputs"):
        parts.append("inputs[" + ", ".join(f"{k}={v}" for k, v in result["inputs"].items()) + "]")
    if result.get("not_deidentified"):
        parts.append(f"not_deidentified={result['not_deidentified']}")
    if result.get("resume_mismatches"):
        parts.append(f"resume_mismatches={result['resume_mismatches']}")
    risk = result.get("risk")
    if isinstance(risk, dict):
        parts.append(risk_line(risk))
    return " ".join(p for p in parts if p)


def risk_line(risk: dict) -> str:
    c = risk.get("colours", {})
    return (f"risk[method={risk.get('method')} red={c.get('red', 0)} amber={c.get('amber', 0)} "
            f"green={c.get('green', 0)} embedder={json.dumps(risk.get('embedder'))}]")


__all__ = [
    "DETECTED", "DeidInputs", "DetectorChoice", "ReleaseError", "RunDeidentifier", "UploadRun", "choose_embedder",
    "deidentify_documents", "deidentify_job", "detect_documents", "detector_for",
    "export_outputs", "gather_inputs", "human_seen_ids", "latest_risk_result", "output_layer", "output_spans",
    "parse_output_layer", "project_locale", "project_secret", "reason_marks", "resolve_profile",
    "resumable", "risk_documents",
    "risk_job", "score_run_risk", "selected_ids", "stored_outputs_as_documents", "summary_dicts", "summary_line",
]
