"""Seed 003 as an application: full Sudoku grids, and puzzles emptied from them.

This package sits above the engine (it drives ``runner.anneal`` to make grids) and beside
the command line, not among the puzzle definitions: layers import downwards only, so the
puzzle modules never import the runner, and this package may import both.

  fill   full valid grids: anneal, backtrack, swaps; a random symmetry on each
  empty  puzzles with few givens: anneal (the seed's scheme), greedy, brute (proven minimum)
  brute  the hitting-set search behind ``brute``
"""
# The one import of the exact solver in this package (the submodules use ``from . import exact``),
# so moving the solver is a one-line change here. It must come before the submodules.
from .. import exact

from .empty import (CHECK_MAX_NODES, DEFAULT_BRUTE_NODES, DEFAULT_ITERATIONS, MINIMIZE_METHODS, Minimized,  # noqa: E402
                    minimize, minimize_stream)
from .fill import (DEFAULT_METHOD, GRIDS_OF_ORDER, METHODS, check_count, empty_puzzle,  # noqa: E402
                   every_4x4_grid, grid_stream, grids, shuffle_symmetry)

__all__ = ["METHODS", "DEFAULT_METHOD", "GRIDS_OF_ORDER", "check_count", "MINIMIZE_METHODS", "DEFAULT_ITERATIONS",
           "DEFAULT_BRUTE_NODES", "CHECK_MAX_NODES", "Minimized", "empty_puzzle", "every_4x4_grid", "exact", "grid_stream", "grids", "minimize", "minimize_stream",
           "shuffle_symmetry"]
