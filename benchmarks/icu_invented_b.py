"""English detection on a second set of ICU notes nobody here generated, from another hospital
and another decade: notes written by hand for this benchmark (``benchmarks/data/icu_invented_b/``,
brat, i2b2 2014 types), scored per non-space character, in two blind halves.

    python benchmarks/icu_invented_b.py [--model VERSION_DIR] [--show] [--cases]

Why: ``icu_invented`` (2000s free-text nursing notes) was written by the helper who then fixed
the rules on it, so its check half flatters the cold start. This set was written by someone
else, as a 2010s ICU charts: templated nursing notes (a problem such as "Hypotension (not
shock)" with its "Assessment:", "Action:", "Response:", "Plan:"), physician ICU progress notes
("Chief Complaint:", "24 Hour Events:", "Allergies:", "Last dose of Antibiotics:", "Infusions:",
"Flowsheet Data as of", vitals, ventilator and lab dumps, "Assessment and Plan", "ICU Care",
"Lines:", "Prophylaxis:", "Code status:", "Disposition:"), respiratory therapy, physical therapy,
chaplain, social work and case management notes (families, phone numbers, rehabs, nursing
homes, towns), a few old-system notes in ALL CAPS and hurried ones in lower case. PHI is sparse.

Convention (HIPAA's, as ``icu_invented``): names of patients, relatives and staff (titles such
as "Dr.", "Rev." and kinship words left out; staff initials too), hospitals, nursing homes,
rehabs and practices, employers and churches, towns, dates in any shape (weekdays, "the 4th"),
phone numbers and extensions, record numbers, and ages over 89 only. An age under 90 is not
PHI, and professions count neither way (``IGNORED``). Times, unit and bed names ("7 East"),
insurers and charting systems are not marked.

* ``check`` (c01-c30): written first, before anything was run, in a Pennsylvania hospital's
  voice; only scored, never read for misses. ``--show`` never prints it.
* ``find`` (f01-f58, written after in five batches: f01-f12, f13-f24, f25-f36, f37-f48, f49-f58,
  each scored with ``--show`` before the next was written): fixes in the ``en`` pack were found on it and name the notes.

Each half is scored as written, in UPPER case and in lower case, for rules and dictionaries
alone and for every ``--model`` given. The scorer and table are :mod:`invented_sets`. Names and
places are invented or picked as a ward would have them, none from the ``en`` pack's lists nor
from the other invented sets; no real person's data.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("icu_invented_b")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
