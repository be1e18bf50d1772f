"""``python -m pipeline train``: train a detection model version from annotated folders.

Reads a gold set (brat, i2b2 XML or JSONL), splits it patient-disjoint into train/dev when no
``--dev`` is given, trains the ensemble, tunes per-type thresholds for the target recall and
writes a new immutable version under ``--out`` (then marks it active there unless
``--no-activate``). Prints figures and labels only, never document text.
"""
from __future__ import annotations

import argparse
import sys

NAME = "train"
HELP = "train a detection model version (encoders + CRF ensemble) from annotated documents"



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--train", required=True, metavar="DIR", help="annotated training documents (folder, file or zip)")
    p.add_argument("--dev", metavar="DIR", help="annotated dev documents (default: a patient-disjoint share of --train)")
    p.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl"), help="format of the documents")
    p.add_argument("--out", required=True, metavar="MODEL_DIR", help="models directory; the new version goes inside")
    p.add_argument("--schema", default="auto",
                   help="label schema: meddocan, i2b2-2014, german-8, a JSON file, or 'auto' (first preset that fits)")
    p.add_argument("--locale", help="rules/dictionaries locale stored with the model (default: the schema's: es for meddocan, de for german-8, else en)")
    p.add_argument("--members", default=None,
                   help="comma-separated members: crf, crf-<variant> (crf-l1, crf-rules), bert, electra, roberta "
                        "(default crf,crf-l1,crf-rules)")
    p.add_argument("--epochs", type=int, help="encoder fine-tuning epochs (default per member config)")
    p.add_argument("--mlm-epochs", type=int, help="masked-LM pre-training epochs before fine-tuning (default 0)")
    p.add_argument("--seed", type=int, default=13, help="random seed (default 13)")
    p.add_argument("--target-recall", type=float, default=0.99, help="per-type dev recall the thresholds aim at")
    p.add_argument("--dev-fraction", type=float, default=0.15, help="share of --train held out when no --dev")
    p.add_argument("--init-from", metavar="CHECKPOINT_DIR",
                   help="initialise every encoder member from this local checkpoint directory (offline)")
    p.add_argument("--config", metavar="JSON", help="JSON file with further TrainConfig fields (encoders, crf, weights)")
    p.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    p.add_argument("--name", help="version name (default v<UTC time>-<random>)")
    p.add_argument("--no-activate", action="store_true", help="do not point MODEL_DIR/ACTIVE at the new version")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def read_gold(path: str, fmt: str, schema_arg: str):
    """Read annotated documents; with schema 'auto', the first preset that accepts every label."""
    from pipeline.formats import read_collection_auto
    return read_collection_auto(path, fmt, schema_arg)


def run(args: argparse.Namespace) -> int:
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from pathlib import Path

    from models.registry import set_active
    from models.trainer import TrainConfig, train_ensemble
    from cli.console import read_json_config
    from pipeline.errors import WorkbenchError
    from pipeline.formats import read_collection
    from pipeline.schemas import default_locale

    schema, train_docs = read_gold(args.train, args.format, args.schema)
    dev_docs = read_collection(args.dev, args.format, schema) if args.dev else None
    extra = read_json_config(args.config)
    if args.members:
        extra["members"] = [m.strip() for m in args.members.split(",") if m.strip()]
    cfg = TrainConfig.from_dict({**extra, "seed": args.seed, "target_recall": args.target_recall,
                                 "dev_fraction": args.dev_fraction, "threads": args.threads,
                                 "locale": args.locale or extra.get("locale") or default_locale(schema)})
    if args.epochs is not None:
        cfg.epochs = args.epochs
    if args.mlm_epochs is not None:
        cfg.mlm_epochs = args.mlm_epochs
    if args.name:
        cfg.name = args.name
    if args.init_from and not Path(args.init_from).is_dir():
        raise FileNotFoundError(f"checkpoint directory {args.init_from} does not exist")
    from models.trainer import member_kind
    members = cfg.members
    try:
        kinds = {m: member_kind(m) for m in members}
    except ValueError as e:
        raise WorkbenchError(str(e)) from None
    if args.init_from:
        for m in members:
            if kinds[m] == "encoder":
                cfg.encoders.setdefault(m, {})["init_from"] = str(Path(args.init_from).resolve())

    bar = None
    if not args.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=100, unit="%", file=sys.stderr, bar_format="{l_bar}{bar}| {elapsed} {postfix}")

    def progress(ev) -> None:
        if bar is None:
            return
        bar.total = ev.total
        bar.n = ev.done
        post = ev.message
        if ev.loss is not None:
            post += f" loss {ev.loss:.3f}"
        if ev.dev_f1 is not None:
            post += f" dev F1 {ev.dev_f1:.4f}"
        bar.set_postfix_str(post, refresh=False)
        bar.refresh()

    try:
        info = train_ensemble(train_docs, dev_docs, schema, cfg, args.out, progress=progress)
    except (ValueError, FileExistsError) as e:  # bad settings or data: messages carry no text
        raise WorkbenchError(str(e)) from None
    finally:
        if bar is not None:
            bar.close()
    if not args.no_activate:
        set_active(args.out, info.name)
    print(f"model version {info.name} written to {info.path}" + ("" if args.no_activate else " (active)"))
    print(f"train documents {info.n_train_docs}   dev documents {info.n_dev_docs}   "
          f"seconds {info.train_seconds:.0f}   target recall {info.target_recall}")
    print(f"{'dev (strict)':<16}{'P':>8}{'R':>8}{'F1':>8}{'span R':>9}")
    for key in ["ensemble", "ensemble@0.5", *info.members]:
        m = info.metrics[key]
        s = m["strict"]
        print(f"{key:<16}{s['precision']:>8.4f}{s['recall']:>8.4f}{s['f1']:>8.4f}{m['span_recall']:>9.4f}")
    return 0
