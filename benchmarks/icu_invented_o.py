"""English detection on a fifteenth set of ICU notes nobody here tuned on, from neonatal units:
notes written by hand for this benchmark (``benchmarks/data/icu_invented_o/``, brat, i2b2 2014
types), scored per non-space character, in two blind halves.

    python benchmarks/icu_invented_o.py [--model VERSION_DIR] [--show] [--cases]

Why: a NICU writes a ward's note about a patient who cannot speak: the parents, siblings and
grandparents are who is named ("Mom (Kerri) in to hold"), beside the baby's own name, the
pediatrician's practice and town, the birth and transfer hospitals and the agencies that follow the
family home; and the numbers look like dates ("CGA 32 1/7 wks", Apgars "8/9", "DOL 12"). Written by
a helper that never saw the detector, its rules, its lists or the other sets' notes: US NICUs and
special care nurseries around 1995-2010, mostly New England: nursing, NNP and attending notes,
transfers, discharge summaries, lactation, OT, ROP, audiology, social work and family meetings; 16
of 48 notes in ALL CAPS, 8 in lower case. PHI is about 2.6 % of non-space characters; 10 notes
hold none.

HIPAA's convention, check (c01-c32, only scored) and find (f01-f16) halves, each scored as
written, in UPPER and in lower case: :func:`invented_sets.hipaa_set` and :func:`invented_sets.run`.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import hipaa_set, run  # noqa: E402

SET = hipaa_set("icu_invented_o")

if __name__ == "__main__":
    raise SystemExit(run(SET, __doc__))
