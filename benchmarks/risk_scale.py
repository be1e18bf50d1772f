"""Benchmark: re-identification risk scoring at 1k, 10k and 50k synthetic documents.

Generates cheap synthetic *de-identified* documents (about 30 entities each, about 350 words)
inside the script: half of each document's sentences come from a shared pool of templates
(contexts that recur across the corpus, as in real notes), half are random words from a Zipfian
pseudo-vocabulary (contexts that are unique). Each size runs in a fresh subprocess; time is
wall-clock of ``score_run`` (contexts, deduplication, embedding, neighbour search, reports),
peak memory is the process's peak resident set during scoring (``VmHWM`` after resetting it via
``/proc/self/clear_refs``), minus the resident set before scoring for the "delta" column.

    python benchmarks/risk_scale.py                       # 1k, 10k, 50k + naive ratio at 1k
    python benchmarks/risk_scale.py --sizes 1000 --repeat 3

Prints a table with medians over ``--repeat`` runs. Nothing here reads real documents.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CATS = [("NAME", "PATIENT"), ("NAME", "DOCTOR"), ("AGE", "AGE"), ("DATE", "DATE"), ("LOCATION", "CITY"),
        ("LOCATION", "HOSPITAL"), ("PROFESSION", "PROFESSION"), ("ID", "MEDICALRECORD"), ("CONTACT", "PHONE")]
CITIES = [f"city{i}" for i in range(60)]
PROFESSIONS = [f"prof{i}" for i in range(40)]


def _vocab(rng: np.random.Generator, n: int) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(3, 11, n)
    return ["".join(rng.choice(letters, size=k)) for k in lengths]


def _surface(rng: np.random.Generator, cat: str, typ: str) -> str:
    if cat == "AGE":
        return f"{int(rng.integers(1, 95))}"
    if cat == "DATE":
        return f"{int(rng.integers(1, 28)):02d}/{int(rng.integers(1, 12)):02d}/{int(rng.integers(2005, 2021))}"
    if typ == "CITY":
        return CITIES[int(rng.zipf(1.5)) % len(CITIES)]
    if cat == "PROFESSION":
        return PROFESSIONS[int(rng.zipf(1.5)) % len(PROFESSIONS)]
    return "[" + typ + "]"


def generate(n_docs: int, seed: int = 0, entities: int = 30, words: int = 350, templated: float = 0.6):
    """``n_docs`` synthetic de-identified documents (DeidDocument), deterministic for ``seed``.

    A share ``templated`` of the sentences comes from 300 shared templates (Zipf-distributed, the
    entity at a fixed slot, as in "Paciente de [AGE] años"); the rest are random words with the
    entity at a random place. ``templated=0`` is the hard case: nearly every context distinct.
    """
    from pipeline.risk import DeidDocument, DeidSpan
    rng = np.random.default_rng(seed)
    vocab = _vocab(rng, 20_000)
    per_sentence = max(2, words // entities)
    templates = []
    for _ in range(300):
        sent = [vocab[int(j) % len(vocab)] for j in rng.zipf(1.3, int(rng.integers(6, 2 * per_sentence)))]
        templates.append((sent, int(rng.integers(1, len(sent))), CATS[int(rng.integers(0, len(CATS)))]))
    docs = []
    for d in range(n_docs):
        parts: list[str] = []
        spans: list[DeidSpan] = []
        pos = 0
        for e in range(entities):
            if rng.random() < templated:
                sent, cut, (cat, typ) = templates[int(rng.zipf(1.5)) % len(templates)]
            else:
                sent = [vocab[int(j) % len(vocab)] for j in rng.zipf(1.2, per_sentence)]
                cut = int(rng.integers(1, len(sent)))
                cat, typ = CATS[int(rng.integers(0, len(CATS)))]
            left, right = " ".join(sent[:cut]) + " ", " " + " ".join(sent[cut:]) + ". "
            value = _surface(rng, cat, typ)
            parts.append(left)
            pos += len(left)
            spans.append(DeidSpan(pos, pos + len(value), cat, typ, action="replace", score=0.9,
                                  reviewed=bool(rng.random() < 0.5)))
            parts.append(value)
            parts.append(right)
            pos += len(value) + len(right)
        docs.append(DeidDocument(f"d{d}", "".join(parts), spans, human_seen=bool(rng.random() < 0.5)))
    return docs


def _rss_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def naive_all_pairs(docs, threshold: float = 0.5, python_rows: int = 20) -> dict:
    """The baseline the chunked/ANN search replaces: every context against every other context,
    one query row at a time, no deduplication, no index (same embedder and similarity).

    Also times a pure-Python pair loop (dict-based sparse dot products) on the first
    ``python_rows`` rows: the N x N Python loop the module avoids; its full cost is about that
    time x N / ``python_rows``.
    """
    from pipeline.risk import extract_contexts
    from pipeline.risk.embedders import LexicalEmbedder
    t0 = time.perf_counter()
    ctx = [(d.doc_id, c.text) for d in docs for c in extract_contexts(d)]
    owner = np.array([int(d[1:]) for d, _ in ctx])
    emb = LexicalEmbedder()
    emb.fit(sorted({t for _, t in ctx}))            # same idf as the scorer (fitted on distinct contexts)
    x = emb.embed([t for _, t in ctx]).exact
    xt = x.T.tocsr()
    unique = 0
    for i in range(len(ctx)):
        sims = (x[i] @ xt).toarray().ravel()
        sims[owner == owner[i]] = -np.inf
        unique += bool(sims.max() < threshold)
    rows_s = time.perf_counter() - t0
    as_dicts = [dict(zip(x.indices[x.indptr[i]:x.indptr[i + 1]].tolist(), x.data[x.indptr[i]:x.indptr[i + 1]].tolist()))
                for i in range(len(ctx))]
    t = time.perf_counter()
    n_py = min(python_rows, len(ctx))
    for i in range(n_py):
        qi, best = as_dicts[i], -1.0
        for j in range(len(ctx)):
            if owner[j] != owner[i]:
                dj = as_dicts[j]
                s = sum(v * dj[k] for k, v in qi.items() if k in dj)
                best = s if s > best else best
    py_s = time.perf_counter() - t
    return {"unique": unique, "rows_s": rows_s, "python_rows": n_py, "python_rows_s": py_s,
            "python_all_s_est": py_s * len(ctx) / max(1, n_py)}


def child(n_docs: int, method: str, seed: int) -> dict:
    from pipeline.risk import RiskConfig, RiskScorer
    docs = generate(n_docs, seed)
    n_ctx = sum(len(d.spans) for d in docs)
    before = _rss_kb("VmRSS")
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    t = time.perf_counter()
    extra: dict = {}
    if method == "naive":
        extra = naive_all_pairs(docs)
        timings, used = {}, "naive"
    else:
        cfg = RiskConfig()
        if method == "exact":
            cfg.exact_cutoff = 10**9
        elif method == "ann":
            cfg.exact_cutoff = 0
        scorer = RiskScorer(cfg)
        reports = scorer.score(docs)
        timings, used = scorer.timings, scorer.neighbour_method
        assert len(reports) == n_docs
        extra = {"unique": sum(r.n_unique for r in reports),
                 "colours": {c: sum(r.colour == c for r in reports) for c in ("red", "amber", "green")}}
        if n_docs <= 5000:
            extra["doc_colours"] = [r.context_colour for r in reports]
    wall = extra["rows_s"] if method == "naive" else time.perf_counter() - t
    peak = _rss_kb("VmHWM")
    return {"docs": n_docs, "contexts": n_ctx, "method": used, "seconds": wall,
            "peak_mb": peak / 1024, "delta_mb": max(0, peak - before) / 1024,
            "timings": {k: round(v, 2) for k, v in timings.items()}, **extra}


def run_child(n_docs: int, method: str, seed: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(n_docs), method, str(seed)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 50_000])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--naive-docs", type=int, default=1000,
                    help="size for the naive all-pairs comparison (0 = skip)")
    ap.add_argument("--child", nargs=3, metavar=("DOCS", "METHOD", "SEED"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(int(args.child[0]), args.child[1], int(args.child[2]))))
        return
    rows = []
    plan = [(n, "auto") for n in args.sizes]
    if args.naive_docs:
        plan += [(args.naive_docs, "exact"), (args.naive_docs, "ann"), (args.naive_docs, "naive")]
    results = {}
    for n, method in plan:
        runs = [run_child(n, method, seed) for seed in range(args.repeat if method != "naive" else 1)]
        med = statistics.median(r["seconds"] for r in runs)
        r0 = runs[0]
        results[(n, method)] = {**r0, "median": med}
        rows.append((n, r0["contexts"], r0["method"], med, max(r["peak_mb"] for r in runs),
                     max(r["delta_mb"] for r in runs), r0.get("unique"), r0["timings"]))
        print(f"done {n} {method}: {med:.1f}s", file=sys.stderr, flush=True)
    print(f"{'docs':>7} {'contexts':>9} {'search':>6} {'median s':>9} {'peak MB':>8} {'delta MB':>9} {'unique':>8}  stages (s)")
    for n, c, m, s, p, dm, u, tm in rows:
        print(f"{n:>7} {c:>9} {m:>6} {s:>9.2f} {p:>8.0f} {dm:>9.0f} {u if u is not None else '':>8}  {tm}")
    nv = results.get((args.naive_docs, "naive"))
    if nv:
        for m in ("exact", "ann"):
            r = results.get((args.naive_docs, m))
            if r:
                print(f"{m} / naive row-by-row all-pairs at {args.naive_docs} docs: {r['median'] / nv['median']:.3f} "
                      f"({nv['median'] / r['median']:.1f}x faster); unique contexts {r['unique']} vs naive {nv['unique']}")
        ex, an = results.get((args.naive_docs, "exact")), results.get((args.naive_docs, "ann"))
        if ex and an and "doc_colours" in ex:
            same = sum(a == b for a, b in zip(ex["doc_colours"], an["doc_colours"]))
            print(f"context colour, ann vs exact at {args.naive_docs} docs: {same}/{len(ex['doc_colours'])} the same")
        print(f"pure-Python pair loop: {nv['python_rows']} rows took {nv['python_rows_s']:.1f}s, "
              f"i.e. ~{nv['python_all_s_est'] / 3600:.1f} h for all rows (extrapolated)")
        r = results.get((args.naive_docs, "ann"))
        if r:
            print(f"ann / pure-Python pair loop (extrapolated): {r['median'] / nv['python_all_s_est']:.2e}")


if __name__ == "__main__":
    main()
