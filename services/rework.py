"""A document a risk reviewer sent back: to whom it goes, what the annotator reads, and the run
re-de-identifying just that document once its gold is fixed.

* :func:`send_back` (in :mod:`services.risk`, re-exported): the decision, the annotator's assignment (re-opened, first in their queue)
  and the reasons, in one transaction (:func:`store.send_back`). Without a named annotator the
  document goes to the last annotator who had it.
* :func:`my_send_backs`: what the Annotate page shows an annotator next to their queue.
* :func:`redeidentify_document`: the run's own profile and key over the document's current gold
  spans (with its patient's other documents of the run for the patient's surrogates), the output
  replaced, the send-back closed and the decision cleared so the new output is triaged again.
  Refused (one line, nothing stored) when the gold was not saved since it was sent back, when the
  run's key or profile no longer match, or when the new output fails the leak check.
"""
from __future__ import annotations

from sqlite_utils import Database

import store
from pipeline.deid import DeidContext, Profile
from pipeline.layers import GOLD, parse_output_layer
from services import access
from services.deid_batch import DeidentificationError, RunDeidentifier, gather_inputs, infiller_for, output_spans
from services.deid_runs import check_resume_fingerprint
from services.risk import annotator_choices, default_annotator, send_back  # noqa: F401 - the rework entry points
from services.settings import db_path_of, project_locale, project_secret


def open_send_back(db: Database, user: store.User, run_id: int, doc_id: int) -> store.SendBack | None:
    """The document's open send-back in this run (the Risk page), or None."""
    access.require(user, "view_risk")
    found = store.list_send_backs(db, run_id=run_id, doc_id=doc_id)
    return found[0] if found else None


def release_line(db: Database, user: store.User, run_id: int) -> tuple[str, str | None]:
    """What an export of the run would hold, and why it is refused now (None when it is not)."""
    from services.release import release_plan
    access.require(user, "view_risk")
    plan = release_plan(db, run_id)
    return plan.line(), plan.blocked


def my_send_backs(db: Database, username: str, project_id: int) -> dict[int, store.SendBack]:
    """The open send-backs of ``username``'s documents in the project, by document id."""
    project_docs = {a.doc_id for a in store.list_assignments(db, user=username, project_id=project_id)}
    return {s.doc_id: s for s in store.list_send_backs(db, annotator=username) if s.doc_id in project_docs}


def redeidentify_document(db: Database, user: store.User | str | None, run_id: int, doc_id: int) -> dict:
    """Re-de-identify one sent-back document of a run from its current gold (see the module);
    returns counts (spans, leaks)."""
    who = access.actor(user, "deidentify")
    doc_id = int(doc_id)
    [open_] = store.list_send_backs(db, run_id=run_id, doc_id=doc_id) or [None]
    if open_ is None:
        raise DeidentificationError(f"document {doc_id} of run {run_id} is not sent back: nothing to redo")
    gold = store.layers_of(db, doc_id).get(GOLD)
    if gold is None or gold.updated_at <= open_.sent_at:
        raise DeidentificationError(f"document {doc_id}'s gold has not been saved since it was sent back: fix and "
                                    "save its gold first")
    run = store.get_deid_run(db, run_id)
    project = store.get_project(db, run.project_id)
    profile = Profile.from_json(dict(run.profile))
    secret = project_secret(db_path_of(db))
    locale = project_locale(project)
    infiller = infiller_for(profile, project, db_path_of(db))
    check_resume_fingerprint(run, profile, secret, locale, infiller=infiller)
    patient = store.get_document(db, doc_id).patient_id
    layer = _run_layer(db, run_id)
    same = {d.id for d in store.list_documents(db, project.id, patient_id=patient)} if patient is not None else set()
    mates = [o.doc_id for o in store.list_deid_outputs(db, run_id) if o.doc_id != doc_id and o.doc_id in same]
    context = gather_inputs(db, project, mates, layer, "skip").docs if mates else []
    target = gather_inputs(db, project, [doc_id], GOLD, "skip").docs
    deid = RunDeidentifier(context + target, profile, DeidContext(secret=secret, locale=locale, infiller=infiller))
    result = deid(target[0])
    if result.leaks:
        raise DeidentificationError(f"document {doc_id}: the leak check found {len(result.leaks)} piece(s) of input "
                                    "PHI in the new output; nothing was stored")
    with store.transaction(db):
        store.save_deid_outputs(db, run_id, [(doc_id, result.text, output_spans(result, GOLD), 0, result.output_id)],
                                user=who)
        store.close_send_back(db, run_id, doc_id, user=who)
    return {"run_id": run_id, "doc_id": doc_id, "spans": len(result.spans), "leaks": 0}


def _run_layer(db: Database, run_id: int) -> str:
    """The layer the run read its spans from (its job's ``layer``, else its outputs' input layer)."""
    run = store.get_deid_run(db, run_id)
    if run.job_id is not None:
        try:
            layer = (store.get_job(db, run.job_id).params or {}).get("layer")
            if layer:
                return str(layer)
        except store.NotFoundError:
            pass
    for o in store.list_deid_outputs(db, run_id, with_text=False):
        for s in o.spans:
            return parse_output_layer(s.layer)[1]
    return GOLD
