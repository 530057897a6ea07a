"""Independent solution checkers: they share no code with the annealer, on purpose.

A checker receives plain Python lists of printed values (1-based, 0 = empty) and reads the
rules straight from the puzzle's definition; it never looks at counts, costs or tables
kept by the annealer. It returns the list of violations, empty when the solution is valid.
"""
from __future__ import annotations

from math import isqrt


def sudoku_violations(grid, givens):
    """Violations of a completed Sudoku ``grid`` (list of rows) that must extend ``givens``."""
    side = len(grid)
    box = isqrt(side)
    problems = []
    if box * box != side or any(len(row) != side for row in grid):
        return [f"grid is not square with a square side: {side} rows"]
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
