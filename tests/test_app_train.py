"""The Train page through AppTest: leads only; a job's progress is read from the store, so a
rerun or a second session shows the same progress and can cancel it; the form queues a training
job with the chosen parameters; activation and rollback; failed jobs with their reason."""
from __future__ import annotations

import json
import time

import pytest
from streamlit.testing.v1 import AppTest

import store
from apptest_helpers import LEAD, REPO, RUN_TIMEOUT, demo_app, errors, new_app, open_page, shows, sign_in  # noqa: F401
from dashboard.state import TOKEN_KEY
from services import jobs
from services import training as tj
from pipeline.metrics import evaluate


def _train_page(app, user=LEAD, role="lead"):
    at = new_app(app)
    sign_in(at, app, user, role)
    open_page(at, "train")
    assert not errors(at), errors(at)
    return at


def _wait(db, job_id, predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = store.get_job(db, job_id)
        if predicate(job):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not reach the expected state")


def _progress_values(at) -> list[float]:
    return [float(e.proto.value) / 100.0 for e in at.get("progress")]   # the proto holds percent


def _chart_titles(at) -> list[str]:
    out = []
    for e in at.get("plotly_chart"):
        spec = json.loads(e.proto.spec)
        out.append(((spec.get("layout") or {}).get("title") or {}).get("text", ""))
    return out


def test_page_refused_to_annotators_and_reviewers(demo_app):
    for name, role in (("ana", "annotator"), ("rita", "reviewer")):
        at = new_app(demo_app)
        sign_in(at, demo_app, name, role)
        at.run()
        with pytest.raises(ValueError):          # not in their navigation...
            at.switch_page("pages/train.py")
        # ...and refused on the server when the page script runs anyway
        direct = AppTest.from_string(
            "import runpy\nfrom dashboard.components import guard\nwith guard():\n"
            f"    runpy.run_path({str(REPO / 'pages' / 'train.py')!r})\n", default_timeout=RUN_TIMEOUT)
        direct.session_state[TOKEN_KEY] = at.session_state[TOKEN_KEY]
        direct.run()
        assert any("may not train models" in e for e in errors(direct)), errors(direct)
        assert not direct.get("plotly_chart") and not direct.button


def test_lead_sees_gold_form_and_no_jobs(demo_app):
    at = _train_page(demo_app)
    assert at.title[0].value == "Train"
    assert shows(at, "finished gold document(s)")
    assert shows(at, "No training or pre-annotation job is running.")
    assert at.multiselect(key="train.members").value == ["crf"]          # one CRF by default
    assert at.selectbox(key="train.mode").value == "flat"
    assert not at.button(key="train.start").disabled          # the demo's gold spans 4 patients
    assert shows(at, "No model version yet.")


def test_job_progress_survives_rerun_and_new_session_and_can_be_cancelled(demo_app):
    with demo_app.db() as db:
        params = {"steps": 600, "delay": 0.05, "project_id": demo_app.project_id}
        job_id = jobs.start_job(demo_app.db_path, "selftest", params, user=LEAD)
        # st.progress shows whole percents: wait for at least 2 % (12 of 600 steps) so the bar is above 0
        _wait(db, job_id, lambda j: j.status == "running" and j.progress >= 12)
        at = _train_page(demo_app)
        assert shows(at, f"Job {job_id} · self-test")
        first = _progress_values(at)
        assert len(first) == 1 and 0 < first[0] < 1
        _wait(db, job_id, lambda j: j.progress / 600 >= first[0] + 0.02)
        at.run()                                             # a rerun reads the job again from the store
        assert _progress_values(at)[0] > first[0]
        other = _train_page(demo_app)                        # another browser session: the same job
        assert shows(other, f"Job {job_id} · self-test") and _progress_values(other)[0] >= _progress_values(at)[0]
        other.button(key=f"train.cancel.{job_id}").click().run()
        assert not errors(other)
        job = _wait(db, job_id, lambda j: j.finished)
        assert job.status == "failed" and job.error == "cancelled on request" and job.progress < 600
        at.run()
        assert shows(at, "No training or pre-annotation job is running.")
        assert shows(at, "cancelled on request")             # listed under failed jobs with its reason


def _queue_jobs_only(monkeypatch) -> list[dict]:
    """Jobs the form starts are queued in the store but run by no worker; their params are listed."""
    started: list[dict] = []

    def fake_start(db_path, kind, params, *, user=None):
        started.append(params)
        return store.create_job(store.connect(db_path), kind, params, project_id=params["project_id"], user=user)

    monkeypatch.setattr(tj, "start_job", fake_start)
    return started


def test_form_queues_training_job(demo_app, monkeypatch):
    started: list[tuple] = []

    def fake_start(db_path, kind, params, *, user=None):   # queue only: no worker process in this test
        started.append((kind, params, user))
        return store.create_job(store.connect(db_path), kind, params, project_id=params["project_id"], user=user)

    monkeypatch.setattr(tj, "start_job", fake_start)
    at = _train_page(demo_app)
    at.multiselect(key="train.members").set_value(["crf", "bert"])
    at.number_input(key="train.epochs").set_value(2)
    at.number_input(key="train.seed").set_value(21)
    at.number_input(key="train.target_recall").set_value(0.95)
    at.button(key="train.start").click().run()
    assert not errors(at), errors(at)
    [(kind, params, user)] = started
    assert kind == "train" and user == LEAD
    assert params["members"] == ["crf", "bert"] and params["epochs"] == 2 and params["seed"] == 21
    assert params["target_recall"] == pytest.approx(0.95) and params["project_id"] == demo_app.project_id
    assert params["mode"] == "flat"                    # the default, unless the lead chooses otherwise
    assert "refit_crf" not in (params.get("config") or {})   # refit on train + dev: the default
    with demo_app.db() as db:
        job = store.list_jobs(db, "train")[0]
    assert shows(at, f"Job {job.id} · training") and shows(at, "started")
    # a second training of the same project while one is queued is refused with a reason
    at.button(key="train.start").click().run()
    assert any("already running" in e for e in errors(at))
    assert len(started) == 1


def test_form_passes_the_chosen_ensemble_mode_to_the_job(demo_app, monkeypatch):
    started = _queue_jobs_only(monkeypatch)
    at = _train_page(demo_app)
    box = at.selectbox(key="train.mode")
    assert box.options == ["flat: the members label fine types",
                           "hierarchical: a category model checks the type members"]
    assert "flagged for review" in box.help
    box.set_value("hierarchical")
    at.checkbox(key="train.refit").uncheck()
    at.button(key="train.start").click().run()
    assert not errors(at), errors(at)
    [params] = started
    assert params["mode"] == "hierarchical"
    assert tj.TrainParams.from_params(params).mode == "hierarchical"   # what the worker reads back
    assert tj.TrainParams.from_params(params).config["refit_crf"] is False   # the faster training, chosen
    with demo_app.db() as db:
        job = store.list_jobs(db, "train")[0]
    assert job.params["mode"] == "hierarchical"


def test_bad_mode_is_refused_in_one_line():
    with pytest.raises(tj.TrainingError) as e:
        tj.TrainParams.from_params({"project_id": 1, "mode": "tree"})
    assert "\n" not in str(e.value) and "flat or hierarchical" in str(e.value)


def _evaluated(db, pid, keep_every: int) -> dict:
    gold = store.read_project_layer(db, pid, "gold", status="finished")
    pre = store.read_project_layer(db, pid, "pre")
    ids = sorted(d for d in gold if d in pre)
    texts = {str(r.id): r.text for r in store.list_documents(db, pid, ids=ids, with_text=True)}
    return evaluate({str(d): pre[d][::keep_every] for d in ids}, {str(d): gold[d] for d in ids}, texts).to_json()


def test_compare_activate_and_roll_back(demo_app, tmp_path):
    pid = demo_app.project_id
    with demo_app.db() as db:
        v1 = store.add_model_version(db, pid, "v-one", str(tmp_path / "v-one"), metrics=_evaluated(db, pid, 2))
        learnt = {"training": {"spared_steps": ["drop_safe_word_spans_en"], "muted_sources": ["dict:surnames"]}}
        v2 = store.add_model_version(db, pid, "v-two", str(tmp_path / "v-two"),
                                     metrics={**_evaluated(db, pid, 1), **learnt}, config={"target_recall": 0.995})
        at = _train_page(demo_app)
        assert at.selectbox(key="train.version").value == v2        # newest candidate first
        at.selectbox(key="train.version").set_value(v1).run()
        at.button(key="train.activate").click().run()
        assert not errors(at), errors(at)
        assert store.active_model(db, pid).id == v1
        at.selectbox(key="train.version").set_value(v2).run()
        titles = _chart_titles(at)
        assert "v-two (dev)" in titles and "v-one (active, dev)" in titles
        assert any("thresholds tuned for recall ≥ 0.995" in c.value for c in at.caption)  # which operating point
        # what the run learnt on its dev notes about the rules and lists (issue 30)
        assert any("leaves out the surnames list (dict:surnames)" in c.value and "safe-word guard" in c.value
                   for c in at.caption)
        # the versions table: character precision and recall beside F1 (issue 30)
        table = next(df.value for df in at.dataframe if "Char recall" in df.value.columns)
        row = table[table["Version"] == "v-two"].iloc[0]
        two = store.get_model_version(db, v2).metrics
        assert row["Char recall"] == pytest.approx(two["characters"]["micro"]["recall"])
        assert row["Char precision"] == pytest.approx(two["characters"]["micro"]["precision"])
        assert row["All PHI found"] == pytest.approx(two["document_recall"])
        spec = json.loads(at.get("plotly_chart")[0].proto.spec)
        cats = spec["data"][0]["x"]
        metrics = store.get_model_version(db, v2).metrics["strict"]["per_category"]
        assert cats == list(metrics) and spec["data"][2]["y"] == [metrics[c]["f1"] for c in cats]
        at.button(key="train.activate").click().run()
        assert store.active_model(db, pid).id == v2
        at.button(key="train.rollback").click().run()
        assert not errors(at), errors(at)
        assert store.active_model(db, pid).id == v1 and store.get_model_version(db, v2).status == "rolled_back"
        assert shows(at, "v-one is active again")


def test_stale_job_listed_as_failed_with_reason(demo_app):
    with demo_app.db() as db:
        job_id = store.create_job(db, "preannotate", {"project_id": demo_app.project_id},
                                  project_id=demo_app.project_id)
        store.update_job(db, job_id, status="running", pid=999999)
        db.execute("UPDATE jobs SET heartbeat_at = '2000-01-01T00:00:00.000000+00:00' WHERE id = ?", [job_id])
        db.conn.commit()
        at = _train_page(demo_app)
        assert store.get_job(db, job_id).status == "failed"
        assert shows(at, "worker stopped (no heartbeat since 2000-01-01")
        assert shows(at, "No training or pre-annotation job is running.")


def test_form_passes_the_surrogate_copies_chosen_to_the_job(demo_app, monkeypatch):
    started = _queue_jobs_only(monkeypatch)
    at = _train_page(demo_app)
    # the default: one copy, which the CRFs learn from too
    assert at.number_input(key="train.augment").value == 1 and at.checkbox(key="train.augment_crf").value
    at.number_input(key="train.augment").set_value(2)
    at.checkbox(key="train.augment_crf").uncheck()
    at.button(key="train.start").click().run()
    assert not errors(at), errors(at)
    [params] = started
    assert tj.TrainParams.from_params(params).config == {"augment_copies": 2, "augment_crf": False}


@pytest.mark.parametrize("config, words", [({"augment_copies": -1}, "between 0 and"),
                                           ({"augment_copies": 99}, "between 0 and"),
                                           ({"augment_copies": "two"}, "whole number"),
                                           ({"augment_copies": 1, "augment_crf": "yes"}, "true or false"),
                                           ({"case_copies": 3}, "case copies must be"),
                                           ({"case_copies": "upper"}, "whole number")])
def test_bad_surrogate_settings_are_refused_in_one_line(config, words):
    with pytest.raises(tj.TrainingError) as e:
        tj.TrainParams.from_params({"project_id": 1, "config": config})
    assert "\n" not in str(e.value) and words in str(e.value)
