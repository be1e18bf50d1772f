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
* ``store/`` uses only pipeline's core types (spans, schemas, errors, layer names, fsync).
* pages, ``dashboard/`` and ``cli/`` reach the store only through ``services/``.
* No two modules import each other, directly or round a longer circle.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pipeline", "models", "store", "services", "dashboard", "pages", "cli")
TOP_FILES = ("streamlit_app.py",)
FIRST_PARTY = set(PACKAGES) | {"streamlit_app"}

STORE_MAY_USE = {"pipeline.spans", "pipeline.schemas", "pipeline.errors", "pipeline.durable", "pipeline.layers"}
MODEL_LOADERS = ("pipeline.detection.detector", "pipeline.engines")   # may import models
UI = ("dashboard", "pages", "streamlit_app")


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            out[_module_name(p)] = p
    for f in TOP_FILES:
        out[_module_name(ROOT / f)] = ROOT / f
    return out


MODULES = _modules()


def _resolve(name: str) -> str:
    """The first-party module an imported dotted name lands in (``a.b.func`` -> ``a.b``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _imports(path: Path) -> list[tuple[str, int]]:
    """(first-party module, line) for every import statement in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for n in names:
            if n.split(".")[0] in FIRST_PARTY:
                target = _resolve(n)
                if target:
                    out.append((target, node.lineno))
    return out


GRAPH = {m: _imports(p) for m, p in MODULES.items()}


def _within(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def allowed(src: str, dst: str) -> bool:
    """Whether module ``src`` may import module ``dst`` (both first-party)."""
    if _within(dst, src.split(".")[0]) and not _within(src, "pipeline", "models"):
        return True                                     # inside one's own layer
    if _within(src, "pipeline"):
        if src == "pipeline.__main__":
            return _within(dst, "cli", "pipeline")      # `python -m pipeline` launches the CLI
        if _within(dst, "models"):
            return _within(src, *MODEL_LOADERS)
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
    return False


def test_every_import_points_down_the_layers():
    wrong = [f"{MODULES[src].relative_to(ROOT)}:{line} imports {dst}"
             for src, edges in GRAPH.items() for dst, line in edges if not allowed(src, dst)]
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def test_no_module_imports_itself_round_a_circle():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]
    edges = {m: sorted({d for d, _ in e if d != m}) for m, e in GRAPH.items()}

    def visit(v: str) -> None:                          # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
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
                circles.append(sorted(comp))

    for m in sorted(edges):
        if m not in index:
            visit(m)
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


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
    assert allowed("pipeline.detection.detector", "models.registry")
    assert allowed("models.crf", "pipeline.detection.rules")
    assert allowed("pages.train", "services.training") and allowed("cli.commands.stats", "services.projects")


def test_the_graph_sees_function_level_imports(tmp_path):
    """A function-local ``import store`` counts like one at the top (they were the old loophole)."""
    probe = tmp_path / "probe.py"
    probe.write_text("import json\n\ndef f():\n    import store\n    from pipeline.detection import detector\n"
                     "    from pipeline.spans import Span\n", encoding="utf-8")
    assert {d for d, _ in _imports(probe)} == {"store", "pipeline.detection.detector", "pipeline.spans"}
