"""English detection on a sixth set of ICU notes nobody here tuned on, written at a real ward's
PHI density: notes written by hand for this benchmark (``benchmarks/data/icu_invented_f/``, brat,
i2b2 2014 types), scored per non-space character, in two blind halves.

    python benchmarks/icu_invented_f.py [--model VERSION_DIR] [--show] [--cases]

Why: a sixth blind measure, written after the fifth set's fixes, by a helper that never saw the
detector, its rules, its lists or the other sets' notes. Shorter notes than the fifth set's
(183-2,761 characters), from a northeastern teaching hospital and from community and teaching
hospitals of the Midwest, the South and the West; nursing, RT, social work, case management,
family-meeting and neonatal notes; staff named by surname, first name, initials and logins;
hospital acronyms; towns alone. 30 of 80 notes in ALL CAPS, 12 in lower case. PHI is 1.90 % of
non-space characters in each half; 12 notes hold none.

Convention: HIPAA's, as ``icu_invented_e`` (the set's README says what is marked); professions
count neither way (:data:`invented_sets.HIPAA_IGNORED`).

* ``check`` (c01-c50): written first, before anything was run; only scored, never read for
  misses. ``--show`` never prints it.
* ``find`` (f01-f30): written after, in one batch, before anything was run; ``--show`` prints its
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

SET = hipaa_set("icu_invented_f")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
