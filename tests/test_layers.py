"""Layers import downwards only, inside functions too, and no two modules import each other.

    interfaces     gpu_sa.cli, gpu_sa.view (the command line, the web page, plots)
    applications   gpu_sa.apps, each kind's generators, Sudoku's method auto
    engine         gpu_sa.engine above its contract: schedule, exchange, kernels, backends, runner, ...
    puzzles        gpu_sa.puzzles: the registry, each kind's formats, validator, moves and exact search
    base           gpu_sa.options (option declarations, input reading), the engine's contract, rng, jit,
                   stop requests and limits

The engine and the puzzle definitions sit side by side: the engine names no puzzle, and a puzzle reaches
the engine only through its contract. Applications that a kind offers (its generator, Sudoku's method
auto) are named by a "module:function" string in the kind's declarations and imported by the command
line, never by the kind's own modules.
"""
import ast
import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gpu_sa"

# (layer, the module patterns it holds, first match wins, the layers it may import)
LAYERS = (
    ("applications", ("gpu_sa.apps", "gpu_sa.apps.*", "gpu_sa.puzzles.*.generate", "gpu_sa.puzzles.*.generate.*",
                      "gpu_sa.puzzles.sudoku.auto"), {"base", "puzzles", "engine", "applications"}),
    ("interfaces", ("gpu_sa.__main__", "gpu_sa.cli", "gpu_sa.cli.*", "gpu_sa.view", "gpu_sa.view.*"),
     {"base", "puzzles", "engine", "applications", "interfaces"}),
    ("base", ("gpu_sa", "gpu_sa.options", "gpu_sa.engine", "gpu_sa.engine.contract", "gpu_sa.engine.rng",
              "gpu_sa.engine.jit", "gpu_sa.engine.stop", "gpu_sa.engine.limits", "gpu_sa.engine.numba_cuda_compat"),
     {"base"}),
    ("engine", ("gpu_sa.engine.*",), {"base", "engine"}),
    ("puzzles", ("gpu_sa.puzzles", "gpu_sa.puzzles.*"), {"base", "puzzles"}),
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path) -> set[str]:
    """Every dotted name a file imports (absolute or relative, anywhere in the file, deferred imports too): the
    module of each ``from`` import, and module.name for each name it takes (the name may be a submodule)."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    named = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            named |= {".".join(module)} | {".".join(module + [alias.name]) for alias in node.names}
        elif isinstance(node, ast.Import):
            named |= {alias.name for alias in node.names}
    return named


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> str:
    for layer, patterns, _ in LAYERS:
        if any(fnmatch.fnmatchcase(module, pattern) for pattern in patterns):
            return layer
    raise AssertionError(f"{module} is in no layer of tests/test_layers.py: add it to one")


ALLOWED = {layer: allowed for layer, _, allowed in LAYERS}


def _package_modules_imported(path: Path) -> set[str]:
    """The package's modules a file imports, its own parent packages left out (a package's modules import
    their package's ``__init__`` by being imported: no layer question)."""
    name = _module_name(path)
    return {other for other in _imported(path) if other in MODULES and other != name
            and not name.startswith(other + ".")}


def upward(module: str, imported) -> dict[str, str]:
    """Those of ``imported`` that ``module``'s layer may not import, each with its layer."""
    return {other: layer_of(other) for other in imported if layer_of(other) not in ALLOWED[layer_of(module)]}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_downwards_only(module):
    found = upward(module, _package_modules_imported(MODULES[module]))
    assert not found, f"{module} ({layer_of(module)}) imports modules it may not: {found}"


def test_the_layer_table_places_the_known_cases():
    assert layer_of("gpu_sa.engine.contract") == "base" and layer_of("gpu_sa.engine.runner") == "engine"
    assert layer_of("gpu_sa.puzzles.sudoku.moves.tabu") == "puzzles"
    assert layer_of("gpu_sa.puzzles.sudoku.generate.fill") == "applications"
    assert layer_of("gpu_sa.puzzles.sudoku.auto") == "applications"
    assert layer_of("gpu_sa.cli.ending") == "interfaces"


def test_the_import_finder_sees_relative_and_deferred_imports():
    found = _package_modules_imported(PACKAGE / "puzzles" / "sudoku" / "generate" / "fill.py")
    assert {"gpu_sa.engine.runner", "gpu_sa.engine.backends"} <= found
    assert "gpu_sa.engine.stop" in _package_modules_imported(PACKAGE / "puzzles" / "sudoku" / "generate" / "fill.py")


def test_an_upward_or_sideways_import_is_caught():
    assert upward("gpu_sa.puzzles.sudoku.formats", {"gpu_sa.engine.runner", "gpu_sa.engine.rng"}) == {
        "gpu_sa.engine.runner": "engine"}
    assert upward("gpu_sa.engine.runner", {"gpu_sa.puzzles.sudoku", "gpu_sa.engine.contract"}) == {
        "gpu_sa.puzzles.sudoku": "puzzles"}
    assert upward("gpu_sa.apps.solve", {"gpu_sa.cli.ending"}) == {"gpu_sa.cli.ending": "interfaces"}


@pytest.mark.parametrize("kind", ["sudoku", "shikaku", "hashi"])
def test_the_validators_import_no_solver_code(kind):
    """A solution counts as solved only when a checker that shares no code with the solvers says so."""
    path = PACKAGE / "puzzles" / kind / "validate.py"
    tops = {name.split(".")[0] for name in _imported(path)}
    assert tops <= {"__future__", "math", "numbers", "numpy"}, tops


@pytest.mark.parametrize("path", sorted((ROOT / "cpu_ref").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_twins_import_nothing_of_the_product(path):
    """The NumPy twins are written apart from the kernels they check."""
    assert not any(name == "gpu_sa" or name.startswith("gpu_sa.") for name in _imported(path))


def _import_graph() -> dict[str, set[str]]:
    return {name: _package_modules_imported(path) for name, path in MODULES.items()}


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
    assert _cycles(_import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
