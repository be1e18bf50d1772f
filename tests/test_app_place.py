"""Never losing one's place, and the smaller things a team notices (issue 31, items 4 and 5),
through AppTest on the demo project.

Item 4: the address names the open note on Annotate and Review (``?doc=<id>``), a new session
with that address (a reload) opens it; "next" and "finish & next" open the next unfinished note
in the queue order, never a finished one while unfinished ones wait; a settled disagreement can
be reopened, audited, and stays open after a reload until gold is saved again.
Item 5: the Train page preselects a version it had not shown and does not compare the active
version with itself; Home says how many held-out notes the F1 rests on; Admin stays on its tab
after an action; times, statuses and headers in words; rates per hour not from one note.
"""
from __future__ import annotations

import json
import re

import store
from apptest_helpers import LEAD, demo_app, errors, new_app, open_page, shows, sign_in  # noqa: F401
from editor_helpers import inject, items, shown
from pipeline.annotation import adjudication as adj
from pipeline.schemas import I2B2_2014
from services import queues, review

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


def _queue(app, user="ana") -> list[int]:
    with store.connect(app.db_path) as db:
        return [a.doc_id for a in queues.load_queue(db, user, app.project_id)]


def _open_address(app, user: str, role: str, page: str, doc_id: int):
    """A new session (a reload, a link) opening ``pages/<page>.py?doc=<doc_id>``."""
    at = new_app(app)
    sign_in(at, app, user, role)
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.query_params["doc"] = str(doc_id)
    return at.run()


def _finish_elsewhere(app, doc_id: int, user: str = "ana") -> None:
    """The annotator finishes ``doc_id`` in another tab (the page's queue as shown keeps it)."""
    with store.connect(app.db_path) as db:
        store.set_assignment_status(db, doc_id, user, "finished", by=user)


# --------------------------------------------------------------------------- Annotate


def test_annotate_names_the_note_in_the_address_and_a_reload_opens_it(demo_app):
    ids = _queue(demo_app)
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    open_page(at, "annotate")
    assert at.query_params["doc"] == str(ids[0]) and at.session_state["annotate.doc_id"] == ids[0]
    inject(at, "annotate.editor", action="next")
    at.run()
    assert at.query_params["doc"] == str(at.session_state["annotate.doc_id"]) != str(ids[0])
    at.selectbox(key="annotate.pick").set_value(ids[3]).run()
    assert at.query_params["doc"] == str(ids[3])

    # a reload is a new session with the same address: the same note, not the queue's first
    again = _open_address(demo_app, "ana", "annotator", "annotate", ids[3])
    assert not errors(again)
    assert again.session_state["annotate.doc_id"] == ids[3] and shown(again)["token"].startswith(f"{ids[3]}.")


def test_next_and_finish_skip_notes_finished_meanwhile(demo_app):
    ids = _queue(demo_app)
    with store.connect(demo_app.db_path) as db:
        statuses = {a.doc_id: a.status for a in queues.load_queue(db, "ana", demo_app.project_id)}
    assert all(statuses[d] != "finished" for d in ids[:4])
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana")
    open_page(at, "annotate")
    assert at.session_state["annotate.doc_id"] == ids[0]
    _finish_elsewhere(demo_app, ids[1])   # the note right after the open one is finished meanwhile
    at.run()
    assert at.session_state["annotate.order.%d" % demo_app.project_id][:3] == ids[:3]  # still where it was
    inject(at, "annotate.editor", action="next")
    at.run()
    assert at.session_state["annotate.doc_id"] == ids[2]                # not the finished ids[1]
    inject(at, "annotate.editor", action="prev")
    at.run()
    assert at.session_state["annotate.doc_id"] == ids[1]                # previous still steps back to it

    # finish & next from the first note: the next unfinished one, ids[2]
    at.selectbox(key="annotate.pick").set_value(ids[0]).run()
    _finish_elsewhere(demo_app, ids[2])
    at.run()
    with store.connect(demo_app.db_path) as db:
        text = store.get_document(db, ids[0]).text
        pre = store.read_layer(db, ids[0], "pre").spans
    inject(at, "annotate.editor", action="finish", spans=items(text, pre, I2B2_2014, accepted=True))
    at.run()
    assert not errors(at)
    assert at.session_state["annotate.doc_id"] == ids[3]                # ids[1] and ids[2] are finished
    assert "next unfinished document" in shown(at)["message"]


# --------------------------------------------------------------------------- Review


def _review_docs(app) -> list[int]:
    """Documents awaiting adjudication that have disagreements, in queue order."""
    with store.connect(app.db_path) as db:
        return [i.doc_id for i in review.review_queue(db, app.project_id)
                if adj.document_disagreements(i.doc_id, review.finished_layers(db, i.doc_id))]


def _settle(at, app, doc_id: int, *, action: str = "save_next", seq: int = 2) -> list:
    """Decide every disagreement of ``doc_id`` (taking the first annotator's version) and save."""
    with store.connect(app.db_path) as db:
        layers = review.finished_layers(db, doc_id)
        text = store.get_document(db, doc_id).text
    found = adj.document_disagreements(doc_id, layers)
    first = sorted(layers)[0]
    gold = adj.draft_gold(doc_id, layers, found, {i: first for i in range(len(found))}, "rita")
    inject(at, "review.editor", action=action, spans=items(text, gold, I2B2_2014),
           decided=list(range(len(found))), seq=seq)
    at.run()
    assert not errors(at), errors(at)
    return found


def test_review_honours_and_writes_the_address(demo_app):
    docs = _review_docs(demo_app)
    at = _open_address(demo_app, "rita", "reviewer", "review", docs[1])
    assert not errors(at)
    assert at.session_state["review.doc_id"] == docs[1] and shown(at)["token"].startswith(f"{docs[1]}.")
    at.selectbox(key="review.pick").set_value(docs[0]).run()
    assert at.query_params["doc"] == str(docs[0])


def test_a_settled_disagreement_is_reopened_audited_and_stays_open_after_a_reload(demo_app):
    docs = _review_docs(demo_app)
    doc_id = docs[0]
    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    at.session_state["review.doc_id"] = doc_id
    open_page(at, "review")
    found = _settle(at, demo_app, doc_id)
    assert at.session_state["review.doc_id"] != doc_id                  # saved and moved on
    with store.connect(demo_app.db_path) as db:
        assert store.read_layer(db, doc_id, "gold").status == "finished"
        assert doc_id not in [i.doc_id for i in review.review_queue(db, demo_app.project_id)]
    inject(at, "review.editor", action="prev")                          # back to the settled one
    at.run()
    assert at.session_state["review.doc_id"] == doc_id
    assert all(d["choice"] for d in shown(at)["disagreements"])
    at.button(key=f"review.reopen.{doc_id}.0").click().run()
    assert not errors(at)
    data = shown(at)
    assert data["disagreements"][0]["choice"] is None and all(d["choice"] for d in data["disagreements"][1:])
    assert "open again" in data["message"]
    with store.connect(demo_app.db_path) as db:
        assert store.read_layer(db, doc_id, "gold").status == "in_progress"    # back among the awaiting
        assert doc_id in [i.doc_id for i in review.review_queue(db, demo_app.project_id)]
        [row] = store.list_audit(db, doc_id=doc_id, action="review.reopen")
        assert row.user == "rita" and row.detail == {"start": found[0].start, "end": found[0].end,
                                                     "kind": found[0].kind, "gold_version": 1}

    # a reload (new session, same address): the reopened disagreement is still open
    again = _open_address(demo_app, "rita", "reviewer", "review", doc_id)
    data = shown(again)
    assert again.session_state["review.doc_id"] == doc_id
    assert data["disagreements"][0]["choice"] is None and all(d["choice"] for d in data["disagreements"][1:])
    # saving with it still open is refused; deciding it again and saving settles it
    _settle(again, demo_app, doc_id, action="save", seq=5)
    with store.connect(demo_app.db_path) as db:
        gold = store.read_layer(db, doc_id, "gold")
        assert gold.version == 2 and gold.status == "finished"
        assert review.reopened(db, store.get_user(db, "rita"), doc_id, gold.version) == set()


def test_review_next_skips_documents_settled_meanwhile(demo_app):
    docs = _review_docs(demo_app)
    assert len(docs) >= 3
    at = new_app(demo_app)
    sign_in(at, demo_app, "rita", "reviewer")
    at.session_state["review.doc_id"] = docs[0]
    at.session_state["review.show_all"] = True
    open_page(at, "review")
    other = new_app(demo_app)                     # another reviewer settles docs[1] meanwhile
    sign_in(other, demo_app, "rita", "reviewer")
    other.session_state["review.doc_id"] = docs[1]
    open_page(other, "review")
    _settle(other, demo_app, docs[1], action="save")
    at.run()
    order = at.session_state[f"review.order.{demo_app.project_id}.1"]
    assert order.index(docs[1]) < order.index(docs[2])      # listed (settled too), between them
    inject(at, "review.editor", action="next")
    at.run()
    assert at.session_state["review.doc_id"] == docs[2]


# --------------------------------------------------------------------------- Train, Home, Admin, Metrics


def _version(app, folder, name: str, f1: float, dev_docs: int, *, activate: bool = True) -> int:
    """A model version evaluated on ``dev_docs`` held-out notes (a training job's result)."""
    prf = {"precision": f1, "recall": f1, "f1": f1}
    metrics = {"strict": {"micro": prf, "per_category": {"NAME": {**prf, "support": 12}}},
               "evaluated_on": {"documents": dev_docs}}
    with store.connect(app.db_path) as db:
        v = store.add_model_version(db, app.project_id, name, str(folder / name), metrics=metrics)
        if activate:
            store.activate_model(db, v, user=LEAD)
    return v


def test_train_preselects_a_new_version_and_does_not_compare_the_active_one_with_itself(demo_app, tmp_path):
    v1 = _version(demo_app, tmp_path, "v-one", 0.8, 40)
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    open_page(at, "train")
    assert at.selectbox(key="train.version").value == v1
    assert shows(at, "is the active version") and not any("Δ F1" in df.value.columns for df in at.dataframe)
    assert not any(str(demo_app.db_path.parent) in c.value for c in at.caption)   # no server path
    assert not ISO.search(" ".join(str(v) for df in at.dataframe for v in df.value.get("Trained", [])))
    v2 = _version(demo_app, tmp_path, "v-two", 0.9, 40, activate=False)   # a training job just added it
    at.run()
    assert at.selectbox(key="train.version").value == v2
    assert shows(at, "next to the active version") and any("Δ F1" in df.value.columns for df in at.dataframe)
    at.selectbox(key="train.version").set_value(v1).run()   # the lead's choice is kept on later runs
    at.run()
    assert at.selectbox(key="train.version").value == v1


def test_home_says_how_many_held_out_notes_the_f1_rests_on(demo_app, tmp_path):
    _version(demo_app, tmp_path, "v-few", 0.98, 4)
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    at.run()
    assert not errors(at)
    assert any("on 4 held-out notes" in c.value for c in at.caption)
    assert any("rests on 4 held-out notes" in w.value and "fewer than 30" in w.value for w in at.warning)
    _version(demo_app, tmp_path, "v-many", 0.9, 60)
    at.run()
    assert any("on 60 held-out notes" in c.value for c in at.caption)
    assert not any("held-out notes" in w.value for w in at.warning)


def _tab_container(at):
    """The Admin page's tab bar as sent to the browser (which tab it opens on, and its address key)."""
    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None and proto.__class__.__name__ == "Block" and proto.WhichOneof("type") == "tab_container":
            yield proto.tab_container
        children = getattr(node, "children", None)
        for child in (children.values() if isinstance(children, dict) else ()):
            yield from walk(child)
    return next(walk(at._tree))  # noqa: SLF001


def test_admin_stays_on_its_tab_after_an_action_and_shows_no_internals(demo_app):
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    open_page(at, "admin")
    assert not errors(at)
    users = next(df.value for df in at.dataframe if "username" in df.value.columns)
    assert not any(ISO.search(str(v)) for v in users["created"])          # a readable local time
    assignments = next(df.value for df in at.dataframe if "user" in df.value.columns and "minutes" in df.value.columns)
    assert "in progress" in assignments.columns and "in_progress" not in assignments.columns
    at.session_state["tab"] = "Settings"        # the lead opened the Settings tab
    at.run()
    at.button(key="admin.settings_submit").click().run()
    assert not errors(at) and any("Settings saved" in s.value for s in at.success)
    tabs = _tab_container(at)
    assert tabs.default_tab_index == 5 and tabs.query_param_key == "tab"   # Settings, and kept in ?tab=


def test_metrics_gives_no_rate_per_hour_from_one_note(demo_app):
    with store.connect(demo_app.db_path) as db:
        store.create_user(db, "zed", "a long test password", "annotator")
        doc_id = _queue(demo_app)[0]
        store.assign(db, doc_id, "zed")
        store.record_time(db, doc_id, "zed", 90.0)
        store.set_assignment_status(db, doc_id, "zed", "finished", by="zed")
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    open_page(at, "metrics")
    assert not errors(at)
    table = next(df.value for df in at.dataframe if "Documents / hour" in df.value.columns)
    zed = table[table["Annotator"] == "zed"].iloc[0]
    assert zed["Timed documents"] == 1 and zed["Documents / hour"] != zed["Documents / hour"]   # NaN: not shown
    for e in at.get("plotly_chart"):
        spec = json.loads(e.proto.spec)
        if ((spec.get("layout") or {}).get("title") or {}).get("text") == "Annotator throughput":
            assert "zed" not in spec["data"][0]["x"]
    assert shows(at, "at least 5 timed notes")


def test_a_refused_save_names_the_time_in_words_not_iso(demo_app):
    """The stale-save message Annotate and Review show says when, without ISO's T and microseconds."""
    from pipeline.errors import StaleSaveError

    doc_id = _queue(demo_app)[0]
    with store.connect(demo_app.db_path) as db:
        store.save_layer(db, doc_id, "gold", [], expected_version=0, user="rita")
        try:
            store.save_layer(db, doc_id, "gold", [], expected_version=0, user="ben")
        except StaleSaveError as e:
            message = str(e)
        else:
            raise AssertionError("a stale save was accepted")
    assert "saved by rita at " in message and " UTC;" in message and not ISO.search(message)
