"""Layers import downwards only: puzzle definitions at the bottom, the engine, then applications."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gpu_sa"
ABOVE_THE_PUZZLES = {"runner", "backends", "generate", "cli", "apps", "commands", "ending"}


def _imported_gpu_sa_modules(path: Path) -> set[str]:
    """Top-level gpu_sa modules a file imports (absolute or relative), at any depth in the file."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            names = [module + [alias.name] for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name.split(".") for alias in node.names]
        else:
            continue
        found |= {parts[1] for parts in names if len(parts) > 1 and parts[0] == "gpu_sa"}
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("puzzles/**/*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_puzzle_modules_import_neither_the_runner_nor_the_applications(path):
    assert not _imported_gpu_sa_modules(path) & ABOVE_THE_PUZZLES


def test_the_import_finder_sees_relative_imports():
    assert _imported_gpu_sa_modules(PACKAGE / "generate" / "fill.py") >= {"runner", "backends"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in the file, deferred imports too); a module's
    import of its own parent package is left out (a package's __init__ importing its parts is no cycle)."""
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
        named = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = list(package[:len(package) - node.level + 1]) if node.level else []
                module = base + (node.module.split(".") if node.module else [])
                named |= {".".join(module)} | {".".join(module + [alias.name]) for alias in node.names}
            elif isinstance(node, ast.Import):
                named |= {alias.name for alias in node.names}
        graph[_module_name(path)] = named
    return {name: {other for other in named if other in graph and other != name and not name.startswith(other + ".")}
            for name, named in graph.items()}


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_two_modules_import_each_other():
    """Issue 24 item 12: backends and runner imported each other (the default schedule); it lives below both now."""
    assert _cycles(_import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
