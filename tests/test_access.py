"""Server-side access checks (services.access), called directly - not through the UI - on the demo
project: roles, documents an annotator may open, blind layers, who may write which layer,
atomic saves with time and status, and audit rows without document text."""
from __future__ import annotations

import json

import pytest

import store
from pipeline.errors import PermissionDenied, StaleSaveError
from pipeline.spans import Span, SpanError
from services import access


@pytest.fixture
def demo(tmp_path):
    from services.demo import create_demo_project

    db = store.connect(tmp_path / "w.db")
    pid = create_demo_project(db, n_docs=30)
    store.create_user(db, "lea", "quiet harbour lantern 42", "lead")
    users = {u.username: u for u in store.list_users(db)}
    yield db, pid, users
    db.close()


def _docs(db, pid):
    """(an assigned-to-ana 'assigned' doc, a doc both finished, a doc nobody is assigned)."""
    mine = store.list_assignments(db, user="ana", project_id=pid)
    todo = next(a.doc_id for a in mine if a.status == "assigned")
    double = next(a.doc_id for a in mine if a.status == "finished"
                  and store.read_layer(db, a.doc_id, "gold").version == 0)
    taken = {a.doc_id for a in store.list_assignments(db, project_id=pid)}
    free = next(d.id for d in store.list_documents(db, pid) if d.id not in taken)
    return todo, double, free


def test_roles_and_actions(demo):
    _, _, users = demo
    ana, rita, lea = users["ana"], users["rita"], users["lea"]
    assert access.can(ana, "annotate") and not access.can(ana, "review") and not access.can(ana, "export")
    assert access.can(rita, "review") and access.can(rita, "write_gold") and access.can(rita, "decide_risk")
    for action in ("train", "activate_model", "export", "manage_users", "manage_assignments", "manage_schema",
                   "manage_dictionaries", "manage_profiles", "deidentify"):
        assert not access.can(rita, action) and not access.can(ana, action)
        assert access.can(lea, action)
        with pytest.raises(PermissionDenied, match=f"rita \\(reviewer\\) may not {access.ACTION_WORDS[action]}"):
            access.require(rita, action)
    assert all(access.can(lea, a) for a in access.ACTIONS)
    with pytest.raises(PermissionDenied, match="not signed in"):
        access.require(None, "view_project")
    with pytest.raises(PermissionDenied, match="disabled"):
        access.require(ana.__class__(**{**ana.__dict__, "disabled": True}), "annotate")
    with pytest.raises(ValueError):
        access.can(lea, "fly")


def test_annotator_opens_only_assigned_documents(demo):
    db, pid, users = demo
    ana, rita = users["ana"], users["rita"]
    todo, double, free = _docs(db, pid)
    assert access.open_document(db, ana, todo, project_id=pid).text
    with pytest.raises(PermissionDenied, match=f"document {free} is not assigned to you"):
        access.open_document(db, ana, free)
    with pytest.raises(PermissionDenied, match="document 987654 is not assigned to you"):
        access.open_document(db, ana, 987654)  # same answer as for an existing document
    assert access.open_document(db, rita, free).id == free  # reviewers open any document
    with pytest.raises(store.NotFoundError):
        access.open_document(db, rita, 987654)
    other = store.create_project(db, "other", store.get_project(db, pid).schema)
    with pytest.raises(PermissionDenied, match=f"not in project {other}"):
        access.open_document(db, rita, free, project_id=other)
    # opening can be audited, without text
    access.open_document(db, ana, todo, record=True)
    (entry,) = store.list_audit(db, action="document.open")
    assert (entry.user, entry.doc_id, entry.detail) == ("ana", todo, {})


def test_blind_layers(demo):
    db, pid, users = demo
    ana, ben, rita = users["ana"], users["ben"], users["rita"]
    todo, double, free = _docs(db, pid)
    assert access.visible_layers(db, ana, double) == ["annotator:ana", "pre"]
    assert access.visible_layers(db, ben, double) == ["annotator:ben", "pre"]
    assert access.visible_layers(db, rita, double) == ["annotator:ana", "annotator:ben", "pre"]
    assert access.read_layer_for(db, ana, double, "annotator:ana").spans
    for layer in ("annotator:ben", "gold"):
        with pytest.raises(PermissionDenied, match=f"may not see layer {layer}"):
            access.read_layer_for(db, ana, double, layer)
    with pytest.raises(PermissionDenied, match="not assigned"):
        access.read_layer_for(db, ana, free, "pre")
    with pytest.raises(PermissionDenied):
        access.visible_layers(db, ana, free)
    assert access.read_layer_for(db, rita, double, "annotator:ben").spans
    empty = access.read_layer_for(db, ana, todo, "annotator:ana")
    assert (empty.spans, empty.version) == ([], 0)  # not saved yet: readable, empty


def test_save_layer_as_checks_writer_and_records_time_and_status(demo):
    db, pid, users = demo
    ana, ben, rita, lea = users["ana"], users["ben"], users["rita"], users["lea"]
    todo, double, free = _docs(db, pid)
    pre = store.read_layer(db, todo, "pre").spans
    mine = [s.with_(layer="annotator:ana") for s in pre]

    for who, doc, layer in ((ana, todo, "annotator:ben"), (ana, todo, "gold"), (ana, free, "annotator:ana"),
                            (ana, todo, "pre"), (lea, todo, "pre"), (ben, double, "annotator:ana")):
        with pytest.raises(PermissionDenied):
            access.save_layer_as(db, who, doc, layer, mine, 0)
    assert store.read_layer(db, todo, "annotator:ana").version == 0

    v1 = access.save_layer_as(db, ana, todo, "annotator:ana", mine, 0, seconds=42.5)
    (a,) = store.list_assignments(db, user="ana", doc_id=todo)
    assert v1 == 1 and a.status == "in_progress" and a.seconds_spent == pytest.approx(42.5)
    assert store.read_layer(db, todo, "annotator:ana").status == "in_progress"

    # a stale save writes nothing: neither spans nor time nor status
    with pytest.raises(StaleSaveError, match="you started from version 0 but version 1"):
        access.save_layer_as(db, ana, todo, "annotator:ana", mine[:1], 0, seconds=100, status="finished")
    (a,) = store.list_assignments(db, user="ana", doc_id=todo)
    assert a.status == "in_progress" and a.seconds_spent == pytest.approx(42.5)
    assert len(store.read_layer(db, todo, "annotator:ana").spans) == len(mine)

    # an invalid save (overlap) writes nothing either
    if mine:
        bad = mine + [mine[0].with_(end=mine[0].end + 1, type="DOCTOR")]
        with pytest.raises(SpanError):
            access.save_layer_as(db, ana, todo, "annotator:ana", bad, 1, seconds=5)
        assert store.list_assignments(db, user="ana", doc_id=todo)[0].seconds_spent == pytest.approx(42.5)

    v2 = access.save_layer_as(db, ana, todo, "annotator:ana", mine, 1, seconds=10, status="finished")
    (a,) = store.list_assignments(db, user="ana", doc_id=todo)
    assert v2 == 2 and a.status == "finished" and a.seconds_spent == pytest.approx(52.5)
    v3 = access.save_layer_as(db, ana, todo, "annotator:ana", mine[1:], 2)  # a later plain save stays finished
    assert v3 == 3 and store.list_assignments(db, user="ana", doc_id=todo)[0].status == "finished"
    assert store.read_layer(db, todo, "annotator:ana").status == "finished"

    # reviewers write gold (finished by default), on any document
    g = [Span(str(free), 0, 4, "NAME", "PATIENT", "human:rita", 1.0, "gold"),
         Span(str(free), 6, 9, "AGE", "AGE", "human:rita", 1.0, "gold")]
    assert access.save_layer_as(db, rita, free, "gold", g, 0) == 1
    assert store.read_layer(db, free, "gold").status == "finished"
    assert access.save_layer_as(db, lea, free, "gold", g[:1], 1) == 2


def test_audit_rows_never_hold_document_text(demo):
    db, pid, users = demo
    ana = users["ana"]
    todo, _, _ = _docs(db, pid)
    doc = access.open_document(db, ana, todo, record=True)
    pre = store.read_layer(db, todo, "pre").spans
    access.save_layer_as(db, ana, todo, "annotator:ana", [s.with_(layer="annotator:ana") for s in pre], 0, 3.0)
    surfaces = {doc.text[s.start:s.end] for s in pre if s.end - s.start >= 4}
    assert surfaces
    for entry in store.list_audit(db, doc_id=todo, limit=100):
        blob = json.dumps(entry.detail, ensure_ascii=False) + (entry.target or "")
        assert not any(t in blob for t in surfaces)
    actions = {e.action for e in store.list_audit(db, doc_id=todo, user="ana", limit=100)}
    assert {"document.open", "layer.save", "assignment.time", "assignment.status"} <= actions


def test_user_changes_cannot_lock_the_lead_out(demo):
    _, _, users = demo
    lea, rita = users["lea"], users["rita"]
    with pytest.raises(PermissionDenied):
        access.check_user_change(lea, "lea", disable=True)
    with pytest.raises(PermissionDenied):
        access.check_user_change(lea, "lea", role="annotator")
    access.check_user_change(lea, "lea", role="lead")
    access.check_user_change(lea, "rita", role="annotator", disable=True)
    with pytest.raises(PermissionDenied):
        access.check_user_change(rita, "ana", disable=True)
