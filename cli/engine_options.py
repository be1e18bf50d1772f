"""``--engine`` and ``--ray-address`` for the commands that process whole archives (``detect``,
``deidentify``), and the ``detect --engine ray`` path: the command line's side of
:mod:`pipeline.engines`."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

from cli.console import tqdm_progress
from pipeline.engines import ENGINES, DetectJob, DetectSpec, Engine, RayOptions, get_engine
from pipeline.spans import Document


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    """``--engine`` and ``--ray-address`` for a command (detect, deidentify)."""
    p.add_argument("--engine", default="local", choices=ENGINES,
                   help="where documents are processed: local (this process, default) or ray (a Ray cluster)")
    p.add_argument("--ray-address", metavar="ADDRESS", default=None,
                   help="existing Ray cluster for --engine ray (auto, HOST:6379 or ray://HOST:10001); "
                        "default: start a local Ray runtime on this machine")


def engine_from_args(args: argparse.Namespace) -> Engine:
    return get_engine(getattr(args, "engine", "local") or "local", address=getattr(args, "ray_address", None))


def run_detect_command(args: argparse.Namespace, det, docs: Sequence[Document], t0: float) -> int:
    """``detect --engine ray``: the local command's files and summary line, computed on Ray.
    ``det`` is the driver's detector (loaded to learn the schema; its name for the parts)."""
    from pipeline.engines.ray_engine import RayEngine

    members = tuple(m.strip() for m in args.members.split(",") if m.strip()) if args.members else None
    spec = DetectSpec(model_dir=args.model, members=members, rules=not args.no_rules,
                      dictionaries=not args.no_dictionaries, policy=args.policy)
    fmt = args.output_format or ("brat" if args.format == "text" else args.format)
    progress, close = tqdm_progress("detect", unit="doc")
    try:
        s = RayEngine(RayOptions(address=args.ray_address)).detect(DetectJob(docs, spec, Path(args.output), fmt,
                                                                             progress=progress))
    finally:
        close()
    dt = time.time() - t0
    print(f"{s.documents} documents, {s.spans} spans ({', '.join(det.parts)}) in {dt:.1f} s -> {args.output} ({fmt})",
          file=sys.stdout)
    return 0
