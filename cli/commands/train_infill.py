"""``python -m pipeline train-infill``: train the masked language model that paraphrase surrogates use.

With ``--project NAME`` it runs the job the De-identify page starts (``train_infill``, see
:mod:`services.infill`) in this process, recorded in the jobs table: every document of the
project, the gold layer's spans where there are any; the model becomes the project's current
one when it is complete. With ``--input DIR --out DIR`` it trains on a folder of documents with
their gold spans (brat, xml or jsonl) and writes the model under ``DIR`` for
``deidentify --infill-model DIR``. Either way the notes' PHI is replaced by list surrogates
before the model sees them, and the keyed set of the real values is saved with the model
(keyed with ``--secret-file``, default the workbench's key: de-identify with the same key).
Nothing is downloaded. Prints figures only.
"""
from __future__ import annotations

import argparse

NAME = "train-infill"
HELP = "train the project's masked language model for paraphrase surrogates (a job; or on a folder with --input)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", metavar="NAME", help="project name (its documents, gold spans where present)")
    p.add_argument("--db", metavar="PATH", help="SQLite file (default: the app's database)")
    p.add_argument("--input", metavar="DIR", help="train on a folder of documents instead of a project")
    p.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl", "text"),
                   help="format of --input (default brat)")
    p.add_argument("--schema", default="auto", help="label schema of --input (meddocan, i2b2-2014, ... or auto)")
    p.add_argument("--out", metavar="DIR", help="with --input: the folder the model is written under")
    p.add_argument("--secret-file", metavar="PATH",
                   help="with --input: the key of the set of the notes' real values saved with the model; "
                        "deidentify with the same key (default: the workbench database's key)")
    p.add_argument("--epochs", type=int, help="passes over the texts (default 4)")
    p.add_argument("--hidden", type=int, help="hidden size (default 128)")
    p.add_argument("--layers", type=int, help="transformer layers (default 2)")
    p.add_argument("--threads", type=int, help="torch threads (default up to 2)")
    p.add_argument("--seed", type=int, help="random seed (default 13)")
    p.add_argument("--config", metavar="JSON", help="JSON file with further settings (models.masked_lm.MaskedLMConfig)")
    p.add_argument("--user", help="name recorded in the audit log (default cli:<login>)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _config(args: argparse.Namespace) -> dict:
    from cli.console import read_json_config

    cfg = read_json_config(args.config)
    for key in ("epochs", "hidden", "layers", "threads", "seed"):
        value = getattr(args, key)
        if value is not None:
            cfg[key] = value
    if "hidden" in cfg and "intermediate" not in cfg:
        cfg["intermediate"] = 4 * int(cfg["hidden"])
    return cfg


def run(args: argparse.Namespace) -> int:
    from cli.console import CommandError, cli_user, message_bar

    if bool(args.project) == bool(args.input):
        raise CommandError("give --project NAME, or --input DIR with --out DIR")
    config = _config(args)
    progress, close = message_bar(args.no_progress)
    try:
        if args.input:
            if not args.out:
                raise CommandError("--input needs --out DIR (where the model is written)")
            result = _train_folder(args, config, progress)
        else:
            result = _train_project(args, config, progress, cli_user(args.user))
    finally:
        close()
    losses = ", ".join(f"{x:.3f}" for x in result.get("losses") or [])
    print(f"language model {result['name']} written to {result['path']}")
    print(f"documents {result['documents']}   with spans {result.get('with_spans', 0)}   steps {result['steps']}   "
          f"seconds {float(result['seconds']):.1f}   loss per epoch [{losses}]")
    print(f"PHI replaced by surrogates before training; real values keyed {result.get('project_values', 0)}   "
          f"left out: without gold {result.get('without_gold', 0)}, a real value left {result.get('left_out', 0)}")
    return 0


def _train_project(args: argparse.Namespace, config: dict, progress, user: str) -> dict:
    from cli.console import require_project
    from services.projects import open_db
    from services.settings import db_path as default_db_path
    from services.worker import run_inline

    db_path = str(args.db or default_db_path())
    with open_db(db_path) as db:
        project = require_project(db, args.project)
    return run_inline(db_path, "train_infill", {"project_id": project.id, "config": config, "user": user},
                      user=user, on_progress=progress)


def _train_folder(args: argparse.Namespace, config: dict, progress) -> dict:
    from models.masked_lm import MaskedLMConfig
    from models.masked_lm_folders import write_masked_lm
    from models.masked_lm_source import surrogate_source
    from models.masked_lm_train import train_masked_lm
    from pipeline.deid import load_secret
    from pipeline.formats import read_collection_auto
    from pipeline.schemas import default_locale
    from services.settings import project_secret

    if args.format == "text":
        from cli.console import CommandError
        raise CommandError("plain text carries no gold spans: the model learns only from notes whose PHI is "
                           "known and replaced first; use brat, xml or jsonl")
    schema, docs = read_collection_auto(args.input, args.format, args.schema)
    docs = [d for d in docs if d.text.strip()]

    def on_step(step: int, total: int, loss: float) -> None:
        if progress is not None:
            progress(step, total, f"loss {loss:.3f}")

    from cli.console import CommandError
    try:
        cfg = MaskedLMConfig.from_dict({**_defaults(), **config})
    except (TypeError, ValueError) as e:
        raise CommandError(f"language-model settings: {e}") from None
    if not docs:
        raise CommandError(f"{args.input} holds no document text")
    secret = load_secret(args.secret_file) if args.secret_file else project_secret()
    source = surrogate_source(docs, secret=secret, locale=default_locale(schema))
    if not source.texts:
        raise CommandError(f"{args.input}: no note could be rewritten without a real value left in it")
    lm, report = train_masked_lm(source.texts, spans=source.spans, groups=source.groups, config=cfg,
                                 progress=on_step)
    lm.project_values = source.project_values
    path = write_masked_lm(lm, args.out)
    return {"name": lm.name, "path": str(path), "documents": report.documents,
            "with_spans": sum(1 for s in source.spans if s), "steps": report.steps, "seconds": report.seconds,
            "losses": report.losses, **source.counts()}


def _defaults() -> dict:
    from services.infill import DEFAULT_CONFIG

    return dict(DEFAULT_CONFIG)
