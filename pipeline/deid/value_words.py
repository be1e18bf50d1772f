"""Words that say what kind of value a PHI span is, not whose: function words, generic place
words ("Hospital Universitario"), street words ("Calle", "Avda").

The paraphrase slot planner keeps them in place (:mod:`pipeline.deid.paraphrase`) and the keyed
set of project values does not key a value made only of them
(:mod:`pipeline.deid.project_values`). Apart from both so that neither imports the other.
"""
from __future__ import annotations

from pipeline.deid.normalize import NAME_PARTICLES

FUNCTION_WORDS = frozenset({
    "of", "the", "and", "for", "at", "in", "on", "to", "y", "e", "o", "u", "en", "a", "al", "con", "para",
    "und", "im", "am", "zum", "zur", "fur", "bei",
}) | NAME_PARTICLES
#: Words that say what kind of place a name is, not which one: kept when another word of the
#: span is replaced ("Hospital Universitario X" -> "Hospital Universitario Y").
GENERIC_PLACE_WORDS = frozenset({
    "hospital", "hospitales", "clinico", "clinica", "universitario", "universitaria", "general", "centro",
    "salud", "sanitario", "servicio", "unidad", "residencia", "instituto", "fundacion", "consultorio",
    "ambulatorio", "complejo", "hospitalario", "provincial", "comarcal", "regional", "nacional", "materno",
    "infantil", "policlinico", "sanatorio", "medical", "center", "centre", "clinic", "university", "memorial",
    "community", "county", "klinikum", "krankenhaus", "universitatsklinikum", "praxis", "klinik",
})
STREET_WORDS = frozenset({
    "calle", "avenida", "avda", "av", "paseo", "plaza", "pza", "ronda", "carretera", "ctra", "camino",
    "travesia", "glorieta", "via", "rambla", "callejon", "pasaje", "urbanizacion", "urb", "carrer", "rua",
    "poligono", "barrio", "street", "avenue", "ave", "road", "lane", "drive", "boulevard", "blvd", "way",
    "court", "place", "strasse", "str", "weg", "platz", "allee", "gasse", "c", "n", "s", "p", "pl", "po", "bo",
})
