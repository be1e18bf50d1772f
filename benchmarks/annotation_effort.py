"""Annotation effort: input events and wall time to correct one pre-annotated note.

A demo note's machine suggestions (its ``pre`` layer) are taken as the truth; ``k`` errors are
injected into them before the annotator opens the note, in equal shares of four kinds:

* **missing**: a suggestion is deleted (the annotator must add it back);
* **spurious**: a span is put on a plain word (the annotator must remove it);
* **wrong type**: a suggestion gets another fine type (the annotator must relabel it);
* **wrong boundary**: a two-word suggestion is cut to its first word (the annotator must fix
  the extent).

A scripted annotator then corrects the note in the real app (Debian's chromium through
Playwright, at ``--width`` x ``--height``), saves it as finished and moves on to the next
document of the queue. Every input it makes is counted: key presses, clicks (a mouse drag that
selects text is one), and scroll gestures (one each time a target is out of view, however far).
The annotator reads from the top: errors are fixed in the order they appear. Wall time runs
from the note being shown to the next note being shown. The saved layer is then
compared with the truth (``exact`` = the same spans and types).

Two editors:

* ``new``: the workbench's own span editor (``dashboard/editor``): a drag and a label key adds a
  span or fixes a boundary, a click and a label key relabels, a click and Delete removes;
  Ctrl+Enter saves as finished and opens the next document of the queue as it was shown.
* ``old``: ``streamlit-annotation-tools`` 1.0.1's ``text_labeler`` as the Annotate page used it
  until issue 15 (commit 025d284): choose a label chip, then select text to add a span or select
  inside a span of that label to remove it; "Mark finished" at the bottom of the page; the
  finished note moves to the end of the queue, so the next one is picked from the queue list.
  That page and component are gone, so ``--editor old`` only runs on that commit; the figures
  measured there (same script, same machine) are kept below in :data:`RECORDED_OLD` and printed
  beside the new ones.

    python benchmarks/annotation_effort.py [--editor new|old] [--k 4 8] [--reps 3]
    python benchmarks/annotation_effort.py --kinds [--reps 3]   # keys per error kind, keyboard only

Prints a table (medians over ``--reps`` notes; ``exact`` is the share of notes saved exactly
right; ``ev/err`` the events per error, finishing aside; then the events per error of each kind,
scrolls included, and to finish and move on) and the ratios old/new; no document text.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import browser_helpers as bh  # noqa: E402
from annotation_drivers import Counts, NewDriver, OldDriver  # noqa: E402
from annotation_task import KINDS, make_task  # noqa: E402

USER = "bea"          # a fresh annotator whose queue holds only the benchmark's notes
#: Figures of ``--editor old`` measured on commit 025d284 (the last with the old component), on
#: the 2-core development machine, 1280x800, medians over 3 notes: {k: {column: value}}.
RECORDED_OLD: dict[int, dict[str, float]] = {
    4: {'events': 22, 'keys': 0, 'clicks': 13, 'scrolls': 9, 'seconds': 14.05, 'exact': 0.67, 'missing': 3.0, 'spurious': 4.0, 'wrong_type': 8.0, 'wrong_boundary': 5.0, 'finish_and_next': 5},
    8: {'events': 37, 'keys': 0, 'clicks': 23, 'scrolls': 14, 'seconds': 20.13, 'exact': 0.67, 'missing': 4.0, 'spurious': 2.5, 'wrong_type': 6.0, 'wrong_boundary': 5.0, 'finish_and_next': 4},
}


# --------------------------------------------------------------------------- one run


@dataclass
class Result:
    editor: str
    k: int
    counts: Counts
    seconds: float
    exact: bool
    per_kind: dict


def run(editor: str, ks: list[int], reps: int, width: int, height: int, seed: int,
        verbose: bool = False) -> list[Result]:
    import store

    tmp = bh.scratch_dir()
    results: list[Result] = []
    try:
        project = bh.prepare_db(tmp / "workbench.db", n_docs=30, seed=7)
        with store.connect(project.db_path) as db:
            store.create_user(db, USER, project.password, "annotator")
            docs = iter([d.id for d in store.list_documents(db, project.project_id)
                         if len(store.read_layer(db, d.id, "pre").spans) >= 12])
            plan = [(k, r) for k in ks for r in range(reps)]
            tasks = []
            for k, r in plan:
                for doc_id in docs:
                    task = make_task(db, doc_id, k, seed + r)
                    if task is not None:
                        store.assign(db, doc_id, USER)
                        tasks.append(task)
                        break
                else:
                    raise SystemExit(f"too few notes with room for {k} errors for {len(plan)} runs")
        with bh.running_server(project.db_path) as server, bh.browser() as b:
            page = bh.new_page(b, width=width, height=height)
            bh.sign_in(page, server.url, USER, project.password)
            bh.open_page(page, "annotation", "Annotate")
            driver_cls = NewDriver if editor == "new" else OldDriver
            for i, ((k, _), task) in enumerate(zip(plan, tasks)):
                d = driver_cls(page)
                with bh.screenshot_on_failure(page, f"effort-{editor}"):
                    d.ready(task)
                t0 = time.perf_counter()
                per_kind: dict[str, float] = {}
                for e in sorted(task.errors, key=lambda e: e.shown_start):  # reading from the top
                    before = d.n.total
                    d.fix(e)
                    per_kind[e.kind] = per_kind.get(e.kind, 0) + d.n.total - before
                for kind in KINDS:  # events per error of the kind
                    if kind in per_kind:
                        per_kind[kind] /= sum(e.kind == kind for e in task.errors)
                before = d.n.total
                d.finish_and_next(tasks[i + 1] if i + 1 < len(tasks) else None)
                per_kind["finish_and_next"] = d.n.total - before
                seconds = time.perf_counter() - t0
                with store.connect(project.db_path) as db:
                    saved = store.read_layer(db, task.doc_id, f"annotator:{USER}").spans
                got = {(s.start, s.end, s.type) for s in saved}
                exact = got == set(task.truth)
                if not exact and verbose:
                    print(f"    missing {sorted(set(task.truth) - got)}, extra {sorted(got - set(task.truth))}, "
                          f"errors {[(e.kind, e.start, e.end, e.shown_start, e.shown_end) for e in task.errors]}")
                results.append(Result(editor, len(task.errors), d.n, seconds, exact, per_kind))
                print(f"  {editor} k={len(task.errors)} note {i + 1}/{len(tasks)} ({task.lines} lines): {d.n.total} events "
                      f"({d.n.keys} keys, {d.n.clicks} clicks, {d.n.scrolls} scrolls), {seconds:.1f} s, "
                      f"{'exact' if exact else 'NOT exact'}", flush=True)
            page.context.close()
    finally:
        bh.remove_dir(tmp)
    return results


def summarise(results: list[Result]) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    for k in sorted({r.k for r in results}):
        rs = [r for r in results if r.k == k]
        med = lambda f: statistics.median(f(r) for r in rs)  # noqa: E731
        out[k] = {"events": med(lambda r: r.counts.total), "keys": med(lambda r: r.counts.keys),
                  "clicks": med(lambda r: r.counts.clicks), "scrolls": med(lambda r: r.counts.scrolls),
                  "seconds": med(lambda r: r.seconds), "exact": sum(r.exact for r in rs) / len(rs)}
        for kind in (*KINDS, "finish_and_next"):
            vals = [r.per_kind[kind] for r in rs if kind in r.per_kind]
            if vals:
                out[k][kind] = statistics.median(vals)
    return out


def table(new: dict, old: dict) -> str:
    """Medians per editor and k; then events per error of each kind and to finish and move on."""
    cols = ("events", "keys", "clicks", "scrolls", "seconds", "exact")
    kinds = (*KINDS, "finish_and_next")
    short = {"missing": "miss", "spurious": "spur", "wrong_type": "type", "wrong_boundary": "bound",
             "finish_and_next": "finish"}
    lines = [f"{'editor':<8}{'k':>3}" + "".join(f"{c:>9}" for c in cols) + f"{'ev/err':>8}"
             + "".join(f"{short[c]:>7}" for c in kinds)]
    for name, figures in (("old", old), ("new", new)):
        for k, row in sorted(figures.items()):
            per_error = (row["events"] - row.get("finish_and_next", 0)) / k
            lines.append(f"{name:<8}{k:>3}" + "".join(
                f"{row[c]:>9.2f}" if c in ("seconds", "exact") else f"{row[c]:>9.0f}" for c in cols)
                + f"{per_error:>8.2f}" + "".join(f"{row.get(c, float('nan')):>7.1f}" for c in kinds))
    for k in sorted(set(new) & set(old)):
        lines.append(f"ratio old/new k={k}: events {old[k]['events'] / new[k]['events']:.1f}x, "
                     f"time {old[k]['seconds'] / new[k]['seconds']:.1f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--editor", choices=("new", "old"), default="new")
    ap.add_argument("--k", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=800)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the medians to this file")
    ap.add_argument("--verbose", action="store_true", help="offsets (never text) of what a run got wrong")
    ap.add_argument("--kinds", action="store_true",
                    help="keys for one correction per error kind, keyboard only (benchmarks/correction_keys.py); "
                         "--reps instances per kind")
    ap.add_argument("--start", choices=("random", "previous"), default="random",
                    help="with --kinds: the cursor starts on a random word, or on the span before the error")
    args = ap.parse_args(argv)
    why = bh.missing_requirements()
    if why:
        print(f"cannot run: {why}", file=sys.stderr)
        return 2
    if args.kinds:
        import correction_keys as ck

        rows, share = ck.run(args.reps, args.seed, args.width, args.height, args.start)
        print(ck.table(rows))
        print(f"keys: key presses of the correction (a chord is one), from a cursor on "
              f"{'a random word' if args.start == 'random' else 'the span before the error'}; "
              f"mouse: mouse events in it. {share:.0%} of the demo's machine spans end on word (unit) ends.")
        return 0
    measured = summarise(run(args.editor, args.k, args.reps, args.width, args.height, args.seed, args.verbose))
    if args.json:
        Path(args.json).write_text(json.dumps({args.editor: measured}, indent=1))
    if args.editor == "old":
        print(table({}, measured))
    else:
        print(table(measured, {k: v for k, v in RECORDED_OLD.items() if k in measured}))
        if RECORDED_OLD:
            print("old: recorded on commit 025d284 (see RECORDED_OLD); new: measured now")
    return 0


if __name__ == "__main__":
    sys.exit(main())
