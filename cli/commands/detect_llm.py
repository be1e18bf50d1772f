"""``python -m pipeline detect-llm``: PHI found by a local causal language model rewriting the notes.

Two ways:

* alone: ``--llm-checkpoint DIR`` rewrites every note with PHI replaced by a placeholder and the
  spans the placeholders mark are written out (label: the placeholder's type, or for the untyped
  ``[PHI]`` the schema's OTHER category or ``--llm-generic-label``);
* as an ensemble member: with ``--model MODEL_DIR`` and ``llm`` among ``--members``, the model
  version's members and the LLM vote together (each word token's label distributions averaged,
  the LLM at ``--llm-weight``, its "PHI here" typed by the others: :mod:`models.llm_vote`), then
  the locale's rules and dictionaries join as in ``detect``.

When the input documents carry spans, they are the reference and the command prints note-level
recall, span and token recall/precision, content preservation (BLEU of the rewrites against
the notes, PHI removed from both) and notes/s. Nothing is downloaded; nothing prints note text.
"""
from __future__ import annotations

import argparse

NAME = "detect-llm"
HELP = "detect PHI by having a local causal LM rewrite the notes with placeholders (alone or as an ensemble member)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--llm-checkpoint", required=True, metavar="DIR",
                   help="local causal LM checkpoint folder (config.json, weights, tokenizer); never downloaded")
    p.add_argument("--input", "--in", dest="input", required=True, metavar="DIR",
                   help="documents (folder, file or zip); their spans, if any, are the reference for the figures")
    p.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl", "text"), help="input format")
    p.add_argument("--output", "--out", dest="output", required=True, metavar="DIR", help="folder for the results")
    p.add_argument("--output-format", choices=("brat", "xml", "jsonl"),
                   help="output format (default: the input format; brat for text input)")
    p.add_argument("--schema", default="auto",
                   help="label schema (meddocan, i2b2-2014, german-8, a JSON file, or auto); with --model, the model's")
    p.add_argument("--model", metavar="MODEL_DIR", help="a model version (or models directory) to vote with")
    p.add_argument("--members", help="with --model: comma-separated members, 'llm' for the LLM "
                                     "(default: all the version's members plus llm)")
    p.add_argument("--llm-weight", type=float, default=1.0, help="the LLM's weight in the ensemble average (default 1)")
    p.add_argument("--no-rules", action="store_true", help="with --model: leave out the rule recognizers")
    p.add_argument("--no-dictionaries", action="store_true", help="with --model: leave out the dictionaries")
    p.add_argument("--llm-name", default="llm", help="member name; spans carry source llm:NAME (default llm)")
    p.add_argument("--llm-prompt", metavar="FILE", help="prompt template file holding {text} (and {placeholder})")
    p.add_argument("--llm-placeholder", default="[PHI]", help="placeholder, or a typed template like '[{label}]'")
    p.add_argument("--llm-generic-label", default="",
                   help="category or type of spans from an untyped placeholder (default the schema's OTHER)")
    p.add_argument("--llm-max-chunk-tokens", type=int, default=384, help="note tokens per chunk (default 384)")
    p.add_argument("--llm-max-new-tokens", type=int, default=768, help="new tokens per chunk at most (default 768)")
    p.add_argument("--llm-batch-size", type=int, default=4, help="chunks generated together (default 4)")
    p.add_argument("--llm-dtype", default="float32", help="weights dtype (float32, bfloat16)")
    p.add_argument("--save-member", metavar="DIR", help="also write the member (member.json, kind llm) to DIR")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")


def _config(args: argparse.Namespace):
    from pathlib import Path

    from models.llm_member import LLMConfig

    cfg = LLMConfig(checkpoint=args.llm_checkpoint, placeholder=args.llm_placeholder,
                    generic_label=args.llm_generic_label, max_chunk_tokens=args.llm_max_chunk_tokens,
                    max_new_tokens=args.llm_max_new_tokens, batch_size=args.llm_batch_size, dtype=args.llm_dtype)
    if args.llm_prompt:
        cfg.prompt = Path(args.llm_prompt).read_text(encoding="utf-8")
    return cfg


def run(args: argparse.Namespace) -> int:
    import time

    import torch

    from models.llm_member import LLMMember
    from models.words import bio_labels
    from pipeline.errors import WorkbenchError
    from pipeline.formats import read_collection, read_collection_auto, write_collection
    from pipeline.layers import PRE
    from pipeline.spans import Document

    torch.set_num_threads(max(1, args.threads))
    if not args.llm_weight > 0:
        raise WorkbenchError("--llm-weight must be above 0")
    try:
        cfg = _config(args)
        cfg.check()
        det = None
        if args.model:
            from pipeline.detection.detector import Detector

            wanted = [m.strip() for m in args.members.split(",") if m.strip()] if args.members else None
            if wanted is not None and args.llm_name not in wanted:
                raise WorkbenchError(f"--members does not name the LLM member {args.llm_name!r}")
            others = [m for m in wanted if m != args.llm_name] if wanted is not None else None
            det = Detector.load(args.model, members=others, rules=not args.no_rules,
                                dictionaries=not args.no_dictionaries)
            schema = det.schema
            docs = read_collection(args.input, args.format, schema)
            labels = det.ensemble.info.labels
        else:
            from pipeline.detection.rewrite_labels import generic_label

            schema, docs = read_collection_auto(args.input, args.format, args.schema)
            labels = bio_labels(schema.types)
            generic_label(schema, cfg.generic_label or None)   # before any generation: a label for [PHI] spans
        member = LLMMember.from_checkpoint(args.llm_name, labels, schema, cfg)
    except ValueError as e:   # bad settings, an unknown member or dtype: messages carry no note text
        raise WorkbenchError(str(e)) from None
    if args.save_member:
        member.save(args.save_member)
    member.keep_rewrites = any(d.spans for d in docs)

    t0 = time.perf_counter()
    if det is not None:
        # the LLM votes like any member: added to the loaded version's members, at its weight
        from models.llm_ensemble import LLMEnsemble

        try:
            det.ensemble = LLMEnsemble.adding(det.ensemble, member, args.llm_weight)
        except ValueError as e:
            raise WorkbenchError(str(e)) from None
        found = det.detect_many(docs)
        parts = ", ".join(det.parts)
    else:
        found = [[s.with_(layer=PRE) for s in spans]
                 for spans in member.predict_spans([d.text for d in docs], [d.doc_id for d in docs])]
        parts = f"llm:{args.llm_name}"
    seconds = time.perf_counter() - t0

    out_docs = [Document(d.doc_id, d.text, spans, dict(d.meta), d.patient_id, d.source_file)
                for d, spans in zip(docs, found)]
    fmt = args.output_format or ("brat" if args.format == "text" else args.format)
    write_collection(out_docs, args.output, fmt)
    st = member.stats
    n_notes = len(docs)
    print(f"{n_notes} documents, {sum(len(s) for s in found)} spans ({parts}) in {seconds:.1f} s "
          f"({n_notes / seconds if seconds > 0 else 0.0:.2f} notes/s); chunks {st['chunks']}, "
          f"truncated {st['truncated']}, continued {st['continuations']}, new tokens {st['new_tokens']} "
          f"-> {args.output} ({fmt})")
    if any(d.spans for d in docs):
        _print_figures(docs, found, member, seconds, args.json)
    return 0


def _print_figures(docs, found, member, seconds: float, as_json: bool) -> None:
    """The input's spans are the reference; the rewrites are those of the run just made."""
    import json

    from pipeline.metrics.rewriting import measure_rewrites

    texts = {d.doc_id: d.text for d in docs}
    m = measure_rewrites(texts, {d.doc_id: d.spans for d in docs}, {d.doc_id: s for d, s in zip(docs, found)},
                         {d.doc_id: r for d, r in zip(docs, member.rewrites)}, seconds, member.placeholder)
    if as_json:
        print(json.dumps(m.to_dict(), sort_keys=True))
        return
    print("reference: the input's spans")
    print(f"note recall {m.note_recall:.4f} ({m.notes_with_phi} notes with PHI)   "
          f"span R {m.span_recall:.4f} P {m.span_precision:.4f}   token R {m.token_recall:.4f} "
          f"P {m.token_precision:.4f}   content BLEU {m.bleu:.1f}   {m.notes_per_s:.2f} notes/s")
