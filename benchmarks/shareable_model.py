"""What a shareable model copy costs in accuracy (``export-model --shareable``, models/shareable.py).

Trains a version on ``<corpus>/train`` (or takes one with ``--model``), writes its shareable copy
(without features and vocabulary seen only inside training PHI spans), and scores both on
``<corpus>/dev`` through the full detector (model, rules, dictionaries). Prints one table.

    python benchmarks/shareable_model.py --corpus ../shared/data/meddocan
    python benchmarks/shareable_model.py --corpus ../shared/data/meddocan --model MODELS_DIR
    python benchmarks/shareable_model.py --corpus ../shared/data/meddocan --members crf --train-notes 200 \\
        --dev-notes 100
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from services.runtime import go_offline  # noqa: E402

go_offline()

from models.shareable import shareable_copy  # noqa: E402
from models.trainer import TrainConfig, train_ensemble  # noqa: E402
from pipeline.detection.detector import Detector  # noqa: E402
from pipeline.formats import read_collection  # noqa: E402
from pipeline.metrics import evaluate  # noqa: E402
from pipeline.schemas import MEDDOCAN  # noqa: E402


def score(model_dir: Path, dev) -> dict:
    det = Detector.load(model_dir)
    preds = det.detect_many(dev)
    rep = evaluate({d.doc_id: p for d, p in zip(dev, preds)}, {d.doc_id: d.spans for d in dev},
                   {d.doc_id: d.text for d in dev}).to_json()
    return {"P": rep["strict"]["micro"]["precision"], "R": rep["strict"]["micro"]["recall"],
            "F1": rep["strict"]["micro"]["f1"], "span R": rep["span_strict"]["micro"]["recall"],
            "token R": rep["binary_token"]["micro"]["recall"], "doc R": rep["document_recall"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True, help="folder with train/ and dev/ in brat")
    ap.add_argument("--model", help="a version trained on <corpus>/train (default: train a CRF-only one)")
    ap.add_argument("--members", default="crf,crf-rules", help="members to train without --model")
    ap.add_argument("--train-notes", type=int, default=None, help="train on the first N train notes only")
    ap.add_argument("--dev-notes", type=int, default=None, help="score on the first N dev notes only")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    train = read_collection(corpus / "train", "brat", MEDDOCAN)[:args.train_notes]
    dev = read_collection(corpus / "dev", "brat", MEDDOCAN)[:args.dev_notes]
    with tempfile.TemporaryDirectory() as tmp:
        if args.model:
            model = Path(args.model)
        else:
            t0 = time.time()
            info = train_ensemble(train, None, MEDDOCAN, TrainConfig.from_dict(
                {"members": args.members.split(","), "locale": "es", "threads": 2}), Path(tmp) / "models")
            model = Path(info.path)
            print(f"trained {info.name} ({', '.join(info.members)}) in {time.time() - t0:.0f} s", file=sys.stderr)
        t0 = time.time()
        report = shareable_copy(model, Path(tmp) / "shareable", train)
        export_s = time.time() - t0
        rows = {"original": score(model, dev), "shareable": score(Path(tmp) / "shareable", dev)}
    keys = ["P", "R", "F1", "span R", "token R", "doc R"]
    print(f"MEDDOCAN dev ({len(dev)} notes), model trained on {len(train)} notes; shareable copy in {export_s:.1f} s")
    print(f"{'copy':<12}" + "".join(f"{k:>9}" for k in keys))
    for name, r in rows.items():
        print(f"{name:<12}" + "".join(f"{r[k]:>9.4f}" for k in keys))
    print(f"{'difference':<12}" + "".join(f"{rows['shareable'][k] - rows['original'][k]:>+9.4f}" for k in keys))
    print(f"words treated as PHI: {report.phi_words} ({report.phi_words_seen_outside_phi} also seen outside PHI); "
          f"public words kept: {report.public_words_kept}; " + "; ".join(
        f"{m}: " + ", ".join(f"{k} {v}" for k, v in c.items()) for m, c in report.members.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
