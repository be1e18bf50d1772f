"""English detection on obstetric notes nobody here tuned on: notes written by hand for this
benchmark (``benchmarks/data/ob_invented/``, brat, i2b2 2014 types), scored per non-space
character, in two blind halves.

    python benchmarks/ob_invented.py [--model VERSION_DIR] [--show] [--cases]

Why: labor and delivery write G/P, gestational ages, cervical exams and fetal heart tracings that
look like dates and ratios, around the partner's, doula's, nurses', midwives' and residents'
names, the practice and pediatrician chosen and the transferring hospital. Written by a helper
that never saw the detector, its rules, its lists or the other sets' notes: US hospitals and birth
centres around 1998-2015 (Texas and the Gulf, the Pacific Northwest, the Carolinas, the Mountain
West, New York and New Jersey): triage, labor, delivery, cesarean, postpartum, prenatal, MFM,
lactation, social work and midwife notes; 16 of 48 notes in ALL CAPS, 8 in lower case. PHI is
about 2.6-3.1 % of non-space characters; 7 notes hold none.

HIPAA's convention, check (c01-c32, only scored) and find (f01-f16) halves, each scored as
written, in UPPER and in lower case: :func:`invented_sets.hipaa_set` and :func:`invented_sets.run`.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("ob_invented")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
