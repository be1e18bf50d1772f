"""English detection on a fourth set of ICU notes nobody here tuned on: notes written by hand for
this benchmark (``benchmarks/data/icu_invented_d/``, brat, i2b2 2014 types), scored per non-space
character, in two blind halves.

    python benchmarks/icu_invented_d.py [--model VERSION_DIR] [--show] [--cases]

Why: the other invented ICU sets have had rules fixed on their find halves. This set was written
by a helper that never saw the detector, its rules or the other sets' notes, in the voice of a
2000s New England teaching hospital's adult ICUs (MICU, SICU, CCU, CSRU, trauma and neuro ICU):
free-text nursing progress notes from an old charting system ("NURSING PROGRESS NOTE 7P-7A",
NEURO/CV/RESP/GI/GU/ID/SKIN/SOCIAL/PLAN lines), vent settings, drips, ABGs, labs, lines and
wounds, families and case management, a respiratory therapy note and addenda; 20 of 50 notes in
ALL CAPS, 8 in lower case. PHI is sparse (0-7 spans a note, 7 notes with none).

Convention (HIPAA's, as ``icu_invented_b``): names of patients, relatives, neighbours and staff
(titles such as "Dr.", "Fr." and kinship words left out; staff initials and logins too),
hospitals, nursing homes, rehabs, dialysis units, VNAs, employers, schools and churches, towns,
states and countries, street addresses and ZIP codes, dates in any shape (weekdays, "the 12th",
holidays), phone numbers, pagers and extensions, record numbers, and ages over 89 only. An age
under 90 is not PHI, and professions count neither way (``IGNORED``). Times, units and wards,
insurers, charting systems, drugs, devices and eponyms are not marked.

* ``check`` (c01-c30): written first and committed alone, before anything was run; only scored,
  never read for misses. ``--show`` never prints it.
* ``find`` (f01-f20): written after, in one batch, before anything was run; ``--show`` prints its
  misses.

Each half is scored as written, in UPPER case and in lower case, for rules and dictionaries
alone and for every ``--model`` given. The scorer and table are :mod:`invented_sets`. Names are
invented, none from the ``en`` pack's lists nor from the other invented sets; no real person's data.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("icu_invented_d")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
