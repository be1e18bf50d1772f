"""English detection on a fifth set of ICU notes nobody here tuned on, written at a real ward's
PHI density: notes written by hand for this benchmark (``benchmarks/data/icu_invented_e/``, brat,
i2b2 2014 types), scored per non-space character, in two blind halves.

    python benchmarks/icu_invented_e.py [--model VERSION_DIR] [--show] [--cases]

Why: the other invented sets are PHI-dense (5-15 % of non-space characters are PHI), so a false
alarm in their clinical text costs little precision. Real ICU nursing notes hold about 1 % PHI:
there, every clinical word a detector marks weighs five to fifteen times as much. This set was
written by a helper that never saw the detector, its rules, its lists or the other sets' notes:
long nursing and respiratory therapy notes of a 2000s northeastern teaching hospital's adult ICUs,
system-by-system lines, vents, ABGs, drips, haemodynamics, labs, lines and wounds, families and
case management, with the devices, eponyms, brand names and date-like numbers a ward writes; 25
of 60 notes in ALL CAPS, 9 in lower case. PHI is 0.89 % (check) and 1.02 % (find) of non-space
characters; 13 notes hold none.

Convention (HIPAA's, as ``icu_invented_d``): names of patients, relatives and staff (titles and
kinship words left out; staff initials and logins too), hospitals, nursing homes, rehabs and
employers, towns, dates in any shape, phones, record numbers, ages over 89 only. An age under 90
is not PHI, and professions count neither way (``IGNORED``).

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

SET = hipaa_set("icu_invented_e")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
