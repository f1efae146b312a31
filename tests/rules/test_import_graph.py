"""The engine's modules import each other without a circle, and never import Django.

Every import counts, including those under `if TYPE_CHECKING:` or inside a function: a circle
that only type checkers follow still ties the modules together for whoever reads or splits them.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = "rules.engine"
ENGINE = Path(__file__).resolve().parents[2] / "rules" / "engine"


def module_name(path: Path) -> str:
    return "__init__" if path.stem == "__init__" else path.stem


def engine_sources() -> dict[str, str]:
    return {module_name(path): path.read_text() for path in sorted(ENGINE.glob("*.py"))}


def _absolute(node: ast.ImportFrom, module: str) -> str:
    """The dotted module an ImportFrom names, with its leading dots resolved."""
    if node.level == 0:
        return node.module or ""
    # Every engine module, __init__ included, has rules.engine as its package: one dot.
    parts = PACKAGE.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(module: str, source: str, modules: set[str]) -> tuple[set[str], set[str]]:
    """(engine modules `module` imports, every top-level package it imports)."""
    engine: set[str] = set()
    roots: set[str] = set()

    def reach(dotted: str, names: tuple[str, ...] = ()) -> None:
        roots.add(dotted.split(".")[0])
        if dotted == PACKAGE:
            # `from rules.engine import x`: x is a submodule, or a name of the package itself.
            for name in names or ("__init__",):
                engine.add(name if name in modules else "__init__")
        elif dotted.startswith(PACKAGE + "."):
            engine.add(dotted.removeprefix(PACKAGE + ".").split(".")[0])

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                reach(alias.name)
        elif isinstance(node, ast.ImportFrom):
            reach(_absolute(node, module), tuple(alias.name for alias in node.names))
    engine.discard(module)
    return engine, roots


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    modules = set(sources)
    return {name: imports(name, text, modules)[0] for name, text in sources.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph as [a, b, …, a], or None (depth-first, in name order)."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for target in sorted(graph.get(node, ())):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        done.add(node)
        return None

    for node in sorted(graph):
        cycle = visit(node)
        if cycle:
            return cycle
    return None


def test_engine_modules_import_each_other_without_a_cycle():
    graph = import_graph(engine_sources())
    # Sanity: the graph is really built (the package imports its modules, checks its results).
    assert "checks" in graph["__init__"] and "results" in graph["checks"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in rules/engine: " + " → ".join(cycle or ())


def test_no_engine_module_imports_django():
    modules = set(engine_sources())
    offenders = sorted(
        name
        for name, source in engine_sources().items()
        if "django" in imports(name, source, modules)[1]
    )
    assert offenders == [], f"rules/engine must stay pure Python; django imported by {offenders}"


SAMPLE = {
    "__init__": "from .a import x\n",
    "a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import y\n",
    "b": "from rules.engine.c import z\n",
    "c": "def late():\n    from . import a\n",
    "d": "import django.db\nfrom rules.engine import VALUE\n",
}


def test_the_checker_sees_every_kind_of_import():
    graph = import_graph(SAMPLE)
    assert graph == {"__init__": {"a"}, "a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"__init__"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert "django" in imports("d", SAMPLE["d"], set(SAMPLE))[1]


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({"a": {"a"}}, ["a", "a"]),
        ({"a": {"b"}, "b": set()}, None),
        ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, None),
    ],
)
def test_the_checker_finds_self_loops_and_leaves_trees_alone(graph, cycle):
    assert find_cycle(graph) == cycle
