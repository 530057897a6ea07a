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
TAG_MOVE = rng.TAG_MOVE
ZERO32 = np.uint32(0)


def build(target):
    """(start_chain, advance_chain) compiled for ``target``; see ``gpu_sa.kernels``."""
    jit = kernels.device_decorator(target)
    philox = rng.compiled(target)
    keep_best = kernels.keep_best(target)

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
    def advance_chain(row, chain, key0, key1, givens, free_cells, unit_offsets, n_values,
                      move_begin, move_end, plateau_begin, plateau_length, thresholds,
                      config, counts, cost, accepted, best_cost, best_config, best_move):
        n_free = np.uint64(free_cells.shape[0])
        other_values = np.uint64(n_values - 1)
        chain_word = np.uint32(chain)
        current = int(cost[row])
        best = int(best_cost[row])
        n_accepted = accepted[row]
        plateau = move_begin // plateau_length
        in_plateau = move_begin - plateau * plateau_length
        plateau -= plateau_begin
        move = move_begin
        while move < move_end:
            w0, w1, w2, w3 = philox(np.uint32(move & 0xFFFFFFFF), np.uint32(move >> 32), chain_word,
                                    TAG_MOVE, key0, key1)
            cell = free_cells[np.int64((np.uint64(w0) * n_free) >> SHIFT32)]
            old = int(config[row, cell])
            new = np.int64((np.uint64(w1) * other_values) >> SHIFT32)
            if new >= old:
                new += 1
            delta = union_count(counts, row, unit_offsets, cell, new) - (
                union_count(counts, row, unit_offsets, cell, old) - 1)
            if delta <= 0 or w2 < thresholds[plateau, delta]:
                config[row, cell] = new
                add_count(counts, row, unit_offsets, cell, old, -1)
                add_count(counts, row, unit_offsets, cell, new, 1)
                current += delta
                n_accepted += 1
                if current < best:
                    best = current
                    keep_best(row, move, config, best_config, best_move)
            move += 1
            in_plateau += 1
            if in_plateau == plateau_length:
                in_plateau = 0
                plateau += 1
        cost[row] = current
        best_cost[row] = best
        accepted[row] = n_accepted

    return start_chain, advance_chain
