"""The generative rewriting member (models/llm_member.py): speed, PHI found, content kept.

    python benchmarks/llm_member.py                                  # no checkpoint: a tiny untrained GPT-2
    python benchmarks/llm_member.py --llm-checkpoint DIR [--docs 50]  # a real local causal LM

Rows, all on the MEDDOCAN dev notes (``--data``; the gold spans are the reference):

* ``oracle``: a stub that rewrites every note perfectly (gold PHI -> ``[PHI]``), through the
  member's chunking and alignment. It bounds what alignment alone loses.
* ``oracle, damaged``: the same rewrites damaged the way models damage them (seeded): spacing
  changed, 3 % of the other words dropped and 2 % invented, a preamble, one placeholder per
  word of multi-word PHI, and every rewrite cut after 150 words at a "token limit" (so the
  member's continuations run).
* the model: ``--llm-checkpoint DIR``, or without one a tiny *untrained* GPT-2 (1 layer, width
  32, a byte-level BPE trained on the notes in a temporary folder that is deleted): its figures
  measure generation speed and the plumbing, not quality (it writes noise, up to its token
  budget for every chunk).

Speed is the median of ``--repeats`` runs (wall and CPU seconds per note); the 1-minute load
average is printed with every row (the machine is shared). Quality figures are deterministic
(greedy decoding). No note text is printed or kept.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from services.runtime import go_offline  # noqa: E402

go_offline()

from models.llm_member import Generation, LLMConfig, LLMMember  # noqa: E402
from models.words import bio_labels  # noqa: E402
from pipeline.formats import read_collection  # noqa: E402
from pipeline.metrics.rewriting import measure_rewrites  # noqa: E402
from pipeline.schemas import MEDDOCAN  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "meddocan" / "dev"
FALLBACK_DATA = REPO / "tests" / "fixtures" / "meddocan" / "brat"
FILLERS = ("además", "también", "posteriormente", "clínicamente", "actualmente")


def gold_rewrite(text: str, spans, rng: random.Random | None = None) -> str:
    """``text`` with the gold spans replaced by ``[PHI]``; with ``rng``, damaged (see the notes)."""
    merged: list[list[int]] = []
    for s in sorted(spans, key=lambda s: (s.start, s.end)):
        if merged and s.start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], s.end)
        else:
            merged.append([s.start, s.end])
    pieces, cur = [], 0
    for a, b in merged:
        pieces.append(("text", text[cur:a]))
        n = len(text[a:b].split())
        multi = rng is not None and n > 1 and rng.random() < 0.5
        pieces.append(("phi", " ".join(["[PHI]"] * n) if multi else "[PHI]"))
        cur = b
    pieces.append(("text", text[cur:]))
    if rng is None:
        return "".join(p for _, p in pieces)
    out = []
    for kind, p in pieces:
        if kind == "phi":
            out.append(p)
            continue
        words = re.split(r"( +)", p)
        kept = []
        for w in words:
            if w.strip() and rng.random() < 0.03:
                continue                                   # dropped
            if w.startswith(" ") and rng.random() < 0.2:
                w = "  "                                   # spacing changed
            kept.append(w)
            if w.strip() and rng.random() < 0.02:
                kept.append(" " + rng.choice(FILLERS))     # invented
        out.append("".join(kept).replace("\n", "\n\n" if rng.random() < 0.3 else "\n"))
    return "Aquí está la nota reescrita:\n" + "".join(out)


def oracle_member(docs, damaged: bool, cut_words: int = 150) -> LLMMember:
    """A member whose "model" returns each chunk's gold rewrite (damaged and cut, if asked)."""
    by_text = {d.text: d for d in docs}
    current: dict = {}

    def rewriter(chunks: list[str]) -> list[Generation]:
        d = current["doc"]
        out = []
        for c in chunks:
            at = d.text.find(c)
            spans = [s.with_(start=max(s.start, at) - at, end=min(s.end, at + len(c)) - at)
                     for s in d.spans if s.end > at and s.start < at + len(c)]
            rng = random.Random(f"{d.doc_id}:{at}:{len(c)}") if damaged else None
            rw = gold_rewrite(c, spans, rng)
            words = re.findall(r"\S+\s*", rw)
            if damaged and len(words) > cut_words:
                out.append(Generation("".join(words[:cut_words]), truncated=True, new_tokens=cut_words))
            else:
                out.append(Generation(rw, new_tokens=len(words)))
        return out

    member = LLMMember("oracle", bio_labels(MEDDOCAN.types), MEDDOCAN, LLMConfig(continuations=8), rewriter=rewriter)
    original = member.rewrite_notes

    def one_at_a_time(texts):                 # the stub must know which note a chunk is from
        res = []
        for t in texts:
            current["doc"] = by_text[t]
            res += original([t])
        return res

    member.rewrite_notes = one_at_a_time
    return member


def run_row(name: str, member: LLMMember, docs, repeats: int) -> dict:
    walls, cpus = [], []
    notes = None
    for _ in range(repeats):
        member.stats = {k: 0 for k in member.stats}
        w0, c0 = time.perf_counter(), time.process_time()
        notes = member.rewrite_notes([d.text for d in docs])
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    found = {d.doc_id: member.spans_of(n, d.doc_id) for d, n in zip(docs, notes)}
    m = measure_rewrites({d.doc_id: d.text for d in docs}, {d.doc_id: d.spans for d in docs}, found,
                         {d.doc_id: n.rewrite for d, n in zip(docs, notes)}, wall, member.placeholder)
    new_tokens = sum(n.new_tokens for n in notes)
    return {"row": name, "notes": len(docs), "notes/s": m.notes_per_s, "wall s/note": wall / len(docs),
            "CPU s/note": cpu / len(docs), "new tok/s": new_tokens / wall if wall else 0.0,
            "chunks": sum(n.chunks for n in notes), "truncated": sum(n.truncated for n in notes),
            "continued": sum(n.continuations for n in notes), "note R": m.note_recall, "span R": m.span_recall,
            "span P": m.span_precision, "tok R": m.token_recall, "tok P": m.token_precision, "BLEU": m.bleu,
            "repeats": repeats, "wall spread s": max(walls) - min(walls), "load1": os.getloadavg()[0]}


def print_table(rows: list[dict]) -> None:
    cols = [("row", "{}"), ("notes", "{}"), ("notes/s", "{:.2f}"), ("CPU s/note", "{:.3f}"), ("new tok/s", "{:.0f}"),
            ("chunks", "{}"), ("truncated", "{}"), ("continued", "{}"), ("note R", "{:.3f}"), ("span R", "{:.3f}"),
            ("span P", "{:.3f}"), ("tok R", "{:.3f}"), ("tok P", "{:.3f}"), ("BLEU", "{:.1f}"), ("load1", "{:.2f}")]
    cells = [[f.format(r[c]) for c, f in cols] for r in rows]
    widths = [max(len(c), *(len(x[i]) for x in cells)) for i, (c, _) in enumerate(cols)]
    print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, ((c, _), w) in enumerate(zip(cols, widths))))
    for x in cells:
        print("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(x, widths))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--llm-checkpoint", metavar="DIR",
                    help="a local causal LM checkpoint (default: a tiny untrained one)")
    ap.add_argument("--data", default=str(DEFAULT_DATA if DEFAULT_DATA.is_dir() else FALLBACK_DATA),
                    help="brat folder of MEDDOCAN notes with gold spans (default ../shared/data/meddocan/dev)")
    ap.add_argument("--docs", type=int, default=12, help="notes the model rewrites (default 12; oracle rows: all)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per row; the median is shown (default 3)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (default 1: on a shared machine 2 threads ran the tiny model 20x slower)")
    ap.add_argument("--prompt", metavar="FILE", help="prompt template file ({text}, {placeholder})")
    ap.add_argument("--placeholder", default="[PHI]")
    ap.add_argument("--max-chunk-tokens", type=int, default=384)
    ap.add_argument("--max-new-tokens", type=int, default=768)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--json", action="store_true", help="also print the rows as JSON")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    docs = read_collection(args.data, "brat", MEDDOCAN)
    print(f"data: {len(docs)} notes from {args.data}; load average at start {os.getloadavg()[0]:.2f}")
    rows = [run_row("oracle", oracle_member(docs, damaged=False), docs, 1),
            run_row("oracle, damaged", oracle_member(docs, damaged=True), docs, 1)]
    sample = docs[:args.docs]
    with tempfile.TemporaryDirectory(prefix="llm-bench-") as tmp:
        ckpt = args.llm_checkpoint
        label = "model"
        if not ckpt:
            from models.tiny_causal_lm import build_tiny_checkpoint

            ckpt = build_tiny_checkpoint(Path(tmp) / "tiny", [d.text for d in docs], vocab_size=2000,
                                         n_positions=1024)
            label = "tiny untrained GPT-2"
            print("no --llm-checkpoint: the model row is a tiny UNTRAINED GPT-2 (1 layer, width 32): its figures "
                  "measure speed and plumbing, not quality")
        cfg = LLMConfig(checkpoint=str(ckpt), placeholder=args.placeholder, max_chunk_tokens=args.max_chunk_tokens,
                        max_new_tokens=args.max_new_tokens, batch_size=args.batch_size, dtype=args.dtype)
        if args.prompt:
            cfg.prompt = Path(args.prompt).read_text(encoding="utf-8")
        t0 = time.perf_counter()
        member = LLMMember.from_checkpoint("llm", bio_labels(MEDDOCAN.types), MEDDOCAN, cfg)
        print(f"{label}: loaded in {time.perf_counter() - t0:.1f} s; context {member.context_tokens} tokens, "
              f"chunks of at most {member.chunk_limit()} tokens; threads {args.threads}")
        rows.append(run_row(label, member, sample, args.repeats))
    print()
    print_table(rows)
    print("\nnote R: share of notes whose every gold PHI character was found; span R/P: exact offsets, any label; "
          "tok R/P: PHI or not per whitespace token; BLEU: rewrite vs note, PHI removed from both (0-100); "
          "speed: median of the timed runs (wall); load1: 1-minute load average after the row")
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
