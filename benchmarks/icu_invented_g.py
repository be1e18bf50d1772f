"""English detection on a seventh set of notes nobody here tuned on, written by physicians:
notes written by hand for this benchmark (``benchmarks/data/icu_invented_g/``, brat,
i2b2 2014 types), scored per non-space character, in two blind halves.

    python benchmarks/icu_invented_g.py [--model VERSION_DIR] [--show] [--cases]

Why: a seventh blind measure, written after the sixth set's fixes, by a helper that never saw the
detector, its rules, its lists or the other sets' notes: notes that physicians, residents, NPs
and pharmacists write around an ICU stay (admission H&Ps, progress, procedure and consult notes,
ED and transfer notes, discharge summaries, radiology and pharmacy notes) at academic and
community hospitals of five US regions, with labs, med lists, scores, eponyms and trial names;
20 of 80 notes in ALL CAPS, 8 in lower case. PHI is 3.75 % of non-space characters.

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

SET = hipaa_set("icu_invented_g")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
