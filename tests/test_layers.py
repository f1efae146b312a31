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


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the apps (tests and migrations aside), by dotted name."""
    return {
        module_name(path) if root == ROOT else _relative_name(path, root): path
        for package in LAYERS
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


def _relative_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, name: str, path: Path) -> str:
    """The dotted module an ImportFrom names, relative imports resolved."""
    if node.level == 0:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(name: str, path: Path, modules: dict[str, Path]):
    """(module imported, [names taken from it], {local name: module}) for each import."""
    edges, private, aliases = set(), [], {}
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target:
                    edges.add(target)
                    if alias.asname and alias.name in modules:
                        aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, name, path)
            if source not in modules:
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in modules:
                    edges.add(full)
                    aliases[alias.asname or alias.name] = full
                else:
                    edges.add(source)
                    if _private(alias.name):
                        private.append(f"{name} imports {alias.name} from {source}")
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and _private(node.attr)
        ):
            private.append(f"{name} reads {aliases[node.value.id]}.{node.attr}")
    edges.discard(name)
    return edges, private


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def private_crossings(modules: dict[str, Path]) -> list[str]:
    return [line for name, path in modules.items() for line in imports_of(name, path, modules)[1]]


def import_cycles(modules: dict[str, Path]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), lazy imports included."""
    graph = {name: sorted(imports_of(name, path, modules)[0]) for name, path in modules.items()}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_private_name_crosses_a_module_boundary():
    wrong = private_crossings(project_files())
    assert not wrong, "Private names used from another module:\n" + "\n".join(wrong)


def test_no_two_modules_import_each_other_even_lazily():
    cycles = import_cycles(project_files())
    assert not cycles, "Import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def _planted(tmp_path, files: dict[str, str]) -> dict[str, Path]:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return {_relative_name(p, tmp_path): p for p in sorted(tmp_path.rglob("*.py"))}


def test_the_check_sees_a_private_name_imported_or_read(tmp_path):
    modules = _planted(
        tmp_path,
        {
            "play/__init__.py": "",
            "play/a.py": "_x = 1\ny = 2\n",
            "play/b.py": "from play.a import _x, y\n",
            "play/c.py": "from play import a\n\ndef f():\n    return a._x + a.y\n",
            "play/d.py": "from .a import __doc__, y\n",
        },
    )
    assert private_crossings(modules) == [
        "play.b imports _x from play.a",
        "play.c reads play.a._x",
    ]


def test_the_check_sees_a_lazy_import_cycle(tmp_path):
    modules = _planted(
        tmp_path,
        {
            "journal/__init__.py": "",
            "journal/a.py": "from journal import b\n",
            "journal/b.py": "def f():\n    from journal.a import g\n",
            "journal/c.py": "import journal.a\n",
        },
    )
    assert import_cycles(modules) == [["journal.a", "journal.b"]]


# A template tag renders what its view gives it: the reads (models, managers, the database)
# and the permission checks are the selectors' and the views', where the queries are counted.
TAG_FORBIDDEN = {"models", "managers", "permissions"}


def template_tag_modules(root: Path = ROOT) -> list[Path]:
    return sorted(
        path for package in LAYERS for path in (root / package).rglob("templatetags/*.py")
    )


def tag_module_reads(path: Path) -> list[str]:
    """What a template tag module does that only a selector or a view may: import a models,
    managers or permissions module (or a name from one), or django.db; read `.objects`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            dot = "." if node.module else ""
            names = [module] + [f"{module}{dot}{alias.name}" for alias in node.names]
        else:
            names = []
            if isinstance(node, ast.Attribute) and node.attr == "objects":
                found.append(f"line {node.lineno} reads .objects")
        for name in names:
            parts = name.replace(".", " ").split()
            if parts[:2] == ["django", "db"] or TAG_FORBIDDEN & set(parts):
                found.append(f"line {node.lineno} imports {name}")
                break
    return found


def test_no_template_tag_reads_the_database_or_checks_a_permission():
    modules = template_tag_modules()
    assert ROOT / "play" / "templatetags" / "cards.py" in modules
    wrong = [f"{p.relative_to(ROOT)}: {line}" for p in modules for line in tag_module_reads(p)]
    assert not wrong, "Template tags that query or check permissions:\n" + "\n".join(wrong)


def test_the_tag_check_sees_models_managers_permissions_and_objects(tmp_path):
    planted = {
        "a.py": "from characters.models import Character\n",
        "b.py": "def f():\n    from campaign.permissions import can_roll_for\n",
        "c.py": "from . import models\n",
        "d.py": "from django.db.models import Q\n",
        "e.py": "def f(x):\n    return x.objects.all()\n",
        "f.py": "import journal.managers\n",
        "g.py": "from play.cards import card_html\nfrom django import template\n",
    }
    for name, text in planted.items():
        (tmp_path / name).write_text(text)
    found = {name: tag_module_reads(tmp_path / name) for name in planted}
    assert found == {
        "a.py": ["line 1 imports characters.models"],
        "b.py": ["line 2 imports campaign.permissions"],
        "c.py": ["line 1 imports .models"],
        "d.py": ["line 1 imports django.db.models"],
        "e.py": ["line 2 reads .objects"],
        "f.py": ["line 1 imports journal.managers"],
        "g.py": [],
    }
