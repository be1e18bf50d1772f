"""De-identification runs and their per-document outputs (profiles: :mod:`store.profiles`).

A run keeps a copy of the profile it used (later edits of the profile do not rewrite history),
the model version that found the spans and a fingerprint of its profile and secret key
(:mod:`pipeline.deid.fingerprint`: two keyed hashes, never the key), which a resume must match.
Outputs are keyed by (run, document), so rerunning a batch after a crash replaces rows instead
of duplicating them; each keeps the pseudonym its document is exported under (``output_name``),
the only place the mapping from a document to its output name is kept.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Iterable, Sequence

from sqlite_utils import Database

from pipeline.spans import Span, validate_spans
from store.audit import audit
from store.db import check_choice, dumps, loads, now_iso, retrying, transaction
from store.errors import NotFoundError
from store.profiles import get_deid_profile

RUN_STATUSES = ("running", "done", "failed")
#: ``counts["failure"]`` of a run that finished but failed the leak check (status ``failed``)
LEAK_FAILURE = "leaks"


@dataclass(frozen=True)
class DeidRun:
    id: int
    project_id: int
    profile_name: str
    profile: dict
    model_version: str | None
    job_id: int | None
    status: str
    counts: dict
    leaks: int | None
    quality: dict
    created_by: str | None
    created_at: str
    finished_at: str | None
    fingerprint: str | None = None

    @property
    def failed_leak_check(self) -> bool:
        """Finished, but input PHI was found in its outputs: not to be released, scored or resumed."""
        return self.status == "failed" and (self.counts or {}).get("failure") == LEAK_FAILURE


@dataclass(frozen=True)
class DeidOutput:
    run_id: int
    doc_id: int
    text: str | None
    spans: list[Span]
    n_leaks: int
    created_at: str
    output_name: str | None = None
    #: the spans the output was made from, when they were detected for the run (offsets into
    #: the original text); None when they came from a layer (read it) or were not stored
    input_spans: list[Span] | None = None


# --------------------------------------------------------------------------- profiles

@retrying
def create_deid_run(db: Database, project_id: int, profile_name: str, profile: dict | None = None, *,
                    model_version: str | None = None, job_id: int | None = None, user: str | None = None,
                    fingerprint: str | None = None) -> int:
    """Start a run (status ``running``). ``profile`` defaults to the stored profile of that name;
    either way a copy is kept with the run. ``fingerprint``: which profile and key the run uses
    (:func:`pipeline.deid.run_fingerprint`), checked when the run is resumed.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> _ = store.save_deid_profile(db, pid, "default", {"actions": {"NAME": "replace"}})
    >>> run_id = store.create_deid_run(db, pid, "default", model_version="v1", user="ana", fingerprint="v1:k=ab:p=cd")
    >>> run = store.get_deid_run(db, run_id)
    >>> run.status, run.profile_name, run.profile, run.model_version, run.fingerprint
    ('running', 'default', {'actions': {'NAME': 'replace'}}, 'v1', 'v1:k=ab:p=cd')
    """
    with transaction(db):
        if profile is None:
            profile = get_deid_profile(db, project_id, profile_name).profile
        try:
            cur = db.execute(
                """INSERT INTO deid_runs (project_id, profile_name, profile_json, model_version, job_id, status,
                   created_by, created_at, fingerprint) VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)""",
                [project_id, profile_name, dumps(profile), model_version, job_id, user, now_iso(), fingerprint])
        except sqlite3.IntegrityError:
            raise NotFoundError(f"project {project_id} or job {job_id} does not exist") from None
        run_id = int(cur.lastrowid)
        audit(db, user, "deid.run", f"deid_run:{run_id}",
              detail={"project_id": project_id, "profile": profile_name, "model_version": model_version})
    return run_id


@retrying
def save_deid_outputs(db: Database, run_id: int, outputs: Iterable[tuple[int, str, Sequence[Span]] |
                                                              tuple[int, str, Sequence[Span], int] |
                                                              tuple[int, str, Sequence[Span], int, str | None]],
                      *, user: str | None = None, input_spans: dict[int, Sequence[Span]] | None = None) -> int:
    """Store many outputs ``(doc_id, text, spans[, n_leaks[, output_name]])`` in one transaction
    (upsert on (run, document)); spans are offsets into the output text and are checked against
    it. ``output_name``: the pseudonym the document is exported under. ``input_spans``: per
    document id, the spans detected for the run (offsets into the original document, checked
    against it), kept so a reviewer sees what was replaced. One audit row for the batch.
    Returns how many were written.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> ids = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu."), Document("note-2", "No names here.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> store.save_deid_outputs(db, run_id, [(ids[0], "Seen by Dr [NAME].", [Span("", 11, 17, "NAME", "DOCTOR")]),
    ...                                      (ids[1], "No names here.", [], 0, "doc-3f9a1c2b7e4d")])
    2
    >>> [(o.doc_id, len(o.spans), o.output_name) for o in store.list_deid_outputs(db, run_id)]
    [(1, 1, None), (2, 0, 'doc-3f9a1c2b7e4d')]
    """
    rows = []
    inputs = {int(k): list(v) for k, v in (input_spans or {}).items()}
    originals = _original_texts(db, list(inputs))
    for item in outputs:
        doc_id, text, spans = int(item[0]), item[1], list(item[2])
        n_leaks = int(item[3]) if len(item) > 3 else 0  # type: ignore[misc]
        output_name = item[4] if len(item) > 4 else None  # type: ignore[misc]
        checked = validate_spans(f"run {run_id}, document {doc_id}", text, spans, allow_overlap=True)
        detected = None
        if doc_id in inputs:
            found = validate_spans(f"run {run_id}, document {doc_id} (input)", originals.get(doc_id, ""),
                                   inputs[doc_id], allow_overlap=True)
            detected = dumps([s.with_(doc_id=str(doc_id)).to_dict() for s in found])
        rows.append((run_id, doc_id, text,
                     dumps([s.with_(doc_id=str(doc_id)).to_dict() for s in checked]), n_leaks, now_iso(),
                     None if output_name is None else str(output_name), detected))
    with transaction(db):
        try:
            db.conn.executemany(
                """INSERT INTO deid_outputs (run_id, doc_id, text, spans_json, n_leaks, created_at, output_name,
                   input_spans_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (run_id, doc_id) DO UPDATE SET text = excluded.text, spans_json = excluded.spans_json,
                   n_leaks = excluded.n_leaks, created_at = excluded.created_at,
                   output_name = excluded.output_name, input_spans_json = excluded.input_spans_json""", rows)
        except sqlite3.IntegrityError:
            raise NotFoundError(f"run {run_id} or one of its documents does not exist") from None
        audit(db, user, "deid.output", f"deid_run:{run_id}", detail={"documents": len(rows)})
    return len(rows)


def _original_texts(db: Database, doc_ids: list[int]) -> dict[int, str]:
    if not doc_ids:
        return {}
    marks = ",".join("?" * len(doc_ids))
    return {int(r["id"]): r["text"] for r in db.query(f"SELECT id, text FROM documents WHERE id IN ({marks})", doc_ids)}


def save_deid_output(db: Database, run_id: int, doc_id: int, text: str, spans: Sequence[Span], *,
                     n_leaks: int = 0, user: str | None = None) -> None:
    """One document's output (see :func:`save_deid_outputs`; prefer it for batches).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> store.save_deid_output(db, run_id, doc_id, "Seen by Dr [NAME].", [Span("", 11, 17, "NAME", "DOCTOR")])
    >>> output = store.get_deid_output(db, run_id, doc_id)
    >>> output.text, [(s.start, s.end, s.type) for s in output.spans]
    ('Seen by Dr [NAME].', [(11, 17, 'DOCTOR')])
    """
    save_deid_outputs(db, run_id, [(doc_id, text, spans, n_leaks)], user=user)


@retrying
def get_deid_output(db: Database, run_id: int, doc_id: int) -> DeidOutput:
    """One document's output of a run, text included; :class:`NotFoundError` if there is none.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> store.save_deid_output(db, run_id, doc_id, "Seen by Dr [NAME].", [Span("", 11, 17, "NAME", "DOCTOR")])
    >>> output = store.get_deid_output(db, run_id, doc_id)
    >>> output.text, output.n_leaks, [s.doc_id for s in output.spans]
    ('Seen by Dr [NAME].', 0, ['1'])
    """
    rows = list(db.query("SELECT * FROM deid_outputs WHERE run_id = ? AND doc_id = ?", [int(run_id), int(doc_id)]))
    if not rows:
        raise NotFoundError(f"run {run_id} has no output for document {doc_id}")
    return _output(rows[0], with_text=True)


@retrying
def list_deid_outputs(db: Database, run_id: int, *, with_text: bool = False) -> list[DeidOutput]:
    """A run's outputs by document id; without their text unless ``with_text``.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> store.save_deid_output(db, run_id, doc_id, "Seen by Dr [NAME].", [Span("", 11, 17, "NAME", "DOCTOR")])
    >>> [(o.doc_id, o.text, len(o.spans)) for o in store.list_deid_outputs(db, run_id)]
    [(1, None, 1)]
    >>> [o.text for o in store.list_deid_outputs(db, run_id, with_text=True)]
    ['Seen by Dr [NAME].']
    """
    return [_output(r, with_text=with_text) for r in
            db.query("SELECT * FROM deid_outputs WHERE run_id = ? ORDER BY doc_id", [int(run_id)])]


@retrying
def finish_deid_run(db: Database, run_id: int, *, counts: dict, leaks: int, quality: dict | None = None,
                    status: str = "done", user: str | None = None, fingerprint: str | None = None) -> None:
    """Close a run with its counts (per category/action), number of leaks found and quality figures.
    A run that found leaks is closed ``failed`` with ``counts["failure"] = "leaks"``
    (:attr:`DeidRun.failed_leak_check`). ``fingerprint``: recorded where the run had none (a
    run made before fingerprints, resumed and checked output by output); an existing one is kept.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> store.save_deid_output(db, run_id, doc_id, "Seen by Dr [NAME].", [Span("", 11, 17, "NAME", "DOCTOR")])
    >>> store.finish_deid_run(db, run_id, counts={"NAME": {"redact": 1}}, leaks=0, quality={"documents": 1})
    >>> run = store.get_deid_run(db, run_id)
    >>> run.status, run.counts, run.leaks, run.finished_at is not None
    ('done', {'NAME': {'redact': 1}}, 0, True)
    >>> leaky = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> store.finish_deid_run(db, leaky, counts={"failure": "leaks"}, leaks=2, status="failed", fingerprint="v1:k=ab:p=cd")
    >>> run = store.get_deid_run(db, leaky)
    >>> run.status, run.failed_leak_check, run.fingerprint
    ('failed', True, 'v1:k=ab:p=cd')
    """
    check_choice(status, RUN_STATUSES, "run status")
    with transaction(db):
        cur = db.execute(
            "UPDATE deid_runs SET status = ?, counts_json = ?, leaks = ?, quality_json = ?, finished_at = ?, "
            "fingerprint = COALESCE(fingerprint, ?) WHERE id = ?",
            [status, dumps(counts or {}), int(leaks), dumps(quality or {}), now_iso(), fingerprint, int(run_id)])
        if cur.rowcount == 0:
            raise NotFoundError(f"de-identification run {run_id} does not exist")
        audit(db, user, f"deid.{status}", f"deid_run:{run_id}", detail={"leaks": int(leaks)})


@retrying
def get_deid_run(db: Database, run_id: int) -> DeidRun:
    """The de-identification run with that id; :class:`NotFoundError` if there is none.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}}, user="ana")
    >>> run = store.get_deid_run(db, run_id)
    >>> run.status, run.profile_name, run.created_by, run.leaks
    ('running', 'default', 'ana', None)
    """
    rows = list(db.query("SELECT * FROM deid_runs WHERE id = ?", [int(run_id)]))
    if not rows:
        raise NotFoundError(f"de-identification run {run_id} does not exist")
    return _run(rows[0])


@retrying
def list_deid_runs(db: Database, project_id: int) -> list[DeidRun]:
    """Newest first.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> first = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> second = store.create_deid_run(db, pid, "strict", {"actions": {"NAME": "redact", "DATE": "redact"}})
    >>> [(r.id, r.profile_name) for r in store.list_deid_runs(db, pid)]
    [(2, 'strict'), (1, 'default')]
    """
    return [_run(r) for r in db.query("SELECT * FROM deid_runs WHERE project_id = ? ORDER BY id DESC", [project_id])]


def _run(r: dict) -> DeidRun:
    return DeidRun(id=r["id"], project_id=r["project_id"], profile_name=r["profile_name"],
                   profile=loads(r["profile_json"], {}), model_version=r["model_version"], job_id=r["job_id"],
                   status=r["status"], counts=loads(r["counts_json"], {}), leaks=r["leaks"],
                   quality=loads(r["quality_json"], {}), created_by=r["created_by"], created_at=r["created_at"],
                   finished_at=r["finished_at"], fingerprint=r.get("fingerprint"))


def _output(r: dict, *, with_text: bool) -> DeidOutput:
    detected = r.get("input_spans_json")
    return DeidOutput(run_id=r["run_id"], doc_id=r["doc_id"], text=r["text"] if with_text else None,
                      spans=[Span.from_dict(d) for d in loads(r["spans_json"], [])], n_leaks=r["n_leaks"],
                      created_at=r["created_at"], output_name=r.get("output_name"),
                      input_spans=None if detected is None else [Span.from_dict(d) for d in loads(detected, [])])
