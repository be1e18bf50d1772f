"""The surrogate registry: small functions ``(original, ctx) -> surrogate``, one per kind of value.

Generators are registered by name (``name``, ``city``, ``phone``, ``id``, ``date``...) and fine
types of every schema (i2b2 2014, MEDDOCAN, the German scheme) are mapped onto them, so "CITY"
and MEDDOCAN's "TERRITORIO" share one way to make a city. A lead can register a new generator or
map a new type with :func:`register` / :func:`map_type`.

Every generator is deterministic in (secret, patient, type, normalised original): see
:mod:`pipeline.deid.keys`. A generator raises :class:`NoSurrogate` when it cannot produce a
surrogate of the right type (no list for it, nothing to replace), :class:`Unparseable` when the
value is not what its type promises (a "date" that is no date); the caller then redacts.

This module is the registry's one load point: it holds the type map and the lookups, and imports
the generators' two rooms (:mod:`pipeline.deid.surrogate_names`, then
:mod:`pipeline.deid.surrogate_numbers`), which register themselves into
:data:`~pipeline.deid.surrogate_kit.GENERATORS` as they load. Importing it (or anything that
imports it) therefore gives the full registry; the decorator, the refusals and the drawing tools
live in :mod:`pipeline.deid.surrogate_kit`, below all three, so no import goes round a circle.
"""
from __future__ import annotations

# the generators register themselves as these load, names first: the registry's order is theirs
from pipeline.deid import surrogate_names, surrogate_numbers  # noqa: F401
from pipeline.deid.surrogate_kit import GENERATORS, NoSurrogate, Surrogate, Unparseable, register

__all__ = ["CATEGORY_MAP", "GENERATORS", "REGISTRY", "TYPE_MAP", "NoSurrogate", "Surrogate", "Unparseable",
           "generator_for", "generator_name", "map_type", "register"]


# -- fine types and categories onto generators -----------------------------------------------------

TYPE_MAP: dict[str, str] = {
    # i2b2 2014
    "PATIENT": "name", "DOCTOR": "name", "USERNAME": "username", "PROFESSION": "profession",
    "ROOM": "room", "DEPARTMENT": "department", "HOSPITAL": "hospital", "ORGANIZATION": "organization",
    "STREET": "street", "CITY": "city", "STATE": "state", "COUNTRY": "country", "ZIP": "zip",
    "LOCATION-OTHER": "location_other", "AGE": "age", "DATE": "date", "PHONE": "phone", "FAX": "phone",
    "EMAIL": "email", "URL": "url", "IPADDR": "ip", "SSN": "id", "MEDICALRECORD": "id", "HEALTHPLAN": "id",
    "ACCOUNT": "id", "LICENSE": "id", "VEHICLE": "id", "DEVICE": "id", "BIOID": "id", "IDNUM": "id",
    # MEDDOCAN
    "NOMBRE_SUJETO_ASISTENCIA": "name", "NOMBRE_PERSONAL_SANITARIO": "name", "PROFESION": "profession",
    "CENTRO_SALUD": "health_center", "INSTITUCION": "organization", "CALLE": "street",
    "TERRITORIO": "territory", "PAIS": "country", "EDAD_SUJETO_ASISTENCIA": "age", "FECHAS": "date",
    "NUMERO_TELEFONO": "phone", "NUMERO_FAX": "phone", "CORREO_ELECTRONICO": "email",
    "DIREC_PROT_INTERNET": "net_address", "URL_WEB": "url", "ID_SUJETO_ASISTENCIA": "id",
    "ID_CONTACTO_ASISTENCIAL": "id", "ID_ASEGURAMIENTO": "id", "ID_TITULACION_PERSONAL_SANITARIO": "id",
    "ID_EMPLEO_PERSONAL_SANITARIO": "id", "IDENTIF_VEHICULOS_NRSERIE_PLACAS": "id",
    "IDENTIF_DISPOSITIVOS_NRSERIE": "id", "IDENTIF_BIOMETRICOS": "id", "NUMERO_IDENTIF": "id",
    "OTRO_NUMERO_IDENTIF": "id",
    # German 8-category scheme
    "Patient": "name", "Staff": "name", "Name_Other": "name", "Profession": "profession",
    "Organization": "organization", "Hospital": "hospital", "State": "state", "Country": "country",
    "City": "city", "Street": "street", "ZIP": "zip", "Location_Other": "location_other", "Age": "age",
    "Birthdate": "date", "Date": "date", "Email": "email", "Fax": "phone", "IP": "ip", "Phone": "phone",
    "URL": "url", "PatientID": "id", "StudyID": "id", "ID_Other": "id",
}
CATEGORY_MAP: dict[str, str] = {
    "NAME": "name", "PROFESSION": "profession", "AGE": "age", "DATE": "date", "ID": "id", "CONTACT": "phone",
}


def map_type(type_or_category: str, generator: str) -> None:
    """Send a (custom) fine type or category to an existing generator."""
    if generator not in GENERATORS:
        raise KeyError(f"no surrogate generator {generator!r}; known: {', '.join(sorted(GENERATORS))}")
    TYPE_MAP[type_or_category] = generator


def generator_name(category: str, type_: str = "") -> str | None:
    """The generator for a span: its fine type's, else its category's, else None (redact)."""
    if type_ and type_ in TYPE_MAP:
        return TYPE_MAP[type_]
    return CATEGORY_MAP.get(category)


class _Registry(dict):
    """``REGISTRY[type or category]`` -> generator function (the same function for all schemas)."""

    def __missing__(self, key: str) -> Surrogate:
        name_ = TYPE_MAP.get(key) or CATEGORY_MAP.get(key)
        if name_ is None:
            raise KeyError(key)
        return GENERATORS[name_]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in TYPE_MAP or key in CATEGORY_MAP)


REGISTRY: dict[str, Surrogate] = _Registry()


def generator_for(category: str, type_: str = "") -> Surrogate | None:
    name_ = generator_name(category, type_)
    return GENERATORS.get(name_) if name_ else None
