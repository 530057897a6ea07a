"""gpu-sa: simulated annealing for logic puzzles, thousands of chains in lockstep on the GPU.

    >>> import gpu_sa
    >>> puzzle = gpu_sa.parse(open("examples/seed_easy.txt").read())[0]
    >>> result = gpu_sa.anneal(puzzle, backend="cpu", chains=256, seed=1)
    >>> result.solved, puzzle.write(result.solution, "line")

See docs/ for the command line (docs/cli.md), the algorithms (docs/algorithms.md) and this API (docs/api.md).
"""
__version__ = "0.1.0"

# The public names are imported when first used (PEP 562), so that ``import gpu_sa`` (and the
# ``gpu-sa`` command, which starts with it) does not load numba before it has to: a Ctrl-C or a
# broken numba environment then meets the command's own handlers, not a traceback.
_PUBLIC = {"anneal": "engine.runner", "Result": "engine.runner", "default_schedule": "engine.runner",
           "sirdey_schedule": "engine.runner",
           "parse": "puzzles.sudoku", "Sudoku": "puzzles.sudoku", "PuzzleError": "puzzles.sudoku"}

__all__ = ["anneal", "parse", "Result", "Sudoku", "PuzzleError", "default_schedule", "sirdey_schedule",
           "__version__"]


def __getattr__(name):
    import importlib
    import importlib.util

    if name in _PUBLIC:
        value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        value = importlib.import_module(f".{name}", __name__)  # gpu_sa.engine without importing it first
    else:
        raise AttributeError(f"module 'gpu_sa' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
