"""What an engine is given and gives back: jobs, the detector spec workers build, summaries.

Apart from :mod:`pipeline.engines` (which chooses an engine) so that the engines import these
types without importing the module that imports them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

from pipeline.errors import WorkbenchError
from pipeline.spans import Document

Progress = Callable[[int, int], None]
ENGINES = ("local", "ray")
DOCS_PER_BATCH = 64     # = Detector.detect_many's batch: same batches, same floating point sums


class EngineError(WorkbenchError):
    """A run that could not finish; the message names documents by id (never their text)."""


@dataclass(frozen=True)
class DetectSpec:
    """How a worker builds its detector (picklable: only paths and switches travel).

    ``model_dir`` None means rules and dictionaries alone (``Detector.without_model``) for
    ``schema``/``locale``. ``threads``: torch threads per worker.
    """

    model_dir: str | None = None
    members: tuple[str, ...] | None = None
    rules: bool = True
    dictionaries: bool = True
    policy: str = "model-first"
    schema: str | None = None
    locale: str | None = None
    threads: int = 1

    def build(self):
        """The detector, imported lazily (a minimal ``Detector(model_dir)`` class is accepted too)."""
        try:
            from pipeline.detection.detector import Detector
        except ImportError:
            raise EngineError("--model needs pipeline.detection.detector, which is not available in this installation") from None
        if self.model_dir is None:
            return Detector.without_model(self.schema or "i2b2-2014", self.locale, rules=self.rules,
                                          dictionaries=self.dictionaries)
        loader = getattr(Detector, "load", None) or getattr(Detector, "from_dir", None)
        if loader is None:
            return Detector(self.model_dir)
        if (self.members, self.rules, self.dictionaries, self.policy) == (None, True, True, "model-first"):
            return loader(self.model_dir)
        return loader(self.model_dir, members=list(self.members) if self.members is not None else None,
                      rules=self.rules, dictionaries=self.dictionaries, policy=self.policy)


@dataclass
class DeidJob:
    """De-identify ``docs`` into ``out_dir`` (format ``fmt``) with ``profile`` and ``ctx``.

    ``done_ids``: input ids of documents an interrupted run already wrote (skipped, but they
    still inform their patient's surrogates); ``prior``: for JSONL, the documents that run wrote
    (named by their pseudonyms; kept in the rewritten file). ``model_dir``: detect spans first
    (each document on its own, input spans ignored) instead of using the documents' spans.
    Outputs are named by :func:`pipeline.deid.document_pseudonym`, never by input ids.
    """

    docs: Sequence[Document]
    profile: object                      # pipeline.deid.Profile
    ctx: object                          # pipeline.deid.DeidContext
    out_dir: Path
    fmt: str
    done_ids: frozenset[str] = frozenset()
    prior: Sequence[Document] = ()
    model_dir: str | None = None
    progress: Progress | None = None
    fingerprint: str | None = None       # the run's, as the caller computed it (schema and model included)


@dataclass
class DetectJob:
    """Detect spans in ``docs`` with ``spec`` and write them (replacing input spans) to ``out_dir``."""

    docs: Sequence[Document]
    spec: DetectSpec
    out_dir: Path
    fmt: str
    progress: Progress | None = None


@dataclass
class DetectSummary:
    """Counts of a detection run (no text)."""

    documents: int
    spans: int
    parts: list[str] = field(default_factory=list)


class Engine(Protocol):
    name: str

    def deidentify(self, job: DeidJob):  # -> pipeline.deid.BatchSummary
        ...

    def detect(self, job: DetectJob) -> DetectSummary:
        ...


@dataclass(frozen=True)
class RayOptions:
    """Where and how wide the ``ray`` engine runs.

    ``address``: an existing cluster (``auto``, ``host:6379`` or ``ray://host:10001``); None
    starts a local runtime with ``num_cpus`` (default: this machine's). ``workers``: actors in
    the pool (default: the cluster's CPUs / ``cpus_per_worker``). ``docs_per_batch``: documents
    per actor call (whole patients are never split across calls).
    """

    address: str | None = None
    num_cpus: int | None = None
    workers: int | None = None
    cpus_per_worker: float = 1.0
    docs_per_batch: int = DOCS_PER_BATCH


def job_fingerprint(job: DeidJob) -> str:
    """The fingerprint the caller gave (``deidentify`` includes the schema and ``--model``), or
    the one of the job's profile, key, locale and language model."""
    from pipeline.deid.fingerprint import run_fingerprint

    if job.fingerprint:
        return job.fingerprint
    return run_fingerprint(job.profile, job.ctx.secret, job.ctx.locale, getattr(job.ctx, "infiller", None))


def write_fingerprint(job: DeidJob):
    """Record the job's fingerprint in its output folder before the first output is written
    (:mod:`pipeline.deid.fingerprint`): a later ``--resume`` checks it, whichever engine wrote.
    Returns the folder's :class:`~pipeline.engines.manifest.OutputManifest` under it, which the
    writers record each finished output in."""
    from pipeline.deid.fingerprint import write_fingerprint_file
    from pipeline.engines.manifest import OutputManifest

    fp = job_fingerprint(job)
    write_fingerprint_file(job.out_dir, fp)
    return OutputManifest(job.out_dir, job.ctx.secret, fp)


def ordered_output(docs: Sequence[Document], new: Mapping[str, Document],
                   kept: Mapping[str, Document]) -> list[Document]:
    """JSONL output order: the input's, each document new if processed now, else as a prior run
    wrote it (``new`` and ``kept`` are keyed by input id)."""
    out = []
    for d in docs:
        x = new.get(d.doc_id) or kept.get(d.doc_id)
        if x is not None:
            out.append(x)
    return out
