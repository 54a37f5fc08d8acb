"""runctx's modules import each other without a circle, read from their source with ast."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "runctx"

KNOWN_CIRCLES: set[frozenset[str]] = set()
"""Circles still to break: none; this set may only stay empty."""


def module_names() -> dict[str, Path]:
    """Every module of runctx by its dotted name (a package by its ``__init__.py``)."""
    found: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def type_checking_only(tree: ast.Module) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:``: imports that never run."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
            inside.update(id(child) for part in node.body for child in ast.walk(part))
    return inside


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """The runctx modules ``path`` imports when it runs, at the top or inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = type_checking_only(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in modules:
                    found.add(submodule)
                elif node.module in modules:
                    found.add(node.module)
    return found


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph[module])
    return seen


def circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The sets of modules that import each other, directly or through others."""
    reach = {module: reachable(graph, module) for module in graph}
    return {
        frozenset({module} | {other for other in reach[module] if module in reach[other]})
        for module in graph
        if module in reach[module]
    }


def import_graph() -> dict[str, set[str]]:
    """Which runctx modules each runctx module imports."""
    modules = module_names()
    return {name: imports_of(path, modules) - {name} for name, path in modules.items()}


def test_the_circle_finder_sees_a_circle():
    """A two-module circle and a longer one are found; a chain is not a circle."""
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}}
    assert circles(graph) == {frozenset("ab"), frozenset("cde")}
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == set()


def test_the_graph_holds_the_lazy_imports():
    """An import inside a function counts: the shell parser imports the runner walk."""
    graph = import_graph()
    assert "runctx.runners.walk" in graph["runctx.shell.commands"]
    assert "runctx.shell.commands" in graph["runctx.runners.detect"]
    assert "runctx.runners.needles" in graph["runctx.fastpath.prefilter"]


def test_runners_and_shell_import_each_other_in_no_circle():
    """The shell parser is built on the runner walk, and no runners module imports it back."""
    graph = import_graph()
    for circle in circles(graph):
        packages = {name.split(".")[1] for name in circle}
        assert not {"runners", "shell"} <= packages, sorted(circle)
        assert not any(name.startswith(("runctx.runners", "runctx.shell")) for name in circle)


def test_no_new_import_circle():
    """No import circle beyond the known ones, which may only go away."""
    assert circles(import_graph()) <= KNOWN_CIRCLES


FAST_PATH = PACKAGE / "fastpath"
"""The one package whose imports may be deferred: the hook's path of a command that runs no test."""

LEFT_TO_MOVE: dict[str, int] = {
    "pytest_code.py": 3,  # after the bytecode cache and coverage are in place
    "pytest_plugin.py": 2,  # after coverage starts
    "pytest_code_state.py": 1,  # after the fresh cache is in place
}
"""Deferred imports still to move to the top of their modules: counts that may only go down."""


def deferred_imports() -> dict[str, int]:
    """How many ``noqa: PLC0415`` (an import inside a function) each runctx module holds."""
    found: dict[str, int] = {}
    for path in PACKAGE.rglob("*.py"):
        count = path.read_text(encoding="utf-8").count("noqa: PLC0415")
        if count:
            name = "fastpath" if path.is_relative_to(FAST_PATH) else str(path.relative_to(PACKAGE))
            found[name] = found.get(name, 0) + count
    return found


def test_only_the_fast_path_defers_its_imports():
    """Every module but the fast path imports at its top; the fast path does defer some."""
    found = deferred_imports()
    assert found.pop("fastpath", 0) > 0
    over = {name: count for name, count in found.items() if count > LEFT_TO_MOVE.get(name, 0)}
    assert over == {}, f"imports deferred outside runctx/fastpath/: {over}"


def test_records_behind_the_pre_filter_are_attrs_classes():
    """The fast path's LightRecord serves only the agents' specs, read before the pre-filter."""
    users = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "(LightRecord)" in path.read_text(encoding="utf-8")
    )
    assert users == ["hooks/agents/base.py"], users
