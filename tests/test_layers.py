"""The layering of the code base, checked on every module's imports (module-level and inside
functions alike), so the floor plan in ``docs/architecture.md`` stays true:

    pages/, streamlit_app.py, dashboard/   cli/
                      \\                      /
                       services/  (use-cases: open the store, check permissions)
                      /     |      \\
               models/  pipeline/  store/
                   ^____/    ^______/   store uses only pipeline's core types

* ``pipeline/`` is pure: it never imports ``store``, ``services``, ``cli`` or the UI. Only the
  detector (which loads trained versions) and the engines (which run the detector) import
  ``models``; ``pipeline/__main__.py`` only launches the command line.
* ``models/`` uses pipeline's pure pieces but never the detector that loads models.
* ``store/`` uses only pipeline's core types (spans, schemas, errors, layer names, fsync) and the
  installation key file (``pipeline.deid.secret``: the audit chain is keyed from it).
* pages, ``dashboard/`` and ``cli/`` reach the store only through ``services/``.
* No two modules import each other, directly or round a longer circle.

What counts as an import: ``import x`` and ``from x import y`` anywhere in a module; relative
imports (``from . import y``, ``from ..detection import detector``), resolved against the
module's package; and ``importlib.import_module`` / ``__import__`` called with a literal name
(for an f-string, its literal head: ``f"store.{x}"`` is an import of ``store``). The set of
top-level packages is read from the tree, so a new one fails until it is given a place in
:data:`LAYER` (or :data:`HARNESSES`) here and in the architecture page's table.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: every top-level package (or module) of the app and the layer it sits in: the table in
#: ``docs/architecture.md`` ("ui" is pages/, dashboard/, streamlit_app.py and workbench_app.py together)
LAYER = {"pipeline": "pipeline", "models": "models", "store": "store", "services": "services",
         "dashboard": "ui", "pages": "ui", "streamlit_app": "ui", "workbench_app": "ui", "cli": "cli",
         "deidkit": "api"}
#: outside the floor plan: they may import any of the code, and no module of the app imports them
HARNESSES = {"tests": "pytest's tests and their helpers",
             "benchmarks": "measuring scripts, each a process of its own"}
#: top-level folders that hold no code of ours whatever they contain (.gitignore'd data, run
#: and test output folders); hidden folders, ``__pycache__`` and virtual environments
#: (recognised by their ``pyvenv.cfg``) are skipped as well
NOT_CODE = {"data", "var", "test-artifacts", "build"}   # build/: what `pip install .` leaves

#: ``pipeline.deid.secret``: the installation key file, from which the store derives the audit chain's key
STORE_MAY_USE = {"pipeline.spans", "pipeline.schemas", "pipeline.errors", "pipeline.durable", "pipeline.layers",
                 "pipeline.deid.secret"}
MODEL_LOADERS = ("pipeline.detection.detector", "pipeline.engines")   # may import models
UI = ("dashboard", "pages", "streamlit_app", "workbench_app")
DYNAMIC = {"import_module", "__import__"}   # callables that import the module their first argument names
BEYOND_TOP = "<relative import beyond its top-level package>"


# ------------------------------------------------------------------------------ the tree
def top_level(root: Path) -> set[str]:
    """The top-level packages and modules under ``root``: every folder holding a ``.py`` file
    (at any depth) and every ``.py`` file beside them."""
    out = set()
    for p in root.iterdir():
        if p.name.startswith((".", "_")) or p.name in NOT_CODE:
            continue
        if p.is_dir() and not (p / "pyvenv.cfg").exists() and next(p.rglob("*.py"), None) is not None:
            out.add(p.name)
        elif p.is_file() and p.suffix == ".py":
            out.add(p.stem)
    return out


def unplaced(root: Path) -> list[str]:
    """Top-level packages nobody has placed in the layer table (nor among the harnesses)."""
    return sorted(top_level(root) - set(LAYER) - set(HARNESSES))


def _module_name(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules(root: Path = ROOT) -> dict[str, Path]:
    out = {}
    for top in sorted(top_level(root)):
        if (root / top).is_dir():
            for p in (root / top).rglob("*.py"):
                out[_module_name(p, root)] = p
        else:
            out[top] = root / f"{top}.py"
    return out


MODULES = _modules()
FIRST_PARTY = top_level(ROOT)


def _top(module: str) -> str:
    return module.split(".")[0]


def _resolve(name: str) -> str:
    """The first-party module an imported dotted name lands in (``a.b.func`` -> ``a.b``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


# ------------------------------------------------------------------------------ what a module imports
def _relative(module: str, is_package: bool, level: int, name: str | None) -> str:
    """``from {'.' * level}{name} import ...`` in ``module``, as an absolute name."""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 >= len(parts):
        return BEYOND_TOP                               # Python refuses it; so do we
    base = parts[:len(parts) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _literal_name(node: ast.expr) -> str | None:
    """A string constant, or an f-string's literal head up to its last complete dotted part."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        head = str(node.values[0].value)
        return head.rpartition(".")[0] or None
    return None


def _dynamic(node: ast.Call, module: str, is_package: bool) -> list[str]:
    """The names an ``importlib.import_module(...)`` or ``__import__(...)`` call imports."""
    f = node.func
    fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    if fname not in DYNAMIC or not node.args:
        return []
    name = _literal_name(node.args[0])
    if not name:
        return []
    kw = {k.arg: k.value for k in node.keywords if k.arg}
    if fname == "import_module" and name.startswith("."):
        level = len(name) - len(name.lstrip("."))
        pkg = node.args[1] if len(node.args) > 1 else kw.get("package")
        if isinstance(pkg, ast.Name) and pkg.id == "__package__":
            return [_relative(module, is_package, level, name.lstrip(".") or None)]
        if isinstance(pkg, ast.Constant) and isinstance(pkg.value, str):
            return [_relative(pkg.value, True, level, name.lstrip(".") or None)]
        return []
    if fname == "__import__":
        level = node.args[4] if len(node.args) > 4 else kw.get("level")
        if isinstance(level, ast.Constant) and isinstance(level.value, int) and level.value > 0:
            name = _relative(module, is_package, level.value, name)
        fromlist = node.args[3] if len(node.args) > 3 else kw.get("fromlist")
        if isinstance(fromlist, (ast.List, ast.Tuple)):
            subs = [e.value for e in fromlist.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            return [name] + [f"{name}.{s}" for s in subs if name != BEYOND_TOP]
    return [name]


def _imported_names(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module if node.level == 0 else _relative(module, is_package, node.level, node.module)
        if base == BEYOND_TOP:
            return [BEYOND_TOP]
        return [f"{base}.{a.name}" if base else a.name for a in node.names]
    if isinstance(node, ast.Call):
        return _dynamic(node, module, is_package)
    return []


def imports(source: str, module: str, *, is_package: bool = False) -> list[tuple[str, int]]:
    """(first-party module, line) for every import in ``source``, read as module ``module``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        for n in _imported_names(node, module, is_package):
            if n == BEYOND_TOP:
                out.append((n, node.lineno))
            elif _top(n) in FIRST_PARTY and (target := _resolve(n)):
                out.append((target, node.lineno))
    return out


def _file_imports(module: str, path: Path) -> list[tuple[str, int]]:
    return imports(path.read_text(encoding="utf-8"), module, is_package=path.name == "__init__.py")


LAYERED = {m: p for m, p in MODULES.items() if _top(m) not in HARNESSES}
GRAPH = {m: _file_imports(m, p) for m, p in LAYERED.items()}


# ------------------------------------------------------------------------------ the rules
def _within(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def allowed(src: str, dst: str) -> bool:
    """Whether module ``src`` may import module ``dst`` (both first-party)."""
    if dst == BEYOND_TOP or _top(src) not in LAYER or _top(dst) not in LAYER:
        return False                                    # unplaced packages, and nobody imports a harness
    if _within(dst, src.split(".")[0]) and not _within(src, "pipeline", "models"):
        return True                                     # inside one's own layer
    if _within(src, "pipeline"):
        if src == "pipeline.__main__":                  # explicit exception: `python -m pipeline`
            return _within(dst, "cli", "pipeline")      # launches the CLI
        if _within(dst, "models"):                      # explicit exception: the detector and the
            return _within(src, *MODEL_LOADERS)         # engines load and run models
        return _within(dst, "pipeline")
    if _within(src, "models"):
        return _within(dst, "models") or (_within(dst, "pipeline") and not _within(dst, *MODEL_LOADERS))
    if _within(src, "store"):
        return _within(dst, "store") or dst in STORE_MAY_USE
    if _within(src, "services"):
        return _within(dst, "services", "store", "pipeline", "models")
    if _within(src, *UI):
        return _within(dst, "dashboard", "services", "pipeline")
    if _within(src, "cli"):
        return _within(dst, "cli", "services", "pipeline", "models")
    if _within(src, "deidkit"):                         # the Python API: beside cli/, over the same layers
        return _within(dst, "deidkit", "services", "pipeline", "models")
    return False


def violations(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """``line: imports target`` for each import in ``source`` (as ``module``) against the layering."""
    return [f"{line}: imports {dst}" for dst, line in imports(source, module, is_package=is_package)
            if not allowed(module, dst)]


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of a graph (Tarjan's strongly connected components of two or more)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for m in sorted(edges):
        if m not in index:
            visit(m)
    return found


# ------------------------------------------------------------------------------ the tree obeys
def test_every_top_level_package_has_a_place_in_the_layers():
    assert not unplaced(ROOT), ("top-level packages with no place in the layering (add them to LAYER or "
                                "HARNESSES here and to docs/architecture.md): " + ", ".join(unplaced(ROOT)))


def test_every_import_points_down_the_layers():
    wrong = [f"{LAYERED[src].relative_to(ROOT)}:{line} imports {dst}"
             for src, edges in GRAPH.items() for dst, line in edges if not allowed(src, dst)]
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def test_no_module_imports_itself_round_a_circle():
    found = circles({m: {d for d, _ in e if d != m} for m, e in GRAPH.items()})
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


# ------------------------------------------------------------------------------ the guard can fail
def test_the_rules_themselves_catch_what_they_forbid():
    """The checker must be able to fail: these imports are the ones the restructure removed."""
    assert not allowed("pipeline.annotation.queue", "store")
    assert not allowed("pipeline.deid.secret", "store.db")
    assert not allowed("models.trainer", "pipeline.detection.detector")
    assert not allowed("pipeline.detection.combine", "models.registry")
    assert not allowed("pages.admin", "store")
    assert not allowed("dashboard.components", "store.jobs")
    assert not allowed("cli.commands.users", "store")
    assert not allowed("store.layers", "pipeline.detection.rules")
    assert not allowed("pipeline.engines.ray_engine", "cli.console")
    assert not allowed("services.training", "pages.train")
    assert not allowed("services.demo", "tests.conftest") and not allowed("pipeline.spans", "benchmarks.deid_speed")
    assert allowed("pipeline.detection.detector", "models.registry")
    assert allowed("models.crf", "pipeline.detection.rules")
    assert allowed("pages.train", "services.training") and allowed("cli.commands.stats", "services.projects")
    assert allowed("pipeline.__main__", "cli")
    assert allowed("deidkit.model", "services.table_deid") and not allowed("deidkit.model", "store")
    assert not allowed("services.imports", "deidkit")


def test_detection_and_locale_packs_never_import_de_identification():
    """Detection and de-identification meet only at spans: the words and text folding both read
    live in ``pipeline.locales.shared_words`` and ``pipeline.text_fold``, not in ``pipeline.deid``."""
    found = [f"{src} {line}: imports {dst}" for src, edges in GRAPH.items()
             if _within(src, "pipeline.detection", "pipeline.locales")
             for dst, line in edges if _within(dst, "pipeline.deid")]
    assert found == []
    planted = imports("from pipeline.deid.normalize import norm_key\n", "pipeline.locales.en.ward_steps")
    assert [d for d, _ in planted] == ["pipeline.deid.normalize"]


def test_the_graph_sees_function_level_imports():
    """A function-local ``import store`` counts like one at the top (they were the old loophole)."""
    src = ("import json\n\ndef f():\n    import store\n    from pipeline.detection import detector\n"
           "    from pipeline.spans import Span\n")
    assert {d for d, _ in imports(src, "probe")} == {"store", "pipeline.detection.detector", "pipeline.spans"}
    assert violations(src, "pipeline.annotation.queue") == ["4: imports store"]


def test_dynamic_imports_with_literal_names_are_imports():
    planted = {
        "import importlib\nimportlib.import_module('store')\n": "store",
        "from importlib import import_module\ndef f():\n    return import_module('store.db')\n": "store.db",
        "import importlib as il\nil.import_module('services.jobs')\n": "services.jobs",
        "__import__('store')\n": "store",
        "__import__('cli.console', globals(), locals(), ['message_bar'])\n": "cli.console",
        "import importlib\ndef f(x):\n    return importlib.import_module(f'store.{x}')\n": "store",
        "import importlib\nimportlib.import_module('.registry', 'models')\n": "models.registry",
    }
    for src, dst in planted.items():
        assert {d for d, _ in imports(src, "pipeline.deid.secret")} == {dst}, src
        assert violations(src, "pipeline.deid.secret"), src
    # a name that is not a literal cannot be followed: nothing is claimed about it
    assert imports("import importlib\nimportlib.import_module(name)\n", "pipeline.deid.secret") == []
    # the locale packs' own f-string import stays inside pipeline and is allowed
    packs = "import importlib\nimportlib.import_module(f'pipeline.detection.rules.{locale}')\n"
    assert violations(packs, "pipeline.detection.rules", is_package=True) == []


def test_relative_imports_are_resolved_against_the_package():
    src = "from . import marks\nfrom ..detection import detector\nfrom .. import spans\n"
    assert {d for d, _ in imports(src, "pipeline.risk.scorer")} == {
        "pipeline.risk.marks", "pipeline.detection.detector", "pipeline.spans"}
    assert {d for d, _ in imports("from .rules import run_rules\n", "pipeline.detection", is_package=True)} == {
        "pipeline.detection.rules"}
    # a relative import that climbs out of its top-level package fails in Python; here too
    assert violations("from ..store import connect\n", "services.review") == [f"1: imports {BEYOND_TOP}"]
    assert violations("from ...models import registry\n", "pipeline.detection.combine") == [f"1: imports {BEYOND_TOP}"]
    # and the edges they make count for circles: two modules importing each other relatively
    a = imports("from . import marks\n", "pipeline.risk.scorer")
    b = imports("from .scorer import score_run\n", "pipeline.risk.marks")
    assert circles({"pipeline.risk.scorer": {d for d, _ in a}, "pipeline.risk.marks": {d for d, _ in b}}) == [
        ["pipeline.risk.marks", "pipeline.risk.scorer"]]


def test_a_new_top_level_package_fails_until_it_is_placed(tmp_path):
    (tmp_path / "pipeline").mkdir()
    (tmp_path / "pipeline" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "plugins" / "deep").mkdir(parents=True)              # no __init__.py: still code
    (tmp_path / "plugins" / "deep" / "hook.py").write_text("import store\n", encoding="utf-8")
    (tmp_path / "tool.py").write_text("", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("", encoding="utf-8")
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / ".venv" / "lib" / "six.py").write_text("", encoding="utf-8")
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "pyvenv.cfg").write_text("", encoding="utf-8")
    (tmp_path / "venv" / "site.py").write_text("", encoding="utf-8")
    assert top_level(tmp_path) == {"pipeline", "plugins", "tool"}
    assert unplaced(tmp_path) == ["plugins", "tool"]
    # and an unplaced package may neither import nor be imported
    assert not allowed("plugins.deep.hook", "pipeline.spans") and not allowed("services.jobs", "plugins.deep")
