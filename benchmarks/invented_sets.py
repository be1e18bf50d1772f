"""The scorer and table shared by the hand-written blind sets (``icu_invented``, ``notes_invented``):
brat notes in two halves (``find``: rules were fixed on it; ``check``: only scored), each scored as
written, in UPPER case and in lower case, for rules and dictionaries alone and for every model given.

Figures: binary character precision and recall over non-space characters (any label counts; the
categories in ``ignore`` count neither way, their recall still shown) and recall per gold category;
then, per category, how many gold spans were not wholly found and how many found spans touch no gold
(counts only, so the check half's text is never printed). ``--show`` prints the find half's misses
and false positives with their (invented) text.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))
from english_rules_context import binary_chars, case_copy  # noqa: E402

HALVES = ("find", "check")
CASES = ("as written", "upper", "lower")
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


@dataclass(frozen=True)
class InventedSet:
    """A blind set on disk: its folder (``find/`` and ``check/`` inside) and the categories it
    counts neither way (HIPAA-convention sets ignore PROFESSION; i2b2 2014 ones ignore nothing)."""
    data: Path
    ignore: tuple[str, ...] = field(default=())

    def load_half(self, half: str):
        """The notes of one half with their gold spans (i2b2 2014 schema)."""
        from pipeline.formats.brat import read_brat
        from pipeline.schemas import I2B2_2014

        return read_brat(self.data / half, I2B2_2014)

    def score(self, det, docs) -> dict:
        return score(det, docs, self.ignore)


#: HIPAA's Safe Harbor list does not count professions: their characters count neither way in P/R
HIPAA_IGNORED = ("PROFESSION",)


def hipaa_set(name: str) -> InventedSet:
    """The blind set ``benchmarks/data/<name>``, annotated to HIPAA's convention."""
    return InventedSet(REPO / "benchmarks" / "data" / name, ignore=HIPAA_IGNORED)


def i2b2_set(name: str) -> InventedSet:
    """The blind set ``benchmarks/data/<name>``, annotated to i2b2 2014's convention: nothing is
    ignored, professions and every age count both ways."""
    return InventedSet(REPO / "benchmarks" / "data" / name, ignore=())


def _mask(text: str, spans) -> bytearray:
    marked = bytearray(len(text))
    for s in spans:
        marked[s.start:s.end] = b"\x01" * (s.end - s.start)
    return marked


def score(det, docs, ignore: tuple[str, ...] = ()) -> dict:
    """Binary character P/R and per-category recall of ``det`` on ``docs``, and per category the
    gold spans not wholly covered (``missed``: counts, no text) and the false-positive spans."""
    found = {d.doc_id: sp for d, sp in zip(docs, det.detect_many(docs))}
    out = binary_chars(found, docs, ignore=ignore)
    missed: dict[str, int] = {}
    false_pos = 0
    for d in docs:
        marked, gold = _mask(d.text, found[d.doc_id]), _mask(d.text, d.spans)
        for s in d.spans:
            if not all(marked[i] for i in range(s.start, s.end) if not d.text[i].isspace()):
                missed[s.category] = missed.get(s.category, 0) + 1
        false_pos += sum(not any(gold[s.start:s.end]) for s in found[d.doc_id])
    return {**out, "missed": missed, "fp_spans": false_pos}


def show_find(det, docs) -> None:
    """Misses and false positives on the find half (invented text, printed by request)."""
    for d, found in zip(docs, det.detect_many(docs)):
        marked, gold = _mask(d.text, found), _mask(d.text, d.spans)
        for s in d.spans:
            if not all(marked[s.start:s.end]):
                print(f"  MISS {d.doc_id} {s.label:13s} {d.text[s.start:s.end]!r}")
        for s in found:
            if not any(gold[s.start:s.end]):
                print(f"  FP   {d.doc_id} {s.label:13s} {s.source:28s} {d.text[s.start:s.end]!r}")


def rows_for(name: str, det, halves: dict, ignore: tuple[str, ...] = ()) -> list[Row]:
    rows = []
    for half, docs in halves.items():
        for case in CASES:
            copy = docs if case == "as written" else case_copy(docs, case)
            rows.append(Row(name, half, case, score(det, copy, ignore)))
    return rows


def run(invented: InventedSet, doc: str, argv: list[str] | None = None) -> int:
    """The command line both benchmarks share: ``[--model DIR ...] [--show] [--cases]``."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--model", action="append", default=[], help="a trained version folder (repeatable)")
    ap.add_argument("--show", action="store_true", help="print misses and false positives of the find half")
    ap.add_argument("--cases", action="store_true",
                    help="UPPER and lower copies (always scored here; the flag pii_invented needs for them)")
    ap.add_argument("--safe-harbor", action="store_true",
                    help="score an i2b2-convention set as HIPAA's Safe Harbor reads it, as the English starter is "
                         "trained: gold ages under 90 are no PHI, professions count neither way")
    args = ap.parse_args(argv)

    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014

    halves = {h: invented.load_half(h) for h in HALVES}
    if args.safe_harbor:
        from english_ward_loop import hipaa_ages
        halves = {h: hipaa_ages(docs) for h, docs in halves.items()}
        invented = InventedSet(invented.data, ignore=tuple(sorted(set(invented.ignore) | set(HIPAA_IGNORED))))
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
        rows += rows_for(name, det, halves, invented.ignore)
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
