"""De-identification profiles: what to do with each category (and, optionally, fine type) of PHI.

A profile is a named, saved choice a lead makes once per project: which categories to
de-identify at all, and for each one whether to ``redact`` it (a placeholder), ``replace`` it (a
realistic surrogate of the same type from the locale's lists), ``paraphrase`` it (a surrogate of
the same shape that the project's own masked language model infills in the span's context, see
:mod:`pipeline.deid.paraphrase`), ``shift`` it (dates and ages move by the patient's offset) or
``keep`` it (left as it is, and counted as a risk). It is a plain dataclass so the store and
the app can save it as JSON (:meth:`Profile.to_json` / :meth:`Profile.from_json`).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pipeline.errors import WorkbenchError
from pipeline.schemas import COARSE_CATEGORIES

ACTIONS = ("redact", "replace", "paraphrase", "shift", "keep")
#: The actions that write a surrogate in place of the original (a placeholder is not one).
SURROGATE_ACTIONS = ("replace", "paraphrase", "shift")
SHIFTABLE = ("DATE", "AGE")

#: Named placeholder styles; a profile may also give its own template.
PLACEHOLDER_STYLES: dict[str, str] = {
    "brackets": "[{CATEGORY}]",        # [NAME]
    "xxx": "XXX-{Category}",           # XXX-Name
    "angle": "<{Category}_{Type}>",    # <Name_Patient>
    "stars": "*",                      # ***** (as long as the original)
}
LENGTH_PRESERVING = "*"


class ProfileError(WorkbenchError):
    """A profile that cannot be used (unknown action, bad range); safe to show as is."""


def _title(s: str) -> str:
    return "_".join(p[:1].upper() + p[1:].lower() for p in s.split("_"))


@dataclass
class Profile:
    """Per-category action plus the knobs of the surrogate generators.

    * ``actions``: category -> action; ``type_actions``: fine type -> action (wins over the category).
    * ``categories``: the categories to de-identify at all (``None``: every category). Spans of
      other categories are left as they are and counted as ``keep``.
    * ``default_action``: for a category the profile does not name (a custom schema's) - redact,
      because an unknown kind of PHI must not pass through by accident.
    * ``placeholder``: template for ``redact`` (``{CATEGORY}``, ``{Category}``, ``{category}``,
      ``{TYPE}``, ``{Type}``, ``{type}``) or ``"*"`` for a length-preserving run of ``fill``;
      ``placeholders`` overrides it per category.
    * ``date_shift_days``, ``date_shift_min_days``: range of the per-patient date offset, and
      its smallest size (never 0). The default, one to three years either way, moves every
      year-only and month-only date to another year, so a shifted date cannot reproduce a real
      year of the patient by chance.
    * ``age_mode``: ``shift`` (by a per-patient offset in ``age_shift_years``, never 0) or
      ``band`` (another age in the same ``age_band``-year band). Ages over 89 become ``90+``.
    * ``locale``: locale of the surrogate lists and of ambiguous dates (``None``: the context's).
    * ``propagate``: also de-identify unannotated copies of a PHI value found elsewhere in the
      document (whole word, any case), including values annotated in the patient's other notes.
    * ``meta_keys``: the document metadata keys (JSONL ``meta``) an output may carry; every other
      key is dropped (default: none, because metadata such as ``patient_name`` or ``mrn`` is PHI
      the spans never mark). Ids are never copied: they become pseudonyms
      (:mod:`pipeline.deid.pseudonyms`).
    """

    name: str
    actions: dict[str, str] = field(default_factory=dict)
    type_actions: dict[str, str] = field(default_factory=dict)
    categories: list[str] | None = None
    default_action: str = "redact"
    placeholder: str = "[{CATEGORY}]"
    placeholders: dict[str, str] = field(default_factory=dict)
    fill: str = "*"
    date_shift_days: tuple[int, int] = (-1095, 1095)
    date_shift_min_days: int = 365
    age_mode: str = "shift"
    age_shift_years: tuple[int, int] = (-2, 2)
    age_band: int = 5
    locale: str | None = None
    propagate: bool = True
    meta_keys: list[str] = field(default_factory=list)
    description: str = ""

    def __post_init__(self) -> None:
        self.date_shift_days = tuple(int(x) for x in self.date_shift_days)  # type: ignore[assignment]
        self.age_shift_years = tuple(int(x) for x in self.age_shift_years)  # type: ignore[assignment]
        self.validate()

    # -- checks -------------------------------------------------------------------------------
    def validate(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ProfileError("a profile needs a name")
        where = f"profile {self.name!r}"
        for scope, mapping in (("category", self.actions), ("type", self.type_actions)):
            for key, action in mapping.items():
                if action not in ACTIONS:
                    raise ProfileError(f"{where}: {scope} {key!r} has unknown action {action!r}; "
                                       f"use one of {', '.join(ACTIONS)}")
        for cat, action in self.actions.items():
            if action not in self.allowed_actions(cat):     # (an unknown action was refused above)
                raise ProfileError(f"{where}: only {' and '.join(SHIFTABLE)} can be shifted, not {cat}")
        if self.default_action not in ACTIONS or self.default_action == "shift":
            raise ProfileError(f"{where}: default action must be redact, replace, paraphrase or keep")
        for label, rng in (("date_shift_days", self.date_shift_days), ("age_shift_years", self.age_shift_years)):
            if len(rng) != 2 or rng[0] > rng[1] or rng == (0, 0):
                raise ProfileError(f"{where}: {label} must be [low, high] with a non-zero value in it")
        if max(abs(x) for x in self.date_shift_days) > 36500:
            raise ProfileError(f"{where}: date_shift_days must stay within 100 years")
        lo, hi = self.date_shift_days
        m = max(1, int(self.date_shift_min_days))
        if not (lo <= -m or hi >= m):
            raise ProfileError(f"{where}: date_shift_days holds no offset of at least date_shift_min_days")
        if self.age_mode not in ("shift", "band"):
            raise ProfileError(f"{where}: age_mode must be 'shift' or 'band'")
        if not 2 <= int(self.age_band) <= 20:
            raise ProfileError(f"{where}: age_band must be between 2 and 20 years")
        if not isinstance(self.fill, str) or len(self.fill) != 1 or self.fill.isspace():
            raise ProfileError(f"{where}: fill must be one visible character")
        for tmpl in (self.placeholder, *self.placeholders.values()):
            self._check_template(tmpl)
        self._check_meta_keys(where)

    def _check_meta_keys(self, where: str) -> None:
        from pipeline.deid.pseudonyms import IDENTIFIER_KEYS

        if not isinstance(self.meta_keys, (list, tuple)) or not all(isinstance(k, str) and k for k in self.meta_keys):
            raise ProfileError(f"{where}: meta_keys must be a list of metadata key names")
        ids = sorted(set(self.meta_keys) & IDENTIFIER_KEYS)
        if ids:
            raise ProfileError(f"{where}: meta key {ids[0]!r} identifies a document or patient; it is always "
                               "pseudonymised, so it cannot be listed in meta_keys")
        self.meta_keys = list(self.meta_keys)

    def _check_template(self, tmpl: str) -> None:
        if tmpl == LENGTH_PRESERVING or tmpl in PLACEHOLDER_STYLES:
            return
        try:
            tmpl.format(**_fields("NAME", "PATIENT"))
        except (KeyError, IndexError, ValueError):
            raise ProfileError(f"profile {self.name!r}: placeholder template {tmpl!r} is not valid; "
                               "use {CATEGORY}, {Category}, {category}, {TYPE}, {Type}, {type}") from None

    @staticmethod
    def allowed_actions(category: str) -> tuple[str, ...]:
        """The actions a profile may give ``category``: the one list :meth:`validate` accepts and
        the app's profile forms offer. Every action, but ``shift`` only for dates and ages (which
        take ``replace`` and ``paraphrase`` too, as synonyms of ``shift``: see :meth:`action_for`).

        >>> Profile.allowed_actions("DATE"), Profile.allowed_actions("NAME")
        (('redact', 'replace', 'paraphrase', 'shift', 'keep'), ('redact', 'replace', 'paraphrase', 'keep'))
        """
        return tuple(a for a in ACTIONS if a != "shift" or category in SHIFTABLE)

    # -- decisions ----------------------------------------------------------------------------
    def action_for(self, category: str, type_: str = "") -> str:
        """The action for a span; ``replace`` or ``paraphrase`` of a date or age means ``shift``
        (dates stay dates: a shifted date keeps the intervals between a patient's dates, which
        a filled-in one would not), ``shift`` of anything else (possible only through
        ``type_actions``) means ``replace``."""
        if self.categories is not None and category not in self.categories:
            return "keep"
        action = self.type_actions.get(type_) if type_ else None
        if action is None:
            action = self.actions.get(category, self.default_action)
        if category in SHIFTABLE and action in ("replace", "paraphrase"):
            return "shift"
        if action == "shift" and category not in SHIFTABLE:
            return "replace"
        return action

    def uses_paraphrase(self) -> bool:
        """Whether some span can get the ``paraphrase`` action (a run then needs the project's
        masked language model, or falls back to list surrogates)."""
        actions = [*self.actions.items(), *((None, a) for a in self.type_actions.values()),
                   (None, self.default_action)]
        return any(a == "paraphrase" and cat not in SHIFTABLE for cat, a in actions)

    def with_list_surrogates(self) -> "Profile":
        """The same profile with every ``paraphrase`` turned into ``replace``: the list-surrogate
        baseline a paraphrase run is compared with."""
        d = self.to_dict()
        for key in ("actions", "type_actions"):
            d[key] = {k: ("replace" if a == "paraphrase" else a) for k, a in d[key].items()}
        if d["default_action"] == "paraphrase":
            d["default_action"] = "replace"
        d["name"] = f"{self.name} (list surrogates)"
        return Profile.from_json(d)

    def placeholder_for(self, category: str, type_: str, original: str) -> str:
        tmpl = self.placeholders.get(category, self.placeholder)
        tmpl = PLACEHOLDER_STYLES.get(tmpl, tmpl)
        if tmpl == LENGTH_PRESERVING:
            return "".join(c if c in "\r\n" else self.fill for c in original)
        return tmpl.format(**_fields(category, type_))

    # -- persistence --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        d = asdict(self)
        d["date_shift_days"] = list(self.date_shift_days)
        d["age_shift_years"] = list(self.age_shift_years)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, data: "str | dict") -> "Profile":
        try:
            obj = json.loads(data) if isinstance(data, str) else dict(data)
        except json.JSONDecodeError as e:
            raise ProfileError(f"profile JSON is malformed at line {e.lineno}, column {e.colno}: {e.msg}") from None
        if not isinstance(obj, dict):
            raise ProfileError("profile JSON must be an object")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(obj) - known)
        if unknown:
            raise ProfileError(f"profile JSON has unknown fields: {', '.join(unknown)}")
        for key in ("actions", "type_actions", "placeholders"):
            if key in obj and not isinstance(obj[key], dict):
                raise ProfileError(f"profile JSON: {key!r} must be an object")
        if obj.get("categories") is not None and not isinstance(obj["categories"], list):
            raise ProfileError("profile JSON: 'categories' must be a list or null")
        if "meta_keys" in obj and not isinstance(obj["meta_keys"], list):
            raise ProfileError("profile JSON: 'meta_keys' must be a list of key names")
        try:
            return cls(**obj)
        except TypeError as e:
            raise ProfileError(f"profile JSON: {e}") from None


def _fields(category: str, type_: str) -> dict[str, str]:
    t = type_ or category
    return {"CATEGORY": category.upper(), "Category": _title(category), "category": category.lower(),
            "TYPE": t.upper(), "Type": _title(t), "type": t.lower()}


def builtin_profiles() -> dict[str, Profile]:
    """``redact``: every category becomes a placeholder. ``replace``: names, professions,
    locations, contacts and ids get surrogates, dates and ages are shifted, OTHER (sex, family
    members, free descriptions) is redacted because no surrogate keeps its meaning.
    ``paraphrase``: as ``replace``, but the surrogates are infilled in context by the project's
    masked language model (list surrogates where there is none)."""
    redact = Profile(name="redact", actions={c: "redact" for c in COARSE_CATEGORIES},
                     description="every PHI span becomes a [CATEGORY] placeholder")
    replace = Profile(
        name="replace",
        actions={"NAME": "replace", "PROFESSION": "replace", "LOCATION": "replace", "CONTACT": "replace",
                 "ID": "replace", "DATE": "shift", "AGE": "shift", "OTHER": "redact"},
        description="realistic surrogates; dates and ages shifted per patient; OTHER redacted",
    )
    paraphrase = Profile(
        name="paraphrase",
        actions={"NAME": "paraphrase", "PROFESSION": "paraphrase", "LOCATION": "paraphrase",
                 "CONTACT": "paraphrase", "ID": "paraphrase", "DATE": "shift", "AGE": "shift", "OTHER": "redact"},
        description="surrogates infilled in context by the project's language model (list surrogates without "
                    "one); dates and ages shifted per patient; OTHER redacted",
    )
    return {"redact": redact, "replace": replace, "paraphrase": paraphrase}


def load_profile(name_or_path: str) -> Profile:
    """A built-in profile by name, or one saved as JSON at a path."""
    builtins = builtin_profiles()
    if name_or_path in builtins:
        return builtins[name_or_path]
    p = Path(name_or_path)
    if not p.is_file():
        raise ProfileError(f"unknown profile {name_or_path!r}: use {', '.join(builtins)} or a JSON file")
    return Profile.from_json(p.read_text(encoding="utf-8"))
