"""Move ``sirdey`` (Sirdey 2006): one free cell takes another digit; cost = conflicting peer pairs.

Per chain (one row of each array):
  config   (cells,) uint8   the grid, digits 0 .. N-1
  counts   (slots,) uint8   digit counts per unit, layout in ``geometry.py``
  cost     int32            conflicting peer pairs = sum over units of C(count, 2), the
                            row∩box and column∩box units subtracted (those pairs are seen twice)
Constant tables: table0 = givens (cells,) int16 (-1 = free), table1 = free cells (F,) int32,
table2 = unit_offsets (cells, 5) int32; n_values = N.

A proposal draws one Philox call at counter (move, chain, TAG_MOVE): word 0 picks the free
cell, word 1 the new digit among the N - 1 others, word 2 is the acceptance draw. The
change of cost is O(1): the peers holding digit d number union(d) minus the cell itself.
"""
from __future__ import annotations

import numpy as np

from ... import kernels, rng

SHIFT32 = np.uint64(32)
TAG_INIT = rng.TAG_INIT
ZERO32 = np.uint32(0)


def build(target):
    """(start_chain, try_move) compiled for ``target``; see ``gpu_sa.kernels``."""
    jit = kernels.device_decorator(target)
    philox = rng.compiled(target)

    @jit
    def union_count(counts, row, unit_offsets, cell, digit):
        # int() first: uint8 arithmetic would wrap in NumPy (the CUDA simulator) and not in numba.
        return (int(counts[row, unit_offsets[cell, 0] + digit]) + int(counts[row, unit_offsets[cell, 1] + digit])
                + int(counts[row, unit_offsets[cell, 2] + digit]) - int(counts[row, unit_offsets[cell, 3] + digit])
                - int(counts[row, unit_offsets[cell, 4] + digit]))

    @jit
    def add_count(counts, row, unit_offsets, cell, digit, amount):
        for unit in range(5):
            slot = unit_offsets[cell, unit] + digit
            counts[row, slot] = int(counts[row, slot]) + amount

    @jit
    def start_chain(row, chain, key0, key1, givens, free_cells, unit_offsets, n_values, config, counts):
        n_cells = givens.shape[0]
        for cell in range(n_cells):
            if givens[cell] >= 0:
                config[row, cell] = givens[cell]
        for j in range(free_cells.shape[0]):
            w0, w1, w2, w3 = philox(np.uint32(j), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
            config[row, free_cells[j]] = (np.uint64(w0) * np.uint64(n_values)) >> SHIFT32
        for slot in range(counts.shape[1]):
            counts[row, slot] = 0
        for cell in range(n_cells):
            add_count(counts, row, unit_offsets, cell, int(config[row, cell]), 1)
        positive_slots = 3 * n_values * n_values
        total = 0
        for slot in range(counts.shape[1]):
            k = int(counts[row, slot])
            if slot < positive_slots:
                total += k * (k - 1) // 2
            else:
                total -= k * (k - 1) // 2
        return total

    @jit
    def try_move(row, words, threshold, givens, free_cells, unit_offsets, n_values, config, counts):
        w0, w1, w2, w3 = words
        cell = free_cells[np.int64((np.uint64(w0) * np.uint64(free_cells.shape[0])) >> SHIFT32)]
        old = int(config[row, cell])
        new = np.int64((np.uint64(w1) * np.uint64(n_values - 1)) >> SHIFT32)
        if new >= old:
            new += 1
        delta = union_count(counts, row, unit_offsets, cell, new) - (
            union_count(counts, row, unit_offsets, cell, old) - 1)
        if delta > 0 and w2 >= threshold[delta]:
            return False, delta
        config[row, cell] = new
        add_count(counts, row, unit_offsets, cell, old, -1)
        add_count(counts, row, unit_offsets, cell, new, 1)
        return True, delta

    return start_chain, try_move
