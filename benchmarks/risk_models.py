"""The models ``benchmarks/risk_separation.py`` scores with: CRF-only default-recipe versions
trained on MEDDOCAN train, cross-fitted on its two halves for tuning, cached in a folder.

    nice -n 10 python benchmarks/risk_models.py --corpus /work/shared/data/meddocan --out /tmp/risk-models

Three versions: ``half-a`` (trained on one half of train, detects the other), ``half-b`` (the
reverse) and ``full`` (all of train; detects dev). Thresholds of each are tuned on a
patient-disjoint 15 % of its own training notes (the trainer's default), never on dev.
A version already in ``--out`` is reused. Prints figures only, never text.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from services.runtime import go_offline  # noqa: E402

go_offline()

SPLIT_SEED = 32


def halves(docs: list) -> tuple[list, list]:
    """Train split in two by a seeded shuffle of document ids (MEDDOCAN notes are one patient each)."""
    ids = sorted(d.doc_id for d in docs)
    random.Random(SPLIT_SEED).shuffle(ids)
    first = set(ids[: len(ids) // 2])
    return [d for d in docs if d.doc_id in first], [d for d in docs if d.doc_id not in first]


def version_dir(out: Path, name: str) -> Path | None:
    """The trained version under ``out/name`` (its newest), or None."""
    base = out / name
    if not base.is_dir():
        return None
    found = sorted(p for p in base.iterdir() if p.is_dir() and (p / "version.json").exists())
    return found[-1] if found else None


def train(docs: list, out: Path, name: str, threads: int = 1) -> Path:
    """A CRF-only default-recipe version trained on ``docs`` (reused when present)."""
    have = version_dir(out, name)
    if have is not None:
        return have
    from models.trainer import TrainConfig, train_ensemble
    from pipeline.schemas import MEDDOCAN

    t0 = time.time()
    cfg = TrainConfig.from_dict({"members": ["crf"], "threads": threads, "crf_workers": 1})
    info = train_ensemble(docs, None, MEDDOCAN, cfg, out / name)
    print(f"trained {name}: {len(docs)} notes in {(time.time() - t0) / 60:.1f} min", flush=True)
    return Path(info.path)


def models(corpus: Path, out: Path, only: str | None = None) -> dict[str, Path]:
    """The three versions (or ``only`` one of them), trained where absent."""
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN

    train_docs = read_collection(corpus / "train", "brat", MEDDOCAN)
    a, b = halves(train_docs)
    sets = {"half-a": a, "half-b": b, "full": train_docs}
    return {name: train(docs, out, name) for name, docs in sets.items() if only in (None, name)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="/work/shared/data/meddocan")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", choices=("half-a", "half-b", "full"), help="train this version alone (run the "
                    "three side by side on a machine with the cores)")
    args = ap.parse_args()
    for name, path in models(Path(args.corpus), Path(args.out), args.only).items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
