"""How long the editor's span check takes for one message from the browser (issue 29, item 11).

``pipeline.annotation.edits.from_editor`` checks every span the editor sends back (offsets,
labels, whitespace, duplicates, overlaps) on each draft and action, so its time is paid on every
keystroke-sized edit of a long note. A synthetic note of N surname-like words, one span per word
plus one crossing span every tenth word (dropped as overlaps):

    python benchmarks/editor_spans.py [--spans 20000] [--runs 3]

Prints the median seconds per message; no document text.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.annotation import edits  # noqa: E402
from pipeline.schemas import I2B2_2014  # noqa: E402


def message(n: int) -> tuple[str, list[dict]]:
    words, offsets, pos = [], [], 0
    for i in range(n):
        w = f"Name{i:05d}"
        words.append(w)
        offsets.append((pos, pos + len(w)))
        pos += len(w) + 1
    sent = [{"start": s, "end": e, "type": "PATIENT"} for s, e in offsets]
    sent += [{"start": offsets[i][0] + 3, "end": offsets[i + 1][0] + 4, "type": "DOCTOR"} for i in range(0, n - 1, 10)]
    return " ".join(words), sent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spans", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    text, sent = message(args.spans)
    times = []
    for _ in range(args.runs):
        t = time.perf_counter()
        res = edits.from_editor(sent, text, I2B2_2014, "1", source="human:bench")
        times.append(time.perf_counter() - t)
    print(f"{len(sent)} spans sent, {len(res.spans)} kept, {len(res.overlaps)} overlaps: "
          f"median {statistics.median(times):.3f} s per message ({args.runs} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
