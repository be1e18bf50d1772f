"""English detection on a third set of ICU notes nobody here generated or tuned on: notes written
by hand for this benchmark (``benchmarks/data/icu_invented_c/``, brat, i2b2 2014 types), scored per
non-space character, in two blind halves.

    python benchmarks/icu_invented_c.py [--model VERSION_DIR] [--show] [--cases]

Why: ``icu_invented`` was written by the helper who then fixed the rules on it, and
``icu_invented_b`` has a find half that fixes were found on. This set was written by a third
helper who never read the detector, the tests or the other sets' notes, in the voice of a 2000s
medical / surgical / cardiac ICU in the US Midwest (Ohio, Michigan, Indiana, Wisconsin): free-text
nursing shift notes by system ("NEURO:", "CV:", "RESP:", "GI/GU:", "SOCIAL:", "PLAN:"), telegraphic
and abbreviated (drips and rates, vent settings, ABGs, lab dumps, misspellings), a third of them in
ALL CAPS and a sixth in lower case, and a few respiratory therapy, social work, case management,
event and "MICU ATTENDING NOTE" notes. Eponyms, devices and drug brands that are not PHI (Foley,
Swan-Ganz, Hickman, Dobhoff, Salem sump, Jackson-Pratt, Trendelenburg, Bair hugger, Kinair,
Carevue) occur as a ward has them. PHI is sparse (0-8 spans a note).

Convention (HIPAA's, as ``icu_invented_b``): names of patients, relatives and staff (titles such
as "Dr." and kinship words left out; staff initials and user names too), hospitals, nursing homes,
rehabs, hospices and dialysis units, employers, churches and ambulance services, towns, counties,
states and countries, street addresses, dates in any shape (weekdays, "the 26TH", holidays),
phone, pager and fax numbers and extensions, e-mail, record and reference numbers, and ages over
89 only. An age under 90 is not PHI, and professions count neither way (``IGNORED``). Times,
units and wards ("MICU", "4 North"), insurers and charting systems are not marked.

* ``check`` (c01-c30): written first, before anything was run; only scored, never read for
  misses. ``--show`` never prints it.
* ``find`` (f01-f30): written after check, with other patients and places; ``--show`` prints it.

Each half is scored as written, in UPPER case and in lower case, for rules and dictionaries
alone and for every ``--model`` given. The scorer and table are :mod:`invented_sets`. Names are
from many origins (some of them English words), none from the ``en`` pack's lists nor from the
other invented sets; towns and facilities are as a Midwest ward would have them; no real
person's data.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("icu_invented_c")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
