"""Shikaku instance geometry: the clues and every candidate rectangle of each, built on the host.

A candidate of clue k (value v at cell (i, j)) is a rectangle of area v, inside the grid,
containing (i, j) and no other clue. Layout, K clues in row-major order, R candidates:

  clue_cells   (K, 2) int32   (row, column) of each clue
  clue_values  (K,)   int32
  rectangles   (R, 4) int32   [top, left, bottom, right], inclusive, grouped by clue
  first        (K+1,) int32   clue k's candidates are rectangles[first[k]:first[k+1]]

Within a clue, candidates come by height (ascending), then top, then left: the numbering
is part of the determinism contract (a chain's state is candidate numbers).

``pruned`` (default) then removes candidates that no solution can use, with two safe rules
repeated until nothing changes: a cell inside every candidate of clue k belongs to k, so
other clues' candidates covering it go; a cell that only clue k's candidates can cover
must be covered by k, so k's candidates missing it go. Both annealer and ILP get the pruned
lists (smaller search, same solutions). If the rules would empty a clue, the puzzle has no
solution; the lists are then left unpruned, for the solvers to report it.
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


def prune(rectangles: np.ndarray, first: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(rectangles, first) without candidates that no solution can use (the two rules above).

    Sparse throughout: (candidate, cell) incidence pairs, and per clue and cell the count of
    its live candidates covering the cell, so a 50x50 grid prunes in well under a second.
    """
    clues = len(first) - 1
    owner = np.repeat(np.arange(clues), np.diff(first))
    pair_candidate, pair_cell = [], []
    for j, (top, left, bottom, right) in enumerate(rectangles):
        cells = np.add.outer(np.arange(top, bottom + 1) * cols, np.arange(left, right + 1)).ravel()
        pair_candidate.append(np.full(cells.size, j))
        pair_cell.append(cells)
    pair_candidate, pair_cell = np.concatenate(pair_candidate), np.concatenate(pair_cell)
    pair_owner = owner[pair_candidate]
    alive = np.ones(len(rectangles), dtype=bool)
    while True:
        live = alive.sum()
        cover = np.zeros((clues, rows * cols), dtype=np.int64)  # live candidates of clue k covering a cell
        np.add.at(cover, (pair_owner, pair_cell), alive[pair_candidate])
        per_clue = np.bincount(owner[alive], minlength=clues)
        coverers = (cover > 0).sum(axis=0)
        forced = cover == per_clue[:, None]  # cells inside every live candidate of a clue
        forcing = forced.sum(axis=0)
        if (per_clue == 0).any() or (coverers == 0).any() or (forcing > 1).any():
            return rectangles, first  # no solution: leave the lists whole, the solvers will say so
        forced_by = np.where(forcing == 1, forced.argmax(axis=0), -1)
        # rule 1: a candidate covering a cell forced by another clue
        clash = (forced_by[pair_cell] >= 0) & (forced_by[pair_cell] != pair_owner)
        alive &= np.bincount(pair_candidate, weights=clash, minlength=len(rectangles)) == 0
        # rule 2: a candidate missing a cell that only its clue can cover
        needed = (cover > 0) & (coverers == 1)[None, :]
        covered_needed = np.bincount(pair_candidate, weights=needed[pair_owner, pair_cell], minlength=len(rectangles))
        alive &= covered_needed == needed.sum(axis=1)[owner]
        if alive.sum() == live:
            break
    counts = np.bincount(owner[alive], minlength=clues)
    if (counts == 0).any():
        return rectangles, first
    return rectangles[alive], np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)


def geometry(clues: np.ndarray, where: str = "<input>", *, pruned: bool = True) -> ShikakuGeometry:
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
    rectangles = np.asarray(rectangles, dtype=np.int32).reshape(-1, 4)
    first = np.asarray(first, dtype=np.int32)
    if pruned:
        rectangles, first = prune(rectangles, first, rows, cols)
    return ShikakuGeometry(rows=rows, cols=cols, clue_cells=cells.astype(np.int32),
                           clue_values=clues[cells[:, 0], cells[:, 1]].astype(np.int32),
                           rectangles=rectangles, first=first)
