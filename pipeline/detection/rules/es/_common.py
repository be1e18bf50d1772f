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


def _drop_trailing_particles(text: str, s: int, e: int) -> int:
    """End of ``text[s:e]`` without the particles it ends with ("Juan de", "Hospital de la")."""
    while True:
        mm = _TRAILING_PARTICLE.search(text[s:e])
        if not mm:
            return e
        e = s + mm.start()
