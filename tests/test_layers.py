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
