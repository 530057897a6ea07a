"""Shikaku instance geometry: the clues and every candidate rectangle of each, built on the host.

A candidate of clue k (value v at cell (i, j)) is a rectangle of area v, inside the grid,
containing (i, j) and no other clue. Layout, K clues in row-major order, R candidates:

  clue_cells   (K, 2) int32   (row, column) of each clue
  clue_values  (K,)   int32
  rectangles   (R, 4) int32   [top, left, bottom, right], inclusive, grouped by clue
  first        (K+1,) int32   clue k's candidates are rectangles[first[k]:first[k+1]]

Within a clue, candidates come by height (ascending), then top, then left: the numbering
is part of the determinism contract (a chain's state is candidate numbers).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import PuzzleError


@dataclass(frozen=True, eq=False)
class ShikakuGeometry:
    rows: int
    cols: int
    clue_cells: np.ndarray
    clue_values: np.ndarray
    rectangles: np.ndarray
    first: np.ndarray

    @property
    def clues(self) -> int:
        return int(self.clue_values.shape[0])

    def candidates_of(self, clue: int) -> np.ndarray:
        return self.rectangles[self.first[clue]:self.first[clue + 1]]


def check_clues(clues: np.ndarray, where: str = "<input>") -> None:
    """Raise PuzzleError (one line) unless every clue can have a rectangle and the clues sum to the area."""
    rows, cols = clues.shape
    area = rows * cols
    if (clues < 0).any():
        r, c = np.argwhere(clues < 0)[0]
        raise PuzzleError(f"{where}: negative clue at r{r + 1}c{c + 1}")
    if not (clues > 0).any():
        raise PuzzleError(f"{where}: no clue in the {rows}x{cols} grid")
    for r, c in np.argwhere(clues > area):
        raise PuzzleError(f"{where}: clue {clues[r, c]} at r{r + 1}c{c + 1} is larger than the {rows}x{cols} grid")
    total = int(clues.sum())
    if total != area:
        raise PuzzleError(f"{where}: the clues sum to {total}, not to the grid's area {rows}x{cols} = {area}")


def geometry(clues: np.ndarray, where: str = "<input>") -> ShikakuGeometry:
    """Every clue's candidate rectangles; PuzzleError when the clues cannot describe a puzzle."""
    clues = np.asarray(clues, dtype=np.int64)
    check_clues(clues, where)
    rows, cols = clues.shape
    # prefix[r, c] = clues in rows < r, columns < c: a rectangle's clue count in O(1)
    prefix = np.zeros((rows + 1, cols + 1), dtype=np.int64)
    prefix[1:, 1:] = (clues > 0).cumsum(0).cumsum(1)
    cells = np.argwhere(clues > 0)  # row-major
    rectangles, first = [], [0]
    for r, c in cells:
        value = int(clues[r, c])
        found = 0
        for height in range(1, value + 1):
            if value % height:
                continue
            width = value // height
            if height > rows or width > cols:
                continue
            for top in range(max(0, r - height + 1), min(r, rows - height) + 1):
                for left in range(max(0, c - width + 1), min(c, cols - width) + 1):
                    bottom, right = top + height, left + width
                    inside = prefix[bottom, right] - prefix[top, right] - prefix[bottom, left] + prefix[top, left]
                    if inside == 1:
                        rectangles.append((top, left, bottom - 1, right - 1))
                        found += 1
        if not found:
            raise PuzzleError(f"{where}: clue {value} at r{r + 1}c{c + 1} has no rectangle of area {value} that fits "
                              f"without another clue")
        first.append(len(rectangles))
    return ShikakuGeometry(rows=rows, cols=cols, clue_cells=cells.astype(np.int32),
                           clue_values=clues[cells[:, 0], cells[:, 1]].astype(np.int32),
                           rectangles=np.asarray(rectangles, dtype=np.int32).reshape(-1, 4),
                           first=np.asarray(first, dtype=np.int32))
