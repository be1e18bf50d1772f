"""English detection on long-term care, rehabilitation and hospice notes nobody here tuned on:
notes written by hand for this benchmark (``benchmarks/data/ltc_invented/``, brat, i2b2 2014
types), scored per non-space character, in two blind halves.

    python benchmarks/ltc_invented.py [--model VERSION_DIR] [--show] [--cases]

Why: a nursing home, a rehabilitation unit and a hospice write about residents who stay for
months, many of them 90 or older: the family, the aides and therapists by name, the facility, its
sending hospital, the church, the funeral home and the VFW post. Written by a helper that never
saw the detector, its rules, its lists or the other sets' notes: US facilities around 1998-2015
(the Upper Midwest, Appalachia, Florida, the Southwest, New England): SNF shift notes, admissions,
therapy notes, MDS-style assessments, care plan meetings, falls, wound rounds, hospice visits,
chaplain and bereavement notes, transfers; 16 of 48 notes in ALL CAPS, 8 in lower case. PHI is
about 3.2-3.6 % of non-space characters; 7 notes hold none.

HIPAA's convention, check (c01-c32, only scored) and find (f01-f16) halves, each scored as
written, in UPPER and in lower case: :func:`invented_sets.hipaa_set` and :func:`invented_sets.run`.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("ltc_invented")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
