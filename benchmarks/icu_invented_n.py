"""English detection on a fourteenth set of ICU notes nobody here tuned on, written by nurses:
notes written by hand for this benchmark (``benchmarks/data/icu_invented_n/``, brat,
i2b2 2014 types), scored per non-space character, in two blind halves.

    python benchmarks/icu_invented_n.py [--model VERSION_DIR] [--show] [--cases]

Why: a fourteenth blind measure, first scored after the eleventh and twelfth sets' fixes, by a
helper that never saw the detector, its rules, its lists or the other sets' notes: ICU nursing and
respiratory therapy notes of regional and rural hospitals in the US Midwest and Plains around
1996-2008 (farm injuries, transfers in and out, small-town names, counties, co-ops and pastors);
20 of 60 notes in ALL CAPS, 8 in lower case. PHI is 2.4 % of non-space characters; 10 notes hold
none.

Convention: HIPAA's, as ``icu_invented_e`` (the set's README says what is marked); professions
count neither way (:data:`invented_sets.HIPAA_IGNORED`).

* ``check`` (c01-c40): written first, before anything was run; only scored, never read for
  misses. ``--show`` never prints it.
* ``find`` (f01-f20): written after, in one batch, before anything was run; ``--show`` prints its
  misses.

Each half is scored as written, in UPPER case and in lower case, for rules and dictionaries
alone and for every ``--model`` given. The scorer and table are :mod:`invented_sets`. Everything
is invented; no real person's data.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("icu_invented_n")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
