"""The package's layering: ``bot.kb`` is the pure bottom (it imports nothing of ours outside itself), and no
two modules of ``bot`` import each other, directly or round a longer cycle.

Read from the source with ``ast``, so it holds for imports inside functions too; imports under
``if TYPE_CHECKING:`` are only for annotations and are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"
# Below every layer, kb included: the error classes (bot/errors.py imports nothing of ours).
FOUNDATION = frozenset({"bot.errors"})


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(BOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(BOT.rglob("*.py"))}


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in ``tree`` but those under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking_only(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _resolve(module: str, name: str) -> str:
    """The module ``from module import name`` loads: ``module.name`` when it is a submodule, else ``module``."""
    return f"{module}.{name}" if f"{module}.{name}" in MODULES else module


def imported(module: str) -> set[str]:
    """The modules of ``bot`` that ``module`` imports (resolved to the deepest one named)."""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in _imports(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:  # relative: from the package, up level - 1
            anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        names.update(_resolve(base, alias.name) for alias in node.names)
    ours = set()
    for name in names:
        if name != "bot" and not name.startswith("bot."):
            continue
        while name not in MODULES and "." in name:
            name = name.rpartition(".")[0]
        if name != module:
            ours.add(name)
    return ours


GRAPH = {module: imported(module) for module in MODULES}


def _in_kb(module: str) -> bool:
    return module == "bot.kb" or module.startswith("bot.kb.")


def test_the_graph_is_read():
    assert {"bot.kb.fallback", "bot.kb.mask"} <= GRAPH["bot.kb.shape"]
    assert "bot.cards" in GRAPH["bot.render.blocks"]


def test_kb_imports_nothing_of_ours_outside_kb():
    outside = {module: sorted(dep for dep in deps if not _in_kb(dep) and dep not in FOUNDATION)
               for module, deps in GRAPH.items() if _in_kb(module)}
    assert {module: deps for module, deps in outside.items() if deps} == {}


def test_the_foundation_imports_nothing_of_ours():
    assert {module: sorted(GRAPH[module]) for module in FOUNDATION if GRAPH.get(module)} == {}


def test_no_two_modules_import_each_other():
    mutual = sorted((a, b) for a, deps in GRAPH.items() for b in deps if a < b and a in GRAPH.get(b, ()))
    assert mutual == []


def test_no_import_cycle():
    """Tarjan's strongly connected components: any with more than one module is a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for dep in sorted(GRAPH.get(module, ())):
            if dep not in index:
                connect(dep)
                low[module] = min(low[module], low[dep])
            elif dep in on_stack:
                low[module] = min(low[module], index[dep])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            connect(module)
    assert cycles == []
