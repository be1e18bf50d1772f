"""Profiles: actions per category/type, placeholders, validation, JSON round trip."""
from __future__ import annotations

import json

import pytest

from pipeline.deid.profile import Profile, ProfileError, builtin_profiles, load_profile
from pipeline.errors import is_user_error
from pipeline.schemas import COARSE_CATEGORIES


def test_builtins():
    p = builtin_profiles()
    assert set(p) == {"redact", "replace", "paraphrase"}
    assert all(p["redact"].action_for(c) == "redact" for c in COARSE_CATEGORIES)
    r = p["replace"]
    assert [r.action_for(c) for c in ("NAME", "LOCATION", "CONTACT", "ID")] == ["replace"] * 4
    assert r.action_for("DATE") == "shift" and r.action_for("AGE") == "shift"
    para = p["paraphrase"]          # the same choices, with paraphrase where replace infills
    assert all(para.action_for(c) == ("paraphrase" if a == "replace" else a)
               for c, a in ((c, r.action_for(c)) for c in COARSE_CATEGORIES))


def test_type_actions_override_and_category_selection():
    p = Profile(name="mine", actions={"NAME": "replace", "OTHER": "redact"},
                type_actions={"SEXO_SUJETO_ASISTENCIA": "keep", "DOCTOR": "redact"},
                categories=["NAME", "OTHER", "DATE"])
    assert p.action_for("OTHER", "SEXO_SUJETO_ASISTENCIA") == "keep"
    assert p.action_for("OTHER", "FAMILIARES_SUJETO_ASISTENCIA") == "redact"
    assert p.action_for("NAME", "DOCTOR") == "redact"
    assert p.action_for("NAME", "PATIENT") == "replace"
    assert p.action_for("LOCATION", "CITY") == "keep"       # not selected
    assert p.action_for("DATE") == "redact"                  # selected, not named: default action
    assert p.action_for("DATE", "") == "redact"


def test_replace_means_shift_for_dates_and_ages():
    p = Profile(name="x", actions={"DATE": "replace", "AGE": "replace"})
    assert p.action_for("DATE") == "shift" and p.action_for("AGE") == "shift"
    q = Profile(name="y", type_actions={"CITY": "shift"})
    assert q.action_for("LOCATION", "CITY") == "replace"


@pytest.mark.parametrize("template,expected", [
    ("brackets", "[NAME]"), ("[{CATEGORY}]", "[NAME]"), ("xxx", "XXX-Name"), ("XXX-{Category}", "XXX-Name"),
    ("angle", "<Name_Patient>"), ("<{Category}_{Type}>", "<Name_Patient>"), ("{type}", "patient"),
])
def test_placeholders(template, expected):
    p = Profile(name="x", placeholder=template)
    assert p.placeholder_for("NAME", "PATIENT", "John Smith") == expected


def test_length_preserving_placeholder_keeps_line_breaks():
    p = Profile(name="x", placeholder="stars")
    assert p.placeholder_for("NAME", "PATIENT", "John Smith") == "*" * 10
    assert p.placeholder_for("LOCATION", "STREET", "12 Main\nStreet") == "*******\n******"
    assert Profile(name="y", placeholder="*", fill="#").placeholder_for("ID", "", "1234") == "####"


def test_placeholder_per_category():
    p = Profile(name="x", placeholders={"DATE": "xxx"})
    assert p.placeholder_for("DATE", "DATE", "2070") == "XXX-Date"
    assert p.placeholder_for("NAME", "PATIENT", "Jo") == "[NAME]"


def test_json_round_trip(tmp_path):
    p = Profile(name="custom", actions={"NAME": "replace", "DATE": "shift"}, type_actions={"CITY": "keep"},
                categories=["NAME", "DATE", "LOCATION"], placeholder="angle", date_shift_days=(-30, 30),
                date_shift_min_days=7, age_mode="band", age_band=10, locale="es", propagate=False)
    q = Profile.from_json(p.to_json())
    assert q == p
    assert json.loads(p.to_json())["date_shift_days"] == [-30, 30]
    path = tmp_path / "p.json"
    path.write_text(p.to_json(), encoding="utf-8")
    assert load_profile(str(path)) == p
    assert load_profile("redact").name == "redact"


@pytest.mark.parametrize("bad", [
    '{"name": "x", "actions": {"NAME": "obliterate"}}',
    '{"name": "x", "actions": {"NAME": "shift"}}',
    '{"name": "x", "default_action": "shift"}',
    '{"name": "x", "date_shift_days": [5, -5]}',
    '{"name": "x", "date_shift_days": [0, 0]}',
    '{"name": "x", "date_shift_days": [-10, 10], "date_shift_min_days": 20}',
    '{"name": "x", "age_mode": "fuzz"}',
    '{"name": "x", "placeholder": "{NOPE}"}',
    '{"name": "x", "colour": "red"}',
    '{"name": "x", "actions": []}',
    '{"name": ""}',
    '[1, 2]',
    '{"name": "x",',
])
def test_invalid_profiles_raise_user_errors(bad):
    with pytest.raises(ProfileError) as e:
        Profile.from_json(bad)
    assert is_user_error(e.value)


def test_unknown_profile_name(tmp_path):
    with pytest.raises(ProfileError):
        load_profile(str(tmp_path / "missing.json"))
