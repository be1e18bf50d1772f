"""The ward generator's clinical phrase pools and the small template language they are written in.

Why a data file: the text around the PHI is most of a ward note (vitals, drips, labs, devices,
abbreviations), and a model only stops reading "capitalised word = name" when it has seen a lot
of capitalised clinical words that are not names. The pools live in ``data/ward/phrases.txt``;
each ``[section]`` is split into a train and a held-out part like every wide list, so held-out
notes are written with phrases no training note contains.

Template language (one phrase per line): ``{60-110}`` a whole number, ``{7.30-7.45}`` a decimal
with as many places as the bounds, ``{a|b|c}`` one of the alternatives, ``{name}`` a slot that the
caller fills (a PHI value, a drip, an antibiotic).
"""
from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Callable, Mapping, Union

from pipeline.synthetic.builder import Phi, Piece
from pipeline.synthetic.partition import check_part, part_of
from pipeline.synthetic.pools import DATA_DIR

PHRASES_FILE = DATA_DIR / "ward" / "phrases.txt"
_FIELD = re.compile(r"\{([^{}]*)\}")
_RANGE = re.compile(r"^(-?\d+(?:\.(\d+))?)-(-?\d+(?:\.\d+)?)$")
PLACE_SLOTS = frozenset({"facility", "dialysis", "hospice", "employer", "church", "ems", "lodging", "abroad", "place",
                         "state", "county", "address"})
PHI_SLOTS = frozenset({"fam", "famname", "rel", "dr", "drlast", "staff", "hosp", "town", "date", "age", "phone",
                       "mrn", "pt"}) | PLACE_SLOTS
CLINICAL_SLOTS = frozenset({"drip", "abx", "lab"})

Value = Union[str, Phi, Piece]


@lru_cache(maxsize=1)
def all_sections() -> dict[str, tuple[str, ...]]:
    """Every section of the phrase file, in file order (checked: known slots, balanced braces)."""
    out: dict[str, list[str]] = {}
    current = None
    for raw in PHRASES_FILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = out.setdefault(line[1:-1], [])
            continue
        if current is None:
            raise ValueError("phrases.txt: a phrase before the first [section]")
        if line.count("{") != line.count("}"):
            raise ValueError("phrases.txt: unbalanced braces in a phrase")
        for field in _FIELD.findall(line):
            if "|" not in field and not _RANGE.match(field) and field not in PHI_SLOTS | CLINICAL_SLOTS:
                raise ValueError(f"phrases.txt: unknown slot {{{field}}}")
        current.append(line)
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=8)
def sections(part: str = "all", split_seed: int = 0) -> dict[str, tuple[str, ...]]:
    """The phrases of ``part``: each section split on its own (``ward_phrases:<section>``)."""
    check_part(part)
    return {name: part_of(f"ward_phrases:{name}", lines, part, split_seed) for name, lines in all_sections().items()}


def number(field: str, rng: random.Random) -> str | None:
    """``"60-110"`` -> a whole number in range; ``"7.30-7.45"`` -> a decimal; else ``None``."""
    m = _RANGE.match(field)
    if not m:
        return None
    lo, places, hi = m.group(1), m.group(2), m.group(3)
    if places:
        scale = 10 ** len(places)
        v = rng.randint(round(float(lo) * scale), round(float(hi) * scale)) / scale
        return f"{v:.{len(places)}f}"
    return str(rng.randint(int(lo), int(hi)))


def expand(template: str, rng: random.Random, slots: Mapping[str, Callable[[], Value]]) -> list:
    """The pieces of one phrase: literal text (numbers and choices resolved) and slot values."""
    out: list = []
    pos = 0
    for m in _FIELD.finditer(template):
        out.append(template[pos:m.start()])
        field = m.group(1)
        if "|" in field:
            out.append(rng.choice(field.split("|")))
        elif (num := number(field, rng)) is not None:
            out.append(num)
        else:
            out.append(slots[field]())
        pos = m.end()
    out.append(template[pos:])
    return [p for p in out if not (isinstance(p, str) and not p)]


__all__ = ["all_sections", "sections", "expand", "number", "PHI_SLOTS", "PLACE_SLOTS", "CLINICAL_SLOTS", "PHRASES_FILE"]
