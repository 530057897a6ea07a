"""Move ``sirdey`` (Sirdey 2006): one free cell takes another digit; cost = conflicting peer pairs.

Per chain (one row of each ``ChainState`` array):
  config   (cells,) uint8   the grid, digits 0 .. N-1
  counts   (slots,) uint8   digit counts per unit, layout in ``geometry.py``
  cost     int32            conflicting peer pairs = sum over units of C(count, 2), the
                            row∩box and column∩box units subtracted (those pairs are seen twice)

Tables (``SirdeyTables``; per puzzle p unless shared):

  givens         (P, cells) int16      -1 = free
  free_cells     (P, F) int32          the free cells, padded with -1 to the batch's longest list
  n_free         (P,) int32
  candidates     (P, cells, 1 + 2N) uint8   per cell, packed in one row (one pointer in the loop):
                      | n | the cell's possible digits, increasing (255-padded, N) | rank of digit d (N) |
                      (rank 255: d is not a candidate)
  unit_offsets   (cells, 5) int32      shared: slot bases of the cell's five units
  n_values       int                   shared: N

Without propagation every cell's candidates are 0 .. N-1 and the stream is the seed move's:
a proposal draws one Philox call at counter (move, chain, TAG_MOVE): word 0 picks the free
cell, word 1 the new digit among the cell's other candidates (rank j of the n - 1 others),
word 2 is the acceptance draw. The initial digit of free cell j is candidate
(w0 * n) >> 32 of its list, w0 from counter (j, 0, chain, TAG_INIT). The change of cost is
O(1): the peers holding digit d number union(d) minus the cell itself.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ....engine.contract import (clock_start, clock_tick, device, item, loop_counters, native_int, note_accepted, set_item,
                      store_counters, table_row)
from ....engine.rng import TAG_INIT, TAG_MOVE, philox, uniform, uniform_index

ZERO32 = np.uint32(0)
NOT_A_CANDIDATE = 255


class SirdeyTables(NamedTuple):
    givens: np.ndarray
    free_cells: np.ndarray
    n_free: np.ndarray
    candidates: np.ndarray
    unit_offsets: np.ndarray
    n_values: int
    SHARED = ("unit_offsets", "n_values")


def candidate_table(masks: np.ndarray, side: int) -> np.ndarray:
    """(cells, 1 + 2N) uint8: the packed candidate rows of one puzzle from per-cell digit bitmasks ((cells,)
    uint64), or from a (cells, N) bool array (from order 9 on, where N digits outgrow a uint64)."""
    cells = masks.shape[0]
    table = np.full((cells, 1 + 2 * side), NOT_A_CANDIDATE, dtype=np.uint8)
    if np.ndim(masks) == 2:
        possible = np.asarray(masks, dtype=bool)
    else:
        digits = np.arange(side, dtype=np.uint64)
        possible = ((masks.astype(np.uint64)[:, None] >> digits[None, :]) & np.uint64(1)).astype(bool)
    for cell in range(cells):
        listed = np.flatnonzero(possible[cell])
        table[cell, 0] = listed.size
        table[cell, 1:1 + listed.size] = listed
        table[cell, 1 + side + listed] = np.arange(listed.size)
    return table


@device
def add_count(counts, unit_offsets, cell, digit, amount):
    """``counts``: one chain's row (a view), read and written through ``item``/``set_item``. An accepted
    move calls it twice (old digit out, new digit in): one pass over the units doing both was measured 5 %
    slower on the CPU and 4 registers more on the GPU (bench/throughput.py, bench/sass.py)."""
    for unit in range(5):
        slot = np.uint32(unit_offsets[cell, unit] + digit)
        set_item(counts, slot, int(item(counts, slot)) + amount)


@device
def union_change(counts, unit_offsets, cell, old, new):
    """Change of cost when ``cell`` goes from ``old`` to ``new``: union(new) - (union(old) - 1), one unit at
    a time so that only one unit's offset is live (registers on the GPU). Indices are uint32 (see
    ``advance_chain``), the sum the machine's natural integer (``native_int``)."""
    change = native_int(1)
    for unit in range(5):
        base = np.uint32(unit_offsets[cell, unit])
        difference = native_int(item(counts, np.uint32(base + new))) - native_int(item(counts, np.uint32(base + old)))
        change = native_int(change + difference) if unit < 3 else native_int(change - difference)
    return change


@device
def start_chain(row, chain, puzzle, key0, key1, tables, state):
    config, counts = state.config, state.counts
    givens, unit_offsets = tables.givens, tables.unit_offsets
    for cell in range(givens.shape[1]):
        if givens[puzzle, cell] >= 0:
            config[row, cell] = givens[puzzle, cell]
    for j in range(tables.n_free[puzzle]):
        cell = tables.free_cells[puzzle, j]
        w0, w1, w2, w3 = philox(np.uint32(j), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
        config[row, cell] = tables.candidates[puzzle, cell, 1 + uniform(w0, tables.candidates[puzzle, cell, 0])]
    for slot in range(counts.shape[1]):
        counts[row, slot] = 0
    for cell in range(givens.shape[1]):
        add_count(counts[row], unit_offsets, cell, int(config[row, cell]), 1)
    positive_slots = 3 * tables.n_values * tables.n_values
    total = 0
    for slot in range(counts.shape[1]):
        k = int(counts[row, slot])
        if slot < positive_slots:
            total += (k * (k - 1)) >> 1
        else:
            total -= (k * (k - 1)) >> 1
    return total


@device
def advance_chain(row, chain, puzzle, key0, key1, tables, move_begin, move_end, plateau_begin, plateau_length,
                  thresholds, state):
    # Every index in the loop is a uint32: numba then neither sign-extends it nor tests it for a negative
    # wraparound, which halves the GPU's address arithmetic and its registers.
    row = np.uint32(row)
    # this chain's rows and this puzzle's tables as views: neither index in the loop's addresses
    config, counts = state.config[row], state.counts[row]
    unit_offsets, free_cells = tables.unit_offsets, tables.free_cells[puzzle]
    candidates = tables.candidates[puzzle]
    ranks = np.uint32(1 + tables.n_values)  # where a cell's row keeps the ranks
    n_free = np.uint32(tables.n_free[puzzle])
    chain_word = np.uint32(chain)
    level = np.uint32(state.level[row])
    current, best, n_accepted = loop_counters(row, state)  # 32-bit loop state: one register each
    lo, hi, in_plateau, plateau, length = clock_start(move_begin, plateau_begin, plateau_length)
    for _ in range(np.int32(move_end - move_begin)):
        w0, w1, w2, w3 = philox(lo, hi, chain_word, TAG_MOVE, key0, key1)
        cell = np.uint32(item(free_cells, uniform_index(w0, n_free)))
        old = np.uint32(item(config, cell))
        listed = table_row(candidates, cell)  # | n | candidates | ranks |
        rank = uniform_index(w1, np.uint32(np.uint32(item(listed, 0)) - np.uint32(1)))
        if rank >= item(listed, np.uint32(ranks + old)):
            rank = np.uint32(rank + np.uint32(1))
        new = np.uint32(item(listed, np.uint32(rank + np.uint32(1))))
        delta = union_change(counts, unit_offsets, cell, old, new)
        if delta <= 0 or w2 < thresholds[np.uint32(plateau), level, np.uint32(delta)]:
            set_item(config, cell, new)
            add_count(counts, unit_offsets, cell, old, -1)
            add_count(counts, unit_offsets, cell, new, 1)
            current = np.int32(current + delta)
            best, n_accepted = note_accepted(row, current, best, n_accepted, lo, hi, state)
        lo, hi, in_plateau, plateau = clock_tick(lo, hi, in_plateau, plateau, length)
    store_counters(row, current, best, n_accepted, state)
