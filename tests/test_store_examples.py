"""The store's docstring examples: every public function has one, and every one of them runs.

The examples are written for a reader to copy into a Python shell started in the repository root
(``>>> import store``, ``>>> db = store.connect(":memory:")``...); here they run as doctests, so
an example that no longer matches what the store does fails CI instead of misleading a reader.
Their text is synthetic ("Seen by Dr Wu in Boston on 2070-01-02."), so a failure report that
quotes an example's output shows no PHI.
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import io
import pkgutil

import pytest

import store
from store.db import REPO_ROOT

OPTIONFLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

STORE_MODULES = sorted(f"store.{m.name}" for m in pkgutil.iter_modules(store.__path__))


def _database_files_in_repository() -> set[str]:
    """SQLite files an example could leave in the checkout: the default database and ``*.db`` files
    beside the code (examples must use ``:memory:`` or a temporary folder)."""
    found = {str(p.relative_to(REPO_ROOT)) for folder in (REPO_ROOT, REPO_ROOT / "store", REPO_ROOT / "var")
             for p in folder.glob("*.db*")}
    default = store.default_db_path()
    if default.exists():
        found.add(str(default))
    return found


def _public_store_functions() -> dict[str, object]:
    return {name: getattr(store, name) for name in store.__all__ if inspect.isfunction(getattr(store, name))}


def _own_public_functions(module) -> list[str]:
    """Functions defined in ``module`` itself (not imported into it) whose names are public."""
    return sorted(name for name, obj in vars(module).items()
                  if inspect.isfunction(obj) and not name.startswith("_") and obj.__module__ == module.__name__)


def test_every_public_store_function_has_a_docstring_example():
    functions = _public_store_functions()
    assert functions, "store.__all__ names no functions: the check below would pass vacuously"
    missing = sorted(name for name, fn in functions.items() if ">>> " not in (inspect.getdoc(fn) or ""))
    assert not missing, (f"{len(missing)} of the {len(functions)} public functions of store have no example "
                         f"('>>> ' lines) in their docstring: {', '.join(missing)}")


def test_every_public_store_module_is_checked_for_examples():
    """The modules that define the functions of ``store.__all__`` are all among those whose doctests run."""
    defining = {fn.__module__ for fn in _public_store_functions().values()}
    unchecked = sorted(defining - set(STORE_MODULES))
    assert not unchecked, f"functions of store.__all__ are defined in modules outside store/: {unchecked}"


@pytest.mark.parametrize("module_name", STORE_MODULES)
def test_docstring_examples_of_store_module_run_and_match(module_name):
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=OPTIONFLAGS, verbose=False)
    report = io.StringIO()
    before = _database_files_in_repository()
    for test in finder.find(module, module_name):
        runner.run(test, out=report.write)
    left_behind = sorted(_database_files_in_repository() - before)
    assert runner.failures == 0, (f"{runner.failures} of {runner.tries} docstring examples of {module_name} "
                                  f"failed:\n{report.getvalue()}")
    functions = _own_public_functions(module)
    if functions:
        assert runner.tries > 0, (f"{module_name} defines public functions ({', '.join(functions)}) but no "
                                  "docstring example of it ran")
    assert not left_behind, f"the examples of {module_name} left database files in the checkout: {left_behind}"
