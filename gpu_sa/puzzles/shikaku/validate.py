"""Independent Shikaku checker: it shares no code with the solvers, on purpose.

It receives the clues (list of rows, 0 = no clue) and the printed rectangles, reads the rules straight from the
puzzle's definition, and returns the list of violations, empty when the solution is valid.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np


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
    grid = np.asarray(clues, dtype=np.int64)
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
