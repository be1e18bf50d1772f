"""The ``ray`` engine: documents stream through Ray Data to a pool of actors, results back to the driver.

Why it gives the local engine's bytes:

* De-identification looks across a patient's notes (their PHI values are avoided by every
  surrogate and searched for by the leak check; their date offset is chosen once). So the unit
  of work is a *patient group*: all notes of one patient, in input order, go to one actor call,
  which runs :func:`pipeline.deid.deidentify_batch` on them, exactly as the local batch does for
  that patient (every cross-document cache in it is keyed by patient). Surrogates agree across
  workers because they come from the keyed hash of the per-project secret, not shared state.
* Detection is per document, but the encoders batch windows over up to 64 documents, so the
  units are the same 64-document slices of the input that ``Detector.detect_many`` uses.
* The run summary's diversity counts distinct values through a per-process hash; workers map
  those to a keyed digest (a random key per run, never stored) so that counts add up across
  processes, and the driver accumulates the summary in input order (float sums depend on order).

The driver reads and validates the input (readers are all-or-nothing), cuts it into units
(one Ray block each), and writes what comes back with the :mod:`pipeline.formats` writers
while later units are still running (see :mod:`pipeline.engines._sink`). Workers load the
model and lists once (actor constructor), catch errors per document and return the document id
with the exception *type* only (a message may quote text); the driver then raises
:class:`~pipeline.engines.EngineError` listing them by what is safe to show: the output
pseudonym for de-identification, the position in the input for detection (input ids are file
names, which may hold a patient's name). Worker output never reaches the
driver's terminal (``log_to_driver=False``), and what Ray's own threads print on the driver while a
session runs goes to stderr, so that stdout holds only what the command prints (its ``--json``).
"""
from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import pickle
import secrets
import sys
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Iterator, Sequence

from pipeline.engines.types import (DOCS_PER_BATCH, DeidJob, DetectJob, DetectSpec, DetectSummary, EngineError, RayOptions,
                                    write_fingerprint)
from pipeline.engines._sink import SUFFIX, OutputSink
from pipeline.engines._summary import SummaryAccumulator
from pipeline.offline import OFFLINE_ENV
from pipeline.spans import Document

log = logging.getLogger(__name__)
REPO_ROOT = Path(__file__).resolve().parents[2]
MAX_LISTED = 20
PEER_FAILED = "not run: another note of the same patient failed"


# ------------------------------------------------------------------------------ Ray session
def _quiet(ray) -> None:
    """No progress bars, no per-dataset INFO lines: the command draws its own progress."""
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.enable_operator_progress_bars = False
    ctx.enable_auto_log_stats = False
    ctx.execution_options.verbose_progress = False
    for name in ("ray", "ray.data", "ray.data._internal.execution.streaming_executor"):
        logging.getLogger(name).setLevel(logging.ERROR)


def runtime_env(address: str | None, threads: int) -> dict:
    """Workers find this code (PYTHONPATH locally; the packages uploaded to a remote cluster),
    stay offline, and use ``threads`` threads each."""
    env = {**OFFLINE_ENV, "TOKENIZERS_PARALLELISM": "false",
           "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    if address is None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
        return {"env_vars": env}
    mods = [str(REPO_ROOT / name) for name in ("pipeline", "models") if (REPO_ROOT / name / "__init__.py").is_file()]
    return {"env_vars": env, "py_modules": mods}


@contextmanager
def ray_session(opts: RayOptions) -> Iterator[int]:
    """Connect to (or start) Ray; yields the number of workers to use. Shuts down only a
    runtime it started itself (a caller's ``ray.init`` is left running)."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise EngineError("--engine ray needs the ray package with Ray Data (ray[data])") from None
    started = False
    if not ray.is_initialized():
        kwargs = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        if opts.address:
            kwargs["address"] = opts.address
        else:
            kwargs["num_cpus"] = opts.num_cpus or os.cpu_count() or 1
        try:
            ray.init(**kwargs)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise EngineError(f"cannot connect to the Ray cluster at {opts.address or 'a new local runtime'} "
                              f"({type(e).__name__})") from None
        started = True
    _quiet(ray)
    try:
        cpus = float(ray.cluster_resources().get("CPU", 1))
        # what Ray's own threads print while the session runs ("(raylet) Task ... submit failed. There
        # are infinite retries remaining", under load) goes to stderr: stdout is the command's, and
        # "--json" must print its summary there alone (CI at 6cbd428 saw it break the summary's JSON)
        with redirect_stdout(sys.stderr):
            yield max(1, opts.workers or int(cpus // max(opts.cpus_per_worker, 1e-9)))
    finally:
        if started:
            ray.shutdown()


def _stream(opts: RayOptions, rows: list[dict], worker: type, ctor: dict, threads: int) -> Iterator[list]:
    """Each unit's list of per-document results, as the actors finish them."""
    import numpy as np  # noqa: F401 - Ray Data's numpy batches
    import ray

    with ray_session(opts) as workers:
        ds = ray.data.from_items(rows, override_num_blocks=len(rows))
        ds = ds.map_batches(worker, batch_size=1, batch_format="numpy", fn_constructor_kwargs=ctor,
                            compute=ray.data.ActorPoolStrategy(size=min(workers, len(rows))),
                            num_cpus=opts.cpus_per_worker, runtime_env=runtime_env(opts.address, threads))
        try:
            for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
                for payload in batch["payload"]:
                    yield pickle.loads(payload)
        except ray.exceptions.RayError as e:
            cause = getattr(e, "cause", None)
            why = type(cause).__name__ if isinstance(cause, BaseException) else type(e).__name__
            raise EngineError(f"the Ray run stopped: a worker failed outside any document ({why}); "
                              "see the worker logs in the Ray session folder") from None


def _fail(errors: list[tuple[str, str]], written: str) -> EngineError:
    listed = ", ".join(f"{doc_id} ({why})" for doc_id, why in errors[:MAX_LISTED])
    more = f" and {len(errors) - MAX_LISTED} more" if len(errors) > MAX_LISTED else ""
    return EngineError(f"{len(errors)} document(s) failed on the Ray workers: {listed}{more}; {written}")


def _set_threads(threads: int) -> None:
    try:
        import torch
    except ImportError:  # pragma: no cover - rules-only installs
        return
    torch.set_num_threads(max(1, threads))


def _reply(batch, fn) -> dict:
    import numpy as np

    out = np.empty(len(batch["payload"]), dtype=object)
    for k, p in enumerate(batch["payload"]):
        out[k] = pickle.dumps(fn(pickle.loads(p)), protocol=pickle.HIGHEST_PROTOCOL)
    return {"unit": batch["unit"], "payload": out}


# ---------------------------------------------------------------------------- de-identification
def _stable_digest(key: bytes, value: str) -> int:
    from pipeline.deid.normalize import norm_key
    h = hashlib.blake2b(norm_key(value).encode("utf-8", "surrogatepass"), key=key, digest_size=8)
    return int.from_bytes(h.digest(), "big")


def _portable_quality(doc: Document, r, key: bytes) -> list:
    """The result's quality records with process-independent digests (same counts of distinct values)."""
    from pipeline.deid.operators import quality_digest as _digest

    table: dict[int, int] = {}
    for s in r.source_spans:
        v = doc.text[s.start:s.end]
        table.setdefault(_digest(v), _stable_digest(key, v))
    for s in r.spans:
        v = r.text[s.start:s.end]
        table.setdefault(_digest(v), _stable_digest(key, v))
    return [dataclasses.replace(q, original_digest=table.get(q.original_digest, ("unmapped", q.original_digest)),
                                surrogate_digest=table.get(q.surrogate_digest, ("unmapped", q.surrogate_digest)))
            for q in r.quality]


class DeidWorker:
    """One actor: the profile, lists and (optionally) detector loaded once; a call = patient groups."""

    def __init__(self, profile, secret: bytes, locale: str, extra_lists: dict, list_loader, model_dir: str | None,
                 digest_key: bytes, threads: int = 1):
        from pipeline.deid import DeidContext

        self.profile = profile
        self.ctx = DeidContext(secret=secret, locale=locale, extra_lists=extra_lists, list_loader=list_loader)
        self.key = digest_key
        self.detector = None
        if model_dir:
            _set_threads(threads)
            self.detector = DetectSpec(model_dir=model_dir).build()

    def __call__(self, batch: dict) -> dict:
        return _reply(batch, self.unit)

    def unit(self, groups: list) -> list[tuple]:
        out: list[tuple] = []
        for pid, originals, members in groups:
            out.extend(self.group(pid, originals, members))
        return out

    def _result(self, index: int, doc: Document, r) -> tuple:
        slim = dataclasses.replace(r, text="", spans=[], actions=[], source_spans=[], meta={}, alternatives=[],
                                   quality=_portable_quality(doc, r, self.key))
        return (index, r.to_document(), slim, None)

    def group(self, pid: str, originals: list, members: list[tuple[int, Document, bool]]) -> list[tuple]:
        """(index, output document, summary-only result, None) or (index, None, None, error) per
        document to do; ``members`` are all the patient's notes (done ones inform the others)."""
        from pipeline.deid import deidentify_batch

        docs = [d for _, d, _ in members]
        todo = [(i, d) for i, d, done in members if not done]
        spans = None
        if self.detector is not None:
            spans = {}
            for _, d, _ in members:
                try:
                    spans[d.doc_id] = list(self.detector.detect(d))
                except Exception as e:  # noqa: BLE001 - reported by id and type, never message
                    return [(i, None, None, type(e).__name__ if x.doc_id == d.doc_id else PEER_FAILED)
                            for i, x in todo]
        self.ctx.patient_originals = {pid: list(originals)} if originals else {}
        done = {d.doc_id for _, d, is_done in members if is_done}
        by_id = {d.doc_id: (i, d) for i, d in todo}
        try:
            batch = deidentify_batch(docs, self.profile, self.ctx, done_ids=done, spans=spans)
            return [self._result(*by_id[r.doc_id], r) for r in batch.results]
        except Exception:  # noqa: BLE001 - find which notes fail, one at a time
            out = []
            for i, d in todo:
                others = {x.doc_id for x in docs if x.doc_id != d.doc_id}
                try:
                    r = deidentify_batch(docs, self.profile, self.ctx, done_ids=others, spans=spans).results[0]
                    out.append(self._result(i, d, r))
                except Exception as e:  # noqa: BLE001
                    out.append((i, None, None, type(e).__name__))
            return out


def patient_units(docs: Sequence[Document], todo: set[int], per_unit: int, patient_originals: dict) -> list[list]:
    """Patient groups (input order within and across), packed into units of about ``per_unit``
    documents; a patient is never split, and a patient with nothing to do is left out."""
    from pipeline.deid import patient_id_of

    groups: dict[str, list[tuple[int, Document, bool]]] = {}
    for i, d in enumerate(docs):
        groups.setdefault(patient_id_of(d), []).append((i, d, i not in todo))
    units: list[list] = []
    cur: list = []
    size = 0
    for pid, members in groups.items():
        if all(done for _, _, done in members):
            continue
        cur.append((pid, list(patient_originals.get(pid, ())), members))
        size += len(members)
        if size >= per_unit:
            units.append(cur)
            cur, size = [], 0
    if cur:
        units.append(cur)
    return units


# ------------------------------------------------------------------------------------ detection
class DetectWorker:
    """One actor: the detector (model, rules, dictionaries) loaded once; a call = 64-document slices."""

    def __init__(self, spec: DetectSpec):
        if spec.model_dir:
            _set_threads(spec.threads)
        self.det = spec.build()

    def __call__(self, batch: dict) -> dict:
        return _reply(batch, self.unit)

    def unit(self, items: list[tuple[int, Document]]) -> tuple[list[str], list[tuple]]:
        """The detector's parts, and (index, spans, None) or (index, None, error type) per document."""
        docs = [d for _, d in items]
        parts = list(self.det.parts)
        try:
            return parts, [(i, spans, None) for (i, _), spans in zip(items, self.det.detect_many(docs))]
        except Exception:  # noqa: BLE001 - find which documents fail
            out = []
            for i, d in items:
                try:
                    out.append((i, self.det.detect_many([d])[0], None))
                except Exception as e:  # noqa: BLE001
                    out.append((i, None, type(e).__name__))
            return parts, out


# ------------------------------------------------------------------------------------ the engine
class RayEngine:
    """``deidentify``/``detect`` on a Ray cluster (see the module docstring)."""

    name = "ray"

    def __init__(self, options: RayOptions | None = None):
        self.opts = options or RayOptions()

    def _check_names(self, docs: Sequence[Document], out: Path, fmt: str) -> None:
        """Ids that cannot be file names fail before any work (as the local writer would)."""
        if fmt in SUFFIX:
            from pipeline.formats._output import target_paths
            target_paths(docs, out, SUFFIX[fmt])

    def deidentify(self, job: DeidJob):
        from pipeline.deid.pseudonyms import output_ids, prior_by_input

        docs = list(job.docs)
        out = Path(job.out_dir)
        names = output_ids(docs, job.ctx.secret)  # outputs are named by pseudonyms: refuse clashes first
        todo = {i for i, d in enumerate(docs) if d.doc_id not in job.done_ids}
        manifest = write_fingerprint(job)
        acc = SummaryAccumulator()
        sink = OutputSink([d.doc_id for d in docs], out, job.fmt, todo,
                          kept=prior_by_input(docs, job.prior, job.ctx.secret),
                          on_ordered=lambda i, slim: acc.add(slim), manifest=manifest)
        units = patient_units(docs, todo, self.opts.docs_per_batch, dict(job.ctx.patient_originals))
        rows = [{"unit": k, "payload": pickle.dumps(u, protocol=pickle.HIGHEST_PROTOCOL)} for k, u in enumerate(units)]
        threads = max(1, int(self.opts.cpus_per_worker))
        ctor = dict(profile=job.profile, secret=job.ctx.secret, locale=job.ctx.locale,
                    extra_lists=dict(job.ctx.extra_lists), list_loader=job.ctx.list_loader,
                    model_dir=job.model_dir, digest_key=secrets.token_bytes(32), threads=threads)
        errors: list[tuple[str, str]] = []
        done = 0
        complete = False
        try:
            if rows:
                for results in _stream(self.opts, rows, DeidWorker, ctor, threads):
                    for index, doc, slim, err in results:
                        if err is not None:
                            errors.append((names[docs[index].doc_id], err))
                        sink.put(index, doc, slim)
                        done += 1
                    if job.progress:
                        job.progress(done, len(todo))
            complete = not errors
        finally:
            sink.close(complete=complete)
        if errors:
            errors.sort(key=lambda e: (e[1] == PEER_FAILED, e[0]))
            raise _fail(errors, "the other documents were written; fix these and rerun with --resume"
                        if job.fmt != "jsonl" else "nothing was written")
        return acc.summary(skipped=len(docs) - len(todo))

    def detect(self, job: DetectJob) -> DetectSummary:
        docs = list(job.docs)
        out = Path(job.out_dir)
        self._check_names(docs, out, job.fmt)
        # Slices aligned on detect_many's 64-document batches (a multiple of them per call).
        per = DOCS_PER_BATCH * max(1, round(self.opts.docs_per_batch / DOCS_PER_BATCH))
        units = [[(i, Document(d.doc_id, d.text, [], dict(d.meta), d.patient_id, d.source_file))
                  for i, d in enumerate(docs[k:k + per], start=k)] for k in range(0, len(docs), per)]
        rows = [{"unit": k, "payload": pickle.dumps(u, protocol=pickle.HIGHEST_PROTOCOL)} for k, u in enumerate(units)]
        spec = dataclasses.replace(job.spec, threads=max(1, int(self.opts.cpus_per_worker)))
        sink = OutputSink([d.doc_id for d in docs], out, job.fmt, set(range(len(docs))))
        errors: list[tuple[str, str]] = []
        n_spans = done = 0
        parts: list[str] = []
        complete = False
        try:
            for parts, results in _stream(self.opts, rows, DetectWorker, {"spec": spec}, spec.threads):
                for index, spans, err in results:
                    d = docs[index]
                    if err is not None:
                        errors.append((f"input document {index + 1}", err))
                        sink.put(index, None)
                    else:
                        n_spans += len(spans)
                        sink.put(index, Document(d.doc_id, d.text, spans, dict(d.meta), d.patient_id, d.source_file))
                    done += 1
                if job.progress:
                    job.progress(done, len(docs))
            complete = not errors
        finally:
            sink.close(complete=complete)
        if errors:
            errors.sort(key=lambda e: int(e[0].rsplit(" ", 1)[1]))
            raise _fail(errors, "the other documents were written" if job.fmt != "jsonl" else "nothing was written")
        return DetectSummary(len(docs), n_spans, parts)
