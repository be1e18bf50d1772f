"""Figures are checked through their data (traces' x/y/z), not pixels."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest

from dashboard import figures
from pipeline.metrics.agreement import agreement
from pipeline.metrics import Counts, evaluate
from pipeline.spans import Span
from pipeline.metrics.throughput import AssignmentRecord, throughput

TEXT = "t0 t1 t2 t3 t4 t5 t6 t7 t8 t9"


def tok(doc: str, i: int, label: str = "P", cat: str = "NAME", score: float = 1.0) -> Span:
    return Span(doc, 3 * i, 3 * i + 2, cat, label, score=score)


def test_category_prf_bars():
    per = {"NAME": Counts(3, 1, 0), "DATE": Counts(1, 0, 1)}
    fig = figures.category_prf_bars(per)
    assert isinstance(fig, go.Figure) and [t.name for t in fig.data] == ["Precision", "Recall", "F1"]
    assert list(fig.data[0].x) == ["NAME", "DATE"]
    assert list(fig.data[0].y) == [0.75, 1.0] and list(fig.data[1].y) == [1.0, 0.5]
    assert list(fig.data[2].y) == pytest.approx([6 / 7, 2 / 3])
    # the JSON form of a report works as well
    j = evaluate({"d": [tok("d", 1)]}, {"d": [tok("d", 1)]}, {"d": TEXT}).to_json()
    assert list(figures.category_prf_bars(j["strict"]["per_category"]).data[2].y) == [1.0]


def test_learning_curve_sorts_versions_by_time():
    versions = [{"name": "v2", "created_at": "2024-02-01", "f1": 0.9, "recall": 0.95},
                {"name": "v1", "created_at": "2024-01-01", "f1": 0.8, "recall": 0.85}]
    fig = figures.learning_curve(versions, metrics=("f1", "recall"))
    assert [t.name for t in fig.data] == ["F1", "Recall"]
    # one categorical tick per version, oldest first; the training date on hover
    assert list(fig.data[0].x) == ["v1", "v2"] and list(fig.data[0].y) == [0.8, 0.9]
    assert list(fig.data[0].customdata) == ["2024-01-01", "2024-02-01"] and fig.layout.xaxis.type == "category"


def test_count_axes_have_whole_number_ticks_and_history_is_per_member():
    fig = figures.risk_distribution(["red", "red", "amber"])
    assert fig.layout.yaxis.tickformat == "d" and fig.layout.yaxis.dtick == 1
    pts = [{"i": 1, "member": "crf", "loss": 3.0, "dev_f1": None}, {"i": 2, "member": "bert", "loss": 2.0, "dev_f1": None},
           {"i": 3, "member": "crf", "loss": 1.0, "dev_f1": 0.5}, {"i": 4, "member": "bert", "loss": 1.5, "dev_f1": None}]
    h = figures.training_history(pts)
    by_name = {t.name: t for t in h.data}
    assert set(by_name) == {"crf loss", "bert loss", "crf dev F1"}
    assert list(by_name["crf loss"].x) == [1, 2] and list(by_name["bert loss"].y) == [2.0, 1.5]


def test_agreement_heatmap_per_category():
    ann = {"a": {"d": [tok("d", 1), tok("d", 3, "D", "DATE")]}, "b": {"d": [tok("d", 1)]},
           "c": {"d": [tok("d", 1), tok("d", 3, "D", "DATE")]}}
    rep = agreement(ann, {"d": TEXT})
    fig = figures.agreement_heatmap(*rep.matrix("strict", category="DATE"))
    hm = fig.data[0]
    assert list(hm.x) == ["a", "b", "c"]
    z = [list(r) for r in hm.z]
    assert z[0][2] == 1.0 and z[0][1] == 0.0 and z[1][1] == 1.0
    z_all = [list(r) for r in figures.agreement_heatmap(*rep.matrix("strict")).data[0].z]
    assert z_all[0][1] == pytest.approx(2 / 3)


def test_confusion_heatmap():
    gold = {"d": [tok("d", 1), tok("d", 3, "D", "DATE"), tok("d", 5)]}
    syst = {"d": [tok("d", 1), tok("d", 3, "A", "AGE"), tok("d", 7)]}
    rows, cols, m = evaluate(syst, gold, {"d": TEXT}).confusion.matrix()
    fig = figures.confusion_heatmap(rows, cols, m)
    hm = fig.data[0]
    assert list(hm.y) == ["DATE", "NAME", "SPURIOUS"] and list(hm.x) == ["AGE", "DATE", "NAME", "MISSED"]
    assert [list(r) for r in hm.z] == [[1, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 0]]


def test_operating_curve_figure():
    gold = {"d": [tok("d", i) for i in (1, 2, 3)]}
    syst = {"d": [tok("d", 1, score=0.9), tok("d", 2, score=0.5), tok("d", 3, score=0.2), tok("d", 6, score=0.7)]}
    rep = evaluate(syst, gold, {"d": TEXT}, targets=(0.6, 1.0))
    fig = figures.operating_curve_figure(rep.operating)
    sweep, pts = fig.data
    assert list(sweep.x) == pytest.approx([1 / 3, 1 / 3, 2 / 3, 1.0])
    assert list(sweep.y) == pytest.approx([1.0, 0.5, 2 / 3, 0.75])
    assert list(pts.x) == pytest.approx([2 / 3, 1.0]) and list(pts.y) == pytest.approx([2 / 3, 0.75])
    assert len(figures.operating_curve_figure(rep.operating.to_dict()).data[1].x) == 2


def test_risk_distribution_orders_colours():
    fig = figures.risk_distribution(["red", "green", "amber", "green", "grey", "green"])
    bar = fig.data[0]
    assert list(bar.x) == ["green", "amber", "red", "grey"] and list(bar.y) == [3, 1, 1, 1]
    assert list(figures.risk_distribution([]).data[0].x) == []


def test_throughput_bars():
    rows = throughput([AssignmentRecord("ana", "1", 1800, 12), AssignmentRecord("bo", "1", None, 3)])
    fig = figures.throughput_bars(rows)
    assert list(fig.data[0].x) == ["ana", "bo"]
    assert list(fig.data[0].y) == [2.0, None] and list(fig.data[1].y) == [24.0, None]


def test_training_history_draws_one_line_per_fit_against_its_own_iterations():
    """A CRF and its refit on train+dev report side by side (interleaved); each is its own line,
    x is the fit's iteration, and the axis says so (issue 31, item 5)."""
    pts = [{"member": "crf", "step": 1, "loss": 9.0, "dev_f1": None},
           {"member": "crf refit", "step": 1, "loss": 9.5, "dev_f1": None},
           {"member": "crf", "step": 2, "loss": 5.0, "dev_f1": None},
           {"member": "crf refit", "step": 2, "loss": 6.0, "dev_f1": None},
           {"member": "crf", "step": 2, "loss": None, "dev_f1": 0.7},
           {"member": "", "step": None, "loss": None, "dev_f1": 0.75}]
    h = figures.training_history(pts)
    by_name = {t.name: t for t in h.data}
    assert list(by_name["crf loss"].x) == [1, 2] and list(by_name["crf loss"].y) == [9.0, 5.0]
    assert list(by_name["crf refit loss"].x) == [1, 2] and list(by_name["crf refit loss"].y) == [9.5, 6.0]
    assert list(by_name["crf dev F1"].x) == [2]
    assert list(by_name["ensemble dev F1 (thresholds tuned)"].y) == [0.75]
    assert h.layout.xaxis.title.text == figures.HISTORY_X and "report" not in h.layout.xaxis.title.text
