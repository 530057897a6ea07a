"""Independent Sudoku checker: it shares no code with the solvers, on purpose.

It receives the printed values (1-based, 0 = empty) as lists of rows or 2-D integer arrays and reads the rules
straight from the puzzle's definition; it never looks at counts, costs or tables kept by the annealer or the
complete search. It returns the list of violations, empty when the solution is valid. Arrays are tested whole
with numpy first: ``gpu-sa solve`` checks every answer inside its clock, and on an easy 25x25 that test takes a
tenth of the time of going over Python lists cell by cell.
"""
from __future__ import annotations

from math import isqrt

import numpy as np


def sudoku_violations(grid, givens):
    """Violations of a completed Sudoku ``grid`` (list of rows, or 2-D array) that must extend ``givens``."""
    if _sudoku_holds(grid, givens):
        return []
    side = len(grid)
    box = isqrt(side)
    problems = []
    if box * box != side or any(len(row) != side for row in grid):
        return [f"grid is not square with a square side: {side} rows"]
    # Something is wrong (or the input is not two integer arrays): go over every cell and unit,
    # naming each violation.
    grid, givens = _rows(grid), _rows(givens)
    digits = set(range(1, side + 1))
    for r in range(side):
        for c in range(side):
            if grid[r][c] not in digits:
                problems.append(f"r{r + 1}c{c + 1} holds {grid[r][c]}, not a digit 1..{side}")
            if givens[r][c] and givens[r][c] != grid[r][c]:
                problems.append(f"r{r + 1}c{c + 1} is given {givens[r][c]} but holds {grid[r][c]}")
    units = {}
    for i in range(side):
        units[f"row {i + 1}"] = [grid[i][c] for c in range(side)]
        units[f"column {i + 1}"] = [grid[r][i] for r in range(side)]
        top, left = (i // box) * box, (i % box) * box
        units[f"box {i + 1}"] = [grid[top + r][left + c] for r in range(box) for c in range(box)]
    for name, values in units.items():
        if set(values) != digits:
            problems.append(f"{name} does not hold every digit once")
    return problems


def _sudoku_holds(grid, givens) -> bool:
    """True when ``grid`` and ``givens`` are square integer arrays of the same shape with a square side,
    every row, column and box of ``grid`` sorts to 1..side (each digit once), and every nonzero given is
    kept. False says only that the cell-by-cell report must decide. (Few numpy calls: in a fresh
    process each costs microseconds, more than the work at these sizes.)"""
    if not (isinstance(grid, np.ndarray) and isinstance(givens, np.ndarray)):
        return False  # converting lists of Python ints costs more than checking them
    side = grid.shape[0] if grid.ndim == 2 else 0
    box = isqrt(side)
    if side == 0 or box * box != side or grid.shape != (side, side) or givens.shape != grid.shape \
            or grid.dtype.kind not in "iu" or givens.dtype.kind not in "iu":
        return False
    boxes = grid.reshape(box, box, box, box).swapaxes(1, 2).reshape(side, side)  # row b: box b's cells
    units = np.concatenate((grid, grid.T, boxes))  # one row per row, column and box
    return bool((np.sort(units, axis=1) == np.arange(1, side + 1)).all() and ((givens == 0) | (givens == grid)).all())


def _rows(values):
    return values.tolist() if isinstance(values, np.ndarray) else values
