"""Do the surrogates read like a note? Shapes, addresses and line structure, per type and profile.

    python benchmarks/surrogate_quality.py [--corpus tests/fixtures/meddocan/brat] [--format brat]
        [--synthetic 200] [--profiles redact,replace,paraphrase] [--infill-model DIR] [--cross]

For each corpus (``--corpus``: a folder with gold spans, its schema detected; MEDDOCAN dev is
``../shared/data/meddocan/dev``; ``--synthetic N``: N English notes of
:func:`pipeline.synthetic.generate_corpus`) and each profile, every note is de-identified with
its gold spans and the table gives, per surrogate type (the generator of
:mod:`pipeline.deid.surrogates`: name, city, email...):

* **n** surrogates made (``replace``, ``paraphrase``, ``shift``; placeholders are not surrogates)
  and **shape ok**, the share its type's check accepts (:mod:`pipeline.deid.shapes`);
* per profile, **address groups** of several parts and the share whose parts agree (one record
  of the locale's address table holds city, state and postcode: :func:`pipeline.deid.addresses.
  address_checks`), with the same share on the input notes for reference;
* **line changes**: per note, the difference in line count plus the lines whose blankness
  changed, summed (goal 0); with ``--cross`` each note is run a second time with every span
  that ends at a line's end stretched over the next line's first word, as a model's span was
  ("5530017⏎Admitted"), to count what the span hygiene has to catch;
* the paraphrase fallbacks by reason (``shape``: a fill refused for its shape).

``paraphrase`` infills only with ``--infill-model DIR`` (a folder written by
``python -m pipeline train-infill``); without one, its spans get list surrogates, counted as
``no_model``, and its rows say so. No document text is printed; figures only.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch  # noqa: E402
from pipeline.deid.addresses import address_checks  # noqa: E402
from pipeline.deid.shapes import shape_ok  # noqa: E402
from pipeline.deid.surrogates import generator_name  # noqa: E402
from pipeline.spans import Document, Span  # noqa: E402

SECRET = b"benchmark-secret-not-for-production"
SURROGATE_ACTIONS = ("replace", "paraphrase", "shift")


def load_corpus(path: str, fmt: str) -> tuple[list[Document], str]:
    from pipeline.formats import read_collection_auto
    from pipeline.schemas import default_locale
    schema, docs = read_collection_auto(path, fmt)
    return docs, default_locale(schema)


def synthetic(n: int) -> list[Document]:
    from pipeline.synthetic import generate_corpus
    return generate_corpus(n, seed=32)


def crossing(doc: Document) -> Document:
    """The note with each span that ends at its line's end stretched over the next line's first
    word, marked as a model's (what a model span did: "5530017⏎Admitted")."""
    text, spans = doc.text, []
    for s in doc.spans:
        end = s.end
        if text[end:end + 1] == "\n":
            nxt = end + 1
            while nxt < len(text) and not text[nxt].isspace():
                nxt += 1
            if nxt > end + 1:
                end = nxt
        spans.append(Span(s.doc_id, s.start, end, s.category, s.type, source="model:bench", layer=s.layer))
    return Document(doc.doc_id, text, spans, meta=dict(doc.meta), patient_id=doc.patient_id)


def line_changes(before: str, after: str) -> int:
    """Lines added or lost, plus lines whose blankness changed (goal 0)."""
    a, b = before.split("\n"), after.split("\n")
    if len(a) != len(b):
        return abs(len(a) - len(b)) + 1
    return sum((x.strip() == "") != (y.strip() == "") for x, y in zip(a, b))


def measure(docs: list[Document], locale: str, profile, infiller) -> dict:
    ctx = DeidContext(secret=SECRET, locale=locale, infiller=infiller)
    t0 = time.perf_counter()
    batch = deidentify_batch(docs, profile, ctx)
    seconds = time.perf_counter() - t0
    by_type: dict[str, Counter] = defaultdict(Counter)
    agree = Counter()
    lines = 0
    for doc, r in zip(docs, batch.results):
        lines += line_changes(doc.text, r.text)
        for src, new, action in zip(r.source_spans, r.spans, r.actions):
            if action not in SURROGATE_ACTIONS:
                continue
            gen = generator_name(src.category, src.type) or src.category
            ok = shape_ok(gen, r.text[new.start:new.end], locale)
            by_type[gen]["n"] += 1
            by_type[gen]["ok"] += ok
            by_type[gen][f"n:{action}"] += 1
            by_type[gen][f"ok:{action}"] += ok
        if profile.name != "redact":
            checks = address_checks(r.text, r.spans, locale)
            agree["groups"] += len(checks)
            agree["agree"] += sum(checks)
    return {"by_type": by_type, "agree": agree, "lines": lines, "leaks": batch.summary.leaks,
            "fallbacks": dict(batch.summary.paraphrase_fallbacks), "paraphrased": batch.summary.paraphrased,
            "seconds": seconds, "docs": len(docs)}


def input_agreement(docs: list[Document], locale: str) -> tuple[int, int]:
    checks = [c for d in docs for c in address_checks(d.text, d.spans, locale)]
    return sum(checks), len(checks)


def _share(ok: int, n: int) -> str:
    return f"{ok / n:.3f}" if n else "-"


def report(name: str, locale: str, results: dict[str, dict], docs: list[Document]) -> None:
    ok, n = input_agreement(docs, locale)
    print(f"\n## {name} ({len(docs)} notes, locale {locale}; input addresses found in the address table, for reference: {ok}/{n})\n")
    print("| profile | docs | leaks | line changes | address groups agreeing | paraphrased | fallbacks | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for prof, m in results.items():
        a = m["agree"]
        fb = ", ".join(f"{k}={v}" for k, v in sorted(m["fallbacks"].items())) or "-"
        print(f"| {prof} | {m['docs']} | {m['leaks']} | {m['lines']} | "
              f"{a['agree']}/{a['groups']} ({_share(a['agree'], a['groups'])}) | {m['paraphrased']} | {fb} | "
              f"{m['seconds']:.1f} |")
    types = sorted({t for m in results.values() for t in m["by_type"]})
    profs = [p for p in results if any(results[p]["by_type"].values())]
    print("\n| type | " + " | ".join(f"{p}: n | {p}: shape ok" for p in profs) + " |")
    print("|---|" + "---|---|" * len(profs))
    for t in types:
        cells = []
        for p in profs:
            c = results[p]["by_type"].get(t, Counter())
            cells += [str(c["n"]), _share(c["ok"], c["n"])]
        print(f"| {t} | " + " | ".join(cells) + " |")
    para = [p for p in profs if p.startswith("paraphrase")]
    for p in para:
        rows = [(t, c) for t, c in sorted(results[p]["by_type"].items()) if c["n:paraphrase"]]
        if rows:
            print(f"\n{p}, model infills only: " + ", ".join(
                f"{t} {c['ok:paraphrase']}/{c['n:paraphrase']}" for t, c in rows))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", action="append", default=None,
                    help="folder with gold spans (repeatable; default tests/fixtures/meddocan/brat)")
    ap.add_argument("--format", default="brat")
    ap.add_argument("--synthetic", type=int, default=200, help="English synthetic notes (0: none)")
    ap.add_argument("--profiles", default="redact,replace,paraphrase")
    ap.add_argument("--infill-model", default=None, help="masked LM folder for paraphrase (train-infill)")
    ap.add_argument("--infill-model-en", default=None, help="masked LM folder for the English notes' paraphrase")
    ap.add_argument("--cross", action="store_true", help="also run with spans stretched over line breaks")
    args = ap.parse_args(argv)
    corpora = args.corpus or [str(Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "meddocan" / "brat")]
    profiles = builtin_profiles()
    sets: list[tuple[str, list[Document], str, str | None]] = []
    for path in corpora:
        docs, locale = load_corpus(path, args.format)
        sets.append((Path(path).name, docs, locale, args.infill_model))
    if args.synthetic:
        sets.append((f"synthetic-en-{args.synthetic}", synthetic(args.synthetic), "en", args.infill_model_en))
    failed = False
    for name, docs, locale, model_dir in sets:
        infiller = None
        if model_dir:
            from models.masked_lm_folders import load_masked_lm
            infiller = load_masked_lm(model_dir)
        variants = [("", docs)] + ([(" (spans across line breaks)", [crossing(d) for d in docs])] if args.cross else [])
        for suffix, batch_docs in variants:
            results = {}
            for prof in args.profiles.split(","):
                label = prof + (" + model" if prof == "paraphrase" and infiller is not None else "")
                results[label] = measure(batch_docs, locale, profiles[prof],
                                         infiller if prof == "paraphrase" else None)
                failed |= results[label]["lines"] > 0
            report(name + suffix, locale, results, batch_docs)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
