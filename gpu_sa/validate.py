"""Independent solution checkers: they share no code with the annealer, on purpose.

A checker receives plain Python lists of printed values (1-based, 0 = empty) and reads the
rules straight from the puzzle's definition; it never looks at counts, costs or tables
kept by the annealer. It returns the list of violations, empty when the solution is valid.
The Sudoku checker also takes 2-D integer arrays, which it tests whole with numpy first:
``gpu-sa solve`` checks every answer inside its clock, and on an easy 25x25 that test takes
a tenth of the time of going over Python lists cell by cell.
"""
from __future__ import annotations

from math import isqrt
from numbers import Integral

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


def shikaku_violations(clues, rectangles):
    """Violations of a Shikaku solution: ``rectangles`` ([top, left, bottom, right], inclusive,
    0-based), one per clue of ``clues`` (list of rows, 0 = no clue) in row-major clue order.

    The rules: every rectangle lies in the grid, holds exactly one clue, which is its own,
    and has that clue's value as area; together they cover every cell exactly once.

    Linear in the grid and the rectangles, whatever they overlap: the clues a rectangle holds come from
    2-D prefix sums (how many, and the sum of their numbers, which names the clue when there is one), and
    the cover from a 2-D difference array (+1 at a rectangle's top-left corner, -1 past its right and
    bottom edges, +1 past both).
    """
    rows = len(clues)
    cols = len(clues[0]) if rows else 0
    if rows == 0 or cols == 0 or any(len(row) != cols for row in clues):
        return ["the clues are not a non-empty rectangular grid"]
    grid = np.asarray(_rows(clues), dtype=np.int64)
    clue_r, clue_c = np.nonzero(grid)  # row-major: the clues' order
    clues_count = clue_r.size
    problems = []  # (rectangle index, message); -1 for the count; sorted by rectangle at the end
    if len(rectangles) != clues_count:
        problems.append((-1, f"{len(rectangles)} rectangles for {clues_count} clues"))
    boxes, kept = _integer_rectangles(rectangles, problems)
    top, left, bottom, right = boxes.T
    inside_grid = (0 <= top) & (top <= bottom) & (bottom < rows) & (0 <= left) & (left <= right) & (right < cols)
    for k in kept[~inside_grid]:
        problems.append((k, f"rectangle {k + 1} {rectangles[k]} is empty or leaves the {rows}x{cols} grid"))
    kept, (top, left, bottom, right) = kept[inside_grid], boxes[inside_grid].T
    numbered = np.zeros((rows, cols), dtype=np.int64)
    numbered[clue_r, clue_c] = np.arange(1, clues_count + 1)
    held = _in_rectangles(_prefix_sums(grid != 0), top, left, bottom, right)  # clues each rectangle holds
    clue = _in_rectangles(_prefix_sums(numbered), top, left, bottom, right) - 1  # which one, when it holds one
    for k, count in zip(kept[held != 1], held[held != 1]):
        problems.append((k, f"rectangle {k + 1} {rectangles[k]} holds {count} clues, not one"))
    one = held == 1
    kept, clue, top, left, bottom, right = kept[one], clue[one], top[one], left[one], bottom[one], right[one]
    for k, other in zip(kept[(kept < clues_count) & (clue != kept)], clue[(kept < clues_count) & (clue != kept)]):
        problems.append((k, f"rectangle {k + 1} {rectangles[k]} holds the clue at r{clue_r[other] + 1}c"
                            f"{clue_c[other] + 1}, not its own at r{clue_r[k] + 1}c{clue_c[k] + 1}"))
    area = (bottom - top + 1) * (right - left + 1)
    value = grid[clue_r[clue], clue_c[clue]]
    for k, size, number in zip(kept[area != value], area[area != value], value[area != value]):
        problems.append((k, f"rectangle {k + 1} {rectangles[k]} has area {size} but holds the clue {number}"))
    # the cover: +1 at each rectangle's top-left corner, -1 past its right and bottom edges, +1 past both
    edges = np.zeros((rows + 1, cols + 1), dtype=np.int64)
    top, left, bottom, right = boxes[inside_grid].T
    np.add.at(edges, (top, left), 1)
    np.add.at(edges, (top, right + 1), -1)
    np.add.at(edges, (bottom + 1, left), -1)
    np.add.at(edges, (bottom + 1, right + 1), 1)
    cover = edges.cumsum(axis=0).cumsum(axis=1)[:rows, :cols]
    problems.sort(key=lambda item: item[0])  # per rectangle in order, as they are met
    cells = [f"r{r + 1}c{c + 1} is covered {cover[r, c]} times" for r, c in zip(*np.nonzero(cover != 1))]
    return [message for _, message in problems] + cells


def _integer_rectangles(rectangles, problems):
    """(boxes, indices): the rectangles that are four integers, as an int64 array, and their indices; the others
    go to ``problems``. One numpy conversion for an integer array (the solvers' answers)."""
    try:
        array = np.asarray(rectangles) if len(rectangles) else np.zeros((0, 4), dtype=np.int64)
    except ValueError:  # rows of different lengths
        array = None
    if array is not None and array.dtype.kind in "iu" and array.ndim == 2 and array.shape[1] == 4:
        return array.astype(np.int64), np.arange(len(array))
    boxes, kept = [], []
    for k, rectangle in enumerate(rectangles):
        if len(rectangle) != 4 or not all(isinstance(v, Integral) for v in rectangle):
            problems.append((k, f"rectangle {k + 1} is not four integers: {rectangle!r}"))
            continue
        boxes.append([int(v) for v in rectangle])
        kept.append(k)
    return np.asarray(boxes, dtype=np.int64).reshape(-1, 4), np.asarray(kept, dtype=np.int64)


def _prefix_sums(values):
    """sums[r, c] = the sum of values[:r, :c] (a zero row and column in front)."""
    sums = np.zeros((values.shape[0] + 1, values.shape[1] + 1), dtype=np.int64)
    sums[1:, 1:] = np.asarray(values, dtype=np.int64).cumsum(axis=0).cumsum(axis=1)
    return sums


def _in_rectangles(sums, top, left, bottom, right):
    """Per rectangle (arrays of corners), the sum of what ``sums`` (``_prefix_sums``) adds up, inside it."""
    return sums[bottom + 1, right + 1] - sums[top, right + 1] - sums[bottom + 1, left] + sums[top, left]


def hashi_violations(grid, bridges):
    """Violations of a Hashiwokakero solution: ``bridges`` ([r1, c1, r2, c2, count], 0-based)
    on ``grid`` (list of rows, 0 = water, else the island's number).

    The rules: a bridge joins two islands of one row or column over water only, is single
    or double, and no pair of islands is listed twice; bridges never cross; each island has
    as many bridges as its number; the bridges connect all the islands.
    """
    rows = len(grid)
    cols = len(grid[0]) if rows else 0
    if rows == 0 or cols == 0 or any(len(row) != cols for row in grid):
        return ["the grid is not a non-empty rectangular grid"]
    islands = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c]]
    problems = []
    degree = {island: 0 for island in islands}
    neighbours = {island: [] for island in islands}
    seen_pairs = set()
    # Which bridge runs over each water cell, horizontally and vertically: a cell with both is a crossing.
    across = {}
    down = {}
    for k, bridge in enumerate(bridges):
        name = f"bridge {k + 1}"
        if len(bridge) != 5 or not all(isinstance(v, Integral) for v in bridge):
            problems.append(f"{name} is not five integers: {bridge!r}")
            continue
        r1, c1, r2, c2, count = bridge
        ends = [(r1, c1), (r2, c2)]
        if not all(0 <= r < rows and 0 <= c < cols for r, c in ends):
            problems.append(f"{name} {bridge} leaves the {rows}x{cols} grid")
            continue
        if not all(grid[r][c] for r, c in ends):
            problems.append(f"{name} {bridge} does not join two islands")
            continue
        if count not in (1, 2):
            problems.append(f"{name} {bridge} has {count} bridges, not 1 or 2")
            continue
        (r1, c1), (r2, c2) = sorted(ends)
        if (r1 == r2) == (c1 == c2):
            problems.append(f"{name} {bridge} does not join two distinct islands of one row or column")
            continue
        between = [(r1, c) for c in range(c1 + 1, c2)] if r1 == r2 else [(r, c1) for r in range(r1 + 1, r2)]
        if any(grid[r][c] for r, c in between):
            problems.append(f"{name} {bridge} passes over an island")
            continue
        pair = ((r1, c1), (r2, c2))
        if pair in seen_pairs:
            problems.append(f"{name} {bridge} joins a pair of islands already joined")
            continue
        seen_pairs.add(pair)
        for cell in between:
            (across if r1 == r2 else down)[cell] = k
        for island in pair:
            degree[island] += count
        neighbours[pair[0]].append(pair[1])
        neighbours[pair[1]].append(pair[0])
    for cell in sorted(set(across) & set(down)):
        problems.append(f"bridges {across[cell] + 1} and {down[cell] + 1} cross at r{cell[0] + 1}c{cell[1] + 1}")
    for r, c in islands:
        if degree[(r, c)] != grid[r][c]:
            problems.append(f"island r{r + 1}c{c + 1} ({grid[r][c]}) has {degree[(r, c)]} bridges")
    if islands:
        reached = {islands[0]}
        frontier = [islands[0]]
        while frontier:
            island = frontier.pop()
            for other in neighbours[island]:
                if other not in reached:
                    reached.add(other)
                    frontier.append(other)
        if len(reached) != len(islands):
            problems.append(f"the bridges connect {len(reached)} of the {len(islands)} islands from "
                            f"r{islands[0][0] + 1}c{islands[0][1] + 1}, not all")
    return problems
