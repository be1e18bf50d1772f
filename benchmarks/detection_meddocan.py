"""Detection on MEDDOCAN: train on train/, score on dev/, ablation table, speed and memory.

    python benchmarks/detection_meddocan.py --corpus /work/shared/data/meddocan [--model DIR] [--repeat 3]

1. Trains the default ensemble on ``train/`` only (500 notes; thresholds tuned on a
   patient-disjoint 15 % of train, never on dev) with ``torch.set_num_threads(2)`` and reports
   the wall time; ``--model`` reuses an existing version instead.
2. Scores on ``dev/`` (250 notes): strict entity P/R/F1 (offsets and fine type, micro) and
   span-only recall (offsets, any type) and binary token recall/precision (whitespace tokens
   flagged PHI or not: what redaction needs) for each part alone and together: rules,
   dictionaries, each member, the ensemble at 0.5 and at the tuned thresholds, everything.
   Per-type F1 for every row.
3. Times the full pipeline (``Detector.detect_many`` on the 250 dev notes, in one process and on
   every core with ``pipeline.detection.parallel``), median of ``--repeat`` runs, and reports peak memory (process max RSS and the tracemalloc peak of one
   extra run).

Prints tables (labels and figures only) and writes ``benchmarks/out/detection_meddocan.json``.

``--mode hierarchical`` trains the hierarchical version (the German pipeline's superclass/subclass
design: a category CRF beside the type members); for a hierarchical version (trained here or
given with ``--model``) every row above runs the flat ensemble of the same members, and the
ablation adds "hierarchical (tuned)", "flat (same members)" and "hierarchical+everything", with
how many of the hierarchical spans ended as their category's other type or as OTHER (flagged)::

    python benchmarks/detection_meddocan.py --mode hierarchical --skip-baseline --repeat 1

Surrogate augmentation (``augment_copies``: K rewrites of every training note by the replace
engine, seen by the encoders, and by the CRFs unless ``augment_crf`` is false; the default is one
copy for every member) is a training setting; the row without it, and bert beside the CRF on two
copies that only bert learns from::

    echo '{"augment_copies": 0}' > plain.json
    python benchmarks/detection_meddocan.py --config plain.json --skip-baseline --skip-speed
    echo '{"members": ["crf", "bert"], "augment_copies": 2, "augment_crf": false}' > aug.json
    python benchmarks/detection_meddocan.py --config aug.json --skip-baseline --skip-speed
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from services.runtime import go_offline  # noqa: E402

go_offline()

# The categories the plain word-feature CRF baseline is weakest on (strict F1 on dev).
BASELINE_WEAK = {"INSTITUCION": 0.52, "FAMILIARES_SUJETO_ASISTENCIA": 0.62, "NUMERO_TELEFONO": 0.72,
                 "HOSPITAL": 0.83, "CALLE": 0.93, "FECHAS": 0.94}
BASELINE_MICRO = 0.954


def _score(system: dict, gold_docs) -> dict:
    from pipeline.metrics.entity import span_merged, span_strict, strict
    from pipeline.metrics.tokens import TokenIndex, binary_measure

    reference = {d.doc_id: list(d.spans) for d in gold_docs}
    ids = [d.doc_id for d in gold_docs]
    texts = {d.doc_id: d.text for d in gold_docs}
    st = strict(system, reference, ids)
    sp = span_strict(system, reference, ids)
    sm = span_merged(system, reference, texts, ids)
    tix = TokenIndex(texts, ids)
    bt = binary_measure(tix, tix.layer(reference), tix.layer(system))
    # document recall: notes whose every gold span is found (offsets, any type) among notes with PHI
    with_phi = [i for i in ids if reference[i]]
    found = sum(1 for i in with_phi
                if {(s.start, s.end) for s in reference[i]} <= {(s.start, s.end) for s in system.get(i, ())})
    return {
        "document_recall": found / len(with_phi) if with_phi else 1.0,
        "fn_per_1000": 1000.0 * bt.micro.fn / max(1, tix.n_tokens),
        "token_recall": bt.micro.recall, "token_precision": bt.micro.precision,
        "precision": st.micro.precision, "recall": st.micro.recall, "f1": st.micro.f1,
        "span_recall": sp.micro.recall, "span_precision": sp.micro.precision,
        "span_merged_recall": sm.micro.recall, "span_merged_precision": sm.micro.precision,
        "per_type": {t: {"f1": c.f1, "precision": c.precision, "recall": c.recall, "support": c.n_reference}
                     for t, c in st.per_type.items()},
    }


def _crf_baseline(train_docs, dev_docs) -> dict:
    """A plain CRF on word features (form, shape, affixes, +-3 context, line key; no gazetteers,
    patterns, clusters), L1+L2 as usual, trained on all of train: the brief's baseline row."""
    from models.crf import CRFConfig, CRFMember
    from models.decode import LabelIndex, decode
    from models.words import bio_labels, spans_to_bio, tokenize
    from pipeline.schemas import MEDDOCAN
    from pipeline.spans import Span

    labels = bio_labels(MEDDOCAN.types)
    cfg = CRFConfig(c1=0.05, c2=0.01, gazetteer=False, patterns=False, extended=False, clusters=False)
    items = [(d.text, tokenize(d.text)) for d in train_docs]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(train_docs, items)]
    t0 = time.time()
    member = CRFMember.train("baseline", items, tags, labels, cfg)
    secs = time.time() - t0
    index = LabelIndex.of(labels)
    dev_items = [(d.text, tokenize(d.text)) for d in dev_docs]
    system = {}
    for d, (_, w), p in zip(dev_docs, dev_items, member.predict_proba(dev_items)):
        system[d.doc_id] = [Span(d.doc_id, s, e, MEDDOCAN.category_of(t), t) for s, e, t, _ in decode(p, w, index)]
    out = _score(system, dev_docs)
    out["train_seconds"] = secs
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "data" / "meddocan"))
    ap.add_argument("--model", help="existing model version (or models directory): skip training")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "models"), help="models directory for training")
    ap.add_argument("--config", help="JSON file of TrainConfig overrides")
    ap.add_argument("--repeat", type=int, default=3, help="timed detection runs (median reported)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-baseline", action="store_true", help="do not train the plain word-feature CRF row")
    ap.add_argument("--mode", choices=("flat", "hierarchical"), default=None,
                    help="ensemble mode to train (default: flat, or the --config's); with --model, "
                         "'hierarchical' requires a hierarchical version")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from models.ensemble import Ensemble
    from models.registry import resolve
    from models.trainer import TrainConfig, train_ensemble
    from pipeline.detection.detector import Detector
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN

    corpus = Path(args.corpus)
    train_docs = read_collection(corpus / "train", "brat", MEDDOCAN)
    dev_docs = read_collection(corpus / "dev", "brat", MEDDOCAN)
    print(f"corpus: {len(train_docs)} train notes, {len(dev_docs)} dev notes; torch threads {args.threads}; "
          f"load average at start {os.getloadavg()[0]:.1f}")
    result: dict = {"train_docs": len(train_docs), "dev_docs": len(dev_docs), "threads": args.threads}

    if args.model:
        version = resolve(args.model)
        print(f"model: {version} (not retrained)")
    else:
        overrides = json.loads(Path(args.config).read_text()) if args.config else {}
        if args.mode:
            overrides["mode"] = args.mode
        cfg = TrainConfig.from_dict({**overrides, "threads": args.threads})
        last = {"t": 0.0}

        def progress(ev) -> None:
            now = time.time()
            if now - last["t"] > 30 or ev.done == ev.total:
                last["t"] = now
                extra = (f" loss {ev.loss:.3f}" if ev.loss is not None else "") + \
                        (f" dev F1 {ev.dev_f1:.4f}" if ev.dev_f1 is not None else "")
                print(f"  [{time.strftime('%H:%M:%S')}] {ev.done}/{ev.total} {ev.message}{extra}", flush=True)

        t0, c0 = time.time(), time.process_time()
        info = train_ensemble(train_docs, None, MEDDOCAN, cfg, args.out, progress=progress)
        wall, cpu = time.time() - t0, time.process_time() - c0
        version = Path(info.path)
        fitted = info.members + ([info.category_member] if info.category_member else [])
        per_member = ", ".join(f"{m} {info.metrics[m]['seconds']:.0f}s" for m in fitted)
        refits = [f"{m} {info.metrics[m]['refit_seconds']:.0f}s" for m in info.metrics.get("refit", [])]
        if refits:
            per_member += "; refit on train+dev: " + ", ".join(refits)
        print(f"training: {wall / 60:.1f} min wall, {cpu / 60:.1f} min CPU (all threads) for members "
              f"{','.join(info.members)} ({per_member}); load average now {os.getloadavg()[0]:.1f}")
        aug = info.metrics.get("augment")
        if aug:
            print(f"surrogate copies: {aug['documents']} notes ({aug['copies']} per training note, {aug['skipped']} "
                  f"left out where a surrogate fell back), seen by the encoders{' and the CRFs' if aug['crf'] else ''}")
            result["augment"] = aug
        result["train_wall_s"] = wall
        result["train_cpu_s"] = cpu
    ens = Ensemble.load(version)
    info = ens.info
    hier = ens.hierarchical
    if args.mode == "hierarchical" and not hier:
        print(f"error: model {info.name} was trained flat; train with --mode hierarchical", file=sys.stderr)
        return 1
    flat = "flat" if hier else None      # the existing rows: the flat ensemble of the same members
    result["version"] = info.name
    result["members"] = info.members
    result["mode"] = info.mode
    result["thresholds"] = info.thresholds

    # --- ablation rows -------------------------------------------------------------------
    rows: dict[str, dict] = {}

    outputs: dict[str, list] = {}

    def run(name: str, det: Detector) -> None:
        t0 = time.time()
        out = outputs[name] = det.detect_many(dev_docs)
        rows[name] = _score({d.doc_id: s for d, s in zip(dev_docs, out)}, dev_docs)
        rows[name]["seconds"] = time.time() - t0

    if not args.skip_baseline:
        rows["CRF baseline"] = _crf_baseline(train_docs, dev_docs)
    run("rules", Detector.without_model(MEDDOCAN, "es", rules=True, dictionaries=False))
    run("dictionaries", Detector.without_model(MEDDOCAN, "es", rules=False, dictionaries=True))
    run("rules+dictionaries", Detector.without_model(MEDDOCAN, "es"))
    for m in info.members:
        run(f"member {m}", Detector.load(version, members=[m], rules=False, dictionaries=False, use_thresholds=False,
                                         mode=flat))
    run("ensemble @0.5", Detector.load(version, rules=False, dictionaries=False, use_thresholds=False, mode=flat))
    run("ensemble (tuned)", Detector.load(version, rules=False, dictionaries=False, mode=flat))
    run("everything @0.5", Detector.load(version, use_thresholds=False, mode=flat))
    run("ensemble+rules", Detector.load(version, dictionaries=False, mode=flat))
    run("everything", Detector.load(version, mode=flat))
    run("everything (union)", Detector.load(version, policy="union", mode=flat))
    # the boundaries avenue: the gold's boundary conventions learned from train/ (not applied by
    # detection: see pipeline/detection/boundaries.py) on the model spans of "everything"
    from pipeline.detection.boundaries import adjust_spans, learn

    for label, knobs in (("everything+edge trims", {"split": False}), ("everything+trims+splits", {})):
        table = learn(train_docs, **knobs)
        adjusted = {d.doc_id: adjust_spans(d.text, s, table, MEDDOCAN.category_of)
                    for d, s in zip(dev_docs, outputs["everything"])}
        rows[label] = _score(adjusted, dev_docs)
    if hier:
        h_det = Detector.load(version, rules=False, dictionaries=False)
        run("hierarchical (tuned)", h_det)
        run("flat (same members)", Detector.load(version, rules=False, dictionaries=False, mode="flat"))
        run("hierarchical+everything", Detector.load(version))
        o = dict(h_det.ensemble.outcomes)
        n = sum(o.get(k, 0) for k in ("type", "category_other", "disagree", "type_only"))
        result["hierarchical"] = {"spans": n, **o, "dev_metrics_at_training": info.metrics.get("hierarchical")}
    result["rows"] = rows

    print()
    print(f"strict entity scores on MEDDOCAN dev ({len(dev_docs)} notes); span = offsets only, any type "
          f"(strict, and merged as the official subtrack-2 scorer); tok = whitespace tokens PHI or not")
    print(f"{'row':<24}{'P':>8}{'R':>8}{'F1':>8}{'span R':>8}{'span P':>8}{'mrg R':>8}{'mrg P':>8}"
          f"{'tok R':>8}{'tok P':>8}{'doc R':>8}{'FN/1k':>8}")
    for name, r in rows.items():
        print(f"{name:<24}{r['precision']:>8.4f}{r['recall']:>8.4f}{r['f1']:>8.4f}{r['span_recall']:>8.4f}"
              f"{r['span_precision']:>8.4f}{r['span_merged_recall']:>8.4f}{r['span_merged_precision']:>8.4f}"
              f"{r['token_recall']:>8.4f}{r['token_precision']:>8.4f}{r['document_recall']:>8.4f}"
              f"{r['fn_per_1000']:>8.2f}")
    print(f"{'(CRF baseline, brief)':<24}{0.971:>8.4f}{0.937:>8.4f}{BASELINE_MICRO:>8.4f}")
    if hier:
        h = result["hierarchical"]
        n = max(1, h["spans"])
        print(f"hierarchical join on dev ({h['spans']} model spans): {h.get('type', 0)} typed "
              f"({h.get('type', 0) / n:.1%}), {h.get('category_other', 0)} as their category's other type "
              f"({h.get('category_other', 0) / n:.1%}), {h.get('disagree', 0)} as OTHER, flagged "
              f"({h.get('disagree', 0) / n:.1%}), {h.get('type_only', 0)} from the type members only "
              f"({h.get('type_only', 0) / n:.1%}); {h.get('flagged', 0)} flagged for review in all "
              f"({h.get('flagged', 0) / n:.1%}); every other row runs the flat ensemble of the same members")
    print("member rows and '@0.5' rows decode at 0.5; 'tuned' rows use the version's per-type thresholds "
          f"(target recall {info.target_recall}); 'everything' = model-first with rules and dictionaries; "
          "doc R = notes whose every PHI span was found (offsets); FN/1k = PHI tokens missed per 1,000 tokens")

    types = sorted({t for r in rows.values() for t in r["per_type"]},
                   key=lambda t: -max(r["per_type"].get(t, {}).get("support", 0) for r in rows.values()))
    short = {"CRF baseline": "base", "rules": "rul", "dictionaries": "dic", "rules+dictionaries": "r+d",
             "ensemble @0.5": "e.5", "ensemble (tuned)": "ens", "everything @0.5": "all.5", "ensemble+rules": "e+r",
             "everything": "all", "everything (union)": "uni", "hierarchical (tuned)": "hier",
             "flat (same members)": "flat", "hierarchical+everything": "h.all", "everything+edge trims": "trim",
             "everything+trims+splits": "split"}
    cols = list(rows)
    heads = [short.get(c, c.replace("member ", "")[:4]) for c in cols]
    print()
    print("strict F1 per type (columns: " + ", ".join(f"{h}={c}" for h, c in zip(heads, cols)) + ")")
    print(f"{'type':<34}{'n':>5}" + "".join(f"{h:>6}" for h in heads) + "  baseline")
    for t in types:
        sup = max(r["per_type"].get(t, {}).get("support", 0) for r in rows.values())
        vals = "".join(f"{rows[c]['per_type'].get(t, {}).get('f1', 0.0):>6.3f}" for c in cols)
        base = f"  {BASELINE_WEAK[t]:.2f}" if t in BASELINE_WEAK else ""
        print(f"{t:<34}{sup:>5}{vals}{base}")

    # --- why the default point misses what it misses (counts only, no text) --------------------
    from pipeline.metrics.misses import KINDS, classify_misses

    reference = {d.doc_id: list(d.spans) for d in dev_docs}
    ids = [d.doc_id for d in dev_docs]
    misses = {name: classify_misses({d.doc_id: s for d, s in zip(dev_docs, outputs[name])}, reference, ids)
              for name in ("ensemble (tuned)", "everything") if name in outputs}
    result["misses"] = {name: {f"{label}|{kind}": n for (label, kind), n in m.counts.items()}
                        for name, m in misses.items()}
    m = misses["everything"]
    print()
    print(f"reference spans the default point ('everything') missed, by kind (offsets, any type): {m.total} of "
          f"{m.reference_spans}; " + ", ".join(f"{name}: {dict(mm.by_kind())}" for name, mm in misses.items()
                                              if name != "everything"))
    print(f"{'type':<34}{'missed':>7}" + "".join(f"{k:>10}" for k in KINDS))
    for label, n in m.by_label().most_common():
        print(f"{label:<34}{n:>7}" + "".join(f"{m.counts.get((label, k), 0):>10}" for k in KINDS))
    print(f"{'all':<34}{m.total:>7}" + "".join(f"{m.by_kind().get(k, 0):>10}" for k in KINDS))

    # --- speed and memory --------------------------------------------------------------------
    if not args.skip_speed:
        det = Detector.load(version)
        det.detect_many(dev_docs[:5])  # warm-up
        times = []
        for _ in range(max(1, args.repeat)):
            t0 = time.time()
            det.detect_many(dev_docs)
            times.append(time.time() - t0)
        med = statistics.median(times)
        tracemalloc.start()
        det.detect_many(dev_docs)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        result["speed"] = {"runs_s": times, "median_s": med, "notes_per_s": len(dev_docs) / med,
                           "max_rss_mb": rss, "tracemalloc_peak_mb": peak / 2**20}
        # the same on every core (pipeline.detection.parallel: the detector forked into workers)
        from pipeline.detection.parallel import detect_many_parallel, usable_cores

        p_times = []
        for _ in range(max(1, args.repeat)):
            t0 = time.time()
            got = detect_many_parallel(det, dev_docs)
            p_times.append(time.time() - t0)
        assert got == det.detect_many(dev_docs), "parallel detection differs"
        p_med = statistics.median(p_times)
        result["speed_every_core"] = {"runs_s": p_times, "median_s": p_med, "notes_per_s": len(dev_docs) / p_med,
                                      "cores": usable_cores()}
        # the same with every member run (an encoder tuned to weight 0 is normally skipped)
        forced = Detector.load(version)
        forced.ensemble.info.weights = {m: 1.0 for m in forced.ensemble.members}
        forced.detect_many(dev_docs[:5])
        f_times = []
        for _ in range(max(1, args.repeat)):
            t0 = time.time()
            forced.detect_many(dev_docs)
            f_times.append(time.time() - t0)
        f_med = statistics.median(f_times)
        result["speed_all_members"] = {"runs_s": f_times, "median_s": f_med, "notes_per_s": len(dev_docs) / f_med,
                                       "parts": forced.parts}
        print()
        print(f"with every member run ({', '.join(forced.parts)}): median {f_med:.2f} s = "
              f"{len(dev_docs) / f_med:.1f} notes/s ({', '.join(f'{t:.2f}' for t in f_times)})")
        print(f"full pipeline on every core ({usable_cores()} worker processes): median {p_med:.2f} s = "
              f"{len(dev_docs) / p_med:.1f} notes/s ({', '.join(f'{t:.2f}' for t in p_times)}); "
              f"{med / p_med:.2f}x one process; same spans")
        print(f"full pipeline ({', '.join(det.parts)}) on {len(dev_docs)} dev notes: "
              f"median {med:.2f} s over {len(times)} runs ({', '.join(f'{t:.2f}' for t in times)}) = "
              f"{len(dev_docs) / med:.1f} notes/s; peak memory: max RSS {rss:.0f} MB, "
              f"tracemalloc peak {peak / 2**20:.0f} MB; load average {os.getloadavg()[0]:.1f}")
        if hier:
            # the hierarchical pipeline above next to the flat one of the same members: CPU seconds
            # (this process) as well as wall time, as the machine may be shared
            rows_t = {}
            for label, mode in (("hierarchical", None), ("flat (same members)", "flat")):
                d = Detector.load(version, mode=mode)
                d.detect_many(dev_docs[:5])
                walls, cpus = [], []
                for _ in range(max(1, args.repeat)):
                    t0, c0 = time.time(), time.process_time()
                    d.detect_many(dev_docs)
                    walls.append(time.time() - t0)
                    cpus.append(time.process_time() - c0)
                rows_t[label] = {"median_s": statistics.median(walls), "median_cpu_s": statistics.median(cpus),
                                 "load": os.getloadavg()[0]}
            result["speed_hierarchical"] = rows_t
            h, f = rows_t["hierarchical"], rows_t["flat (same members)"]
            print(f"{'speed, full pipeline':<24}{'wall s':>8}{'CPU s':>8}{'notes/s':>9}{'load':>6}")
            for label, r in rows_t.items():
                print(f"{label:<24}{r['median_s']:>8.2f}{r['median_cpu_s']:>8.2f}"
                      f"{len(dev_docs) / r['median_s']:>9.1f}{r['load']:>6.1f}")
            print(f"hierarchical / flat CPU seconds: {h['median_cpu_s'] / max(1e-9, f['median_cpu_s']):.2f}")

    out = REPO / "benchmarks" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "detection_meddocan.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
