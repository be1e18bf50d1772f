"""``python -m pipeline deidentify``: de-identify a folder of documents into another folder.

Uses the spans in the input files (gold, an annotator's, a detector's), or detects them first
with ``--model``. Writes the de-identified documents in the same format with their new spans,
named by keyed pseudonyms (``doc-3f9a1c2b7e4d.txt``; no mapping file is written), with only the
metadata the profile allows, and prints one summary line (documents, spans per category and
action, leaks found, ids renamed, metadata keys dropped). Exit status 3 when the leak check
found input PHI in the output (text, metadata, ids or file names).

The output folder holds a fingerprint of the profile, key, locale, schema and ``--model``
(:mod:`pipeline.deid.fingerprint`, owner-only, no PHI): ``--resume`` (or ``--force``) with
another of any is refused before anything is written, so a folder never mixes two. Outputs are
moved into place whole and recorded with a keyed digest in the folder's manifest
(:mod:`pipeline.engines.manifest`); ``--resume`` skips only documents whose files it vouches for.

brat, i2b2 XML, JSONL and plain-text input is read twice and never held whole
(:mod:`pipeline.engines.streamed`): once for ids and patients, then a patient at a time, detected
and de-identified on every usable core and written as it is done, so memory stays flat in the
number of notes. A run that fails midway leaves the files it finished (whole, in the manifest;
JSONL: nothing) for ``--resume``. With ``--schema auto`` the preset is chosen from the first notes
and the first pass checks the rest (a later label another preset fits starts the run again with
that one, before anything is written), so the input is not read once more per preset tried.

``--profile paraphrase`` (or any profile with the ``paraphrase`` action) infills surrogates
with a masked language model given by ``--infill-model`` (a folder written by
``python -m pipeline train-infill``); without one those spans get list surrogates and the
summary says how many. ``--quality`` also prints the quality table of the paraphrase
surrogates beside list surrogates (same documents and spans; figures only). Paraphrase runs
on the local engine.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pipeline.errors import WorkbenchError

NAME = "deidentify"
HELP = ("de-identify documents (brat, i2b2 XML, JSONL) with a profile (redact, replace, paraphrase or a JSON "
        "file); exit 3 if the leak check finds PHI left in the output")

LEAK_EXIT = 3


class DeidCommandError(WorkbenchError):
    """A usage error of the deidentify command (printed as one line)."""


#: Formats this command reads and writes: the folder formats and the annotation tools' (a table is
#: ``deidentify-table``'s, which keeps its other columns).
INPUT_FORMATS = ("brat", "xml", "jsonl", "text", "label-studio", "doccano", "prodigy", "spacy", "hf-dataset")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input", required=True, metavar="DIR", help="folder (or file/zip) of documents with spans")
    p.add_argument("--format", default="brat", choices=INPUT_FORMATS,
                   help="format of the input and the output (default brat; text needs --model; the annotation "
                        "tools' formats are written whole at the end, so --resume redoes them)")
    p.add_argument("--profile", default="replace", metavar="PROFILE",
                   help="redact, replace (default), paraphrase or a profile JSON file")
    p.add_argument("--infill-model", metavar="DIR",
                   help="masked language model for the paraphrase action (a folder written by train-infill); "
                        "without it paraphrase spans get list surrogates, counted")
    p.add_argument("--quality", action="store_true",
                   help="with a paraphrase profile: print the quality table against list surrogates")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for the de-identified documents")
    p.add_argument("--model", metavar="MODEL_DIR", help="detect spans with this model first (input spans ignored)")
    p.add_argument("--secret-file", metavar="PATH",
                   help="per-project secret for keyed surrogates (default: the workbench database's key, var/workbench.secret.key, created 0600 if missing)")
    p.add_argument("--schema", default="auto",
                   help="label schema: meddocan, i2b2-2014, german-8, a JSON file, or auto (default)")
    p.add_argument("--locale", default="auto", help="surrogate lists and date order: en, es, de or auto (the schema's locale)")
    p.add_argument("--resume", action="store_true",
                   help="skip documents an interrupted run finished (each output checked against the folder's "
                        "manifest; empty, truncated or unrecorded files are written again); refused if the folder "
                        "was written with another profile, secret, locale, schema or --model")
    p.add_argument("--force", action="store_true",
                   help="write into an output folder that already holds files (of the same profile and secret)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of one line")
    from cli.engine_options import add_engine_arguments
    add_engine_arguments(p)


def _read(args: argparse.Namespace, streamed: bool):
    """The schema and the documents: read again when iterated (a two-pass run on the local engine,
    memory flat in the number of notes; spans not read with ``--model``) or read whole."""
    if streamed:   # auto: chosen from the first notes, checked by the first pass (SchemaGuessError)
        from pipeline.formats.stream import open_collection
        return open_collection(args.input, args.format, args.schema, spans=not args.model, provisional=True)
    from pipeline.formats import read_collection_auto
    return read_collection_auto(args.input, args.format, args.schema)


def _streamed(args: argparse.Namespace, infiller) -> bool:
    """Whether the input is streamed: a format read lazily, the local engine, no language model
    (paraphrase runs in input order at once) and no ``--quality`` table (it compares in memory)."""
    from pipeline.formats.stream import STREAMED_FORMATS
    return (args.format in STREAMED_FORMATS and (getattr(args, "engine", None) or "local") == "local"
            and infiller is None and not args.quality)


def _done_ids(docs, out: Path, fmt: str, schema, secret: bytes, fingerprint: str) -> tuple[set[str], list]:
    """Input ids of the documents an interrupted run finished (found by their pseudonyms), and,
    for JSONL, the documents it wrote.

    A document counts as finished only when each of its files is in the folder's manifest under
    this fingerprint and still has the bytes recorded there (:mod:`pipeline.engines.manifest`):
    a 0-byte or truncated file a killed run left, one edited since, or one no manifest vouches
    for is written again."""
    from pipeline.deid import document_pseudonym
    from pipeline.engines.manifest import OutputManifest
    from pipeline.errors import USER_ERRORS

    manifest = OutputManifest(out, secret, fingerprint)
    if fmt == "jsonl":
        existing = out / "documents.jsonl"
        if not manifest.verified(existing):
            return set(), []
        from pipeline.formats import read_collection
        try:
            prior = read_collection(existing, "jsonl", schema)
        except (*USER_ERRORS, ValueError):    # written but unreadable: write it again
            return set(), []
        written = {d.doc_id for d in prior}
        return {d.doc_id for d in docs if document_pseudonym(secret, d.doc_id) in written}, prior
    suffixes = {"brat": (".txt", ".ann"), "xml": (".xml",), "text": (".txt",)}.get(fmt)
    if suffixes is None:        # one file for the whole collection, written at the end: nothing to keep
        return set(), []
    done = set()
    for d in docs:
        name = document_pseudonym(secret, d.doc_id)
        if all(manifest.verified(out / f"{name}{suffix}") for suffix in suffixes):
            done.add(d.doc_id)
    return done, []


def check_fingerprint(out: Path, fingerprint: str) -> None:
    """Refuse to add to a folder of outputs written with another profile, key, locale, schema or
    detection model (one line, before anything is written). A folder holding files but no
    fingerprint (written before fingerprints, or by hand) cannot be checked, so adding to it is
    refused too."""
    from pipeline.deid.fingerprint import mismatch, read_fingerprint_file

    stored = read_fingerprint_file(out)
    if stored is None:
        raise DeidCommandError(f"{out} holds files but no de-identification fingerprint, so it cannot be "
                               "checked that they were written with this profile and secret; use an empty folder")
    what = mismatch(stored, fingerprint)
    if what is not None:
        raise DeidCommandError(f"{out} was written with another {what}; resuming would mix the two: "
                               "use the same --profile, --secret-file, --locale, --schema and --model, "
                               "or an empty folder")


def _model_id(model_dir: str | None) -> str | None:
    """The ``--model`` folder's content digest (which model, wherever it lies), or None."""
    if not model_dir:
        return None
    from models.version import content_digest
    if not Path(model_dir).is_dir():
        raise DeidCommandError(f"--model {model_dir}: no such model folder")
    return content_digest(model_dir)


def _infiller(args: argparse.Namespace, profile):
    """The masked LM of ``--infill-model`` for a paraphrase profile (None otherwise)."""
    if profile.uses_paraphrase() and (getattr(args, "engine", "local") or "local") != "local":
        raise DeidCommandError("the paraphrase action runs on the local engine: drop --engine ray")
    if not args.infill_model:
        return None
    if not profile.uses_paraphrase():
        raise DeidCommandError(f"--infill-model is only used by the paraphrase action; profile {profile.name} has none")
    from models.masked_lm import MaskedLMError
    from models.masked_lm_folders import load_masked_lm
    from services.infill import InfillError, require_project_values
    try:
        lm = load_masked_lm(args.infill_model)
        require_project_values(lm)
    except (MaskedLMError, InfillError) as e:
        raise DeidCommandError(str(e)) from None
    return lm


def _project_secret() -> bytes:
    """The workbench database's key (only then is the store imported: a run with --secret-file
    starts without it)."""
    import services.store_first  # noqa: F401 - first: the store's guard keeps sqlite-utils from importing pandas
    from services.settings import project_secret
    return project_secret()


def run(args: argparse.Namespace) -> int:
    from pipeline.deid import load_profile, load_secret
    from pipeline.deid.fingerprint import FINGERPRINT_FILE
    from pipeline.engines.manifest import MANIFEST_FILE
    from pipeline.formats.stream import SchemaGuessError

    profile = load_profile(args.profile)
    inp, out = Path(args.input), Path(args.output)
    if out.exists() and not out.is_dir():
        raise DeidCommandError(f"{out} exists and is not a folder")
    if out.resolve() == inp.resolve():
        raise DeidCommandError("--output must differ from --input (originals must not be overwritten)")
    existing = [p for p in out.iterdir() if p.name not in (FINGERPRINT_FILE, MANIFEST_FILE)] if out.is_dir() else []
    if existing and not (args.force or args.resume):
        raise DeidCommandError(f"{out} is not empty; choose another folder, or pass --resume or --force")
    if args.format == "text" and not args.model:
        raise DeidCommandError("plain text carries no spans: pass --model to detect them, or use brat/xml/jsonl")

    infiller = _infiller(args, profile)
    secret = load_secret(args.secret_file) if args.secret_file else _project_secret()
    schema, docs = _read(args, _streamed(args, infiller))
    while True:
        try:
            return _run_read(args, profile, infiller, secret, schema, docs, existing)
        except SchemaGuessError as e:     # a label past the first notes fits a later preset only
            schema, docs = e.retry()


def _settled(docs) -> None:
    """Before a run is refused for any reason, the rest of an input whose schema was chosen from
    its first notes is read (:meth:`pipeline.formats.stream.AutoRead.verify`): a label further on
    that chooses another preset is found first, as when the choice read everything."""
    verify = getattr(docs, "verify", None)
    if verify is not None:
        verify()


def _run_read(args: argparse.Namespace, profile, infiller, secret: bytes, schema, docs, existing: list) -> int:
    """The run once the input is open (:func:`run`); refusals wait for the schema to be settled."""
    from pipeline.errors import USER_ERRORS

    try:
        return _deidentify_read(args, profile, infiller, secret, schema, docs, existing)
    except USER_ERRORS:
        _settled(docs)
        raise


def _deidentify_read(args: argparse.Namespace, profile, infiller, secret: bytes, schema, docs, existing: list) -> int:
    """Fingerprint, resume, the engine's run and the summary printed; the exit status."""
    from cli.console import tqdm_progress
    from cli.engine_options import engine_from_args
    from pipeline.deid import DeidContext, run_fingerprint
    from pipeline.deid.fingerprint import schema_id
    from pipeline.engines import DeidJob
    from pipeline.schemas import default_locale

    out = Path(args.output)
    locale = args.locale if args.locale != "auto" else default_locale(schema)
    fingerprint = run_fingerprint(profile, secret, locale, infiller, schema=schema_id(schema),
                                  model=_model_id(args.model))
    if existing:            # before anything is written: the folder's profile, key, locale, schema, model
        check_fingerprint(out, fingerprint)
    ctx = DeidContext(secret=secret, locale=locale, infiller=infiller)

    done, prior = _done_ids(docs, out, args.format, schema, secret, fingerprint) if args.resume else (set(), [])
    progress, close = tqdm_progress("deidentify", unit="doc")
    try:  # the engine de-identifies (detecting first with --model) and writes; local or on Ray
        s = engine_from_args(args).deidentify(DeidJob(docs, profile, ctx, out, args.format, frozenset(done), prior,
                                                      model_dir=args.model, progress=progress,
                                                      fingerprint=fingerprint))
    finally:
        close()

    comparison = None
    if args.quality and profile.uses_paraphrase() and not s.leaks and not args.model:
        from pipeline.deid import deidentify_batch
        from pipeline.deid.quality import compare_with_list_surrogates

        results = deidentify_batch(docs, profile, ctx).results       # the same outputs, in memory
        comparison = compare_with_list_surrogates(docs, results, profile, ctx,
                                                  embed=getattr(infiller, "embed", None))
    if args.json:
        extra = {"comparison": [r.to_dict() for r in comparison]} if comparison else {}
        print(json.dumps({"profile": profile.name, "output": str(out), **s.to_dict(), **extra}, indent=2,
                         sort_keys=True))
    else:
        print(f"deidentify: profile={profile.name} {s.line()} output={out}")
        if comparison:
            from pipeline.deid.quality import format_table
            print(format_table(comparison))
    if s.paraphrase_fallbacks.get("no_model"):
        print(f"note: {s.fallback_note()} (train one with python -m pipeline train-infill, pass --infill-model)",
              file=sys.stderr)
    elif s.paraphrase_fallbacks.get("project_value"):
        print(f"note: {s.fallback_note()}", file=sys.stderr)
    if s.leaks:
        where = ", ".join(f"{k}={n}" for k, n in sorted(s.leaks_by_location.items()))
        print(f"error: the leak check found {s.leaks} piece(s) of input PHI in the output "
              f"({', '.join(f'{c}={n}' for c, n in sorted(s.leaks_by_category.items()))}; in {where}); "
              "do not release this folder; see the documents (by output name) and offsets with --json",
              file=sys.stderr)
        return LEAK_EXIT
    return 0
