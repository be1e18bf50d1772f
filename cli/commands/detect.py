"""``python -m pipeline detect``: pre-annotate a folder with a trained model version.

Reads documents (brat, i2b2 XML, JSONL or plain text), runs the ensemble plus the locale's rules
and dictionaries, and writes the same documents with the predicted spans (fine types of the
model's schema) in the same format (plain text input is written as brat unless
``--output-format`` says otherwise). Existing spans in the input are replaced, not merged.
"""
from __future__ import annotations

import argparse
import sys

NAME = "detect"
HELP = "detect PHI in a folder of documents with a trained model version; write predictions"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, metavar="MODEL_DIR",
                   help="a model version directory, or a models directory (its ACTIVE, else newest, version)")
    p.add_argument("--input", required=True, metavar="DIR", help="documents to annotate (folder, file or zip)")
    p.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl", "text"), help="input format")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for the annotated documents")
    p.add_argument("--output-format", choices=("brat", "xml", "jsonl"),
                   help="output format (default: the input format; brat for text input)")
    p.add_argument("--members", help="comma-separated subset of the model's members (default all)")
    p.add_argument("--no-rules", action="store_true", help="leave out the rule recognizers")
    p.add_argument("--no-dictionaries", action="store_true", help="leave out the dictionaries")
    p.add_argument("--policy", default="model-first", choices=("model-first", "union"),
                   help="how model, rule and dictionary spans are combined (default model-first)")
    p.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    from cli.engine_options import add_engine_arguments  # --engine local|ray, --ray-address
    add_engine_arguments(p)


def run(args: argparse.Namespace) -> int:
    import time

    import torch

    from pipeline.detection.detector import Detector
    from pipeline.formats import read_collection, write_collection
    from pipeline.spans import Document

    torch.set_num_threads(max(1, args.threads))
    members = [m.strip() for m in args.members.split(",") if m.strip()] if args.members else None
    try:
        det = Detector.load(args.model, members=members, rules=not args.no_rules,
                            dictionaries=not args.no_dictionaries, policy=args.policy)
    except ValueError as e:
        from pipeline.errors import WorkbenchError
        raise WorkbenchError(str(e)) from None
    docs = read_collection(args.input, args.format, det.schema)
    t0 = time.time()
    if args.engine == "ray":  # same files and summary line, computed on a Ray cluster
        from cli.engine_options import run_detect_command
        return run_detect_command(args, det, docs, t0)
    results = det.detect_many(docs)
    out_docs = [Document(d.doc_id, d.text, spans, dict(d.meta), d.patient_id, d.source_file)
                for d, spans in zip(docs, results)]
    fmt = args.output_format or ("brat" if args.format == "text" else args.format)
    write_collection(out_docs, args.output, fmt)
    n = sum(len(s) for s in results)
    dt = time.time() - t0
    print(f"{len(docs)} documents, {n} spans ({', '.join(det.parts)}) in {dt:.1f} s -> {args.output} ({fmt})",
          file=sys.stdout)
    return 0
