"""The Metrics page through AppTest on the demo project: its plotly charts carry the figures of
services.project_metrics (pre layer vs gold per category, confusion, operating points, agreement
heatmaps, annotators vs gold, throughput, active model and learning curve), the category filter
narrows them, the kappa/alpha caveat is shown, annotators are refused and no text is shown."""
from __future__ import annotations

import json

import pytest

import store
from streamlit.testing.v1 import AppTest

from apptest_helpers import (LEAD, REPO, RUN_TIMEOUT, demo_app, errors, new_app, open_page, shows,  # noqa: F401
                             sign_in)
from dashboard.state import TOKEN_KEY
from services import project_metrics as pm
from pipeline.metrics.agreement import CHANCE_CAVEAT


def _metrics_page(app, user="rita", role="reviewer"):
    at = new_app(app)
    sign_in(at, app, user, role)
    open_page(at, "metrics")
    assert not errors(at), errors(at)
    return at


def _charts(at) -> dict[str, dict]:
    out = {}
    for e in at.get("plotly_chart"):
        spec = json.loads(e.proto.spec)
        out[((spec.get("layout") or {}).get("title") or {}).get("text", "")] = spec
    return out


def test_charts_carry_the_project_figures(demo_app):
    at = _metrics_page(demo_app)
    charts = _charts(at)
    pid = demo_app.project_id
    with demo_app.db() as db:
        expected = pm.project_metrics(db, pid, pm.MetricsFilter())
        # pre layer against gold, per category: bars hold the report's P/R/F1
        prf = charts["Pre-annotations vs gold, per category"]["data"]
        per_cat = expected.pre.report.strict.per_category
        assert prf[0]["x"] == list(per_cat)
        assert prf[1]["y"] == pytest.approx([c.recall for c in per_cat.values()])
        rows, cols, matrix = expected.pre.report.confusion.matrix()
        conf = charts["Reference category x system category"]["data"][0]
        assert conf["z"] == matrix and conf["y"] == rows and conf["x"] == cols
        assert "Operating points" in charts
        # agreement: symmetric, ones on the diagonal, the pair's strict F1 off it
        heat = charts["Pairwise agreement (strict entity F1)"]["data"][0]
        assert heat["x"] == ["ana", "ben"] and heat["z"][0][0] == 1.0
        assert heat["z"][0][1] == pytest.approx(expected.agreement.pair("ana", "ben").strict.micro.f1) == heat["z"][1][0]
        assert "Cohen's kappa (token labels)" in charts
        assert shows(at, CHANCE_CAVEAT)
        # annotators vs gold next to the pre layer on their documents, and throughput
        vs = charts["Strict P/R/F1 against gold"]["data"]
        assert "ana" in vs[0]["x"] and "pre (ana's docs)" in vs[0]["x"]
        th = charts["Annotator throughput"]["data"]
        assert th[0]["x"] == ["ana", "ben"]
        assert th[0]["y"] == pytest.approx([t.docs_per_hour for t in expected.throughput])
        assert shows(at, "No active model")
        # no document text anywhere on the page
        gold = store.read_project_layer(db, pid, "gold")
        texts = {r.id: r.text for r in store.list_documents(db, pid, ids=sorted(gold), with_text=True)}
        surfaces = {texts[d][s.start:s.end] for d in gold for s in gold[d] if s.end - s.start >= 6}
        assert surfaces and not any(shows(at, x) for x in surfaces)


def test_active_model_learning_curve_and_category_filter(demo_app, tmp_path):
    pid = demo_app.project_id
    with demo_app.db() as db:
        ev = pm.pre_vs_gold(db, pid, pm.MetricsFilter()).report.to_json()
        v1 = store.add_model_version(db, pid, "v-a", str(tmp_path / "a"), metrics=ev, config={"members": ["crf"]})
        store.add_model_version(db, pid, "v-b", str(tmp_path / "b"), metrics=ev)
        store.activate_model(db, v1)
        at = _metrics_page(demo_app, LEAD, "lead")
        charts = _charts(at)
        bars = charts["Active model, per category (dev)"]["data"]
        assert bars[0]["x"] == list(ev["strict"]["per_category"])
        curve = charts["Model versions"]["data"]
        assert curve[0]["x"] == ["v-a", "v-b"] and curve[0]["y"] == [ev["strict"]["micro"]["f1"]] * 2
        # beside F1: character precision and recall, overall and per category (issue 30)
        assert _metric(at, "Character recall") == f"{ev['characters']['micro']['recall']:.3f}"
        assert _metric(at, "Character precision") == f"{ev['characters']['micro']['precision']:.3f}"
        chars = next(df.value for df in at.dataframe if "Character recall" in df.value.columns)
        per = ev["characters"]["per_category"]
        assert list(chars["Category"]) == list(per)
        assert list(chars["Character recall"]) == pytest.approx([per[c]["recall"] for c in per])
        assert list(chars["PHI characters"]) == [per[c]["support"] for c in per]
        at.selectbox(key="metrics.category").set_value("NAME").run()
        assert not errors(at)
        charts = _charts(at)
        assert charts["Pre-annotations vs gold, per category"]["data"][0]["x"] == ["NAME"]
        assert charts["Active model, per category (dev)"]["data"][0]["x"] == ["NAME"]
        assert charts["Model versions"]["data"][0]["y"][0] == pytest.approx(ev["strict"]["per_category"]["NAME"]["f1"])
        chars = next(df.value for df in at.dataframe if "Character recall" in df.value.columns)
        assert list(chars["Category"]) == ["NAME"]


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_annotators_refused(demo_app):
    at = new_app(demo_app)
    sign_in(at, demo_app, "ana", "annotator")
    at.run()
    with pytest.raises(ValueError):              # not in the navigation...
        at.switch_page("pages/metrics.py")
    direct = AppTest.from_string(                # ...and refused on the server when run anyway
        "import runpy\nfrom dashboard.components import guard\nwith guard():\n"
        f"    runpy.run_path({str(REPO / 'pages' / 'metrics.py')!r})\n", default_timeout=RUN_TIMEOUT)
    direct.session_state[TOKEN_KEY] = at.session_state[TOKEN_KEY]
    direct.run()
    assert any("may not see metrics" in e for e in errors(direct)), errors(direct)
    assert not direct.get("plotly_chart")


def test_why_gold_spans_were_missed_table(demo_app):
    at = _metrics_page(demo_app)
    with demo_app.db() as db:
        expected = pm.project_metrics(db, demo_app.project_id, pm.MetricsFilter()).pre.report.misses
    assert expected.total > 0        # the demo's pre-annotations miss some spans and draw some too long
    frames = [df.value for df in at.dataframe if "Too long" in df.value.columns]
    assert len(frames) == 1
    got = frames[0]
    assert list(got["Type"]) == [r["type"] for r in expected.rows()]
    assert int(got["Missed"].sum()) == expected.total
    assert "None" not in got.columns          # the kind "none" is said in words (issue 31, item 5)
    for kind, n in expected.by_kind().items():
        header = "Nothing there" if kind == "none" else kind[:1].upper() + kind[1:]
        assert int(got[header].sum()) == n
    assert shows(at, f"{expected.total} of {expected.reference_spans} have no pre-annotation with the same offsets")
