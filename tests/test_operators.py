"""De-identification operators as registered units (pipeline.deid.operators): each one alone, the
registry the engine dispatches through, and the one list of actions a category may take.

The note is made up; assertions compare actions, flags and offsets, never print text.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pipeline.deid import DeidContext, Original, Profile, ProfileError, deidentify
from pipeline.deid.context import DocState
from pipeline.deid.normalize import norm_key
from pipeline.deid.operators import (OPERATORS, DocRewrite, Operator, Outcome, fixed_text, operator_for,
                                     prepare_document, rewrites)
from pipeline.deid.profile import ACTIONS, SHIFTABLE
from pipeline.spans import Document, Span

REPO = Path(__file__).resolve().parents[1]
SECRET = b"operators-test-secret-0123456789"
TEXT = "Paciente  Juan Perez , ingresado el 12/03/2014 con 45 años; Navidad ; varón."


def _span(piece: str, category: str, type_: str = "") -> Span:
    start = TEXT.index(piece)
    return Span("d", start, start + len(piece), category, type_)


SPANS = [_span(" Juan Perez ", "NAME"), _span("12/03/2014", "DATE"), _span("45 años", "AGE"),
         _span("Navidad", "DATE"), _span("varón", "OTHER")]
NAME, DATE, AGE, BAD_DATE, OTHER = range(len(SPANS))


def _run(profile: Profile | None = None, secret: bytes = SECRET) -> DocRewrite:
    profile = profile or Profile(name="t")
    originals = [Original(s.category, s.type, TEXT[s.start:s.end], profile.action_for(s.category) == "keep")
                 for s in SPANS]
    return DocRewrite(TEXT, SPANS, originals, profile, DeidContext(secret=secret, locale="es"), DocState(originals),
                      "patient-1", "es")


# -- the registry -------------------------------------------------------------------------------

def test_every_profile_action_has_one_registered_operator():
    assert list(OPERATORS) == list(ACTIONS)
    for name, op in OPERATORS.items():
        assert isinstance(op, Operator) and op.name == name and op.description
        assert operator_for(name) is op
    assert [a for a in ACTIONS if not rewrites(a)] == ["keep"]
    assert [a for a in ACTIONS if fixed_text(a)] == ["redact", "keep"]


def test_an_unknown_action_has_no_operator():
    with pytest.raises(ProfileError) as e:
        operator_for("obfuscate")
    assert "obfuscate" in str(e.value)


def test_the_engine_dispatches_through_the_registry(monkeypatch):
    def gone(run: DocRewrite, i: int) -> Outcome:
        return Outcome("<gone>", "redact")

    monkeypatch.setitem(OPERATORS, "redact", Operator("redact", gone, fixed_text=True))
    doc = Document("d", TEXT, spans=list(SPANS))
    r = deidentify(doc, None, Profile(name="all", default_action="redact", propagate=False), DeidContext(secret=SECRET))
    assert [r.text[s.start:s.end] for s in r.spans] == ["<gone>"] * len(SPANS)
    assert r.actions == ["redact"] * len(SPANS) and r.leaks == []


# -- each operator alone --------------------------------------------------------------------------

def test_keep_writes_the_original():
    run = _run()
    out = operator_for("keep")(run, NAME)
    assert out == Outcome(run.originals[NAME].text, "keep")


def test_redact_writes_the_profile_placeholder():
    out = operator_for("redact")(_run(Profile(name="t", placeholder="[{CATEGORY}]")), DATE)
    assert out == Outcome("[DATE]", "redact")
    stars = operator_for("redact")(_run(Profile(name="t", placeholder="*")), NAME)
    assert len(stars.text) == SPANS[NAME].end - SPANS[NAME].start and set(stars.text) == {"*"}


def test_replace_writes_a_keyed_list_surrogate_keeping_the_spaces():
    run = _run()
    out = operator_for("replace")(run, NAME)
    original = run.originals[NAME].text
    assert out.action == "replace" and not out.fallback and not out.unparseable
    assert out.text.startswith(" ") and out.text.endswith(" ") and out.text.strip()
    assert norm_key(out.text) != norm_key(original)
    assert out.quality is not None and out.quality.category == "NAME" and not out.quality.same
    assert operator_for("replace")(_run(), NAME) == out                      # same secret, same surrogate
    assert operator_for("replace")(_run(secret=b"another-secret-0123456789abcdef"), NAME).text != out.text


def test_replace_without_a_generator_falls_back_to_the_placeholder():
    out = operator_for("replace")(_run(), OTHER)
    assert out == Outcome("[OTHER]", "redact", fallback=True)


def test_shift_moves_a_date_and_redacts_an_unparseable_one():
    run = _run()
    out = operator_for("shift")(run, DATE)
    assert out.action == "shift" and out.quality is not None and out.text != run.originals[DATE].text
    assert out.text.count("/") == 2 and len(out.text) == len(run.originals[DATE].text)
    bad = operator_for("shift")(run, BAD_DATE)
    assert bad == Outcome("[DATE]", "redact", fallback=True, unparseable=True)
    age = operator_for("shift")(run, AGE)
    assert age.action == "shift" and age.text.endswith(" años") and age.text != run.originals[AGE].text


def test_paraphrase_without_a_fill_is_replace():
    run = _run(Profile(name="t", actions={"NAME": "paraphrase"}))
    prepare_document(run)                       # no model: every paraphrase span falls back
    assert run.paraphrase.fills == {} and run.paraphrase.fallbacks == {NAME: "no_model"}
    assert operator_for("paraphrase")(run, NAME) == operator_for("replace")(run, NAME)


def test_paraphrase_writes_the_models_fill_unless_it_is_the_original():
    run = _run()
    run.paraphrase.fills[NAME] = "Pedro Gomez"
    out = operator_for("paraphrase")(run, NAME)
    assert out.text == " Pedro Gomez " and out.action == "paraphrase" and out.quality.action == "paraphrase"
    run.paraphrase.fills[NAME] = "juan perez"     # the original (normalised): never written
    assert operator_for("paraphrase")(run, NAME) == Outcome("[NAME]", "redact", fallback=True)


def test_prepare_without_paraphrase_spans_leaves_nothing():
    run = _run(Profile(name="t", default_action="replace"))
    prepare_document(run)
    assert run.paraphrase.fills == {} and run.paraphrase.fallbacks == {}


# -- which actions a category may take --------------------------------------------------------------

def test_allowed_actions_is_what_validation_accepts():
    for cat in ("NAME", "DATE", "AGE", "LOCATION", "OTHER", "CUSTOM"):
        allowed = Profile.allowed_actions(cat)
        assert ("shift" in allowed) == (cat in SHIFTABLE)
        assert set(allowed) | {"shift"} == set(ACTIONS)
        for action in ACTIONS:
            if action in allowed:
                Profile(name="t", actions={cat: action})
            else:
                with pytest.raises(ProfileError) as e:
                    Profile(name="t", actions={cat: action})
                assert str(e.value) == f"profile 't': only DATE and AGE can be shifted, not {cat}"


def test_pages_offer_the_profiles_one_list():
    for page in ("pages/admin.py", "dashboard/deidentify_profile.py"):
        src = (REPO / page).read_text(encoding="utf-8")
        assert "Profile.allowed_actions(cat)" in src, page
        assert "ACTIONS" not in src, page          # no list of its own


# -- the engine has no branch on operator names -------------------------------------------------------

def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_engine_compares_no_action_names():
    tree = ast.parse((REPO / "pipeline" / "deid" / "engine.py").read_text(encoding="utf-8"))
    compared = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            compared |= _strings(node)
        elif isinstance(node, (ast.If, ast.IfExp, ast.While)):
            compared |= _strings(node.test)
        elif isinstance(node, ast.Match):
            compared |= _strings(node)
    assert not compared & set(ACTIONS), sorted(compared & set(ACTIONS))
