"""What of a de-identification run may leave the workbench: the risk decisions gate every export
of a run (the page's zip, the folder the command line writes).

* ``withheld`` documents never leave;
* ``sent_back`` documents are held until the run re-de-identifies them from their fixed gold
  (:func:`services.rework.redeidentify_document` clears the decision), since their output was
  made from spans a reviewer found wrong;
* with the project setting ``require_red_decided`` a run whose red documents are not all decided
  is refused, with a one-line reason;
* a run that failed its leak check is refused (as before, :mod:`services.deid_files`).

Every export and every refusal is audited with the counts and the ids left out (ids, never
text), so "what left, what did not, and why" can be answered from the log alone.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlite_utils import Database

import store
from pipeline.deid import zip_outputs
from pipeline.errors import WorkbenchError
from pipeline.formats import write_collection
from services import access
from services.deid_files import EXPORT_FORMATS, stored_outputs_as_documents
from services.settings import ProjectSettings


class ReleaseBlocked(WorkbenchError):
    """A run that may not be exported now (safe to show: one line, counts only)."""


@dataclass(frozen=True)
class ReleasePlan:
    """A run's documents sorted by what the risk decisions allow."""

    run_id: int
    release: tuple[int, ...]            # doc ids that leave
    withheld: tuple[int, ...]
    sent_back: tuple[int, ...]
    undecided_red: tuple[int, ...]
    require_red_decided: bool

    @property
    def blocked(self) -> str | None:
        """Why the run cannot be exported now (one line), or None."""
        if self.require_red_decided and self.undecided_red:
            return (f"run {self.run_id} cannot be exported: {len(self.undecided_red)} red document(s) have no risk "
                    "decision and this project requires every red document to be decided (Risk page)")
        if not self.release:
            return f"run {self.run_id} has no document left to export ({self.left_out_words()})"
        return None

    def left_out_words(self) -> str:
        return f"{len(self.withheld)} withheld, {len(self.sent_back)} sent back for fixing"

    def line(self) -> str:
        """What an export of the run holds, in words."""
        total = len(self.release) + len(self.withheld) + len(self.sent_back)
        return f"exports {len(self.release)} of {total} documents; left out: {self.left_out_words()}"

    def audit_detail(self) -> dict:
        return {"documents": len(self.release), "withheld": len(self.withheld), "sent_back": len(self.sent_back),
                "left_out_ids": sorted(self.withheld + self.sent_back), "undecided_red": len(self.undecided_red)}


def release_plan(db: Database, run_id: int) -> ReleasePlan:
    """Sort the run's outputs by their risk decisions (documents never scored are released as
    before: only a decision holds one back)."""
    run = store.get_deid_run(db, run_id)
    settings = ProjectSettings.of(store.get_project(db, run.project_id))
    decisions = {r.doc_id: r for r in store.risk_queue(db, run_id)}
    release, withheld, sent_back, undecided_red = [], [], [], []
    for o in store.list_deid_outputs(db, run_id):
        score = decisions.get(o.doc_id)
        decision = score.decision if score else None
        if decision == "withheld":
            withheld.append(o.doc_id)
        elif decision == "sent_back":
            sent_back.append(o.doc_id)
        else:
            release.append(o.doc_id)
            if score is not None and score.colour == "red" and decision is None:
                undecided_red.append(o.doc_id)
    return ReleasePlan(run_id=int(run_id), release=tuple(release), withheld=tuple(withheld),
                       sent_back=tuple(sent_back), undecided_red=tuple(undecided_red),
                       require_red_decided=settings.require_red_decided)


def _checked(db: Database, who: str, run_id: int, fmt: str, formats: tuple[str, ...]) -> ReleasePlan:
    if fmt not in formats:
        raise ReleaseBlocked(f"unknown export format {fmt!r}; use {', '.join(formats)}")
    plan = release_plan(db, run_id)
    reason = plan.blocked
    if reason is not None:
        store.audit(db, who, "export.refused", f"deid_run:{run_id}", detail={"format": fmt, **plan.audit_detail()})
        raise ReleaseBlocked(reason)
    return plan


def _documents(db: Database, plan: ReleasePlan):
    keep = set(plan.release)
    return stored_outputs_as_documents(db, plan.run_id, only=keep)


def export_run_zip(db: Database, user: store.User | str | None, run_id: int, fmt: str) -> tuple[bytes, ReleasePlan]:
    """The run's releasable outputs as a zip (the De-identify page), audited with what was left out."""
    who = access.actor(user, "export")
    plan = _checked(db, who, run_id, fmt, EXPORT_FORMATS)
    data = zip_outputs(_documents(db, plan), fmt)
    store.audit(db, who, "export", f"deid_run:{run_id}",
                detail={"format": fmt, "bytes": len(data), "to": "zip", **plan.audit_detail()})
    return data, plan


def export_run_folder(db: Database, user: store.User | str | None, run_id: int, out: str | os.PathLike,
                      fmt: str) -> ReleasePlan:
    """The run's releasable outputs written into ``out`` (the command line), audited likewise."""
    from pipeline.formats import WRITERS

    who = access.actor(user, "export")
    plan = _checked(db, who, run_id, fmt, tuple(sorted(WRITERS)))
    files = write_collection(_documents(db, plan), out, fmt)
    store.audit(db, who, "export", f"deid_run:{run_id}",
                detail={"format": fmt, "files": len(files), "to": "folder", "out": str(Path(out).resolve()),
                        **plan.audit_detail()})
    return plan
