"""Generic (i2b2-style) types -> a project's fine types.

Recognizers and shipped dictionaries speak one vocabulary, the i2b2 2014 types plus a few that
i2b2 lacks (SEX, ENCOUNTER, NATIONALID, CITY-like TERRITORY). This module turns a generic
``(category, type)`` into the schema's own labels, so the same Spanish date rule serves a
MEDDOCAN project (FECHAS) and an i2b2 one (DATE). Where a schema has no place for a type the
span keeps its category with an empty type (the reviewer sees it; a missed identifier is worse
than an unlabelled one); where the schema lacks the category altogether the span is dropped.
"""
from __future__ import annotations

from pipeline.schemas import LabelSchema

# Generic type -> coarse category (what recognizers emit).
GENERIC_CATEGORY: dict[str, str] = {
    "PATIENT": "NAME", "DOCTOR": "NAME", "USERNAME": "NAME",
    "PROFESSION": "PROFESSION",
    "ROOM": "LOCATION", "DEPARTMENT": "LOCATION", "HOSPITAL": "LOCATION", "ORGANIZATION": "LOCATION",
    "STREET": "LOCATION", "CITY": "LOCATION", "STATE": "LOCATION", "COUNTRY": "LOCATION",
    "ZIP": "LOCATION", "LOCATION-OTHER": "LOCATION", "HEALTHCENTER": "LOCATION",
    "AGE": "AGE", "DATE": "DATE",
    "PHONE": "CONTACT", "FAX": "CONTACT", "EMAIL": "CONTACT", "URL": "CONTACT", "IPADDR": "CONTACT",
    "SSN": "ID", "NATIONALID": "ID", "MEDICALRECORD": "ID", "HEALTHPLAN": "ID", "ACCOUNT": "ID",
    "ENCOUNTER": "ID", "LICENSE": "ID", "VEHICLE": "ID", "DEVICE": "ID", "BIOID": "ID", "IDNUM": "ID",
    "SEX": "OTHER", "FAMILY": "OTHER",
}

_I2B2_EXTRA = {"NATIONALID": "SSN", "ENCOUNTER": "IDNUM", "HEALTHCENTER": "HOSPITAL"}

SCHEMA_TYPE_MAPS: dict[str, dict[str, str]] = {
    "meddocan": {
        "PATIENT": "NOMBRE_SUJETO_ASISTENCIA", "DOCTOR": "NOMBRE_PERSONAL_SANITARIO",
        "USERNAME": "NOMBRE_SUJETO_ASISTENCIA",
        "PROFESSION": "PROFESION",
        "HOSPITAL": "HOSPITAL", "DEPARTMENT": "HOSPITAL", "ROOM": "HOSPITAL", "ORGANIZATION": "INSTITUCION",
        "HEALTHCENTER": "CENTRO_SALUD",
        "STREET": "CALLE", "CITY": "TERRITORIO", "STATE": "TERRITORIO", "ZIP": "TERRITORIO",
        "LOCATION-OTHER": "TERRITORIO", "COUNTRY": "PAIS",
        "AGE": "EDAD_SUJETO_ASISTENCIA", "DATE": "FECHAS",
        "PHONE": "NUMERO_TELEFONO", "FAX": "NUMERO_FAX", "EMAIL": "CORREO_ELECTRONICO",
        "URL": "URL_WEB", "IPADDR": "DIREC_PROT_INTERNET",
        "SSN": "NUMERO_IDENTIF", "NATIONALID": "NUMERO_IDENTIF", "MEDICALRECORD": "ID_SUJETO_ASISTENCIA",
        "HEALTHPLAN": "ID_ASEGURAMIENTO", "ACCOUNT": "ID_CONTACTO_ASISTENCIAL",
        "ENCOUNTER": "ID_CONTACTO_ASISTENCIAL", "LICENSE": "ID_TITULACION_PERSONAL_SANITARIO",
        "VEHICLE": "IDENTIF_VEHICULOS_NRSERIE_PLACAS", "DEVICE": "IDENTIF_DISPOSITIVOS_NRSERIE",
        "BIOID": "IDENTIF_BIOMETRICOS", "IDNUM": "OTRO_NUMERO_IDENTIF",
        "SEX": "SEXO_SUJETO_ASISTENCIA", "FAMILY": "FAMILIARES_SUJETO_ASISTENCIA",
    },
    "i2b2-2014": _I2B2_EXTRA,
    "german-8": {
        "PATIENT": "Patient", "DOCTOR": "Staff", "USERNAME": "Name_Other", "PROFESSION": "Profession",
        "HOSPITAL": "Hospital", "DEPARTMENT": "Hospital", "HEALTHCENTER": "Hospital", "ROOM": "Location_Other",
        "ORGANIZATION": "Organization", "STREET": "Street", "CITY": "City", "STATE": "State",
        "COUNTRY": "Country", "ZIP": "ZIP", "LOCATION-OTHER": "Location_Other",
        "AGE": "Age", "DATE": "Date", "PHONE": "Phone", "FAX": "Fax", "EMAIL": "Email", "URL": "URL",
        "IPADDR": "IP", "MEDICALRECORD": "PatientID", "SSN": "ID_Other", "NATIONALID": "ID_Other",
        "HEALTHPLAN": "ID_Other", "ACCOUNT": "ID_Other", "ENCOUNTER": "ID_Other", "LICENSE": "ID_Other",
        "VEHICLE": "ID_Other", "DEVICE": "ID_Other", "BIOID": "ID_Other", "IDNUM": "ID_Other",
    },
}


def map_type(schema: LabelSchema, category: str, type_: str,
             override: dict[str, str] | None = None) -> tuple[str, str] | None:
    """``(category, fine type)`` for ``schema``, or ``None`` when the schema has no such category.

    Order: a per-recognizer ``override`` (generic -> fine), a type the schema already has, the
    schema's table above, then the category's only type, else the category with an empty type.
    """
    if override and type_ in override:
        fine = override[type_]
        if fine and fine in schema._type_to_category:
            return schema.category_of(fine), fine
    if type_ and type_ in schema._type_to_category:
        return schema.category_of(type_), type_
    fine = SCHEMA_TYPE_MAPS.get(schema.name, {}).get(type_)
    if fine and fine in schema._type_to_category:
        return schema.category_of(fine), fine
    if category not in schema.categories:
        return None
    types = schema.categories[category]
    return category, (types[0] if len(types) == 1 else "")
