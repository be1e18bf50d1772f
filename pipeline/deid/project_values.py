"""A keyed set of a project's real PHI values: what no generated surrogate may be or contain.

The paraphrase model learns from the project's notes. Even trained on notes whose PHI was
replaced first (:mod:`models.masked_lm_source`), a value the gold missed, or a model trained
before that, could propose a real person of the project for another patient's note. This set
is the gate behind it (:mod:`pipeline.deid.operators.paraphrase`) and the rule the leak check
adds (:func:`pipeline.deid.leak_check.check_leaks`).

What it holds: ``HMAC-SHA256(key, "project-value" | normalised value)`` (first
:data:`DIGEST_BYTES` bytes) for every gold value of the project's identifying categories (not
dates, ages or OTHER descriptions) and, for person names, for each name part ("Garcia" of
"Pedro Garcia"), keyed like the document-name pseudonyms (:func:`pipeline.deid.keys.keyed_bytes`
with the installation secret), so the set never stores a plain value and nobody without the
key can test a guess against it. Values too short to search (:func:`pipeline.deid.leaks.too_short`:
under 3 letters or digits, under 4 digits) are left out, as the leak check leaves them out, and
so are values made only of words that say what kind of place or value it is ("hospital",
"Hospital General Universitario", "calle": :func:`generic_words`), which MEDDOCAN's gold
sometimes annotates alone and which identify no one.

What a hit is (:meth:`ProjectValues.hits`): a run of whole words of a surrogate (one word, or
up to :data:`MAX_WORDS` in a row, split at every non-letter-or-digit, so a surname inside an
e-mail address is a word) whose keyed form is in the set, unless that run is itself an
ordinary entry of the locale's public surrogate lists, or one word of such an entry (a common
first name, a large city, the "Castilla" of "Castilla y León": :func:`public_entries`): a list
surrogate may be such a word by chance, and it identifies no one. A run of several public words
is not public unless it is an entry itself: "María García López" of a patient is a hit.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from pipeline.deid.keys import keyed_bytes
from pipeline.deid.leaks import name_parts, too_short
from pipeline.deid.normalize import NAME_PARTICLES, NAME_TITLES, norm_key
from pipeline.deid.value_words import FUNCTION_WORDS, GENERIC_PLACE_WORDS, STREET_WORDS
from pipeline.errors import WorkbenchError

KEY_LABEL = "project-value"
DIGEST_BYTES = 16
MAX_WORDS = 8               # longest run of words keyed and searched
#: Categories whose values are not keyed: dates and ages are shifted, not drawn (a shifted date
#: may be anyone's date), and OTHER holds descriptions ("varón", "su madre"), not identifiers.
UNKEYED_CATEGORIES = frozenset({"DATE", "AGE", "OTHER"})
#: The shipped lists whose entries are public: what a list surrogate is drawn from.
PUBLIC_LISTS = ("first_names", "first_names_female", "first_names_male", "surnames", "cities", "states",
                "provinces", "countries", "hospitals", "organizations", "streets", "professions")
FORMAT = 1
_WORD = re.compile(r"[^\W_]+")


class ProjectValuesError(WorkbenchError):
    """The keyed set cannot be used as asked (the message names no value)."""


def normalised(text: str) -> str:
    """Words of ``text`` (letters and digits, split at anything else), case- and accent-folded."""
    return " ".join(_WORD.findall(norm_key(text)))


def _digest(secret: bytes, form: str) -> bytes:
    return keyed_bytes(secret, KEY_LABEL, form)[:DIGEST_BYTES]


def _check(secret: bytes) -> str:
    """A short keyed tag that says which key made a set (never the key itself)."""
    return keyed_bytes(secret, KEY_LABEL, "key-check")[:8].hex()


@lru_cache(maxsize=1)
def generic_words() -> frozenset[str]:
    """Words that say what kind of value a span is, not whose: a value made only of them is not keyed."""
    return GENERIC_PLACE_WORDS | STREET_WORDS | FUNCTION_WORDS | NAME_TITLES | NAME_PARTICLES


def value_forms(category: str, value: str) -> list[str]:
    """The normalised forms of one PHI value that are keyed: the value, and a name's parts."""
    if category in UNKEYED_CATEGORIES:
        return []
    out = []
    whole = normalised(value)
    if whole and not too_short(value, category) and len(whole.split()) <= MAX_WORDS:
        out.append(whole)
    if category == "NAME":
        out += [normalised(p) for p in name_parts(value)]
    generic = generic_words()
    return [f for f in out if not all(w in generic for w in f.split())]


@dataclass(frozen=True)
class ProjectValues:
    """The keyed set (digests only) and the tag of the key that made it."""

    check: str
    digests: frozenset[bytes]

    def __repr__(self) -> str:
        return f"ProjectValues({len(self.digests)} keyed values)"

    def __len__(self) -> int:
        return len(self.digests)

    @classmethod
    def build(cls, secret: bytes, values: Iterable[tuple[str, str]]) -> "ProjectValues":
        """The set of ``(category, value)`` pairs, keyed with ``secret``."""
        digests = {_digest(secret, f) for category, value in values for f in value_forms(category, value)}
        return cls(_check(secret), frozenset(digests))

    def keyed_with(self, secret: bytes) -> bool:
        return self.check == _check(secret)

    def require_key(self, secret: bytes) -> None:
        if not self.keyed_with(secret):
            raise ProjectValuesError("the language model's set of project values was keyed with another secret "
                                     "key; train the model again with this key (train-infill)")

    def hits(self, secret: bytes, text: str, public: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
        """Offsets in ``text`` of runs of words that are project values and not public entries
        (longest first where they overlap; see the module docstring)."""
        words = [(m.start(), m.end(), norm_key(m.group())) for m in _WORD.finditer(text)]
        found: list[tuple[int, int]] = []
        for i in range(len(words)):
            for j in range(min(len(words), i + MAX_WORDS), i, -1):
                form = " ".join(w for _, _, w in words[i:j])
                if len(form.replace(" ", "")) < 3 or form in public:
                    continue
                if _digest(secret, form) in self.digests:
                    a, b = words[i][0], words[j - 1][1]
                    if not any(x <= a and b <= y for x, y in found):
                        found.append((a, b))
                    break
        return sorted(found)

    # ------------------------------------------------------------------ storage
    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "key_check": self.check, "digest_bytes": DIGEST_BYTES,
                           "digests": sorted(d.hex() for d in self.digests)})

    @classmethod
    def from_json(cls, text: str) -> "ProjectValues":
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT or data.get("digest_bytes") != DIGEST_BYTES:
                raise ValueError("format")
            return cls(str(data["key_check"]), frozenset(bytes.fromhex(d) for d in data["digests"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ProjectValuesError("the set of project values is damaged; train the language model again") from None


def public_entries(lists: Sequence[Sequence[str]]) -> frozenset[str]:
    """Normalised entries of the public surrogate lists, and each word of every entry."""
    out: set[str] = set()
    for entries in lists:
        for e in entries:
            n = normalised(e)
            if n:
                out.add(n)
                out.update(n.split())
    return frozenset(out)
