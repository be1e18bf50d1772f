"""English detection on hospital notes nobody here generated, in the i2b2/UTHealth 2014 style:
notes written by hand for this benchmark (``benchmarks/data/notes_invented/``, brat, i2b2 2014
types), scored per non-space character, in two blind halves.

    python benchmarks/notes_invented.py [--model VERSION_DIR] [--show] [--cases]

Why: the other blind sets are ICU nursing notes (``icu_invented``) and non-clinical PII texts
(``pii_invented``). The "other corpus" a team is likeliest to bring is the longitudinal record of
diabetic and cardiac patients the i2b2 2014 track was built on: discharge summaries with their
headers and dictation lines, clinic notes, letters between doctors, radiology, pathology and
operative reports, ED and triage notes, from several hospitals, plus UK referral letters (NHS
number, postcode, GP surgery), social histories, and notes wholly in ALL CAPS or lower case.

Convention: i2b2 2014, so everything marked is PHI and counts in precision and recall: every age
(not only those over 89), professions, employers, schools and churches (ORGANIZATION), hospitals
and practices, streets, towns, ZIPs and postcodes, dates in any shape (years, months and weekdays
alone too), record, account, accession and job numbers, typists' initials.

* ``find`` (58 notes): written after the check half, in five batches (f01-f12, f13-f26, f27-f38,
  f39-f48, f49-f58), each scored and read for misses before the next was written; fixes in the
  ``en`` pack were found on it and name the notes;
* ``check`` (30 notes): written first, before anything was run, with other hospitals, name
  sources and habits; only scored, never read for misses. ``--show`` never prints it.

Each half is scored as written, in UPPER case and in lower case, for rules and dictionaries
alone and for every ``--model`` given (``--cases`` is accepted for the same command line as
``pii_invented``; the copies are always scored). The scorer and the table are
:mod:`invented_sets`, shared with ``icu_invented``. Everything in the notes is invented.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import InventedSet, run  # noqa: E402

DATA = REPO / "benchmarks" / "data" / "notes_invented"
#: i2b2 2014's convention: nothing is ignored, professions count both ways
SET = InventedSet(DATA, ignore=())

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
