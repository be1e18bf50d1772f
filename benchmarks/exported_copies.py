"""Exported notes: the blind ICU sets' check halves scored as written and as exports write them
(hard-wrapped at a fixed width, with Windows line ends, no-break spaces, curly apostrophes).

    nice python benchmarks/exported_copies.py --model STARTER_VERSION
    nice python benchmarks/exported_copies.py --model VERSION --sets icu_invented_p,icu_invented_r --half check

Why: notes exported from a charting system, pasted from a fixed-width screen or faxed arrive with a
line break every 60-80 characters wherever the next word did not fit, and English detection reads
a line break as the end of a field or a sign-off. Each note's copy turns the last blank before
column ``W`` of every line into a line break (offsets unchanged, so the gold spans stand; a span
with a blank inside may then hold a break). Binary character P / R over non-space characters, as
in every invented set's benchmark (professions count neither way under HIPAA's convention): as
written, wrapped at 60 and at 40, in UPPER case and in UPPER case wrapped at 60. Then the
characters an export from an EHR, a word processor or a web page brings: CRLF line ends (the
gold spans moved by the carriage returns before them), three blanks in ten as no-break spaces
(drawn per note with its id as the seed), every apostrophe curly. Only scores are printed, never
text. Writes ``benchmarks/out/exported_copies.json``.
"""
from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))
from english_rules_context import case_copy  # noqa: E402
from invented_sets import hipaa_set, i2b2_set, score  # noqa: E402

#: the blind ICU sets (the first marks every age, i2b2's convention; the others HIPAA's)
SETS = ("icu_invented",) + tuple(f"icu_invented_{c}" for c in "bcdefghijklmnopqrs")


def wrap_text(text: str, width: int) -> str:
    """``text`` with the last blank before column ``width`` of every longer line turned into a
    line break, as a fixed-width export wraps; the same length, every other character kept.

    >>> wrap_text("seen by Dr. Smith at 0200 and updated", 12)
    'seen by Dr.\\nSmith at\\n0200 and\\nupdated'
    """
    out, line_start, last_blank = list(text), 0, -1
    for i, ch in enumerate(text):
        if ch == "\n":
            line_start, last_blank = i + 1, -1
            continue
        if ch == " ":
            last_blank = i
        if i - line_start >= width and last_blank > line_start:
            out[last_blank] = "\n"
            line_start, last_blank = last_blank + 1, -1
    return "".join(out)


def crlf(doc):
    """``doc`` with Windows line ends, its spans moved by the carriage returns before them."""
    breaks = [i for i, c in enumerate(doc.text) if c == "\n"]

    def moved(x: int) -> int:
        return x + bisect.bisect_left(breaks, x)
    return replace(doc, text=doc.text.replace("\n", "\r\n"),
                   spans=[replace(s, start=moved(s.start), end=moved(s.end)) for s in doc.spans])


def no_break_spaces(doc, share: float = 0.3):
    """``doc`` with ``share`` of its blanks no-break spaces (drawn with the note's id as the seed)."""
    draw = random.Random(doc.doc_id)
    return replace(doc, text="".join("\u00a0" if c == " " and draw.random() < share else c for c in doc.text))


def copies(docs) -> dict[str, list]:
    """The copies each note is scored in, by name."""
    upper = case_copy(docs, "upper")
    return {"as written": docs,
            "wrapped 60": [replace(d, text=wrap_text(d.text, 60)) for d in docs],
            "wrapped 40": [replace(d, text=wrap_text(d.text, 40)) for d in docs],
            "UPPER": upper,
            "UPPER wrapped 60": [replace(d, text=wrap_text(d.text, 60)) for d in upper],
            "CRLF": [crlf(d) for d in docs],
            "no-break spaces": [no_break_spaces(d) for d in docs],
            "curly apostrophes": [replace(d, text=d.text.replace("'", "\u2019")) for d in docs]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None, help="a version folder (default: rules and dictionaries alone)")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated blind sets (benchmarks/data/<name>)")
    ap.add_argument("--half", choices=("check", "find"), default="check")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "exported_copies.json"))
    args = ap.parse_args(argv)

    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014
    from services.runtime import go_offline

    go_offline()
    det = Detector.load(args.model) if args.model else Detector.without_model(I2B2_2014, "en")
    print(f"load average at start: {os.getloadavg()}; detector: {' + '.join(det.parts)}; {args.half} halves")
    names = list(copies([]))
    print(f"{'set':16s} " + " ".join(f"{n:>17s}" for n in names))
    result: dict = {"model": args.model, "half": args.half, "sets": {}}
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        inv = i2b2_set(name) if name == "icu_invented" else hipaa_set(name)
        docs = inv.load_half(args.half)
        row = {copy: score(det, ds, inv.ignore) for copy, ds in copies(docs).items()}
        result["sets"][name] = {copy: {"P": s["P"], "R": s["R"]} for copy, s in row.items()}
        print(f"{name:16s} " + " ".join(f"{row[n]['P']:8.3f} / {row[n]['R']:.3f}" for n in names), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
