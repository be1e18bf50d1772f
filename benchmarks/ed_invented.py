"""English detection on emergency department and trauma notes nobody here tuned on: notes written
by hand for this benchmark (``benchmarks/data/ed_invented/``, brat, i2b2 2014 types), scored per
non-space character, in two blind halves.

    python benchmarks/ed_invented.py [--model VERSION_DIR] [--show] [--cases]

Why: every earlier clinical blind set is an inpatient, clinic or psychiatry note; the emergency
department writes where things happened (highways and exits, intersections, bars, job sites,
shelters, the jail), who brought the patient (paramedics, deputies, officers) and which hospital
sent or received them. Written by a helper that never saw the detector, its rules, its lists or the
other sets' notes: US EDs and trauma bays around 1998-2012 (the South, the Southwest, the Pacific
Northwest, the mid-Atlantic): triage, ED nursing and physician notes, EMS run reports, trauma
flowsheets, transfers, psychiatric holds, social work and boarder notes; 16 of 48 notes in ALL
CAPS, 8 in lower case. PHI is about 3 % of non-space characters; 7 notes hold none.

HIPAA's convention, check (c01-c32, only scored) and find (f01-f16) halves, each scored as
written, in UPPER and in lower case: :func:`invented_sets.hipaa_set` and :func:`invented_sets.run`.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("ed_invented")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
