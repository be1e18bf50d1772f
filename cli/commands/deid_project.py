"""``python -m pipeline deidentify-project``: de-identify a project's documents into a run.

Runs the same job function as the app's De-identify page (:mod:`services.deid_runs`), in this
process with a progress bar, and records it in the jobs table. Spans come from a layer
(``gold`` by default); documents lacking it are detected with the active model (or rules and
dictionaries) unless ``--missing skip``. The run is then scored for re-identification risk
(``--no-risk`` to skip). Prints one summary line (documents, spans per category and action,
leaks, risk colours): never document text. Exit status 3 when the leak check found PHI left:
the run is then stored as ``failed`` (not scored, not resumable, not exportable).
``--resume RUN_ID`` finishes an interrupted run: only the documents it lacks are written; a
resume with another ``--profile`` than the run's, or after the secret key file changed, is
refused before anything is written. ``--redo RUN_ID --docs IDS`` re-de-identifies documents a
risk reviewer sent back, from their fixed gold, into that run (each alone; the run's profile and
key; refused while the gold was not saved since the document was sent back).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

NAME = "deidentify-project"
HELP = ("de-identify a project's documents (a layer's spans, or detected) into a stored run and score its "
        "re-identification risk; exit 3 if the leak check finds PHI left")
LEAK_EXIT = 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", metavar="NAME", help="project name (required unless --resume)")
    p.add_argument("--db", metavar="PATH", help="SQLite file (default: the app's database)")
    p.add_argument("--profile", default=None, metavar="PROFILE",
                   help="redact, replace (default), paraphrase (the project's language model infills surrogates; "
                        "train it with train-infill), a profile saved for the project, or a profile JSON file; "
                        "with --resume it must be the run's own profile")
    p.add_argument("--layer", default="gold", help="layer whose spans are applied (default gold)")
    p.add_argument("--missing", default="detect", choices=("detect", "skip"),
                   help="documents without the layer: detect their spans (default) or leave them out")
    p.add_argument("--docs", metavar="IDS", help="comma-separated document ids (default: all documents)")
    p.add_argument("--resume", type=int, metavar="RUN_ID", help="finish an interrupted run")
    p.add_argument("--redo", type=int, metavar="RUN_ID",
                   help="re-de-identify the sent-back documents named by --docs in this run, from their fixed gold")
    p.add_argument("--no-risk", action="store_true", help="do not score re-identification risk afterwards")
    p.add_argument("--user", help="name recorded in the audit log (default cli:<login>)")


def _profile_arg(value: str):
    """A file path becomes its JSON content (the job never reads paths); names pass through."""
    path = Path(value)
    if value not in ("redact", "replace") and path.suffix.lower() == ".json":
        if not path.is_file():
            from pipeline.errors import FormatError
            raise FormatError(str(path), "profile file not found")
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            from pipeline.errors import FormatError
            raise FormatError(str(path), f"not a JSON profile ({type(e).__name__})") from None
    return value


def run(args: argparse.Namespace) -> int:
    import services.store_first  # noqa: F401 - first: the store's guard keeps sqlite-utils from importing pandas
    from cli.console import CommandError, cli_user, require_project, stage_bars
    from services.deid_runs import get_run, summary_line
    from services.projects import open_db
    from services.settings import db_path as default_db_path
    from services.worker import run_inline

    db_path = str(args.db or default_db_path())
    user = cli_user(args.user)
    if args.redo is not None:
        return _redo(db_path, user, args)
    with open_db(db_path) as db:
        if args.resume is not None:
            run_ = get_run(db, user, args.resume)
            params: dict = {"project_id": run_.project_id, "run_id": run_.id}
            if args.profile is not None:      # checked against the run's own profile by the job
                params["profile"] = _profile_arg(args.profile)
        else:
            if not args.project:
                raise CommandError("--project NAME is required (or --resume RUN_ID)")
            project = require_project(db, args.project)
            doc_ids = "all"
            if args.docs:
                try:
                    doc_ids = [int(x) for x in args.docs.split(",") if x.strip()]
                except ValueError:
                    raise CommandError("--docs takes comma-separated document ids") from None
            params = {"project_id": project.id, "doc_ids": doc_ids, "layer": args.layer, "missing": args.missing,
                      "profile": _profile_arg(args.profile or "replace")}
    params.update(user=user, risk=not args.no_risk)
    progress, close = stage_bars()
    try:
        result = run_inline(db_path, "deidentify", params, user=user, on_progress=progress)
    except KeyboardInterrupt:
        close()
        _say_how_to_resume(db_path, params, user)
        raise
    finally:
        close()
    print(f"deidentify-project: {summary_line(result)}")
    return LEAK_EXIT if result.get("leaks") else 0


def _say_how_to_resume(db_path: str, params: dict, user: str) -> None:
    """After Ctrl-C: name the run that kept its finished outputs and how to finish it."""
    import sys

    from services.deid_runs import runs as list_runs
    from services.projects import open_db
    with open_db(db_path) as db:
        runs = [r for r in list_runs(db, user, params["project_id"]) if r.status != "done"]
    run_id = params.get("run_id") or (runs[0].id if runs else None)
    if run_id is not None:
        print(f"run {run_id} kept its finished documents; finish it with --resume {run_id}", file=sys.stderr)


def _redo(db_path: str, user: str, args: argparse.Namespace) -> int:
    """``--redo RUN_ID --docs IDS``: each sent-back document re-de-identified alone (counts only)."""
    from cli.console import CommandError
    from services.projects import open_db
    from services.rework import redeidentify_document

    try:
        ids = [int(x) for x in (args.docs or "").split(",") if x.strip()]
    except ValueError:
        raise CommandError("--docs takes comma-separated document ids") from None
    if not ids:
        raise CommandError("--redo RUN_ID needs --docs with the sent-back document ids")
    with open_db(db_path) as db:
        for doc_id in ids:
            r = redeidentify_document(db, user, args.redo, doc_id)
            print(f"deidentify-project: run={args.redo} doc={doc_id} redone spans={r['spans']} leaks={r['leaks']} "
                  "(decision cleared: triage it again on the Risk page)")
    return 0
