"""Plotly figures for the Metrics, Train and Risk pages.

Each figure is a pure function of metrics data (the dataclasses of :mod:`pipeline.metrics`,
:mod:`pipeline.metrics.agreement` and :mod:`pipeline.metrics.throughput`, or plain mappings/lists) returning a
``go.Figure``: no store access, no Streamlit, so tests check the traces' x/y/z directly.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import plotly.graph_objects as go

from pipeline.metrics.counts import Counts

RISK_ORDER = ("green", "amber", "red")
RISK_COLOURS = {"green": "#2e7d32", "amber": "#f9a825", "red": "#c62828"}
_PRF = (("precision", "Precision", "#1f77b4"), ("recall", "Recall", "#d62728"), ("f1", "F1", "#2ca02c"))
#: Legends sit under the plot, never over the axes or the data.
LEGEND_BELOW = dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, Mapping) else getattr(obj, key, default)


def count_axis(max_value: float, title: str) -> dict:
    """A y axis for counts: whole numbers only (no 0.5 documents), from zero."""
    step = max(1, math.ceil(max(1.0, float(max_value or 0)) / 6))
    return dict(title=title, tick0=0, dtick=step, tickformat="d", rangemode="tozero")


def short_date(ts: str | None) -> str:
    """``2026-11-23T16:26:21.321728+00:00`` -> ``2026-11-23 16:26`` (minutes are enough to tell versions apart)."""
    return (ts or "")[:16].replace("T", " ")


def category_prf_bars(per_category: Mapping[str, Counts | Mapping[str, float]],
                      title: str = "Per category") -> go.Figure:
    """Grouped P/R/F1 bars, one group per category (``Measure.per_category`` or its dict form)."""
    cats = list(per_category)
    fig = go.Figure()
    for key, name, colour in _PRF:
        fig.add_trace(go.Bar(name=name, x=cats, y=[float(_get(per_category[c], key)) for c in cats],
                             marker_color=colour))
    fig.update_layout(barmode="group", title=title, yaxis=dict(range=[0, 1.05], title="score"),
                      legend=LEGEND_BELOW)
    return fig


METRIC_WORDS = {"f1": "F1", "recall": "Recall", "precision": "Precision", "document_recall": "Documents with all PHI found"}


def learning_curve(versions: Sequence[Any], metrics: Sequence[str] = ("f1", "recall", "precision"),
                   x: str = "created_at") -> go.Figure:
    """Model versions in the order they were trained, one line per metric: a categorical axis
    of version names (one tick per version, whatever the time between them), the training date
    on hover. Each version is a mapping with ``name``, ``x`` (default ``created_at``) and the
    metric values (missing values leave gaps)."""
    rows = sorted(versions, key=lambda v: str(_get(v, x) or ""))
    names = [str(_get(v, "name", "")) for v in rows]
    fig = go.Figure()
    for m in metrics:
        fig.add_trace(go.Scatter(name=METRIC_WORDS.get(m, m), mode="lines+markers", x=names,
                                 y=[_get(v, m) for v in rows],
                                 customdata=[short_date(_get(v, x)) for v in rows],
                                 hovertemplate="%{x}<br>trained %{customdata}<br>%{y:.3f}<extra></extra>"))
    fig.update_layout(title="Model versions", yaxis=dict(title="score", range=[0, 1.05]),
                      xaxis=dict(title="version (oldest first)", type="category"), legend=LEGEND_BELOW)
    return fig


#: What the x axis of :func:`training_history` counts.
HISTORY_X = "iteration (CRF) or optimisation step (encoder), per fit"


def training_history(points: Sequence[Mapping[str, Any]]) -> go.Figure:
    """Loss (left axis) and dev F1 (right axis) of a training run, one line per fit (a member,
    and its refit on train + dev as a line of its own: the two run side by side), against the
    fit's own iteration or step (``step``). Points recorded before steps were (no ``step``) are
    numbered per fit. The ensemble's dev F1 after the thresholds are tuned (no member) is one
    marker at the right end."""
    fig = go.Figure()
    fits = list(dict.fromkeys(str(p.get("member") or "") for p in points))
    palette = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")
    last_x = 0
    for k, fit in enumerate(f for f in fits if f):
        mine = [p for p in points if str(p.get("member") or "") == fit]
        colour = palette[k % len(palette)]
        numbered = [(p["step"] if isinstance(p.get("step"), int) else n, p) for n, p in enumerate(mine, start=1)]
        last_x = max([last_x, *(x for x, _ in numbered)])
        loss = [(x, p["loss"]) for x, p in numbered if p.get("loss") is not None]
        f1 = [(x, p["dev_f1"]) for x, p in numbered if p.get("dev_f1") is not None]
        refit = fit.endswith(" refit")
        if loss:
            fig.add_trace(go.Scatter(name=f"{fit} loss", mode="lines", x=[x for x, _ in loss], y=[v for _, v in loss],
                                     line=dict(color=colour, dash="dash" if refit else "solid")))
        if f1:
            fig.add_trace(go.Scatter(name=f"{fit} dev F1", mode="lines+markers", x=[x for x, _ in f1],
                                     y=[v for _, v in f1], yaxis="y2", line=dict(color=colour, dash="dot")))
    ensemble = [p["dev_f1"] for p in points if not p.get("member") and p.get("dev_f1") is not None]
    if ensemble:
        fig.add_trace(go.Scatter(name="ensemble dev F1 (thresholds tuned)", mode="markers", x=[last_x or 1],
                                 y=[ensemble[-1]], yaxis="y2", marker=dict(symbol="star", size=12, color="#333")))
    fig.update_layout(title="Training loss and dev F1, one line per fit", height=360, legend=LEGEND_BELOW,
                      xaxis=dict(title=HISTORY_X, rangemode="tozero", tickformat="d"),
                      yaxis=dict(title="loss", rangemode="tozero"),
                      yaxis2=dict(title="dev F1", overlaying="y", side="right", range=[0, 1.02], showgrid=False,
                                  tickmode="linear", tick0=0, dtick=0.2))
    return fig


def agreement_heatmap(annotators: Sequence[str], z: Sequence[Sequence[float | None]],
                      title: str = "Agreement (F1)") -> go.Figure:
    """Annotator x annotator heatmap; feed it ``AgreementReport.matrix(measure, category)``."""
    fig = go.Figure(go.Heatmap(x=list(annotators), y=list(annotators), z=[list(r) for r in z],
                               zmin=0, zmax=1, colorscale="Viridis",
                               text=[["" if v is None else f"{v:.2f}" for v in r] for r in z],
                               texttemplate="%{text}"))
    fig.update_layout(title=title, yaxis=dict(autorange="reversed"))
    return fig


def confusion_heatmap(rows: Sequence[str], columns: Sequence[str], matrix: Sequence[Sequence[int]],
                      title: str = "Reference category x system category") -> go.Figure:
    """The confusion table (``ConfusionTable.matrix()``): rows reference, columns system."""
    fig = go.Figure(go.Heatmap(x=list(columns), y=list(rows), z=[list(r) for r in matrix], colorscale="Blues",
                               text=[[str(v) for v in r] for r in matrix], texttemplate="%{text}"))
    fig.update_layout(title=title, xaxis=dict(title="system"), yaxis=dict(title="reference", autorange="reversed"))
    return fig


def operating_curve_figure(curve: Any) -> go.Figure:
    """Precision against PHI-token recall over the threshold sweep (an ``OperatingCurve`` or its
    dict), with the chosen operating points as markers."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(name="sweep", mode="lines", x=list(_get(curve, "recall")),
                             y=list(_get(curve, "precision")), text=[f"t={t:.3f}" for t in _get(curve, "thresholds")]))
    pts = [p for p in _get(curve, "points", []) if _get(p, "threshold") is not None]
    fig.add_trace(go.Scatter(name="operating points", mode="markers", x=[_get(p, "recall") for p in pts],
                             y=[_get(p, "precision") for p in pts], marker=dict(size=10, symbol="diamond"),
                             text=[f"target {_get(p, 'target_recall'):.3f}" for p in pts]))
    fig.update_layout(title="Operating points", xaxis=dict(title="PHI-token recall"), yaxis=dict(title="precision"),
                      legend=LEGEND_BELOW)
    return fig


def risk_distribution(colours: Sequence[str]) -> go.Figure:
    """How many documents got each risk colour: green, amber, red first, anything else after."""
    counts: dict[str, int] = {}
    for c in colours:
        counts[c] = counts.get(c, 0) + 1
    order = [c for c in RISK_ORDER if c in counts] + sorted(c for c in counts if c not in RISK_ORDER)
    fig = go.Figure(go.Bar(x=order, y=[counts[c] for c in order],
                           marker_color=[RISK_COLOURS.get(c, "#9e9e9e") for c in order]))
    fig.update_layout(title="Risk colours", yaxis=count_axis(max(counts.values(), default=0), "documents"))
    return fig


def throughput_bars(rows: Sequence[Any]) -> go.Figure:
    """Documents and spans per hour per annotator (``AnnotatorThroughput`` rows or dicts);
    annotators with no recorded time show as gaps."""
    users = [_get(r, "user") for r in rows]
    fig = go.Figure()
    # two axes: spans/hour is an order of magnitude above documents/hour
    fig.add_trace(go.Bar(name="documents / hour", x=users, y=[_get(r, "docs_per_hour") for r in rows],
                         offsetgroup="docs", yaxis="y"))
    fig.add_trace(go.Bar(name="spans / hour", x=users, y=[_get(r, "spans_per_hour") for r in rows],
                         offsetgroup="spans", yaxis="y2"))
    fig.update_layout(barmode="group", title="Annotator throughput", legend=LEGEND_BELOW,
                      yaxis=dict(title="documents / hour", rangemode="tozero"),
                      yaxis2=dict(title="spans / hour", overlaying="y", side="right", showgrid=False,
                                  rangemode="tozero"))
    return fig
