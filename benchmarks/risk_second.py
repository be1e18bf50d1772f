"""The second opinion's part of ``benchmarks/risk_separation.py``: training it on gold notes,
timing it, and choosing its thresholds on the tuning rows (train, cross-fitted) only.

The second opinion (:mod:`pipeline.risk.gold_evidence`) is a word classifier and a memory of
marked words trained on the gold notes the detecting model learned from (the cross-fit's half for
the tuning rows; for dev, the notes of the dev model: ``--second-gold``). Its thresholds are
swept together with the model's ``residual_amber``: every combination on the tuning rows, the
choice the highest flagged share whose green share is >= the goal + margin (as the lexical
choice), then each ``*_red`` the lowest at which half of the red notes hold missed PHI. By
default the model's amber is swept with them and becomes ``residual_amber_beside_opinion`` (what
the model's candidates need beside an opinion of ``TRUSTED_OPINION_NOTES`` gold notes or more;
without one, ``residual_amber`` stays); ``--hold-model`` holds it.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import replace

_RANK = {"green": 0, "amber": 1, "red": 2}
#: the sources whose thresholds are tuned here (model near misses and the second opinion)
TUNED = ("model", "gold:classifier", "gold:memory")
MODEL_GRID = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.01)
SECOND_GRID = (0.99, 0.995, 0.998, 0.999, 0.9995, 0.9998, 0.9999, 1.01)
MEMORY_GRID = (0.9, 0.95, 1.01)       # from pipeline.risk.gold_evidence.FLOOR


def train_second(docs: list):
    """The second opinion of ``docs`` (gold brat notes) and the seconds it took to train."""
    from pipeline.risk.gold_evidence import train_opinion
    from services.gold_opinion import gold_notes

    t0 = time.perf_counter()
    opinion = train_opinion(gold_notes(docs))
    return opinion, time.perf_counter() - t0


def add_second(rows: list[dict], opinion) -> float:
    """Set each row's second-opinion candidates (in place); returns the seconds per 100 notes."""
    t0 = time.perf_counter()
    for r in rows:
        d = r["doc"]
        d.candidates = [c for c in d.candidates if not c.source.startswith("gold:")] + opinion.candidates(d)
    return 100.0 * (time.perf_counter() - t0) / max(1, len(rows))


def _top(row: dict, source: str, only_glue) -> float:
    d = row["doc"]
    return max((c.score for c in d.candidates if c.source == source and not only_glue(d.text[c.start:c.end])),
               default=0.0)


def tops(rows: list[dict]) -> list[dict[str, float]]:
    """Per row, the strongest candidate of each tuned source."""
    from pipeline.risk.residual import only_glue
    return [{s: _top(r, s, only_glue) for s in TUNED} for r in rows]


def colours_with(fixed: list[str], top: list[dict[str, float]], th: dict[str, tuple[float, float]]) -> list[str]:
    """The colours at thresholds ``th`` (source -> (amber, red)) over the fixed colours."""
    out = []
    for f, t in zip(fixed, top):
        level = f
        for s, (amber, red) in th.items():
            p = t[s]
            got = "red" if p >= red else "amber" if p >= amber else "green"
            level = max(level, got, key=_RANK.__getitem__)
        out.append(level)
    return out


def choose_second(rows: list[dict], fixed: list[str], goal_green: float, table, model: tuple[float, float],
                  joint: bool = True) -> tuple[dict, list[dict]]:
    """Thresholds (source -> (amber, red)) chosen on ``rows``, and the sweep. ``model``: the
    model's (amber, red) from the lexical stage; its red is held, its amber swept with the others
    (``joint``; it becomes ``residual_amber_beside_opinion``) or held too."""
    top = tops(rows)
    sweep, best, best_key = [], None, None
    for a, b, c in itertools.product(MODEL_GRID if joint else (model[0],), SECOND_GRID, MEMORY_GRID):
        th = {"model": (a, model[1]), "gold:classifier": (b, 1.01), "gold:memory": (c, 1.01)}
        s = table(rows, colours_with(fixed, top, th))
        fl, gr = s["flagged_share"] or 0.0, s["green_share_of_clean"] or 0.0
        sweep.append({"residual_amber": a, "second_amber": b, "memory_amber": c, "flagged_share": fl,
                      "green_share_of_clean": gr})
        if gr >= goal_green and (best_key is None or (fl, gr) > best_key):
            best, best_key = th, (fl, gr)
    if best is None:
        raise SystemExit("no second-opinion threshold keeps green above the goal on the tuning set")
    for source in TUNED[1:]:                  # each red: the lowest at which half the red notes hold PHI left
        amber = best[source][0]
        grid = {"model": MODEL_GRID, "gold:classifier": SECOND_GRID, "gold:memory": MEMORY_GRID}[source]
        for t in sorted({g for g in grid if amber <= g <= 1.01} | {1.01}, reverse=True):
            s = table(rows, colours_with(fixed, top, {**best, source: (amber, t)}))
            if s["red_precision"] is not None and s["red_precision"] >= 0.5:
                best = {**best, source: (amber, t)}
    return best, sweep


def config_of(base, th: dict[str, tuple[float, float]], opinion_notes: int):
    """``base`` with the chosen thresholds, for an opinion of ``opinion_notes`` gold notes (the
    model's amber applies beside an opinion of ``TRUSTED_OPINION_NOTES`` or more)."""
    (ma, _), (sa, sr), (ya, yr) = th["model"], th["gold:classifier"], th["gold:memory"]
    return replace(base, residual_amber_beside_opinion=min(ma, 1.0), second_amber=sa, second_red=sr,
                   memory_amber=ya, memory_red=yr, opinion_notes=opinion_notes)


def print_sweep(sweep: list[dict]) -> None:
    best = sorted(sweep, key=lambda x: (-x["flagged_share"], -x["green_share_of_clean"]))
    print("tuning set with the second opinion, best flagged share at each green floor:")
    for floor in (0.60, 0.65, 0.70, 0.72, 0.75, 0.80):
        x = next((x for x in best if x["green_share_of_clean"] >= floor), None)
        if x:
            print(f"  green >= {floor}: flagged {x['flagged_share']:.3f} green {x['green_share_of_clean']:.3f} "
                  f"(residual_amber={x['residual_amber']}, second_amber={x['second_amber']}, "
                  f"memory_amber={x['memory_amber']})")
