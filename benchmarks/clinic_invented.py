"""English detection on outpatient and community notes nobody here generated: telephone
encounters, portal messages, refill and prior-authorization requests, home-health, hospice and
community-paramedic visits, referral letters and form notes, written by hand for this benchmark
(``benchmarks/data/clinic_invented/``, brat, i2b2 2014 types), scored per non-space character,
in two blind halves.

    python benchmarks/clinic_invented.py [--model VERSION_DIR] [--show] [--cases]

Why: every other blind set is an inpatient note (ICU nursing, discharge summaries) or a
non-clinical PII text. A clinic's in-basket is the densest PHI a team meets (24 % of non-space
characters): pharmacies with store numbers, member, Rx, NPI, auth and claim numbers, gate and
lockbox codes, caregivers and neighbours, staff as initials and logins, US and Canadian places
and postal codes, patients' own lower-case messages with typos; 10 of 48 notes in ALL CAPS, 6 in
lower case. Written by a helper that never saw the detector, its rules, its lists or the other
sets' notes (the set's README says how and what is marked).

Convention: i2b2 2014, so everything marked is PHI and counts both ways (professions, every age,
pharmacies and agencies as HOSPITAL, employers, insurers and suppliers as ORGANIZATION, gate and
lockbox codes as IDNUM).

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

SET = i2b2_set("clinic_invented")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
