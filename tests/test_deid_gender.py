"""Surrogate given names keep the original's sex when the locale lists know it.

Names here are taken from the shipped word lists or made up for the test, not document text.
"""
from __future__ import annotations

import pytest

from pipeline.deid.context import DeidContext
from pipeline.deid.names import name_surrogate, surrogate_part
from pipeline.deid.normalize import norm_key
from pipeline.locales import available_lists, load_list
from tests.test_deid_surrogates import SECRET, gen, sctx

SECRETS = [SECRET, b"another-secret-0123456789", b"a-third-secret-for-gender-tests"]
PIDS = [f"P{i}" for i in range(40)]


def keys(locale: str, name: str) -> set[str]:
    return {norm_key(x) for x in load_list(locale, name)}


def surrogates(original: str, locale: str) -> list[str]:
    """The given-name surrogate of ``original`` for many patients and secrets."""
    return [surrogate_part(original, sctx("NAME", "PATIENT", locale=locale, pid=pid, secret=secret))
            for secret in SECRETS for pid in PIDS]


@pytest.mark.parametrize("locale", ["en", "es"])
def test_sex_lists_are_disjoint_subsets_of_first_names(locale):
    assert {"first_names_female", "first_names_male"} <= set(available_lists(locale))
    first, female, male = (keys(locale, n) for n in ("first_names", "first_names_female", "first_names_male"))
    assert female and male
    assert female <= first and male <= first
    assert not female & male
    for unisex in {"en": ("Jordan", "Taylor"), "es": ("Guadalupe", "Trinidad")}[locale]:
        assert norm_key(unisex) not in female | male


@pytest.mark.parametrize("locale, original, sex", [
    ("en", "Kyle", "male"), ("en", "Monica", "female"), ("en", "Mary", "female"),
    ("es", "María", "female"), ("es", "José", "male"), ("es", "JOSE", "male"),
])
def test_known_sex_gets_a_same_sex_surrogate(locale, original, sex):
    same = keys(locale, f"first_names_{sex}")
    assert norm_key(original) in same
    outs = surrogates(original, locale)
    assert all(norm_key(o) in same and norm_key(o) != norm_key(original) for o in outs)
    assert len({norm_key(o) for o in outs}) > 10      # still spread over the list, not one fixed name


def test_kin_example_keeps_sex_in_a_full_name():
    female = keys("en", "first_names_female")
    for pid in PIDS:
        out = gen("NAME", "PATIENT", "Kyle", pid=pid)
        assert norm_key(out) in keys("en", "first_names_male") and norm_key(out) not in female


def test_unknown_sex_can_get_any_first_name():
    first, female, male = (keys("en", n) for n in ("first_names", "first_names_female", "first_names_male"))
    assert norm_key("Jordan") in first and norm_key("Jordan") not in female | male
    outs = {norm_key(o) for o in surrogates("Jordan", "en")}
    assert outs <= first
    assert outs & female and outs & male


def test_sex_unknown_without_lists_behaves_as_before():
    """A locale (or loader) without the sex lists draws from the whole first-name pool, as before."""
    def no_sex_lists(loc, name):
        if name.startswith("first_names_"):
            raise KeyError(name)
        return load_list(loc, name)

    female = keys("en", "first_names_female")
    outs = []
    for pid in PIDS:
        deid = DeidContext(secret=SECRET, locale="en", list_loader=no_sex_lists)
        outs.append(norm_key(surrogate_part("Kyle", sctx("NAME", "PATIENT", pid=pid, deid=deid))))
    assert set(outs) <= keys("en", "first_names") and set(outs) & female


@pytest.mark.parametrize("locale, full, given", [("en", "Kyle Smith", "Kyle"), ("es", "María García", "María")])
def test_same_original_same_patient_same_surrogate(locale, full, given):
    deid = DeidContext(secret=SECRET, locale=locale)
    ctx = lambda: sctx("NAME", "PATIENT", locale=locale, pid="P7", deid=deid)   # noqa: E731
    a = name_surrogate(full, ctx())
    b = name_surrogate(full, ctx())
    alone = surrogate_part(given, ctx())
    fresh = surrogate_part(given, sctx("NAME", "PATIENT", locale=locale, pid="P7"))   # a new run, same secret
    assert a == b
    assert a.split()[0] == alone == fresh


def test_falls_back_to_the_whole_pool_when_no_same_sex_name_is_acceptable():
    """Every male name is a real value of the document: the pick comes from today's pool."""
    male = load_list("en", "first_names_male")
    values = [("NAME", "PATIENT", n) for n in male]
    out = surrogate_part("Kyle", sctx("NAME", "PATIENT", values=values))
    assert norm_key(out) not in keys("en", "first_names_male")
    assert norm_key(out) in keys("en", "first_names")
