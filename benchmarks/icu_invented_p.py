"""English detection on New England ICU nursing notes nobody here tuned on: a sixteenth ICU set,
written by hand for this benchmark (``benchmarks/data/icu_invented_p/``, brat, i2b2 2014 types),
scored per non-space character, in two blind halves.

    python benchmarks/icu_invented_p.py [--model VERSION_DIR] [--show] [--cases]

Why: the issue's hidden notes are adult ICU nursing notes from a Boston teaching hospital of the
2000s; each further voice of that genre measures what the rules, lists and starter carry to
nurses they were not found on. Written by a helper that never saw the detector, its rules, its
lists or the other sets' notes: adult ICUs (MICU, SICU, CCU, CSRU, trauma, neuro, step-down) in
Boston-area and New England hospitals around 1999-2008, several authors with their own habits
(shift notes, system-by-system lines, event timelines, family calls, addenda); 16 of 48 notes in
ALL CAPS, 8 in lower case. PHI is about 2.9 % of non-space characters; 5 notes hold none.

HIPAA's convention, check (c01-c32, only scored) and find (f01-f1552, ninety-seven batches, the set's
README records each) halves, each scored as
written, in UPPER and in lower case: :func:`invented_sets.hipaa_set` and :func:`invented_sets.run`.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("icu_invented_p")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
