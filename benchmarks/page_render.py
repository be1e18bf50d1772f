"""Warm render time of every workbench page on the 120-document demo project.

Two measurements per page, each the median of several warm renders (the first render of the
page in a new session is shown apart as "cold"; the server's caches may already be warm from
the rows above):

* **AppTest**: the server side alone - one full script run of ``streamlit_app.py`` plus the
  page (Streamlit's ``AppTest``, in this process);
* **browser**: what a user waits for - from the click on the sidebar link (same session) to
  the page's main element being visible in Debian's chromium *and* the script run finished
  (no "Running...", no stale elements). For Annotate and Review that element is the span
  editor's note; for Risk the plotly chart.

The database is made as an installation makes it (``init-project``, 120 demo documents), plus
a de-identification run with risk scores over ``--deid-docs`` documents so the Risk page has a
queue. Review opens the first document awaiting adjudication. Target: every page < 1 s warm.

    python benchmarks/page_render.py [--docs 120] [--runs 5] [--deid-docs 40] [--mode both]

Prints a table (seconds); no document text.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import browser_helpers as bh  # noqa: E402

TARGET_S = 1.0


@dataclass(frozen=True)
class PageCase:
    name: str          # row of the table
    file: str          # pages/<file>.py
    url_path: str      # sidebar link ("" = the first page)
    heading: str | None
    user: str
    ready: str         # CSS selector of the page's main element


CASES = (
    PageCase("home", "home", "", None, bh.LEAD, '[data-testid="stMain"] [data-testid="stMetric"]'),
    PageCase("home", "home", "", None, "ana", '[data-testid="stMain"] [data-testid="stMetric"]'),
    PageCase("annotate", "annotate", "annotation", "Annotate", "ana", ".wb-ed .wb-note"),
    PageCase("review", "review", "adjudication", "Review", bh.LEAD, ".wb-ed .wb-note"),
    PageCase("train", "train", "training", "Train", bh.LEAD, '[data-testid="stMain"] [data-testid="stMultiSelect"]'),
    PageCase("deidentify", "deidentify", "deidentification", "De-identify", bh.LEAD,
             '[data-testid="stMain"] [data-testid="stBaseButton-primary"]'),
    PageCase("metrics", "metrics", "quality", "Metrics", bh.LEAD, '[data-testid="stMain"] [data-testid="stTabs"]'),
    PageCase("risk", "risk", "risk-triage", "Risk triage", bh.LEAD, '[data-testid="stPlotlyChart"] .main-svg'),
    PageCase("admin", "admin", "administration", "Admin", bh.LEAD, '[data-testid="stMain"] [data-testid="stTabs"]'),
)


def first_review_doc(db_path: Path, project_id: int) -> int | None:
    import store
    from services import review

    with store.connect(db_path) as db:
        waiting = review.review_queue(db, project_id)
        return waiting[0].doc_id if waiting else None


# --------------------------------------------------------------------------- AppTest


def bench_apptest(project: bh.BrowserProject, runs: int) -> dict[PageCase, tuple[float, float]]:
    from apptest_helpers import DemoApp, new_app, sign_in

    os.environ["WORKBENCH_DB"] = str(project.db_path)
    app = DemoApp(db_path=project.db_path, project_id=project.project_id)
    review_doc = first_review_doc(project.db_path, project.project_id)
    out = {}
    for case in CASES:
        at = new_app(app)
        sign_in(at, app, case.user)
        if case.name == "review" and review_doc is not None:
            at.session_state["review.doc_id"] = review_doc
        at.run()
        at.switch_page(f"pages/{case.file}.py")
        t = time.perf_counter()
        at.run()
        cold = time.perf_counter() - t
        problems = [e.value for e in at.exception] + [e.value for e in at.error if "Something went wrong" in e.value]
        titles = [t.value for t in at.title]
        if case.file in ("annotate", "review") and not at.subheader:  # no document opened
            titles.append("(no document)")
        if problems or (case.heading or project.name) not in titles or "(no document)" in titles:
            raise SystemExit(f"{case.name}: the page did not render under AppTest (errors {len(problems)}, "
                             f"titles {titles})")
        warm = []
        for _ in range(runs):
            t = time.perf_counter()
            at.run()
            warm.append(time.perf_counter() - t)
        out[case] = (cold, statistics.median(warm))
    return out


# --------------------------------------------------------------------------- browser

_READY = """([sel]) => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stStatusWidget"]') || document.querySelector('[data-stale="true"]'))
        return false;
    return !!document.querySelector(sel);
}"""


def _ready(page, case: PageCase, heading: str) -> None:
    page.locator('[data-testid="stMain"] h1').filter(has_text=heading).first.wait_for()
    page.locator(case.ready).first.wait_for(state="visible")
    page.wait_for_function(_READY, arg=[case.ready], polling="raf")


def bench_browser(project: bh.BrowserProject, runs: int) -> dict[PageCase, tuple[float, float]]:
    times: dict[PageCase, list[float]] = {c: [] for c in CASES}
    with bh.running_server(project.db_path) as server, bh.browser() as b:
        sessions = {}
        for user in sorted({c.user for c in CASES}):
            page = bh.new_page(b)
            bh.sign_in(page, server.url, user, project.password)
            sessions[user] = page
        lead = sessions[bh.LEAD]
        # Review: open the first document awaiting adjudication once; the choice stays in the session
        bh.open_page(lead, "adjudication", "Review")
        bh.choose_option(lead, lead.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').first)
        bh.editor_ready(lead)
        bh.wait_idle(lead)
        for _ in range(runs + 1):
            for case in CASES:
                page = sessions[case.user]
                heading = case.heading or project.name
                if urlparse(page.url).path.strip("/") == case.url_path:  # its own link would rerun nothing
                    other = next(c for c in CASES if c.user == case.user and c is not case)
                    bh.open_page(page, other.url_path, other.heading or project.name)
                bh.wait_idle(page)
                t = time.perf_counter()
                page.locator(f'[data-testid="stSidebarNav"] a[href$="/{case.url_path}"]').click()
                _ready(page, case, heading)
                times[case].append(time.perf_counter() - t)
    return {case: (v[0], statistics.median(v[1:])) for case, v in times.items()}


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=120, help="demo documents (default 120)")
    ap.add_argument("--runs", type=int, default=5, help="warm renders per page (default 5)")
    ap.add_argument("--deid-docs", type=int, default=40, help="documents in the de-identification run (default 40)")
    ap.add_argument("--mode", choices=("apptest", "browser", "both"), default="both")
    args = ap.parse_args(argv)
    if args.mode != "apptest" and bh.missing_requirements():
        raise SystemExit(f"browser mode not possible: {bh.missing_requirements()} (use --mode apptest)")

    work = bh.scratch_dir()
    try:
        t = time.perf_counter()
        project = bh.prepare_db(work / "workbench.db", n_docs=args.docs, deid_docs=args.deid_docs)
        print(f"demo project: {args.docs} documents, de-identification run over {args.deid_docs} "
              f"(set-up {time.perf_counter() - t:.1f} s); {args.runs} warm renders per page")
        at = bench_apptest(project, args.runs) if args.mode in ("apptest", "both") else {}
        br = bench_browser(project, args.runs) if args.mode in ("browser", "both") else {}
    finally:
        bh.remove_dir(work)

    def cell(d: dict, case: PageCase, i: int) -> str:
        return f"{d[case][i]:.3f}" if case in d else "-"

    print(f"{'page':11} {'user':5} {'AppTest cold':>12} {'AppTest warm':>12} {'browser cold':>12} "
          f"{'browser warm':>12}  warm < {TARGET_S:g} s")
    worst = 0.0
    for case in CASES:
        warm = [d[case][1] for d in (at, br) if case in d]
        worst = max([worst, *warm])
        ok = "yes" if all(w < TARGET_S for w in warm) else "NO"
        print(f"{case.name:11} {case.user:5} {cell(at, case, 0):>12} {cell(at, case, 1):>12} "
              f"{cell(br, case, 0):>12} {cell(br, case, 1):>12}  {ok}")
    print(f"slowest warm median: {worst:.3f} s (medians of {args.runs} warm renders; seconds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
