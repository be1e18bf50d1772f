"""The runnable examples in the docstrings of pipeline/ and services/ (the store's own are
checked in ``test_store_examples.py``): every module whose source shows one is run by doctest,
so an example that no longer matches the code fails CI."""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules_with_examples() -> list[str]:
    out = []
    for pkg in ("pipeline", "services", "cli"):
        for p in sorted((ROOT / pkg).rglob("*.py")):
            if p.name == "__main__.py" or ">>> " not in p.read_text(encoding="utf-8"):
                continue
            rel = p.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out.append(".".join(parts))
    return out


MODULES = _modules_with_examples()


def test_the_examples_are_found():
    assert {"pipeline.layers", "pipeline.spans", "services.settings"} <= set(MODULES), MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False,
                             report=False)
    assert result.attempted > 0, f"{name}: no example ran"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} example(s) failed (run python -m doctest -v on it)"
