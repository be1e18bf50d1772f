"""English detection on outpatient specialty notes nobody here tuned on: oncology and infusion,
dialysis, transplant, wound care, home health and home infusion, anticoagulation and pharmacy
calls, written by hand for this benchmark (``benchmarks/data/spec_invented/``, brat, i2b2 2014
types), scored per non-space character, in two blind halves.

    python benchmarks/spec_invented.py [--model VERSION_DIR] [--show] [--cases]

Why: a specialty clinic follows a patient for years and writes what an inpatient note seldom
does: appointment and treatment dates, trial subject and insurance member numbers, caregivers and
drivers, the church that drives the patient, the home's street and the agency that visits it, the
dialysis unit and the outside lab. Written by a helper that never saw the detector, its rules, its
lists or the other sets' notes: US clinics around 1997-2014 in Appalachia, the Great Plains, New
York City, the Pacific coast and the Deep South; 16 of 48 notes in ALL CAPS, 8 in lower case. PHI
is about 3.2 % of non-space characters; 5 notes hold none.

HIPAA's convention, check (c01-c32, only scored) and find (f01-f16) halves, each scored as
written, in UPPER and in lower case: :func:`invented_sets.hipaa_set` and :func:`invented_sets.run`.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("spec_invented")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
