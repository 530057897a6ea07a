"""gpu-sa: simulated annealing for logic puzzles, thousands of chains in lockstep on the GPU.

    >>> import gpu_sa
    >>> puzzle = gpu_sa.parse(open("examples/seed_easy.txt").read())[0]
    >>> result = gpu_sa.anneal(puzzle, backend="cpu", chains=256, seed=1)
    >>> result.solved, puzzle.write(result.solution, "line")

See README.md for the command line and the algorithms.
"""
__version__ = "0.1.0"

from .puzzles.sudoku import PuzzleError, Sudoku, parse  # noqa: E402
from .runner import Result, anneal, default_schedule, sirdey_schedule  # noqa: E402

__all__ = ["anneal", "parse", "Result", "Sudoku", "PuzzleError", "default_schedule", "sirdey_schedule",
           "__version__"]
