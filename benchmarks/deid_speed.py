"""De-identification speed (spans given): documents/second for the redact and replace profiles.

    python benchmarks/deid_speed.py [--n 1000] [--repeat 5] [--corpus synthetic|meddocan]

1,000 synthetic notes (``pipeline.synthetic.generate_corpus``; ``--corpus meddocan`` repeats
the MEDDOCAN dev split up to 1,000 documents instead, one fake patient per copy). Single
process, a fresh context each run (so the list caches are warm but no per-patient state is
reused); the table shows the median and the best of ``--repeat`` runs by wall clock, and the
median by process CPU time (steadier on a shared machine). Target: >= 200 notes/s.
Also prints the run's summary line (leaks, fallbacks, quality), which has no document text.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch  # noqa: E402
from pipeline.spans import Document  # noqa: E402

TARGET = 200.0


def _corpus(kind: str, n: int) -> tuple[list[Document], str]:
    if kind == "synthetic":
        from pipeline.synthetic import generate_corpus
        return generate_corpus(n, 2024), "en"
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN
    root = Path(__file__).resolve().parents[2] / "shared" / "data" / "meddocan" / "dev"
    base = read_collection(root, "brat", MEDDOCAN)
    docs = []
    for i in range(n):
        d = base[i % len(base)]
        doc_id = f"{d.doc_id}-copy{i // len(base)}"
        spans = [s.with_(doc_id=doc_id) for s in d.spans]
        docs.append(Document(doc_id, d.text, spans, dict(d.meta), patient_id=doc_id))
    return docs, "es"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--corpus", choices=("synthetic", "meddocan"), default="synthetic")
    args = ap.parse_args()
    docs, locale = _corpus(args.corpus, args.n)
    n_spans = sum(len(d.spans) for d in docs)
    chars = sum(len(d.text) for d in docs)
    print(f"corpus {args.corpus}: {len(docs)} documents, {n_spans} spans, {chars / len(docs):.0f} chars/doc, "
          f"repeat {args.repeat}")
    secret = b"benchmark-secret-not-for-production"
    warm = DeidContext(secret=secret, locale=locale)
    deidentify_batch(docs[:50], builtin_profiles()["replace"], warm)   # load word lists once
    print(f"{'profile':<10}{'median docs/s':>15}{'best docs/s':>13}{'median s':>10}{'CPU docs/s':>12}"
          f"  target {TARGET:.0f}/s (wall-clock median)")
    lines = []
    for name in ("redact", "replace"):
        profile = builtin_profiles()[name]
        times, cpu = [], []
        batch = None
        for _ in range(args.repeat):
            ctx = DeidContext(secret=secret, locale=locale)
            ctx._lists, ctx._sets, ctx._derived = warm._lists, warm._sets, warm._derived
            t, c = time.perf_counter(), time.process_time()
            batch = deidentify_batch(docs, profile, ctx)
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        med = statistics.median(times)
        ok = "ok" if len(docs) / med >= TARGET else "BELOW TARGET"
        print(f"{name:<10}{len(docs) / med:>15.0f}{len(docs) / min(times):>13.0f}{med:>10.2f}"
              f"{len(docs) / statistics.median(cpu):>12.0f}  {ok}")
        lines.append(f"{name}: {batch.summary.line()}")
    print()
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
