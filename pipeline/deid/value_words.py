"""Words that say what kind of value a PHI span is, not whose: function words, generic place
words ("Hospital Universitario"), street words ("Calle", "Avda"), the words of mail hosts and web
addresses ("www", "gmail", "com", "http").

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
#: The words of a mail host that say which provider or domain, not whose address: "www", the
#: top-level domains, large mail providers. The e-mail shape check (:mod:`pipeline.deid.shapes`)
#: does not count them as common words ("jsmith@gmail.com" passes).
MAIL_HOST_WORDS = frozenset({"www", "com", "org", "net", "edu", "gov", "info", "gmail", "yahoo", "hotmail", "outlook",
                             "live", "msn", "aol", "icloud", "mail", "protonmail", "gmx", "terra", "telefonica",
                             "movistar", "ono", "orange", "wanadoo"})
#: The mail host words and the words of a URL around them (scheme, page suffix): a paraphrase
#: keeps them in place in an e-mail, URL or user name (:mod:`pipeline.deid.paraphrase_slots`).
#: Two sets, not one, because the e-mail check must still refuse the URL words: an address
#: holding "http" (a common word in every locale) is a model echoing a URL, not an address.
WEB_WORDS = MAIL_HOST_WORDS | frozenset({"http", "https", "mailto", "html", "htm", "php"})
