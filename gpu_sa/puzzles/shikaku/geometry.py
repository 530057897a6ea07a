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
lists (smaller search, same solutions). If the rules would empty a clue, leave a cell that no
clue can cover or force one cell into two clues, the puzzle has no solution: the lists are then
left unpruned and ``contradiction`` says why.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine import limits, stop
from ..common.errors import PuzzleError

PRUNE_BYTES_PER_INCIDENCE = 96  # prune's int64 arrays per (candidate, cell) pair, with its temporaries


@dataclass(frozen=True, eq=False)
class ShikakuGeometry:
    rows: int
    cols: int
    clue_cells: np.ndarray
    clue_values: np.ndarray
    rectangles: np.ndarray
    first: np.ndarray
    contradiction: str | None = None  # why pruning proved there is no solution (the lists are then whole)

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


def prune(rectangles: np.ndarray, first: np.ndarray, rows: int, cols: int,
          clue_name=lambda k: f"clue {k + 1}") -> tuple[np.ndarray, np.ndarray, str | None]:
    """(rectangles, first, contradiction): the lists without candidates that no solution can use (the
    two rules above), and None; or, when the rules prove there is no solution, the lists unpruned and
    the reason as a sentence (``clue_name(k)`` names clue k in it).

    Sparse throughout: (candidate, cell) incidence pairs, and per (clue, cell) slot that some
    candidate of the clue covers, the count of its live candidates covering the cell, so memory
    grows with the candidates' total area, not with clues x cells.
    """
    clues = len(first) - 1
    cells = rows * cols
    owner = np.repeat(np.arange(clues), np.diff(first))
    pair_candidate, pair_cell = [], []
    for j, (top, left, bottom, right) in enumerate(rectangles):
        if not j & 4095:
            stop.check("pruning the clues' rectangles")
        covered = np.add.outer(np.arange(top, bottom + 1) * cols, np.arange(left, right + 1)).ravel()
        pair_candidate.append(np.full(covered.size, j))
        pair_cell.append(covered)
    pair_candidate, pair_cell = np.concatenate(pair_candidate), np.concatenate(pair_cell)
    pair_owner = owner[pair_candidate]
    slot, pair_slot = np.unique(pair_owner * cells + pair_cell, return_inverse=True)
    slot_owner, slot_cell = slot // cells, slot % cells
    alive = np.ones(len(rectangles), dtype=bool)
    while True:
        stop.check("pruning the clues' rectangles")
        live = alive.sum()
        cover = np.bincount(pair_slot, weights=alive[pair_candidate], minlength=len(slot))
        per_clue = np.bincount(owner[alive], minlength=clues)
        reached = cover > 0
        coverers = np.bincount(slot_cell[reached], minlength=cells)  # clues whose live candidates reach a cell
        forced = reached & (cover == per_clue[slot_owner])  # cells inside every live candidate of a clue
        forcing = np.bincount(slot_cell[forced], minlength=cells)
        reason = _contradiction(per_clue, coverers, forcing, slot_owner[forced], slot_cell[forced], cols, clue_name)
        if reason is not None:
            return rectangles, first, reason
        forced_by = np.full(cells, -1)
        forced_by[slot_cell[forced]] = slot_owner[forced]
        # rule 1: a candidate covering a cell forced by another clue
        clash = (forced_by[pair_cell] >= 0) & (forced_by[pair_cell] != pair_owner)
        alive &= np.bincount(pair_candidate, weights=clash, minlength=len(rectangles)) == 0
        # rule 2: a candidate missing a cell that only its clue can cover
        needed = reached & (coverers[slot_cell] == 1)
        covered_needed = np.bincount(pair_candidate, weights=needed[pair_slot], minlength=len(rectangles))
        alive &= covered_needed == np.bincount(slot_owner, weights=needed, minlength=clues)[owner]
        if alive.sum() == live:
            break
    counts = np.bincount(owner[alive], minlength=clues)
    return rectangles[alive], np.concatenate([[0], np.cumsum(counts)]).astype(np.int32), None


def _contradiction(per_clue, coverers, forcing, forced_owner, forced_cell, cols, clue_name):
    """Why the pruning rules prove there is no solution, or None."""
    def cell(index):
        return f"r{index // cols + 1}c{index % cols + 1}"

    for k in np.flatnonzero(per_clue == 0)[:1]:
        return (f"{clue_name(k)} has no rectangle left: each one takes a cell that another clue must cover, "
                f"or leaves out a cell that only this clue can reach")
    for index in np.flatnonzero(coverers == 0)[:1]:
        return f"no clue's rectangle can cover cell {cell(index)}"
    for index in np.flatnonzero(forcing > 1)[:1]:
        a, b = forced_owner[forced_cell == index][:2]
        return f"cell {cell(index)} lies inside every rectangle of {clue_name(a)} and of {clue_name(b)}"
    return None


def geometry(clues: np.ndarray, where: str = "<input>", *, pruned: bool = True) -> ShikakuGeometry:
    """Every clue's candidate rectangles; PuzzleError when the clues cannot describe a puzzle."""
    with limits.doing(f"{where}: listing and pruning the clues' candidate rectangles (they grow with the clues' "
                      f"areas)"):
        return _geometry(clues, where, pruned)


def _geometry(clues, where, pruned) -> ShikakuGeometry:
    clues = np.asarray(clues, dtype=np.int64)
    check_clues(clues, where)
    rows, cols = clues.shape
    # prefix[r, c] = clues in rows < r, columns < c: a rectangle's clue count in O(1)
    prefix = np.zeros((rows + 1, cols + 1), dtype=np.int64)
    prefix[1:, 1:] = (clues > 0).cumsum(0).cumsum(1)
    cells = np.argwhere(clues > 0)  # row-major
    rectangles, first = [], [0]
    for index, (r, c) in enumerate(cells):
        if not index & 1023:
            stop.check(f"{where}: listing the clues' rectangles")
        value = int(clues[r, c])
        found = 0
        for height in range(1, value + 1):
            if value % height:
                continue
            width = value // height
            if height > rows or width > cols:
                continue
            for top in range(max(0, r - height + 1), min(r, rows - height) + 1):
                if value > 1024:  # a large clue has up to value positions per shape
                    stop.check(f"{where}: listing the clues' rectangles")
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
    values = clues[cells[:, 0], cells[:, 1]]
    contradiction = None
    if pruned:
        incidences = int((values * np.diff(first)).sum())  # every candidate of a clue has the clue's area
        limits.check_memory(incidences * PRUNE_BYTES_PER_INCIDENCE,
                            f"{where}: pruning {len(rectangles):,} candidate rectangles ({incidences:,} cells in all)")
        rectangles, first, contradiction = prune(
            rectangles, first, rows, cols, lambda k: f"clue {values[k]} at r{cells[k, 0] + 1}c{cells[k, 1] + 1}")
    return ShikakuGeometry(rows=rows, cols=cols, clue_cells=cells.astype(np.int32),
                           clue_values=values.astype(np.int32), rectangles=rectangles, first=first,
                           contradiction=contradiction)
