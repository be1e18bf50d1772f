"""``python -m pipeline train-project --project NAME``: retrain a project's model from its gold set.

The same job the Train page starts (``services.training_job.train_job``), run in this process
with a tqdm bar and recorded in the jobs table. The new version is evaluated on held-out gold
and recorded in the store, but not activated unless ``--activate``. Prints figures only.
"""
from __future__ import annotations

import argparse

from cli.console import augment_options, cli_user, message_bar, read_json_config, require_project

NAME = "train-project"
HELP = "retrain a project's detection model from its finished gold documents (a new, inactive version)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="database file (default: $WORKBENCH_DB or var/workbench.db)")
    p.add_argument("--project", required=True, help="project name")
    p.add_argument("--members", default="crf",
                   help="comma-separated members: crf, crf-l1, crf-rules, bert, electra, roberta "
                        "(default crf)")
    p.add_argument("--mode", default="flat",
                   help="ensemble mode: flat (default) or hierarchical (a category CRF beside the type members; "
                        "disagreements become OTHER, flagged for review)")
    p.add_argument("--epochs", type=int, help="encoder fine-tuning epochs (default per member config)")
    p.add_argument("--seed", type=int, default=13, help="random seed (default 13)")
    p.add_argument("--target-recall", type=float, help="per-type dev recall (default: the project's setting)")
    p.add_argument("--config", metavar="JSON",
                   help="JSON file with further TrainConfig fields (encoders, crf, weights)")
    p.add_argument("--augment-copies", type=int, metavar="N",
                   help="surrogate copies of every training note the members learn from (default 1; 0: none)")
    p.add_argument("--no-augment-crf", action="store_true", help="only the encoders learn from the surrogate copies")
    p.add_argument("--threads", type=int, help="torch threads (default 2)")
    p.add_argument("--activate", action="store_true", help="activate the new version when training succeeds")
    p.add_argument("--user", help="name recorded in the audit log (default cli:<login>)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from services.settings import db_path as default_db_path
    from services.projects import open_db
    from services.training import activate_version
    from services.training_job import train_from_store

    with open_db(args.db) as db:
        project = require_project(db, args.project)
    extra = read_json_config(args.config)
    extra.update(augment_options(args))
    user = cli_user(args.user)
    db_path = args.db or str(default_db_path())
    progress, close = message_bar(args.no_progress)
    try:
        members = [m.strip() for m in args.members.split(",") if m.strip()]
        result = train_from_store(db_path, project.id, members=members,
                                  epochs=args.epochs, seed=args.seed, target_recall=args.target_recall, config=extra,
                                  threads=args.threads, user=user, progress=progress, mode=args.mode)
    finally:
        close()
    s = result.get("dev_strict") or {}
    print(f"model version {result['name']} (id {result['model_version_id']}) written to {result['path']}")
    print(f"train documents {result['n_train_docs']}   held-out dev documents {result['n_dev_docs']}   "
          f"seconds {result['seconds']:.0f}")
    print(f"dev strict P {s.get('precision') or 0:.4f}  R {s.get('recall') or 0:.4f}  F1 {s.get('f1') or 0:.4f}   "
          f"document recall {result.get('dev_document_recall') or 0:.4f}")
    ch = result.get("dev_characters") or {}
    print(f"dev characters (PHI or not, any label) P {ch.get('precision') or 0:.4f}  R {ch.get('recall') or 0:.4f}")
    if args.activate:
        with open_db(args.db) as db:
            mv = activate_version(db, user, result["model_version_id"])
        print(f"activated {mv.name}")
    else:
        print("not activated: activate it on the Train page (or rerun with --activate)")
    return 0
