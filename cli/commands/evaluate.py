"""``python -m pipeline evaluate``: score a system folder against a reference folder.

Works on any gold set the readers understand (brat, i2b2 XML, JSONL). Documents are matched by
id; as the official MEDDOCAN/i2b2 scorer does, only documents present in both folders are scored
unless ``--missing-as-empty`` is given (then a reference document with no system file counts as
one where nothing was found). Output names documents, offsets and labels only, never text.
"""
from __future__ import annotations

import argparse
import json
import sys

NAME = "evaluate"
HELP = "score a system's annotations against a reference folder (strict, relaxed, span, token)"



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--system", required=True, metavar="DIR", help="folder (or file/zip) with the system's annotations")
    p.add_argument("--reference", required=True, metavar="DIR", help="folder (or file/zip) with the gold annotations")
    p.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl"), help="format of both (default brat)")
    p.add_argument("--system-format", choices=("brat", "xml", "jsonl"), help="format of --system when it differs")
    p.add_argument("--schema", default="auto",
                   help="label schema: a preset (meddocan, i2b2-2014, german-8), a JSON file, or 'auto' "
                        "(the first preset every reference label fits; default)")
    p.add_argument("--missing-as-empty", action="store_true",
                   help="score reference documents that have no system file as having no system spans")
    p.add_argument("--per-type", action="store_true", help="also print the strict table per fine type")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")


def _read(path: str, fmt: str, schema_arg: str):
    from pipeline.formats import read_collection_auto
    return read_collection_auto(path, fmt, schema_arg)


def _fmt(x: float | None) -> str:
    return "   -  " if x is None else f"{x:.4f}"


def _print_tables(report, per_type: bool) -> None:
    from pipeline.metrics import MEASURES

    print(f"documents {report.n_documents}   tokens {report.n_tokens}   "
          f"reference spans {report.n_reference_spans}   system spans {report.n_system_spans}")
    print()
    print(f"{'measure':<14}{'P':>8}{'R':>8}{'F1':>8}{'TP':>8}{'FP':>8}{'FN':>8}   {'macro F1':>8}{'weighted F1':>12}")
    for name in MEASURES:
        m = report.measure(name)
        c = m.micro
        print(f"{name:<14}{_fmt(c.precision):>8}{_fmt(c.recall):>8}{_fmt(c.f1):>8}{c.tp:>8}{c.fp:>8}{c.fn:>8}   "
              f"{_fmt(m.macro.f1):>8}{_fmt(m.weighted.f1):>12}")
    print()
    print(f"FN per 1,000 tokens {report.fn_per_1000:.3f}   FP per 1,000 tokens {report.fp_per_1000:.3f}   "
          f"document recall {_fmt(report.document_recall)} "
          f"({report.documents_all_found}/{report.documents_with_phi} documents with PHI fully found)")

    def table(title: str, rows: dict, by_category: bool) -> None:
        print()
        print(title)
        width = max([len(k) for k in rows] + [8]) + 2
        print(f"{'':<{width}}{'P':>8}{'R':>8}{'F1':>8}{'support':>9}  relaxed R  token R")
        for k, c in rows.items():
            rel = (report.relaxed.per_category if by_category else report.relaxed.per_type).get(k)
            tok = (report.token.per_category if by_category else report.token.per_type).get(k)
            print(f"{k:<{width}}{_fmt(c.precision):>8}{_fmt(c.recall):>8}{_fmt(c.f1):>8}{c.n_reference:>9}  "
                  f"{_fmt(rel.recall if rel else None):>9}{_fmt(tok.recall if tok else None):>9}")

    miss = report.misses
    if miss.total:
        print(f"reference spans missed (offsets, any label) {miss.total}: "
              + ", ".join(f"{k} {n}" for k, n in miss.by_kind().items()))
    table("per category (strict: same offsets and category)", report.strict.per_category, True)
    if per_type:
        table("per type (strict: same offsets and type)", report.strict.per_type, False)

    rows, cols, m = report.confusion.matrix()
    if rows:
        print()
        print("confusion (reference category x system category, by largest overlap)")
        w = max(len(r) for r in rows + cols) + 1
        print(" " * w + "".join(f"{c[:9]:>10}" for c in cols))
        for r, line in zip(rows, m):
            print(f"{r:<{w}}" + "".join(f"{v:>10}" for v in line))

    if report.operating:
        print()
        print("operating points (global score threshold, PHI-token recall)")
        print(f"{'target R':>9}{'threshold':>11}{'R':>8}{'P':>8}{'FN/1000':>9}{'FP/1000':>9}")
        for p in report.operating.points:
            thr = "-" if p.threshold is None else f"{p.threshold:.4f}"
            flag = "" if p.achieved else "  (not reached)"
            print(f"{p.target_recall:>9.3f}{thr:>11}{_fmt(p.recall):>8}{_fmt(p.precision):>8}"
                  f"{p.fn_per_1000:>9.3f}{p.fp_per_1000:>9.3f}{flag}")


def run(args: argparse.Namespace) -> int:
    from pipeline.errors import FormatError
    from pipeline.metrics import evaluate

    schema, ref_docs = _read(args.reference, args.format, args.schema)
    sys_docs = _read(args.system, args.system_format or args.format,
                     schema.name if args.schema == "auto" else args.schema)[1]
    ref = {d.doc_id: d for d in ref_docs}
    syst = {d.doc_id: d for d in sys_docs}
    for doc_id in sorted(ref.keys() & syst.keys()):
        if syst[doc_id].text != ref[doc_id].text:
            raise FormatError(args.system, f"document {doc_id}: its text differs from the reference's, "
                                           "so offsets cannot be compared")
    only_ref = sorted(ref.keys() - syst.keys())
    only_sys = sorted(syst.keys() - ref.keys())
    ids = sorted(ref.keys()) if args.missing_as_empty else sorted(ref.keys() & syst.keys())
    if not ids:
        raise FormatError(args.system, "no document id is shared with the reference")
    warnings = []
    if only_ref:
        what = "scored as having no system spans" if args.missing_as_empty else \
            "not scored (as the official scorer); use --missing-as-empty to count them as missed"
        warnings.append(f"{len(only_ref)} reference document(s) have no system file: {what} "
                        f"(e.g. {', '.join(only_ref[:3])})")
    if only_sys:
        warnings.append(f"{len(only_sys)} system document(s) have no reference file and are ignored "
                        f"(e.g. {', '.join(only_sys[:3])})")
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)

    report = evaluate({k: syst[k].spans for k in ids if k in syst}, {k: ref[k].spans for k in ids},
                      {k: ref[k].text for k in ids}, doc_ids=ids)
    report.warnings.extend(warnings)
    if args.json:
        out = report.to_json()
        out["schema"] = schema.name
        print(json.dumps(out, ensure_ascii=False, indent=1))
    else:
        print(f"schema {schema.name}")
        _print_tables(report, args.per_type)
    return 0
