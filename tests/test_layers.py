"""The folder tree is the architecture: imports point down the layers of docs/architecture.md, in no circle.

Read from the source with ``ast`` (every import statement, also inside functions and TYPE_CHECKING
blocks), so the check costs no import and sees what a lazy import would hide.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP = ("config", "capabilities", "migrations", "pipeline", "testkit", "scripts", "benchmarks", "tests")

LAYERS: list[tuple[str, ...]] = [
    # lowest first; a module imports from its own layer or a lower one, never up (and in no circle)
    ("config",),
    ("capabilities",),
    ("pipeline.outcome", "pipeline.turns", "pipeline.retry", "pipeline.http", "pipeline.logs", "pipeline.progress", "pipeline.webhook",
     "pipeline.stopping", "pipeline.tracing", "pipeline"),
    ("pipeline.catalog",),
    ("pipeline.ledger", "migrations"),
    ("pipeline.guard", "pipeline.localmodel"),
    ("pipeline.model",),
    ("pipeline.gateway",),
    ("pipeline.runtime",),
    ("pipeline.runner", "pipeline.review"),
    ("pipeline.probe", "pipeline.audit", "pipeline.hooks", "pipeline.metrics", "pipeline.alerts", "pipeline.webhook", "pipeline.report"),
    ("pipeline.web",),
    ("pipeline.daemon", "pipeline.executors", "pipeline.workers"),
    ("pipeline.commands", "pipeline.cli"),
    ("testkit",),
    ("scripts", "benchmarks"),
    ("tests",),
]


def modules() -> dict[str, Path]:
    """Every project module by dotted name (a package by its own name, from its __init__.py)."""
    found = {}
    for top in TOP:
        for path in (ROOT / top).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def layer(module: str) -> int:
    """The layer number of a module: where the longest prefix naming it stands in LAYERS.

    "pipeline" names the package's own __init__ only: a new pipeline module must be placed in LAYERS.
    """
    best: tuple[int, str] | None = None
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            inside = module.startswith(prefix + ".") and prefix != "pipeline"
            if (module == prefix or inside) and (best is None or len(prefix) > len(best[1])):
                best = (rank, prefix)
    assert best is not None, f"{module} is in no layer of LAYERS: add it"
    return best[0]


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports (``from pkg import mod`` counts as importing pkg.mod)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    """The module graph, parsed once for the module's two tests (every .py file through ast: seconds); neither
    changes it."""
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_imports_point_down_the_layers(edges: dict[str, set[str]]) -> None:
    """No module imports from a higher layer (so nothing but tests imports tests/)."""
    assert sorted(f"{m} -> {t}" for m, targets in edges.items() for t in targets if layer(t) > layer(m)) == []


def test_modules_import_each_other_in_no_circle(edges: dict[str, set[str]]) -> None:
    """The module graph has no cycle (inside a package too)."""
    state: dict[str, str] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for target in sorted(edges[node]):
            if state.get(target) == "open":
                cycles.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_every_source_folder_is_a_package() -> None:
    """Each folder of Python modules has an __init__.py, so the wheel ships it as a package, not as data."""
    folders = {path.parent for top in TOP for path in (ROOT / top).rglob("*.py")}
    assert sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").exists()) == []
