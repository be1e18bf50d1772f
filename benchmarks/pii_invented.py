"""The English cold start on short invented PII texts written like the public synthetic PII sets.

    python benchmarks/pii_invented.py                       # rules + dictionaries alone
    python benchmarks/pii_invented.py --model DIR           # and a trained version (a cold start's model)
    python benchmarks/pii_invented.py --show                # what the "find" half misses and marks wrongly
                                                            # (with --cases: its UPPER and lower copies too)
    python benchmarks/pii_invented.py --cases               # and UPPER and lower copies of both halves
    python benchmarks/pii_invented.py --set b               # the second set (benchmarks/data/pii_invented_b)

Why: the public synthetic English PII sets (ai4privacy's pii-masking sets, Gretel's synthetic PII
sets) are short texts of many genres (e-mails, forms, chat, letters, tickets, bank and insurance
text, medical intake) with labels such as FIRSTNAME, STREET, IBAN or VEHICLEVRM; the workbench's
own ``wide`` generator imitates them, so its held-out score says little about text it did not
write. ``benchmarks/data/pii_invented`` holds 160 such texts written by hand for this benchmark
(every value invented; names and places not taken from ``pipeline/locales/en`` on purpose), in
two halves:

* ``check`` (80: HR, insurance, travel, education, chat logs, JSON/CSV/key-value records, legal,
  pharmacy, logistics, ...) was written first, before anything was run, and is scored only:
  no rule was written or changed by reading what it misses (``--show`` never prints it);
* ``find`` (80: e-mails, letters, banking, medical intake and clinic letters, support tickets,
  forms, chat) is the half the rules were fixed on.

``benchmarks/data/pii_invented_b`` (``--set b``) is a second set of 160 such texts by another
writer (customer service, HR, legal, finance, crypto, IT and security logs, marketing, medical
appointments, travel, real estate, government forms, JSON/CSV/key-value records, ALL CAPS and
lower-case texts), with the same labels and halves: its ``check`` half was written and committed
before anything was run on it, so its figures are an estimate on text the rules were never fixed
on (the first set's check half was written by the helper who then fixed rules on its find half).

Gold is brat (``T`` lines with i2b2 2014 types, the public label in an ``AnnotatorNotes`` line).
Which public labels count as PHI, and as what:

* names (FIRSTNAME, LASTNAME, MIDDLENAME, full names) -> PATIENT; USERNAME -> USERNAME;
* STREET, BUILDINGNUMBER, SECONDARYADDRESS -> STREET; CITY, STATE, ZIPCODE -> CITY, STATE, ZIP;
  COUNTY and NEARBYGPSCOORDINATE -> LOCATION-OTHER; COUNTRY; COMPANYNAME -> ORGANIZATION (a
  workplace, school or shop narrows down who someone is, as i2b2 counts it); hospital names;
* DOB, DATE -> DATE (years, months, weekdays and seasons too, as i2b2 does); AGE;
* PHONENUMBER, FAX, EMAIL, URL, IP, IPV6 -> CONTACT; MAC, IMEI, device serials -> DEVICE;
* SSN, ACCOUNTNUMBER, IBAN, CREDITCARDNUMBER, masked card numbers ("card ending 4417"),
  BITCOINADDRESS, ETHEREUMADDRESS -> ID (SSN, ACCOUNT); VEHICLEVIN, VEHICLEVRM -> VEHICLE; MRN,
  health plan, licence, passport, employee and student numbers -> ID;
* JOBTITLE -> PROFESSION (i2b2 2014 counts it). The issue's public-set figures break down into
  identifiers, locations and names only, so the tables also give the score without PROFESSION.

Not PHI here (left unannotated, so marking them costs precision): PREFIX ("Mr", "Dr"; i2b2 leaves
titles out); PASSWORD, PIN and CREDITCARDCVV (secrets, not identifiers: they single nobody out and
i2b2 has no type for them; a reviewer should still not release them, but that is a redaction
rule, not de-identification); TIME (a clock time without a date identifies no one; HIPAA lists
dates, not times); AMOUNT and CURRENCY (money says nothing of who); BIC/SWIFT and routing numbers
(they name a bank, not a customer); USERAGENT (a browser build, shared by millions); order,
booking, ticket, claim and case numbers (a business's own reference, not a person's identifier;
kept unannotated on purpose so that the number rules are not rewarded for marking every code).

Figures: character-level, binary (any label counts), over non-blank characters
(:mod:`pipeline.metrics.characters`): precision, recall, recall per gold category and per public
label, precision per system category, document recall. Prints labels, figures and (``--show``,
find half only) the invented values missed or marked; writes ``benchmarks/out/pii_invented.json``.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DATA = REPO / "benchmarks" / "data" / "pii_invented"
SETS = {"a": DATA, "b": REPO / "benchmarks" / "data" / "pii_invented_b"}
HALVES = ("find", "check")


@dataclass
class Half:
    """One half: documents (i2b2 gold) and, per document, its gold spans under their public labels."""

    name: str
    docs: list
    public: dict[str, list[tuple[int, int, str]]]


def public_labels(ann: str) -> list[tuple[int, int, str]]:
    """``(start, end, public label)`` of one ``.ann``: each ``T`` span with its ``AnnotatorNotes`` label."""
    spans: dict[str, tuple[int, int]] = {}
    notes: dict[str, str] = {}
    for line in ann.splitlines():
        f = line.split("\t")
        if line.startswith("T") and len(f) == 3:
            _, s, e = f[1].split()
            spans[f[0]] = (int(s), int(e))
        elif line.startswith("#") and len(f) == 3 and f[1].startswith("AnnotatorNotes "):
            notes[f[1].split()[1]] = f[2].strip()
    return [(s, e, notes.get(t, "?")) for t, (s, e) in spans.items()]


def load(name: str, data: Path = DATA) -> Half:
    from pipeline.formats.brat import read_brat
    from pipeline.schemas import I2B2_2014

    folder = data / name
    docs = read_brat(folder, I2B2_2014)
    public = {d.doc_id: public_labels((folder / f"{d.doc_id}.ann").read_text(encoding="utf-8")) for d in docs}
    return Half(name, docs, public)


def recased(half: Half, how: str) -> Half:
    """``half`` in UPPER or lower case (offsets kept: a text whose length the case map changes is left out)."""
    from dataclasses import replace

    docs = [replace(d, text=d.text.upper() if how == "upper" else d.text.lower()) for d in half.docs]
    keep = [d for d, o in zip(docs, half.docs) if len(d.text) == len(o.text)]
    return Half(f"{half.name}/{how}", keep, {d.doc_id: half.public[d.doc_id] for d in keep})


def scores(half: Half, found: dict, *, drop: tuple[str, ...] = ()) -> dict:
    """Binary character scores of ``found`` on ``half`` (gold and system spans of ``drop``
    categories left out on both sides), per category and per public label."""
    from pipeline.metrics.characters import by_label, corpus_counts

    texts = [d.text for d in half.docs]
    sys_ = [[(s.start, s.end, s.category) for s in found.get(d.doc_id, ()) if s.category not in drop]
            for d in half.docs]
    gold = [[(s.start, s.end, s.category) for s in d.spans if s.category not in drop] for d in half.docs]
    by_cat = corpus_counts(texts, sys_, gold)
    dropped = {(s.start, s.end) for d in half.docs for s in d.spans if s.category in drop}
    by_pub = corpus_counts(texts, sys_, [[t for t in half.public[d.doc_id] if t[:2] not in dropped]
                                         for d in half.docs])
    return {"P": by_cat.micro.precision, "R": by_cat.micro.recall, "doc_R": by_cat.document_recall,
            "category": by_label(by_cat.per_label, by_cat.micro), "public": by_label(by_pub.per_label)}


def _f(x) -> str:
    return "   -  " if x is None else f"{x:6.3f}"


CATS = ("NAME", "LOCATION", "DATE", "AGE", "CONTACT", "ID", "PROFESSION")


def print_table(rows: list[tuple[str, str, dict]]) -> None:
    print(f"\n{'half':12s} {'setting':34s} {'charP':>6s} {'charR':>6s} {'docR':>6s} "
          + " ".join(f"{c[:7]:>7s}" for c in CATS) + "  (recall per category)")
    for half, setting, r in rows:
        cat = r["category"]
        print(f"{half:12s} {setting:34s} {_f(r['P'])} {_f(r['R'])} {_f(r['doc_R'])} "
              + " ".join(f"{_f(cat.get(c, {}).get('recall')):>7s}" for c in CATS))


def print_public(rows: list[tuple[str, str, dict]]) -> None:
    labels = sorted({k for _, _, r in rows for k, v in r["public"].items() if v["support"]})
    print("\nrecall per public label (characters; n = gold characters in each half):")
    print("  " + " | ".join(f"{h} {s}" for h, s, _ in rows))
    for lab in labels:
        got = [r["public"].get(lab, {}) for _, _, r in rows]
        sup = {h: g.get("support", 0) for (h, _, _), g in zip(rows, got)}
        print(f"  {lab:20s} " + " ".join(_f(g.get("recall")) for g in got)
              + "   n=" + " ".join(f"{h} {n}" for h, n in sup.items()))


def show(half: Half, found: dict) -> None:
    """Missed gold values and false-positive spans of the find half, as written or (``--cases``)
    in UPPER and lower case (invented text only)."""
    if half.name.split("/")[0] != "find":
        raise ValueError("--show prints the find half only: the check half is never read for fixes")
    for d in half.docs:
        got = [(s.start, s.end) for s in found.get(d.doc_id, ())]
        for s, e, lab in half.public[d.doc_id]:
            cov = sum(1 for i in range(s, e) if not d.text[i].isspace() and any(a <= i < b for a, b in got))
            n = sum(1 for i in range(s, e) if not d.text[i].isspace())
            if cov < n:
                print(f"  miss {d.doc_id:18s} {lab:18s} {d.text[s:e]!r} ({cov}/{n})")
        gold = [(s.start, s.end) for s in d.spans]
        for s in found.get(d.doc_id, ()):
            if not any(a < s.end and s.start < b for a, b in gold):
                print(f"  fp   {d.doc_id:18s} {s.label:18s} {d.text[s.start:s.end]!r} [{s.source}]")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", help="a trained version folder (a cold start's model); rules-only row always printed")
    ap.add_argument("--show", action="store_true", help="print the find half's misses and false positives")
    ap.add_argument("--cases", action="store_true", help="also score UPPER and lower copies of each half")
    ap.add_argument("--set", choices=sorted(SETS), default="a",
                    help="a: benchmarks/data/pii_invented (default); b: the second set, pii_invented_b")
    ap.add_argument("--out", help="JSON figures (default benchmarks/out/pii_invented.json, _b for --set b)")
    args = ap.parse_args(argv)
    suffix = "" if args.set == "a" else f"_{args.set}"
    out_path = Path(args.out or REPO / "benchmarks" / "out" / f"pii_invented{suffix}.json")

    from services.runtime import go_offline

    go_offline()
    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014

    settings = [("rules + dictionaries", Detector.without_model(I2B2_2014, "en"))]
    if args.model:
        settings.append((f"model {Path(args.model).name} + rules", Detector.load(args.model)))
    rows, core, out = [], [], {}
    halves = [load(name, SETS[args.set]) for name in HALVES if (SETS[args.set] / name).is_dir()]
    if args.cases:
        halves += [recased(h, how) for h in list(halves) for how in ("upper", "lower")]
    for half in halves:
        name = half.name
        for setting, det in settings:
            found = {d.doc_id: sp for d, sp in zip(half.docs, det.detect_many(half.docs))}
            r = scores(half, found)
            rows.append((name, setting, r))
            core.append((name, setting, scores(half, found, drop=("PROFESSION",))))
            out[f"{name} | {setting}"] = {"all": r, "without_profession": core[-1][2]}
            if args.show and name.split("/")[0] == "find":
                print(f"\n-- find half, {setting}: misses and false positives")
                show(half, found)
    print(f"pii_invented{suffix}: {len(HALVES)} halves, character-level binary over non-blank characters")
    print_table(rows)
    print("\nwithout PROFESSION (gold and system): identifiers, locations, names, dates, ages, contacts")
    print_table(core)
    print_public(rows)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
