"""``python -m pipeline risk``: re-identification risk of a folder of de-identified documents.

Reads de-identified documents with their spans (brat, i2b2 XML or JSONL, offsets into the
de-identified text), scores each one (context uniqueness, quasi-identifiers, residual signals;
see :mod:`pipeline.risk`) and writes a JSON report in triage order (red, amber, green)::

    {"method": ..., "embedder": ..., "search": ..., "documents": [{"id", "score", "colour", "reasons": [...]}]}

Prints one summary line (counts per colour); never document text. Files carry no record of
what de-identification did nor who looked, so ``--action`` says what was done to every span
(default ``replace``) and ``--reviewed`` says the spans were checked by a person (a gold set).
A replaced span is never a reason for red or amber: text left outside the spans that has the
shape of PHI, a kept direct identifier, or kept facts few people share are (no model looks at
folders, so model candidates are not weighed here; a project run has them).
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import Counter
from pathlib import Path

NAME = "risk"
HELP = "score the re-identification risk of de-identified documents in a folder (JSON report)"
SCHEMA_ORDER = ("meddocan", "i2b2-2014")


def _unit(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not -1.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError("must lie in [-1, 1]")
    return v


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return v


def add_arguments(p: argparse.ArgumentParser) -> None:
    from pipeline.risk.uniqueness import DEFAULT_METHOD, METHODS
    p.add_argument("--input", required=True, metavar="DIR", help="folder (or file/zip) of de-identified documents")
    p.add_argument("--format", required=True, choices=("brat", "xml", "jsonl"), help="input format")
    p.add_argument("--output", required=True, metavar="REPORT.json", help="where to write the JSON report")
    p.add_argument("--method", default=DEFAULT_METHOD, choices=tuple(METHODS),
                   help=f"context-uniqueness score reported beside the colour (default {DEFAULT_METHOD})")
    p.add_argument("--encoder", metavar="DIR",
                   help="local encoder directory (sentence-transformers or Hugging Face model); "
                        "default: lexical TF-IDF character trigrams")
    p.add_argument("--threshold", type=_unit, default=0.5,
                   help="cosine below which a context's best match elsewhere makes it unique (default 0.5)")
    p.add_argument("--k", type=_positive, default=5,
                   help="kept quasi-identifier tuples shared by fewer individuals are a reason (default 5)")
    p.add_argument("--quasi-fields", default="age_band,location,profession,year,sex", metavar="F1,F2",
                   help="quasi-identifier fields combined for k (default: all of "
                        "age_band,location,profession,year,sex)")
    p.add_argument("--schema", help="label schema of the files (default: try meddocan, then i2b2-2014)")
    p.add_argument("--window", type=_positive, default=5, help="words each side of an entity (default 5)")
    p.add_argument("--confidence", type=_unit, default=0.5,
                   help="unreviewed detections below this confidence are noted (default 0.5)")
    p.add_argument("--action", default="replace", choices=("redact", "replace", "shift", "keep", "none"),
                   help="what de-identification did to every span in the files (default replace)")
    p.add_argument("--reviewed", action="store_true",
                   help="the spans were checked by a person (gold): documents count as seen by a human")
    p.add_argument("--group-by-patient", action="store_true",
                   help="documents of the same patient id count as one owner for context uniqueness")


def _read(path: str, fmt: str, schema_name: str | None):
    from pipeline.formats import read_collection_auto
    schema, docs = read_collection_auto(path, fmt, schema_name or "auto", order=SCHEMA_ORDER)
    return docs, schema.name


def _write_json(path: Path, obj: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".risk-", suffix=".json", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=1)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    from pipeline.risk import RiskConfig, RiskScorer, from_document, triage_order
    from pipeline.schemas import SchemaError

    docs, schema = _read(args.input, args.format, args.schema)
    deid = [from_document(d, action=args.action, reviewed=True if args.reviewed else None) for d in docs]
    config = RiskConfig(method=args.method, threshold=args.threshold, k_threshold=args.k, window=args.window,
                        confidence_threshold=args.confidence, group_by_patient=args.group_by_patient,
                        encoder=args.encoder,
                        quasi_fields=tuple(f.strip() for f in args.quasi_fields.split(",") if f.strip()))
    try:
        config.check()
    except ValueError as e:
        raise SchemaError(str(e)) from None
    scorer = RiskScorer(config)
    reports = triage_order(scorer.score(deid))
    out = {
        "method": config.method, "embedder": scorer.embedder_name, "search": scorer.neighbour_method,
        "schema": schema, "threshold": config.threshold, "k": config.k_threshold, "window": config.window,
        "quasi_fields": list(config.quasi_fields),
        "confidence_threshold": config.confidence_threshold,
        "documents": [r.to_dict() for r in reports],
    }
    _write_json(Path(args.output), out)
    colours = Counter(r.colour for r in reports)
    print(f"risk: {len(reports)} documents red={colours.get('red', 0)} amber={colours.get('amber', 0)} "
          f"green={colours.get('green', 0)} method={config.method} embedder={scorer.embedder_name} -> {args.output}")
    return 0
