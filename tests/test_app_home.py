"""Home page and the app shell through AppTest: sign-in (form, wrong password, first lead),
counts that match the store, each role's next steps, navigation by role, expired sessions and
the error boundary."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import store
from apptest_helpers import LEAD, PASSWORD, demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from dashboard import state
from services import queues
from services import review
from services import worklists


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_home_renders_counts_for_a_lead(demo_app):
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    open_page(at, "home")
    assert not errors(at)
    with demo_app.db() as db:
        s = store.stats(db, demo_app.project_id)
        assert _metric(at, "Documents") == "30"
        assert _metric(at, "Gold documents") == str(s["gold_finished"]) and s["gold_finished"] > 0
        for status, n in s["documents_by_status"].items():
            assert _metric(at, status.replace("_", " ")) == str(n)
        assert _metric(at, "Active model") == "none"
        agreement = float(_metric(at, "Agreement (strict F1)"))
        assert 0.0 < agreement <= 1.0
        md = " ".join(m.value for m in at.markdown)
        assert f"**Unassigned documents:** {len(worklists.unassigned_documents(db, demo_app.project_id))}." in md
        assert f"**Awaiting adjudication:** {len(review.review_queue(db, demo_app.project_id))} document(s)." in md


def test_home_shows_the_annotators_queue_and_model_to_activate(demo_app):
    with demo_app.db() as db:
        mv = store.add_model_version(db, demo_app.project_id, "v1", "/nonexistent", {},
                                     {"strict": {"micro": {"f1": 0.81}}})
        queue = queues.load_queue(db, "ben", demo_app.project_id)
        todo = [a for a in queue if a.status != "finished"]
    at = new_app(demo_app)
    sign_in(at, demo_app, "ben")
    open_page(at, "home")
    assert not errors(at)
    md = " ".join(m.value for m in at.markdown)
    assert f"**Your queue:** {len(todo)} to do" in md
    assert "Awaiting adjudication" not in md and "Unassigned documents" not in md
    assert "Agreement (strict F1)" not in [m.label for m in at.metric]  # blind annotation: not for annotators
    # opening a queued document switches to Annotate on it
    at.button(key=f"home.open.{todo[0].doc_id}").click().run()
    assert not errors(at)
    assert at.session_state["annotate.doc_id"] == todo[0].doc_id
    assert [t.value for t in at.title] == ["Annotate"]

    lead = new_app(demo_app)
    sign_in(lead, demo_app, LEAD, "lead")
    open_page(lead, "home")
    assert "**Models to look at and activate:** v1 (F1 0.810)" in " ".join(m.value for m in lead.markdown)
    assert mv


def test_sign_in_form_and_navigation_by_role(demo_app):
    with demo_app.db() as db:
        store.set_password(db, "ana", PASSWORD)
    at = new_app(demo_app)
    at.run()
    assert [t.value for t in at.title] == ["De-identification workbench"]
    at.text_input(key="signin.username").input("ana")
    at.text_input(key="signin.password").input("wrong")
    at.button(key="signin.submit").click().run()
    assert errors(at) == ["Wrong username or password, or the account is disabled."]
    assert state.TOKEN_KEY not in at.session_state
    at.text_input(key="signin.password").input(PASSWORD)
    at.button(key="signin.submit").click().run()
    assert not errors(at)
    assert at.session_state[state.TOKEN_KEY]
    assert [t.value for t in at.title] == ["Demo (synthetic)"]  # Home
    # an annotator's navigation has Home and Annotate only
    with demo_app.db() as db:
        titles = [p.title for p in state.available_pages(store.get_user(db, "ana"))]
        assert titles == ["Home", "Annotate"]
        assert "Admin" in [p.title for p in state.available_pages(store.get_user(db, LEAD))]
        assert "Admin" not in [p.title for p in state.available_pages(store.get_user(db, "rita"))]
    # sign out ends the server-side session. (AppTest keeps sending the sign-in page's hash after
    # the in-run rerun, and Streamlit drops widget events of a run whose page changed; a browser
    # learns the new page from the server. One plain run brings AppTest in line.)
    at.run()
    token = at.session_state[state.TOKEN_KEY]
    at.button(key="auth.signout").click().run()
    with demo_app.db() as db:
        assert store.user_for_session(db, token) is None
    assert [t.value for t in at.title] == ["De-identification workbench"]


def test_expired_session_no_lead_notice_and_first_project(tmp_path, monkeypatch):
    path = tmp_path / "fresh.db"
    db = store.connect(path)
    store.create_user(db, "ana", PASSWORD, "annotator")
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = new_app()
    at.run()
    # no lead yet: the sign-in page says how to make one (on the command line, not here)
    assert any("python -m pipeline users add" in w.value for w in at.warning)
    assert at.text_input(key="signin.username") is not None

    expired = new_app()
    old = store.create_session(db, "ana", 60, now=datetime.now(timezone.utc) - timedelta(hours=9))
    expired.session_state[state.TOKEN_KEY] = old
    expired.run()
    assert [t.value for t in expired.title] == ["De-identification workbench"]  # back at sign-in
    assert state.TOKEN_KEY not in expired.session_state

    # a lead with no project: Home says so; Admin creates the first project
    store.create_user(db, "boss", PASSWORD, "lead")
    lead = new_app()
    lead.session_state[state.TOKEN_KEY] = store.create_session(db, "boss", 3600)
    lead.run()
    assert not errors(lead)
    assert any("there is no project yet" in i.value for i in lead.info)
    open_page(lead, "admin")
    lead.text_input(key="admin.project_name").input("Ward 7")
    lead.button(key="admin.project_submit").click().run()
    assert not errors(lead)
    (project,) = store.list_projects(db)
    assert project.name == "Ward 7" and lead.session_state[state.PROJECT_KEY] == project.id
    db.close()


def test_unexpected_errors_show_an_id_not_a_traceback(demo_app, monkeypatch, caplog):
    import services.review as review_mod

    def boom(*a, **k):
        raise RuntimeError("secret text from a note")

    monkeypatch.setattr(review_mod, "review_queue", boom)
    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    open_page(at, "home")
    msgs = errors(at)
    assert len(msgs) == 1 and msgs[0].startswith("Something went wrong (error id ")
    assert "secret text" not in msgs[0] and not at.exception
    assert "secret text" not in caplog.text
    assert any("RuntimeError" in r.getMessage() for r in caplog.records)
