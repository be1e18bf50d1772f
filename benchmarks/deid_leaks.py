"""Leaks after de-identification, by the input-span leak check, on real and synthetic corpora.

    python benchmarks/deid_leaks.py [--corpus ../shared/data/meddocan/dev ...] [--format brat]
                                    [--synthetic 1000] [--profiles redact,replace]
                                    [--project ../shared/data/meddocan/train]

Each corpus (a folder with its gold spans; ``--format`` brat, xml or jsonl; schema detected) and
``--synthetic`` N notes of ``pipeline.synthetic.generate_corpus`` (with their metadata and
patient ids) go through what ``python -m pipeline deidentify`` runs: the local engine
de-identifies and writes the outputs (corpora as ``--format``, synthetic notes as JSONL, so
metadata and patient ids are written too) into a temporary folder, which is then removed.

The table shows, per corpus and profile: documents, input spans, input spans merged into an
overlapping one, leaks found by the leak check (:mod:`pipeline.deid.leaks`, from the input
spans) in each location (text, meta, ids, names), input PHI characters left outside every
rewritten span, files whose name repeats an input id (a check of the folder on disk, apart from
the engine's), "real value of the project" (``project``: surrogates equal to or containing a PHI
value of the project's notes that is no public list entry, counted in memory apart from the
engine, :mod:`benchmarks.project_values_count`), and seconds. The project's notes are
``--project DIR`` (a corpus in ``--format``: MEDDOCAN train for dev), else the corpus itself;
the run gets their keyed set (:mod:`pipeline.deid.project_values`), as a paraphrase run gets
its model's, so its leak check applies the same rule. Everything but the ``leaks`` columns should be read as context:
the bar is 0 in every leak column. No document text is printed.

``--overlaps`` adds a second row per corpus where every NAME span is annotated the way that
showed the defect: a name of three or more words as two spans sharing a middle word ("Pedro
Garcia" + "Garcia Lopez" instead of "Pedro Garcia Lopez"), a two-word name with its last word
annotated again inside it, a one-word name twice. (Only names: a twin such as "años" of an age
"53 años" is an ordinary word, which the string check would rightly find everywhere.)
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.project_values_count import count_real_values, public_forms, training_forms  # noqa: E402
from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch  # noqa: E402
from pipeline.deid.project_values import ProjectValues  # noqa: E402
from pipeline.engines import DeidJob  # noqa: E402
from pipeline.engines.local import LocalEngine  # noqa: E402
from pipeline.spans import Document  # noqa: E402

SECRET = b"benchmark-secret-not-for-production"
COLUMNS = (("corpus", 28), ("profile", 8), ("docs", 6), ("spans", 8), ("merged", 7), ("text", 5), ("meta", 5),
           ("ids", 5), ("names", 6), ("uncovered", 10), ("disk names", 11), ("project", 8), ("seconds", 8))


def load_corpus(path: str, fmt: str) -> tuple[list[Document], str]:
    """The documents of a corpus folder with their gold spans, and the locale of its schema."""
    from pipeline.formats import read_collection_auto
    from pipeline.schemas import default_locale

    schema, docs = read_collection_auto(path, fmt)
    return docs, default_locale(schema)


def _name_overlaps(text: str, s) -> list:
    """The overlapping annotations planted for one NAME span (see the module docstring)."""
    words = [m.span() for m in re.finditer(r"\S+", text[s.start:s.end])]
    if len(words) >= 3:
        k = len(words) // 2
        return [s.with_(end=s.start + words[k][1]), s.with_(start=s.start + words[k][0])]    # partial
    if len(words) == 2:
        return [s, s.with_(start=s.start + words[1][0])]                                    # nested
    return [s, s]                                                                           # duplicate


def plant_overlaps(docs: list[Document]) -> list[Document]:
    """Each document with its NAME spans annotated as overlapping spans (see :func:`_name_overlaps`)."""
    out = []
    for d in docs:
        spans = []
        for s in d.spans:
            spans += _name_overlaps(d.text, s) if s.category == "NAME" else [s]
        out.append(Document(d.doc_id, d.text, spans, dict(d.meta), d.patient_id, d.source_file))
    return out


def disk_name_hits(out: Path, docs: list[Document]) -> int:
    """Written files whose name contains an input document id or patient id (case-insensitive):
    a check of what is on disk, independent of the engine's own leak check."""
    from pipeline.deid.pseudonyms import blank_generated

    # the tool's own prefix and extension ("doc-", ".ann") are nobody's id: an input id "doc" is not in them
    names = [blank_generated("name", p.name).lower() for p in out.rglob("*") if p.is_file()]
    ids = {str(d.doc_id).lower() for d in docs} | {str(d.patient_id).lower() for d in docs if d.patient_id}
    ids = {i for i in ids if len(i) >= 3}
    return sum(1 for n in names if any(i in n for i in ids))


def run_one(label: str, docs: list[Document], locale: str, profile_name: str, fmt: str,
            project: list[Document] | None = None) -> dict:
    profile = builtin_profiles()[profile_name]
    project = docs if project is None else project
    values = ProjectValues.build(SECRET, [(s.category, d.text[s.start:s.end]) for d in project for s in d.spans])
    with tempfile.TemporaryDirectory(prefix="deid-leaks-") as tmp:
        out = Path(tmp) / "out"
        t0 = time.perf_counter()
        s = LocalEngine().deidentify(DeidJob(docs, profile, DeidContext(secret=SECRET, locale=locale,
                                                                        project_values=values), out, fmt))
        seconds = time.perf_counter() - t0
        disk = disk_name_hits(out, docs)
    # the same outputs in memory, counted against the project's plain values (apart from the keyed set)
    again = deidentify_batch(docs, profile, DeidContext(secret=SECRET, locale=locale, project_values=values))
    real, _ = count_real_values(again.results, training_forms(project), public_forms(locale))
    loc = s.leaks_by_location
    return {"corpus": label, "profile": profile_name, "docs": s.documents, "spans": sum(len(d.spans) for d in docs),
            "merged": s.merged_overlaps, "text": loc.get("text", 0), "meta": loc.get("meta", 0),
            "ids": loc.get("id", 0), "names": loc.get("name", 0), "uncovered": s.uncovered_chars,
            "disk names": disk, "project": real, "seconds": f"{seconds:.1f}", "leaks": s.leaks}


def print_row(row: dict) -> None:
    print("".join(f"{str(row[c]):>{w}}" if i > 1 else f"{str(row[c]):<{w}}" for i, (c, w) in enumerate(COLUMNS)),
          flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", default=[], metavar="DIR",
                    help="a corpus folder with gold spans (repeatable)")
    ap.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl"), help="format of --corpus folders")
    ap.add_argument("--synthetic", type=int, default=1000, metavar="N", help="synthetic notes (0: none)")
    ap.add_argument("--seed", type=int, default=2024, help="seed of the synthetic corpus")
    ap.add_argument("--profiles", default="redact,replace", help="comma-separated built-in profiles")
    ap.add_argument("--overlaps", action="store_true", help="also run each corpus with planted overlapping spans")
    ap.add_argument("--project", metavar="DIR", help="the project's notes (--format) whose values no surrogate may "
                                                     "be: default each corpus itself")
    args = ap.parse_args()
    profiles = [p.strip() for p in args.profiles.split(",") if p.strip()]

    inputs: list[tuple[str, list[Document], str, str]] = []
    for path in args.corpus:
        docs, locale = load_corpus(path, args.format)
        label = "/".join(Path(path).resolve().parts[-2:])
        inputs.append((label, docs, locale, args.format))
    if args.synthetic:
        from pipeline.synthetic import generate_corpus
        inputs.append((f"synthetic-{args.synthetic}", generate_corpus(args.synthetic, args.seed), "en", "jsonl"))
    if args.overlaps:
        inputs = [x for item in inputs for x in (item, (item[0] + "+overlaps", plant_overlaps(item[1]), *item[2:]))]

    print("leak check from the input spans; leaks by location, then uncovered PHI characters "
          "(bar: 0 everywhere)")
    print("".join(f"{c:>{w}}" if i > 1 else f"{c:<{w}}" for i, (c, w) in enumerate(COLUMNS)))
    total = 0
    project = load_corpus(args.project, args.format)[0] if args.project else None
    for label, docs, locale, fmt in inputs:
        for profile_name in profiles:
            row = run_one(label, docs, locale, profile_name, fmt, None if label.startswith("synthetic") else project)
            total += row["leaks"] + row["uncovered"] + row["disk names"] + row["project"]
            print_row(row)
    print("all zero" if total == 0 else f"NOT ZERO: {total} leak(s), uncovered characters or file names")
    return 0 if total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
