"""The Admin page through AppTest: a lead creates users, changes roles and passwords, assigns
documents with a double-annotated sample, uploads a dictionary, saves a de-identification
profile and settings; the page refuses non-leads and a lead cannot lock themselves out."""
from __future__ import annotations

import pytest

import store
from apptest_helpers import LEAD, demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from services.settings import ProjectSettings
from pipeline.deid.profile import Profile
from pipeline.errors import PermissionDenied
from services.worklists import unassigned_documents
from services import access


def _admin(app):
    at = new_app(app)
    sign_in(at, app, LEAD, "lead")
    open_page(at, "admin")
    assert not errors(at)
    return at


def test_lead_creates_user_who_can_sign_in(demo_app):
    at = _admin(demo_app)
    at.text_input(key="admin.new_username").input("zoe")
    at.text_input(key="admin.new_password").input("zoe's secret phrase")
    at.selectbox(key="admin.new_role").set_value("reviewer")
    at.button(key="admin.create_user_submit").click().run()
    assert not errors(at)
    assert any("Created zoe (reviewer)" in s.value for s in at.success)
    with demo_app.db() as db:
        assert store.get_user(db, "zoe").role == "reviewer"
        assert store.authenticate(db, "zoe", "zoe's secret phrase") is not None
        audit = store.list_audit(db, action="user.create", limit=1)[0]
        assert audit.user == LEAD and "zoe's secret phrase" not in str(audit.detail)

        # change role, reset password, disable
        at.selectbox(key="admin.target").set_value("zoe")
        at.selectbox(key="admin.role").set_value("annotator")
        at.button(key="admin.do_role").click().run()
        assert store.get_user(db, "zoe").role == "annotator"
        at.selectbox(key="admin.target").set_value("zoe")
        at.text_input(key="admin.password").input("a brand new phrase")
        at.button(key="admin.do_password").click().run()
        assert store.authenticate(db, "zoe", "a brand new phrase") is not None
        at.selectbox(key="admin.target").set_value("zoe")
        at.button(key="admin.do_disable").click().run()
        assert store.get_user(db, "zoe").disabled

        # a duplicate name is refused with the store's message
        at.text_input(key="admin.new_username").input("zoe")
        at.text_input(key="admin.new_password").input("whatever it is")
        at.button(key="admin.create_user_submit").click().run()
        assert any("already exists" in e for e in errors(at))

        # the lead cannot disable themselves
        at.selectbox(key="admin.target").set_value(LEAD)
        at.button(key="admin.do_disable").click().run()
        assert any("cannot disable your own account" in e for e in errors(at))
        assert not store.get_user(db, LEAD).disabled


def test_assign_unassigned_with_double_sample(demo_app):
    with demo_app.db() as db:
        todo = [d.id for d in unassigned_documents(db, demo_app.project_id)]
    assert len(todo) >= 10
    at = _admin(demo_app)
    at.multiselect(key="admin.assign_users").set_value(["ana", "ben"])
    at.slider(key="admin.assign_double").set_value(50)
    at.button(key="admin.assign").click().run()
    assert not errors(at)
    with demo_app.db() as db:
        assert unassigned_documents(db, demo_app.project_id) == []
        per_doc = {}
        for a in store.list_assignments(db, project_id=demo_app.project_id):
            if a.doc_id in todo:
                per_doc.setdefault(a.doc_id, []).append(a.user)
        assert set(per_doc) == set(todo)
        assert sum(len(v) == 2 for v in per_doc.values()) == round(0.5 * len(todo))
        assert all(len(set(v)) == len(v) for v in per_doc.values())


def test_dictionary_profile_and_settings(demo_app):
    at = _admin(demo_app)
    at.selectbox(key="admin.dict_label").set_value(("LOCATION", "HOSPITAL"))
    at.text_input(key="admin.dict_name").input("local hospitals")
    body = "# our hospitals\nSaint Elsewhere Hospital\nMercy West\n\nMercy West\n".encode("utf-8")
    at.file_uploader(key="admin.dict_file").upload("hospitals.txt", body, "text/plain")
    at.button(key="admin.dict_submit").click().run()
    assert not errors(at)
    with demo_app.db() as db:
        (d,) = store.list_dictionaries(db, demo_app.project_id)
        assert (d.name, d.category, d.type, d.entries) == ("local hospitals", "LOCATION", "HOSPITAL",
                                                           ["Saint Elsewhere Hospital", "Mercy West"])

        at.text_input(key="admin.profile_name").input("release")
        at.selectbox(key="admin.profile_action.NAME").set_value("replace")
        at.button(key="admin.profile_submit").click().run()
        assert not errors(at)
        prof = Profile.from_json(store.get_deid_profile(db, demo_app.project_id, "release").profile)
        assert prof.action_for("NAME") == "replace" and prof.action_for("DATE") == "shift"
        assert prof.action_for("ID") == "redact"

        at.selectbox(key="admin.queue_order").set_value("uncertain")
        at.slider(key="admin.target_recall").set_value(0.9)
        assert at.checkbox(key="admin.require_decided").value is False
        at.checkbox(key="admin.require_decided").check()
        at.button(key="admin.settings_submit").click().run()
        assert not errors(at)
        project = store.get_project(db, demo_app.project_id)
        s = ProjectSettings.from_settings(project.settings)
        assert s.queue_order == "uncertain" and s.target_recall == pytest.approx(0.9)
        assert s.require_decided        # the lead requires every suggestion decided before finishing
        assert "demo" in project.settings  # other keys kept

        at.text_input(key="admin.checkpoint_dir").input("some-hub-org/some-model")
        at.button(key="admin.settings_submit").click().run()
        assert any("is not a local folder" in e for e in errors(at))


def test_admin_refused_to_non_leads(demo_app):
    with demo_app.db() as db:
        for name in ("ana", "rita"):
            u = store.get_user(db, name)
            for action in ("admin", "manage_users", "manage_assignments", "export", "train", "activate_model"):
                with pytest.raises(PermissionDenied):
                    access.require(u, action)
        lead = store.get_user(db, LEAD)
        with pytest.raises(PermissionDenied):
            access.check_user_change(lead, LEAD, role="reviewer")
        access.check_user_change(lead, "ana", disable=True)  # allowed
    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    at.run()
    with pytest.raises(ValueError):
        at.switch_page("pages/admin.py")


def test_import_plain_text_documents(demo_app):
    at = _admin(demo_app)
    body = "Patient seen in clinic.\nFollow-up in two weeks.\n".encode("utf-8")
    at.file_uploader(key="admin.import_file").upload("note-new.txt", body, "text/plain")
    at.run()
    at.button(key="admin.import").click().run()
    assert not errors(at)
    assert any("Imported 1 document(s)" in s.value for s in at.success)
    with demo_app.db() as db:
        assert store.find_document(db, demo_app.project_id, "note-new") is not None
        assert store.count_documents(db, demo_app.project_id) == 31
