"""English detection on ICU nursing notes nobody here generated: 132 notes written by hand for
this benchmark (``benchmarks/data/icu_invented/``, brat, i2b2 2014 types), scored per non-space
character, in two blind halves.

    python benchmarks/icu_invented.py [--model VERSION_DIR] [--show]

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

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))
from english_rules_context import binary_chars, case_copy  # noqa: E402

DATA = REPO / "benchmarks" / "data" / "icu_invented"
HALVES = ("find", "check")
CASES = ("as written", "upper", "lower")
#: i2b2 2014 marks professions; HIPAA's list (and the PhysioNet nursing-note gold) does not, so
#: their characters count neither way in P/R; their recall is reported beside the others
IGNORED = ("PROFESSION",)
CATEGORIES = ("NAME", "LOCATION", "DATE", "AGE", "CONTACT", "ID", "PROFESSION")


@dataclass(frozen=True)
class Row:
    """One line of the table: a detector on one half in one case."""
    detector: str
    half: str
    case: str
    scores: dict

    def missed_line(self) -> str:
        m = self.scores["missed"]
        return (f"{self.detector:24s} {self.half:6s} {self.case:10s} "
                + " ".join(f"{m.get(c, 0):6d}" for c in CATEGORIES) + f" {self.scores['fp_spans']:6d}")

    def line(self) -> str:
        cats = " ".join(f"{self.scores.get('R_' + c, float('nan')):6.3f}" for c in CATEGORIES)
        return (f"{self.detector:24s} {self.half:6s} {self.case:10s} {self.scores['P']:6.3f} "
                f"{self.scores['R']:6.3f} {cats}")


def load_half(half: str):
    """The notes of one half with their gold spans (i2b2 2014 schema)."""
    from pipeline.formats.brat import read_brat
    from pipeline.schemas import I2B2_2014

    return read_brat(DATA / half, I2B2_2014)


def score(det, docs) -> dict:
    """Binary character P/R and per-category recall of ``det`` on ``docs``, and per category the
    gold spans not wholly covered (``missed``: counts, no text) and the false-positive spans."""
    found = {d.doc_id: sp for d, sp in zip(docs, det.detect_many(docs))}
    out = binary_chars(found, docs, ignore=IGNORED)
    missed: dict[str, int] = {}
    false_pos = 0
    for d in docs:
        marked, gold = bytearray(len(d.text)), bytearray(len(d.text))
        for s in found[d.doc_id]:
            marked[s.start:s.end] = b"\x01" * (s.end - s.start)
        for s in d.spans:
            gold[s.start:s.end] = b"\x01" * (s.end - s.start)
            if not all(marked[i] for i in range(s.start, s.end) if not d.text[i].isspace()):
                missed[s.category] = missed.get(s.category, 0) + 1
        false_pos += sum(not any(gold[s.start:s.end]) for s in found[d.doc_id])
    return {**out, "missed": missed, "fp_spans": false_pos}


def show_find(det, docs) -> None:
    """Misses and false positives on the find half (invented text, printed by request)."""
    for d, found in zip(docs, det.detect_many(docs)):
        marked = bytearray(len(d.text))
        for s in found:
            marked[s.start:s.end] = b"\x01" * (s.end - s.start)
        gold = bytearray(len(d.text))
        for s in d.spans:
            gold[s.start:s.end] = b"\x01" * (s.end - s.start)
            if not all(marked[s.start:s.end]):
                print(f"  MISS {d.doc_id} {s.label:13s} {d.text[s.start:s.end]!r}")
        for s in found:
            if not any(gold[s.start:s.end]):
                print(f"  FP   {d.doc_id} {s.label:13s} {s.source:28s} {d.text[s.start:s.end]!r}")


def rows_for(name: str, det, halves: dict) -> list[Row]:
    rows = []
    for half, docs in halves.items():
        for case in CASES:
            copy = docs if case == "as written" else case_copy(docs, case)
            rows.append(Row(name, half, case, score(det, copy)))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", action="append", default=[], help="a trained version folder (repeatable)")
    ap.add_argument("--show", action="store_true", help="print misses and false positives of the find half")
    args = ap.parse_args(argv)

    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014

    halves = {h: load_half(h) for h in HALVES}
    detectors = [("rules+dictionaries", Detector.without_model(I2B2_2014, "en"))]
    if args.model:
        from services.runtime import go_offline
        go_offline()
        detectors += [(f"model {Path(m).name[:18]}", Detector.load(m)) for m in args.model]
    print(f"notes: find {len(halves['find'])}, check {len(halves['check'])}; binary character scores")
    print(f"{'detector':24s} {'half':6s} {'case':10s} {'charP':>6s} {'charR':>6s} "
          + " ".join(f"{'R ' + c[:4]:>6s}" for c in CATEGORIES))
    rows = []
    for name, det in detectors:
        rows += rows_for(name, det, halves)
        for row in rows[-len(halves) * len(CASES):]:
            print(row.line())
        if args.show:
            for case in CASES:
                print(f"find half {case}, {name}:")
                show_find(det, halves["find"] if case == "as written" else case_copy(halves["find"], case))
    print("\ngold spans not wholly found, per category (counts), and false-positive spans")
    print(f"{'detector':24s} {'half':6s} {'case':10s} " + " ".join(f"{c[:6]:>6s}" for c in CATEGORIES) + f" {'FP':>6s}")
    for row in rows:
        print(row.missed_line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
