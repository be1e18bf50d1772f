"""Words that both detection and de-identification read and must agree on: labels of identifier
fields ("SSN", "MRN:", "Teléfono": they announce a value and are never the value) and the parts of a
name that are not the name (titles, particles). Span hygiene (:mod:`pipeline.deid.span_hygiene`)
never replaces a label, and the English pack's prose step never lets a list mark one as a name or
a place; the surrogate engine and the leak check keep a particle inside a name, and the English
pack's name steps read the same particles. Detection and de-identification meet only at spans, so
neither imports the other for a word list.

>>> "mrn" in FIELD_LABELS and "teléfono" in FIELD_LABELS and "van" in NAME_PARTICLES
True
"""

#: Labels of identifier fields in the notes we see (English and the Spanish of MEDDOCAN): words
#: that announce a value and are never the value. Matched without regard to case.
FIELD_LABELS = (
    "ssn", "mrn", "dob", "d.o.b", "phone", "tel", "tel.", "telephone", "fax", "pager", "email", "e-mail", "name",
    "patient name", "address", "medical record number", "record number", "date of birth", "nhc", "nass", "dni",
    "nif", "nombre", "teléfono", "telefono", "tfno", "correo", "correo electrónico", "domicilio",
    "fecha de nacimiento", "nº historia clínica", "n historia clínica",
)

#: Name parts that are not names: kept as they are, never compared as PHI words (a particle only
#: inside a name, see :func:`kept_particles`).
NAME_TITLES = frozenset({
    "dr", "dra", "doctor", "doctora", "sr", "sra", "srta", "sres", "don", "dona", "dna", "dn", "mr", "mrs", "ms",
    "miss", "mx", "prof", "profa", "profesor", "profesora", "rev", "sir", "lic", "ing", "enf", "md", "phd", "rn",
    "np", "pa", "jr", "ii", "iii", "iv", "dds", "dmd", "mba", "msc", "bsc", "facs", "facp",
})
NAME_PARTICLES = frozenset({"de", "del", "la", "las", "los", "y", "e", "i", "da", "das", "do", "dos", "di", "van",
                            "von", "der", "den", "le", "du", "st", "al", "el", "ben", "bin", "ter", "ten"})
