"""Hashiwokakero instance geometry: islands, candidate edges and crossing pairs, built on the host.

Islands are numbered in row-major order. A candidate edge joins an island to the nearest
island to its right or below (each pair once, so every island has at most four). Two
candidate edges cross when one is horizontal, the other vertical, and they meet strictly
inside both. Layout, I islands, E edges:

  cells      (I, 2) int32   (row, column) of each island
  values     (I,)   int32   its number, 1..8
  edges      (E, 2) int32   (a, b) island indices, a < b (a is left of / above b)
  crossings  (X, 2) int32   (e, f) edge pairs that cross, e horizontal, f vertical
  incident   (I, 4) int32   each island's edges, -1 padded

Edges come in island order, the right-hand edge before the downward one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine import stop
from ..common.errors import PuzzleError

MAX_VALUE = 8  # four directions, two bridges each


@dataclass(frozen=True, eq=False)
class HashiGeometry:
    rows: int
    cols: int
    cells: np.ndarray
    values: np.ndarray
    edges: np.ndarray
    crossings: np.ndarray
    incident: np.ndarray

    @property
    def islands(self) -> int:
        return int(self.values.shape[0])

    def horizontal(self, edge: int) -> bool:
        a, b = self.edges[edge]
        return bool(self.cells[a, 0] == self.cells[b, 0])


def check_grid(grid: np.ndarray, where: str = "<input>") -> None:
    """Raise PuzzleError (one line) for island values outside 1..8 or a grid without islands."""
    if (grid < 0).any():
        r, c = np.argwhere(grid < 0)[0]
        raise PuzzleError(f"{where}: negative island value at r{r + 1}c{c + 1}")
    for r, c in np.argwhere(grid > MAX_VALUE):
        raise PuzzleError(f"{where}: island at r{r + 1}c{c + 1} has value {grid[r, c]}; values are 1..{MAX_VALUE}")
    if not (grid > 0).any():
        raise PuzzleError(f"{where}: no island in the {grid.shape[0]}x{grid.shape[1]} grid")


def geometry(grid: np.ndarray, where: str = "<input>") -> HashiGeometry:
    """Islands, candidate edges and crossings of ``grid`` ((rows, cols), 0 = water, 1..8 = island)."""
    grid = np.asarray(grid, dtype=np.int64)
    check_grid(grid, where)
    rows, cols = grid.shape
    cells = np.argwhere(grid > 0)
    index = np.full(grid.shape, -1, dtype=np.int64)
    index[cells[:, 0], cells[:, 1]] = np.arange(len(cells))
    edges = []
    for a, (r, c) in enumerate(cells):
        if not a & 1023:
            stop.check(f"{where}: listing the islands' edges")
        right = next((index[r, j] for j in range(c + 1, cols) if index[r, j] >= 0), -1)
        if right >= 0:
            edges.append((a, right))
        below = next((index[i, c] for i in range(r + 1, rows) if index[i, c] >= 0), -1)
        if below >= 0:
            edges.append((a, below))
    edges = np.asarray(edges, dtype=np.int32).reshape(-1, 2)
    incident = np.full((len(cells), 4), -1, dtype=np.int32)
    degree = np.zeros(len(cells), dtype=np.int64)
    for e, (a, b) in enumerate(edges):
        for island in (a, b):
            incident[island, degree[island]] = e
            degree[island] += 1
    return HashiGeometry(rows=rows, cols=cols, cells=cells.astype(np.int32),
                         values=grid[cells[:, 0], cells[:, 1]].astype(np.int32), edges=edges,
                         crossings=_crossings(cells, edges, rows, cols), incident=incident)


def _crossings(cells: np.ndarray, edges: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(X, 2) int32 pairs (horizontal e, vertical f) that cross, e ascending then f ascending.

    An edge joins neighbouring islands, so the cells strictly inside the horizontal edges of a row never
    overlap, nor those of the vertical edges of a column: each cell lies inside at most one edge of each
    direction, and two edges cross exactly where a cell lies inside both. Marking every edge's inside cells
    is linear in the grid (every horizontal edge against every vertical one was quadratic: 500 million
    pairs, seconds, on a 301x301 grid of islands)."""
    a, b = cells[edges[:, 0]], cells[edges[:, 1]]
    horizontal = np.flatnonzero(a[:, 0] == b[:, 0])
    vertical = np.flatnonzero(a[:, 1] == b[:, 1])
    across = _inside(horizontal, a[horizontal, 0], a[horizontal, 1], b[horizontal, 1], rows, cols, transpose=False)
    down = _inside(vertical, a[vertical, 1], a[vertical, 0], b[vertical, 0], rows, cols, transpose=True)
    both = (across >= 0) & (down >= 0)
    e, f = across[both], down[both]
    order = np.lexsort((f, e))
    return np.stack([e[order], f[order]], axis=1).astype(np.int32).reshape(-1, 2)


def _inside(edge_ids, line, start, end, rows, cols, *, transpose):
    """A (rows, cols) map: the edge (of ``edge_ids``) whose inside holds each cell, -1 for none. An edge lies
    on ``line`` (a row; a column when ``transpose``) from ``start`` to ``end``, its ends excluded."""
    lengths = np.maximum(end - start - 1, 0).astype(np.int64)
    first = np.repeat(np.cumsum(lengths) - lengths, lengths)
    offset = np.repeat(start + 1, lengths) + (np.arange(int(lengths.sum())) - first)
    owner = np.full((rows, cols), -1, dtype=np.int64)
    on_line = np.repeat(line, lengths)
    if transpose:
        owner[offset, on_line] = np.repeat(edge_ids, lengths)
    else:
        owner[on_line, offset] = np.repeat(edge_ids, lengths)
    return owner
