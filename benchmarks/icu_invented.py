"""English detection on ICU nursing notes nobody here generated: 132 notes written by hand for
this benchmark (``benchmarks/data/icu_invented/``, brat, i2b2 2014 types), scored per non-space
character, in two blind halves.

    python benchmarks/icu_invented.py [--model VERSION_DIR] [--show] [--cases]

* ``find`` (108 notes, written in batches: 24, then 12 at a time, each read after it was written):
  fixes in the ``en`` pack were found on it;
* ``check`` (24 notes): written first, before anything was run, in another nurse's style (more
  capitals, other abbreviations); only scored, never read for misses. ``--show`` never prints it.

Each half is scored as written, in UPPER case and in lower case, for rules and dictionaries
alone, and for every ``--model`` given (a trained version folder: its CRF with the rules; the
cold start's is ``python -m pipeline train-starter --locale en --out DIR``). Figures: binary
character precision and recall (any label counts; PROFESSION characters count neither way,
see ``IGNORED``) and recall per gold category; then, per category, how many gold spans were not
wholly found and how many spans found touch no gold (counts only: the check half's text is
never printed).

Everything in the notes is invented: names and places as a ward would have them (not taken
from the pack's lists), no real person's data. Ages under 90 are not PHI there (as in the
HIPAA rule the PhysioNet nursing-note gold follows), so an age rule that marks them costs
precision. ``--show`` prints, for the find half in each case, every missed gold span and every
false positive with its invented text.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from invented_sets import InventedSet, run  # noqa: E402

DATA = REPO / "benchmarks" / "data" / "icu_invented"
#: i2b2 2014 marks professions; HIPAA's list (and the PhysioNet nursing-note gold) does not, so
#: their characters count neither way in P/R; their recall is reported beside the others
IGNORED = ("PROFESSION",)
SET = InventedSet(DATA, IGNORED)
load_half = SET.load_half
score = SET.score


def main(argv: list[str] | None = None) -> int:
    return run(SET, __doc__, argv)


if __name__ == "__main__":
    raise SystemExit(main())
