"""The shared boundary pack of the Western European locales: the steps and words that detection
has applied to every locale's notes (``es``, ``en``, ``de``, and any locale without a pack of
its own, :data:`pipeline.detection.steps.registry.DEFAULT_PACK`).

Why shared and not one list per language: before locale packs existed, the boundary steps ran
the same for every locale with Spanish, Catalan, Galician, English and German words in one
list, and detection must give the same spans as it did. The comments say which language each
group of words comes from, so a pack that wants its language alone can take its own words
from here (and measure what the others did for it) in its own folder.
"""
from __future__ import annotations

from pipeline.detection.steps import splits, trims  # noqa: F401  (they register the steps named below)
from pipeline.detection.steps.registry import register_pack
from pipeline.detection.steps.words import BoundaryWords

WORDS = BoundaryWords(
    # titles, matched case-sensitively at the start of a NAME span and followed by blanks ("Dr"
    # without a dot and "Mr"/"Ms" count too): es "Dr." ... "Dña.", "Dª", "D.", "Doctora"; en "Mr.",
    # "Mrs.", "Ms.", "Miss"; de "Frau", "Herr", "Fr.", "Hr."
    titles=(
        "Dr.", "Dra.", "Drs.", "Dres.", "Dr", "Dra", "DR.", "DRA.", "Sr.", "Sra.", "Srta.", "Mr.", "Mrs.", "Ms.",
        "Mr", "Mrs", "Ms", "Miss", "Prof.", "Profa.", "Prof", "Dña.", "Dª", "D.", "Frau", "Herr", "Fr.", "Hr.",
        "Doctor", "Doctora", "DOCTOR", "DOCTORA",
    ),
    # a span's final dot after these closes an abbreviation (en "Jr", "Inc", "Ltd", "St", "Bros";
    # es "Sr", "Av", "Avda"; both "Co", "Dr")
    abbreviations=("Jr", "Sr", "Inc", "Ltd", "Co", "St", "Av", "Avda", "Dr", "Bros"),
    capitals="A-ZÁÉÍÓÚÑ",
    # four-letter abbreviations a place may end with (es "Avda", "Apto", "Ctra", "Dpto", "Prov",
    # "Cdad", "Hosp", "Urbz", "Edif", "Trav", "Pasj"; en "Bros", "Corp", "Dept", "Univ")
    abbreviations_4=frozenset({"Avda", "Apto", "Ctra", "Dpto", "Prov", "Cdad", "Bros", "Corp", "Dept", "Univ",
                               "Hosp", "Urbz", "Edif", "Trav", "Pasj"}),
    # lower-case function words that never end an entity in a gold set (es, then en)
    function_words=("de", "del", "y", "a", "en", "con", "e", "o", "la", "el", "los", "las",
                    "of", "and", "the", "in", "at", "to", "with", "or"),
    # what follows an age and is not part of it (es, en)
    age_tails=("de edad", "of age"),
    # a field label written onto the word before it, a line break lost in the source (es "Correo",
    # "Teléfono", "Tfno"; es and en "E-mail", "Tel", "Fax")
    glued_label=r"(?<=[a-záéíóúñü])(?:Correo|E-?mail|Email|Tel[eé]fono|Tfno|Tel|Fax)$",
    # what may stand between the numbers or addresses of one contact line: separators and the
    # line's field labels ("Tlf. 609 518571 / Fax 93 2607982", "917277336 - 606409021",
    # "E-mail.x@y.es"); es and en
    contact_glue=(r"(?:[\s/|;,.:()+\-\u2013]|\b(?:y|o|and|or|fax|tel|tfno|tfnos|tlf|tlfs|telf|telfs|tel[eé]fonos?|"
                  r"phone|m[oó]vil(?:es)?|(?:e-?)?mail|correos?|electr[oó]nicos?)\b)*"),
    # words that open a street or a postal address (es, ca, gl) and never end an organisation's or
    # a person's name in MEDDOCAN's gold (0 of its organisation and name spans end with one; 812 of
    # its streets begin with one). "Camino" is left out: it ends names too ("Hospital Virgen del
    # Camino")
    street_words=("Passeig", "Carr", "Ctra", "Carretera", "Calle", "C/", "Avda", "Avenida", "Av",
                  "Paseo", "Plaza", "Pza", "Ronda", "Rúa", "Vía", "Travesía", "Urb", "Apartado"),
    # a place after one of these words (or a street word) is part of the name, not beside it: an
    # article or linking word ("Hospital Universitario La Paz", "Hospital Clinic i Provincial
    # Barcelona"), a generic word that a town completes ("Hospital Universitario Donostia",
    # "Hospital Torrevieja"), a street word ("Carretera Toledo"); es, ca and en words
    name_goes_on=frozenset({
        "la", "el", "los", "las", "de", "del", "en", "i", "y", "e", "of", "the", "and", "at", "in", "san", "santa",
        "sant", "st", "hospital", "universitario", "universitari", "university", "provincial", "general", "clínico",
        "clinico", "clinic", "clínic", "hospitalario", "comarcal", "regional", "complejo", "centro", "center",
        "centre", "instituto", "institut", "institute", "clínica", "clinica", "fundación", "infantil", "materno",
        "nacional", "policlínica", "sanatorio", "ciudad", "área", "servicio", "medical", "county", "memorial",
        "camino", "via", "street", "road", "avenue",
    }),
)

#: the steps, in the order they run within each stage
STEPS = (
    "strip_glued_label_from_candidates",                       # candidates
    "strip_leading_title", "strip_trailing_full_stop", "strip_edge_separators", "strip_words_before_number",
    "strip_age_tail", "strip_glued_label",
    "strip_trailing_function_word", "split_on_format_rules", "split_trailing_place", "split_relative_name",
    "hand_street_word_over",                                   # model
    "add_bracketed_acronyms",                                  # merged
)

PACK = register_pack("western", WORDS, STEPS)
