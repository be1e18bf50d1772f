"""English detection on a twelfth set of ICU notes nobody here tuned on, written by nurses:
notes written by hand for this benchmark (``benchmarks/data/icu_invented_l/``, brat,
i2b2 2014 types), scored per non-space character, in two blind halves.

    python benchmarks/icu_invented_l.py [--model VERSION_DIR] [--show] [--cases]

Why: a twelfth blind measure, first scored after the ninth to eleventh sets' fixes, by a helper
that never saw the detector, its rules, its lists or the other sets' notes: ICU nursing notes of a
big New York City-area hospital around 1999-2008 (narrative, SOAP/DAR, system lines, RT, SW, code,
death, restraint and fall notes), with relatives, clergy and staff named alone; 18 of 60 notes in
ALL CAPS, 11 in lower case. PHI is 2.5 % of non-space characters; 10 notes hold none.

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

SET = hipaa_set("icu_invented_l")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
