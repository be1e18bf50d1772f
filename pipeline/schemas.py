"""Label schemas: which coarse categories a project uses and the fine types under each.

Every span in a project must fit its schema. Presets cover i2b2 2014, MEDDOCAN (its 29 types
grouped under the i2b2 categories exactly as the corpus's i2b2 XML copy does) and the German
8-category scheme; a lead can write a custom one as JSON
(``{"name": ..., "categories": {"NAME": ["PATIENT", ...], ...}}``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

COARSE_CATEGORIES = ("NAME", "PROFESSION", "LOCATION", "AGE", "DATE", "CONTACT", "ID", "OTHER")


class SchemaError(ValueError):
    pass


#: The roles a type can play for detection's boundary steps (:mod:`pipeline.detection.steps`):
#: an organisation's name goes on after "de" and may be followed by its town or an acronym; a
#: street opens with a street word; a relative's kinship words may run into a first name.
ROLES = ("organisation", "street", "relative")
#: The type names that play each role in a schema that does not say (a custom schema): the names
#: the presets use, as the boundary steps knew them before schemas named their roles.
DEFAULT_ROLE_TYPES: dict[str, frozenset[str]] = {
    "organisation": frozenset({"HOSPITAL", "INSTITUCION", "CENTRO_SALUD", "ORGANIZATION", "HEALTHCENTER"}),
    "street": frozenset({"CALLE", "STREET"}),
    "relative": frozenset({"FAMILIARES_SUJETO_ASISTENCIA", "FAMILY"}),
}


@dataclass(frozen=True)
class LabelSchema:
    name: str
    categories: dict[str, tuple[str, ...]]
    description: str = ""
    roles: dict[str, tuple[str, ...]] | None = field(default=None, compare=False)
    _type_to_category: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        mapping: dict[str, str] = {}
        for cat, types in self.categories.items():
            if not cat or not isinstance(cat, str):
                raise SchemaError(f"schema {self.name!r}: category names must be non-empty strings")
            for t in types:
                if t in mapping and mapping[t] != cat:
                    raise SchemaError(f"schema {self.name!r}: type {t!r} is listed under {mapping[t]} and {cat}")
                mapping[t] = cat
        object.__setattr__(self, "_type_to_category", mapping)
        if self.roles is None:
            object.__setattr__(self, "roles", self.default_roles())
        for role, types in self.roles.items():
            if role not in ROLES:
                raise SchemaError(f"schema {self.name!r}: unknown role {role!r}; use one of {', '.join(ROLES)}")
            stray = [t for t in types if t not in mapping]
            if stray:
                raise SchemaError(f"schema {self.name!r}: role {role} names types it lacks: {', '.join(stray)}")

    def default_roles(self) -> dict[str, tuple[str, ...]]:
        """The schema's types that play each role by name (:data:`DEFAULT_ROLE_TYPES`)."""
        return {role: tuple(t for t in self.types if t in names) for role, names in DEFAULT_ROLE_TYPES.items()}

    def types_in_role(self, role: str) -> tuple[str, ...]:
        """The types that play ``role`` (``organisation``, ``street``, ``relative``); may be empty.

        >>> MEDDOCAN.types_in_role("organisation"), I2B2_2014.types_in_role("relative")
        (('HOSPITAL', 'CENTRO_SALUD', 'INSTITUCION'), ())
        """
        return (self.roles or {}).get(role, ())

    @property
    def types(self) -> list[str]:
        return [t for ts in self.categories.values() for t in ts]

    def category_of(self, type_: str) -> str:
        try:
            return self._type_to_category[type_]
        except KeyError:
            raise SchemaError(f"type {type_!r} is not in schema {self.name!r}") from None

    def resolve(self, label: str, category_hint: str | None = None) -> tuple[str, str]:
        """Map a label from a file (a fine type, or a bare category) to ``(category, type)``.

        A bare category whose only type has the same name (AGE/AGE) resolves to that type;
        an unknown label raises :class:`SchemaError`.
        """
        if label in self._type_to_category:
            cat = self._type_to_category[label]
            if category_hint and category_hint != cat:
                raise SchemaError(f"type {label!r} belongs to {cat}, not {category_hint}")
            return cat, label
        if label in self.categories:
            types = self.categories[label]
            return label, (types[0] if len(types) == 1 else "")
        raise SchemaError(f"label {label!r} is not in schema {self.name!r}")

    def has(self, category: str, type_: str = "") -> bool:
        if category not in self.categories:
            return False
        return not type_ or type_ in self.categories[category]

    def to_json(self) -> str:
        """The schema as JSON; ``roles`` only where they differ from the types' names' roles."""
        obj: dict = {"name": self.name, "description": self.description,
                     "categories": {c: list(t) for c, t in self.categories.items()}}
        if self.roles != self.default_roles():
            obj["roles"] = {r: list(t) for r, t in (self.roles or {}).items()}
        return json.dumps(obj, ensure_ascii=False)

    @classmethod
    def from_json(cls, data: str | dict) -> "LabelSchema":
        try:
            obj = json.loads(data) if isinstance(data, str) else data
        except json.JSONDecodeError as e:
            raise SchemaError(f"schema JSON is malformed at line {e.lineno}, column {e.colno}: {e.msg}") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("categories"), dict) or not obj["categories"]:
            raise SchemaError('schema JSON must be an object with a non-empty "categories" object')
        cats: dict[str, tuple[str, ...]] = {}
        for cat, types in obj["categories"].items():
            if not isinstance(types, list) or not all(isinstance(t, str) and t for t in types):
                raise SchemaError(f"schema JSON: category {cat!r} must map to a list of type names")
            cats[str(cat)] = tuple(types) if types else (str(cat),)
        roles = obj.get("roles")
        if roles is not None and (not isinstance(roles, dict) or not all(
                isinstance(t, list) and all(isinstance(x, str) for x in t) for t in roles.values())):
            raise SchemaError('schema JSON: "roles" must map each role to a list of type names')
        return cls(name=str(obj.get("name") or "custom"), categories=cats, description=str(obj.get("description", "")),
                   roles=None if roles is None else {str(r): tuple(t) for r, t in roles.items()})


I2B2_2014 = LabelSchema(
    name="i2b2-2014",
    description="i2b2/UTHealth 2014 de-identification track: 7 categories, 25 types",
    categories={
        "NAME": ("PATIENT", "DOCTOR", "USERNAME"),
        "PROFESSION": ("PROFESSION",),
        "LOCATION": ("ROOM", "DEPARTMENT", "HOSPITAL", "ORGANIZATION", "STREET", "CITY", "STATE",
                     "COUNTRY", "ZIP", "LOCATION-OTHER"),
        "AGE": ("AGE",),
        "DATE": ("DATE",),
        "CONTACT": ("PHONE", "FAX", "EMAIL", "URL", "IPADDR"),
        "ID": ("SSN", "MEDICALRECORD", "HEALTHPLAN", "ACCOUNT", "LICENSE", "VEHICLE", "DEVICE", "BIOID", "IDNUM"),
    },
    roles={"organisation": ("HOSPITAL", "ORGANIZATION"), "street": ("STREET",), "relative": ()},
)

MEDDOCAN = LabelSchema(
    name="meddocan",
    description="MEDDOCAN (IberLEF 2019): 29 types under the i2b2 categories, as in the corpus's i2b2 XML",
    categories={
        "NAME": ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO"),
        "PROFESSION": ("PROFESION",),
        "LOCATION": ("HOSPITAL", "CENTRO_SALUD", "INSTITUCION", "CALLE", "TERRITORIO", "PAIS"),
        "AGE": ("EDAD_SUJETO_ASISTENCIA",),
        "DATE": ("FECHAS",),
        "CONTACT": ("NUMERO_TELEFONO", "NUMERO_FAX", "CORREO_ELECTRONICO", "DIREC_PROT_INTERNET", "URL_WEB"),
        "ID": ("ID_SUJETO_ASISTENCIA", "ID_CONTACTO_ASISTENCIAL", "ID_ASEGURAMIENTO",
               "ID_TITULACION_PERSONAL_SANITARIO", "ID_EMPLEO_PERSONAL_SANITARIO",
               "IDENTIF_VEHICULOS_NRSERIE_PLACAS", "IDENTIF_DISPOSITIVOS_NRSERIE", "IDENTIF_BIOMETRICOS",
               "NUMERO_IDENTIF", "OTRO_NUMERO_IDENTIF"),
        "OTHER": ("SEXO_SUJETO_ASISTENCIA", "FAMILIARES_SUJETO_ASISTENCIA", "OTROS_SUJETO_ASISTENCIA"),
    },
    roles={"organisation": ("HOSPITAL", "CENTRO_SALUD", "INSTITUCION"), "street": ("CALLE",),
           "relative": ("FAMILIARES_SUJETO_ASISTENCIA",)},
)

GERMAN = LabelSchema(
    name="german-8",
    description="German clinical de-identification scheme: 8 categories; 'Other' types carry their category prefix",
    categories={
        "AGE": ("Age",),
        "CONTACT": ("Email", "Fax", "IP", "Phone", "URL"),
        "DATE": ("Birthdate", "Date"),
        "ID": ("PatientID", "StudyID", "ID_Other"),
        "LOCATION": ("Organization", "Hospital", "State", "Country", "City", "Street", "ZIP", "Location_Other"),
        "NAME": ("Patient", "Staff", "Name_Other"),
        "PROFESSION": ("Profession", "Status"),
        "OTHER": ("Other",),
    },
    # none: the boundary steps have never treated german-8's "Hospital", "Organization" or
    # "Street" as organisations or streets (they knew the upper-case names only)
    roles={"organisation": (), "street": (), "relative": ()},
)

PRESETS: dict[str, LabelSchema] = {s.name: s for s in (I2B2_2014, MEDDOCAN, GERMAN)}

#: The language of the notes each preset was made for: which rule pack, word lists and date
#: order a project of that schema uses unless its settings name another locale. The one table:
#: training, detection and de-identification all read it through :func:`default_locale`.
SCHEMA_LOCALES: dict[str, str] = {"meddocan": "es", "i2b2-2014": "en", "german-8": "de"}
FALLBACK_LOCALE = "en"


def default_locale(schema: "LabelSchema | str") -> str:
    """The locale of a schema's notes (``en`` for custom schemas).

    >>> default_locale(GERMAN), default_locale("meddocan"), default_locale("my-own")
    ('de', 'es', 'en')
    """
    name = schema if isinstance(schema, str) else schema.name
    return SCHEMA_LOCALES.get(name, FALLBACK_LOCALE)


def get_schema(name_or_json: str) -> LabelSchema:
    """A preset by name, or a custom schema from a JSON string or a path to a JSON file."""
    if name_or_json in PRESETS:
        return PRESETS[name_or_json]
    text = name_or_json
    if not name_or_json.lstrip().startswith("{"):
        from pathlib import Path
        p = Path(name_or_json)
        if not p.is_file():
            raise SchemaError(f"unknown schema {name_or_json!r}: use one of {', '.join(PRESETS)} or a JSON file")
        text = p.read_text(encoding="utf-8")
    return LabelSchema.from_json(text)


# --- mapping one schema's labels onto another's ------------------------------------------------
@dataclass(frozen=True)
class SchemaMapping:
    """How spans labelled in ``source``'s types become ``target``'s: a table, and what it drops.

    Why: a model trained in one project can pre-annotate another project of the same language
    (a cold start, with no gold there yet) only once its labels speak the target's schema.
    ``types`` maps each source type to ``(category, type)`` of the target; a type mapped to its
    category with an empty type (the target has the category but no matching type) is kept as
    detection rules keep such spans, for a reviewer to type. Source types missing from
    ``types`` are listed in ``unmapped``: their spans are dropped.
    """

    source: str
    target: str
    types: dict[str, tuple[str, str]]
    unmapped: tuple[str, ...] = ()

    def map_span(self, span):
        """The span relabelled for the target schema, or ``None`` when its type is unmapped."""
        got = self.types.get(span.type or span.category)
        if got is None:
            return None
        return span.with_(category=got[0], type=got[1])

    def map_spans(self, spans) -> tuple[list, int]:
        """``(mapped spans, number dropped)``."""
        out = []
        for s in spans:
            m = self.map_span(s)
            if m is not None:
                out.append(m)
        return out, len(spans) - len(out)


def map_schema(source: LabelSchema, target: LabelSchema, *,
               generic_maps: "dict[str, dict[str, str]] | None" = None) -> SchemaMapping:
    """The mapping of every type of ``source`` onto ``target``.

    ``generic_maps``: per schema name, generic (i2b2 2014) type -> that schema's type (the rules'
    table, :data:`pipeline.detection.rules.typemap.SCHEMA_TYPE_MAPS`). A source type maps, first
    found: to the same type name in the target; through its generic type (the generic type that
    maps to it, preferring one spelled like it) to the target's type for that generic type, or
    to the generic type itself when the target has it; to the target's only type of the source
    type's category, or to that category with an empty type; else it is unmapped.

    >>> m = map_schema(MEDDOCAN, I2B2_2014, generic_maps={"meddocan": {"PATIENT": "NOMBRE_SUJETO_ASISTENCIA"}})
    >>> m.types["NOMBRE_SUJETO_ASISTENCIA"], m.types["FECHAS"]
    (('NAME', 'PATIENT'), ('DATE', 'DATE'))
    >>> m.unmapped    # i2b2 2014 has no OTHER category
    ('SEXO_SUJETO_ASISTENCIA', 'FAMILIARES_SUJETO_ASISTENCIA', 'OTROS_SUJETO_ASISTENCIA')
    """
    maps = generic_maps or {}
    to_source = maps.get(source.name, {})
    to_target = maps.get(target.name, {})
    generic_of: dict[str, str] = {}
    for generic, fine in to_source.items():
        if fine == generic or fine not in generic_of:
            generic_of[fine] = generic
    types: dict[str, tuple[str, str]] = {}
    unmapped: list[str] = []
    for cat, source_types in source.categories.items():
        for t in source_types:
            got: tuple[str, str] | None = None
            if t in target._type_to_category:
                got = (target.category_of(t), t)
            else:
                generic = generic_of.get(t, t)
                fine = to_target.get(generic, generic)
                if fine in target._type_to_category:
                    got = (target.category_of(fine), fine)
                elif cat in target.categories:
                    only = target.categories[cat]
                    got = (cat, only[0] if len(only) == 1 else "")
            if got is None:
                unmapped.append(t)
            else:
                types[t] = got
    return SchemaMapping(source.name, target.name, types, tuple(unmapped))
