"""English detection on ICU notes by everyone but the bedside nurse, nobody here tuned on: written
by hand for this benchmark (``benchmarks/data/icu_invented_q/``, brat, i2b2 2014 types), scored
per non-space character, in two blind halves.

    python benchmarks/icu_invented_q.py [--model VERSION_DIR] [--show] [--cases]

Why: the other ICU sets are mostly nursing notes; respiratory therapists, residents and
attendings, social workers and case managers, dietitians, therapists, chaplains, ethics and
palliative consultants write the same unit's PHI in other places (who holds the proxy, who came to
the family meeting, which LTACH, SNF or hospice accepted, who was paged, the outside hospital that
sent the patient, employers and churches). Written by a helper that never saw the detector, its
rules, its lists or the other sets' notes: US adult ICUs around 1998-2010 in the Midwest, Texas,
California, Florida and the Mountain West; 16 of 48 notes in ALL CAPS, 8 in lower case. PHI is
about 3.2 % of non-space characters; 4 notes hold none.

HIPAA's convention, check (c01-c32, only scored) and find (f01-f16) halves, each scored as
written, in UPPER and in lower case: :func:`invented_sets.hipaa_set` and :func:`invented_sets.run`.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("icu_invented_q")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
