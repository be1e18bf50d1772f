"""English detection on psychiatric notes nobody here generated: intakes with long social
histories, med-management and inpatient psychiatry notes, ED and consult-liaison consults,
discharge summaries, collateral calls, group and case-management notes, written by hand for this
benchmark (``benchmarks/data/psych_invented/``, brat, i2b2 2014 types), scored per non-space
character, in two blind halves.

    python benchmarks/psych_invented.py [--model VERSION_DIR] [--show] [--cases]

Why: the "other corpus" of the i2b2/UTHealth 2016 CEGS N-GRID track is psychiatry, whose PHI
lives in prose: where a patient grew up, schools, employers and jobs, military service, churches,
towns lived in, relatives by name, ages at every event. None of the other blind sets is written
like it. 10 of 48 notes in ALL CAPS, 5 in lower case; PHI is 16-18 % of non-space characters.
Written by a helper that never saw the detector, its rules, its lists or the other sets' notes
(the set's README says how and what is marked).

Convention: i2b2 2014, so everything marked is PHI and counts both ways (professions, every age,
employers, schools and churches as ORGANIZATION).

* ``check`` (c01-c32): written first, before anything was run; only scored, never read for
  misses. ``--show`` never prints it.
* ``find`` (f01-f16): written after, before anything was run; ``--show`` prints its misses.

Each half is scored as written, in UPPER case and in lower case, for rules and dictionaries
alone and for every ``--model`` given. The scorer and table are :mod:`invented_sets`. Everything
is invented; no real person's data.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import i2b2_set, run  # noqa: E402

SET = i2b2_set("psych_invented")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
