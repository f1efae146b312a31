"""The apps import in one direction (README, "Map of the code"): a test of the import graph.

Run alone with `.venv/bin/python -m pytest tests/test_layers.py`. Every `import` statement is
read with `ast`, those inside functions and under TYPE_CHECKING included, so a lazy import
cannot hide a cycle.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lowest first: a package may import only the packages before it.
LAYERS = ("rules", "campaign", "characters", "journal", "play", "live", "config")


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(LAYERS)


def test_every_import_between_apps_goes_down_the_layers():
    wrong = []
    for rank, package in enumerate(LAYERS):
        allowed = set(LAYERS[: rank + 1])
        for path in sorted((ROOT / package).rglob("*.py")):
            for target in sorted(imported_packages(path) - allowed):
                wrong.append(f"{path.relative_to(ROOT)} imports {target}")
    assert not wrong, "Imports against the layers " + " < ".join(LAYERS) + ":\n" + "\n".join(wrong)


def test_the_check_sees_a_lazy_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from play import services\n")
    assert imported_packages(module) == {"play"}
