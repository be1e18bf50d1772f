"""``python -m pipeline detect``: pre-annotate a folder with a trained model version.

Reads documents (brat, i2b2 XML, JSONL or plain text), runs the ensemble plus the locale's rules
and dictionaries, and writes the same documents with the predicted spans (fine types of the
model's schema) in the same format (plain text input is written as brat unless
``--output-format`` says otherwise). Existing spans in the input are replaced, not merged (brat
``.ann`` files are not even read). Notes are read, detected on every usable core
(:mod:`pipeline.detection.parallel`) and written a few batches at a time: memory stays flat.
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
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes to detect in (default: every usable core, for a CRF-only model; 1: this process)")
    from cli.engine_options import add_engine_arguments  # --engine local|ray, --ray-address
    add_engine_arguments(p)


def run(args: argparse.Namespace) -> int:
    import time

    from pipeline.detection.detector import Detector
    from pipeline.detection.parallel import BatchDetector
    from pipeline.formats.stream import CollectionWriter, iter_collection
    from pipeline.spans import Document

    members = [m.strip() for m in args.members.split(",") if m.strip()] if args.members else None
    try:
        det = Detector.load(args.model, members=members, rules=not args.no_rules,
                            dictionaries=not args.no_dictionaries, policy=args.policy)
    except ValueError as e:
        from pipeline.errors import WorkbenchError
        raise WorkbenchError(str(e)) from None
    if "torch" in sys.modules:      # only a model with an encoder imports torch (a CRF-only one starts faster)
        sys.modules["torch"].set_num_threads(max(1, args.threads))
    fmt = args.output_format or ("brat" if args.format == "text" else args.format)
    t0 = time.time()
    if args.engine == "ray":  # same files and summary line, computed on a Ray cluster
        from cli.engine_options import run_detect_command
        from pipeline.formats import read_collection
        return run_detect_command(args, det, read_collection(args.input, args.format, det.schema), t0)
    n_docs = n_spans = 0
    # read, detect (on every usable core: pipeline.detection.parallel) and write a few batches at a
    # time, so memory does not grow with the number of notes
    with BatchDetector(det, workers=args.workers) as spread, CollectionWriter(args.output, fmt) as out:
        ready: list[Document] = []
        for d, spans in spread.stream(iter_collection(args.input, args.format, det.schema, spans=False)):
            ready.append(Document(d.doc_id, d.text, spans, dict(d.meta), d.patient_id, d.source_file))
            n_docs, n_spans = n_docs + 1, n_spans + len(spans)
            if len(ready) >= spread.batch_docs:
                out.write(ready)
                ready = []
        out.write(ready)
    dt = time.time() - t0
    print(f"{n_docs} documents, {n_spans} spans ({', '.join(det.parts)}) in {dt:.1f} s -> {args.output} ({fmt})",
          file=sys.stdout)
    return 0
