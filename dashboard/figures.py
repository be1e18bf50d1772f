"""Plotly figures for the Metrics, Train and Risk pages.

Each figure is a pure function of metrics data (the dataclasses of :mod:`pipeline.metrics`,
:mod:`pipeline.metrics.agreement` and :mod:`pipeline.metrics.throughput`, or plain mappings/lists) returning a
``go.Figure``: no store access, no Streamlit, so tests check the traces' x/y/z directly.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import plotly.graph_objects as go

from pipeline.metrics.counts import Counts

RISK_ORDER = ("green", "amber", "red")
RISK_COLOURS = {"green": "#2e7d32", "amber": "#f9a825", "red": "#c62828"}
_PRF = (("precision", "Precision", "#1f77b4"), ("recall", "Recall", "#d62728"), ("f1", "F1", "#2ca02c"))


def _get(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, Mapping) else getattr(obj, key, default)


def category_prf_bars(per_category: Mapping[str, Counts | Mapping[str, float]],
                      title: str = "Per category") -> go.Figure:
    """Grouped P/R/F1 bars, one group per category (``Measure.per_category`` or its dict form)."""
    cats = list(per_category)
    fig = go.Figure()
    for key, name, colour in _PRF:
        fig.add_trace(go.Bar(name=name, x=cats, y=[float(_get(per_category[c], key)) for c in cats],
                             marker_color=colour))
    fig.update_layout(barmode="group", title=title, yaxis=dict(range=[0, 1.05], title="score"))
    return fig


def learning_curve(versions: Sequence[Any], metrics: Sequence[str] = ("f1", "recall", "precision"),
                   x: str = "created_at") -> go.Figure:
    """Model versions over time: one line per metric; each version is a mapping with ``name``,
    ``x`` (default ``created_at``) and the metric values (missing values leave gaps)."""
    rows = sorted(versions, key=lambda v: str(_get(v, x) or ""))
    fig = go.Figure()
    for m in metrics:
        fig.add_trace(go.Scatter(name=m, mode="lines+markers", x=[_get(v, x) for v in rows],
                                 y=[_get(v, m) for v in rows], text=[_get(v, "name", "") for v in rows]))
    fig.update_layout(title="Model versions", yaxis=dict(title="score"), xaxis=dict(title=x))
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
    fig.update_layout(title="Operating points", xaxis=dict(title="PHI-token recall"), yaxis=dict(title="precision"))
    return fig


def risk_distribution(colours: Sequence[str]) -> go.Figure:
    """How many documents got each risk colour: green, amber, red first, anything else after."""
    counts: dict[str, int] = {}
    for c in colours:
        counts[c] = counts.get(c, 0) + 1
    order = [c for c in RISK_ORDER if c in counts] + sorted(c for c in counts if c not in RISK_ORDER)
    fig = go.Figure(go.Bar(x=order, y=[counts[c] for c in order],
                           marker_color=[RISK_COLOURS.get(c, "#9e9e9e") for c in order]))
    fig.update_layout(title="Risk colours", yaxis=dict(title="documents"))
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
    fig.update_layout(barmode="group", title="Annotator throughput",
                      yaxis=dict(title="documents / hour"),
                      yaxis2=dict(title="spans / hour", overlaying="y", side="right", showgrid=False))
    return fig
