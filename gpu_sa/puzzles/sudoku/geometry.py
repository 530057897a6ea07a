"""Sudoku geometry of order n as named constant tables, built once per order.

Glossary (Norvig's): n = order (box side), N = n*n = side = digits, cells = N*N.
Cell c sits at row c // N, column c % N, box (row // n) * n + column // n. Digits are
stored 0 .. N-1 (the printed digit minus one).

Per-chain digit counts (the ``counts`` state of move ``sirdey``), one uint8 per
(unit, digit), unit-major:

    | rows    N x N | columns N x N | boxes   N x N | row∩box  N*n x N | column∩box N*n x N |
    ^0              ^N*N            ^2*N*N          ^3*N*N              ^3*N*N + n*N*N

row∩box unit (r, j) is the n cells of row r inside box-column j; column∩box unit (c, i)
the n cells of column c inside box-row i. The peers of a cell are the cells other than
itself in the union of its row, column and box; by inclusion-exclusion the number of cells
of that union holding digit d is

    union(d) = rows[r][d] + cols[c][d] + boxes[b][d] - rowbox[r, j][d] - colbox[c, i][d]

(row∩column is the cell itself, counted +1 -1 -1 +1 = 0 times in the corrections, so it
stays counted once). ``unit_offsets[cell]`` holds the five slot bases of the cell's units
in that order, so a count is ``counts[base + digit]``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

MIN_ORDER = 2
MAX_ORDER = 11  # N = 121 digits still fit the uint8 grid and counts (0..120, counts at most N)


@dataclass(frozen=True, eq=False)
class Geometry:
    order: int
    side: int
    cells: int
    row_of: np.ndarray
    column_of: np.ndarray
    box_of: np.ndarray
    unit_offsets: np.ndarray  # (cells, 5) int32: slot bases of row, column, box, row∩box, column∩box
    line_units: np.ndarray  # (cells, 2) int32: slot bases of row and column when only those are counted (swap)
    box_corner: np.ndarray  # (N,) int32: the top-left cell of each box
    count_slots: int
    positive_slots: int  # slots [0, positive_slots) add pairs to the cost, the rest subtract them
    peers: int  # cells sharing a row, column or box with a cell: 3N - 2n - 1

    @property
    def max_cost(self) -> int:
        """e_p: the cost when every cell holds the same digit (Sirdey: 1620 / 2 = 810 for 9x9)."""
        return self.cells * self.peers // 2


@functools.cache
def geometry(order: int) -> Geometry:
    if not MIN_ORDER <= order <= MAX_ORDER:
        raise ValueError(f"order must be in {MIN_ORDER}..{MAX_ORDER}, got {order}")
    n = order
    side = n * n
    cells = side * side
    index = np.arange(cells)
    row = index // side
    column = index % side
    box = (row // n) * n + column // n
    unit_size = side  # one count per digit
    rows_base = 0
    columns_base = side * unit_size
    boxes_base = 2 * side * unit_size
    rowbox_base = 3 * side * unit_size
    colbox_base = rowbox_base + side * n * unit_size
    offsets = np.stack([
        rows_base + row * unit_size,
        columns_base + column * unit_size,
        boxes_base + box * unit_size,
        rowbox_base + (row * n + column // n) * unit_size,
        colbox_base + (column * n + row // n) * unit_size,
    ], axis=1).astype(np.int32)
    line_units = np.stack([row * unit_size, (side + column) * unit_size], axis=1).astype(np.int32)
    boxes = np.arange(side)
    box_corner = ((boxes // n) * n * side + (boxes % n) * n).astype(np.int32)
    for table in (row, column, box, offsets, line_units, box_corner):
        table.setflags(write=False)
    return Geometry(order=n, side=side, cells=cells, row_of=row, column_of=column, box_of=box,
                    unit_offsets=offsets, line_units=line_units, box_corner=box_corner, count_slots=int(colbox_base + side * n * unit_size),
                    positive_slots=int(rowbox_base), peers=3 * side - 2 * n - 1)


def order_of_side(side: int) -> int | None:
    """n such that n*n == side and n is a supported order, else None."""
    n = int(round(side ** 0.5))
    return n if n * n == side and MIN_ORDER <= n <= MAX_ORDER else None
