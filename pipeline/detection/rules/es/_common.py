"""What the Spanish pack's modules share: the locale code, the name particles, and cutting a
name's trailing particles.

Names of people (:mod:`.labelled`), streets (:mod:`.contact`) and organisations
(:mod:`.organizations`) all take Spanish particles ("de", "del", "la", ...) between their
capitalised words, and a name that ends on one ("Juan de", "Hospital de la") is cut before it;
one definition here keeps the three in step.
"""
from __future__ import annotations

import re

LOCALE = "es"

NAME_PARTICLE = r"(?:de|del|la|las|los|y|i|da|do|dos|das|van|von|di|du|el)"
_TRAILING_PARTICLE = re.compile(rf"[ \t]+{NAME_PARTICLE}$")


# words a title-case view keeps in lower case: the name particles and the function words a
# name never holds ("NUESTRO HOSPITAL POR URÓLOGO": "por" ends the hospital's name)
_PARTICLES = frozenset(NAME_PARTICLE[3:-1].split("|")) | frozenset("""en a al e o u ni por para con sin que se su
    sus un una unos unas ante tras desde hasta entre sobre como pero lo le les nos muy no si ya mas""".split())
_WORD = re.compile(r"[^\W\d_]+")


def caps_view(text: str) -> str:
    r"""``text`` with each line written in capitals in title case ("HOSPITAL UNIVERSITARIO 12 DE
    OCTUBRE" -> "Hospital Universitario 12 de Octubre"), particles in lower case; the same length,
    so a rule written for mixed case runs on the view and keeps its offsets. Lines with a lower-case
    letter are left as written: there the capitals mean something.

    >>> caps_view("Remitido por: Dra. Ruiz\nINGRESA EN EL HOSPITAL DE LA PAZ.")
    'Remitido por: Dra. Ruiz\nIngresa en el Hospital de la Paz.'
    """
    lines = text.split("\n")
    if not any(line.isupper() for line in lines):
        return text
    out = []
    for line in lines:
        if line.isupper():
            line = _WORD.sub(lambda m: _titled_word(m.group()), line)
        out.append(line)
    return "\n".join(out)


def _titled_word(word: str) -> str:
    low = word.lower()
    if len(low) != len(word):                  # a letter whose case map changes length: keep it
        return word
    if low in _PARTICLES:
        return low
    head = low[0].upper()
    return (head if len(head) == 1 else low[0]) + low[1:]


def _drop_trailing_particles(text: str, s: int, e: int) -> int:
    """End of ``text[s:e]`` without the particles it ends with ("Juan de", "Hospital de la")."""
    while True:
        mm = _TRAILING_PARTICLE.search(text[s:e])
        if not mm:
            return e
        e = s + mm.start()
