"""Plain-NumPy twin of move ``swap`` (Lewis 2007): every chain advanced together.

Written apart from ``gpu_sa/puzzles/sudoku/swap.py``; shares only the box tables and the
acceptance table. Counts: | rows N x N | columns N x N |; cost = digits missing from them.
"""
from __future__ import annotations

import numpy as np

from . import rng
from .chains import record_accepted, start_bookkeeping


def init_chains(chain_base, seed, givens, movable, boxes, n_values, state):
    chains, cells = state.config.shape
    side = n_values
    order = int(round(side ** 0.5))
    chain_ids = np.arange(chain_base, chain_base + chains, dtype=np.uint64)
    grid = np.broadcast_to(np.where(givens >= 0, givens, 0).astype(np.uint8), (chains, cells)).copy()
    rows = np.arange(chains)
    for b in range(boxes.shape[0]):
        k = boxes[b, 0]
        free = boxes[b, 1:1 + k]
        r0, c0 = (b // order) * order, (b % order) * order
        box_givens = {int(givens[(r0 + i) * side + c0 + j]) for i in range(order) for j in range(order)}
        missing = [d for d in range(side) if d not in box_givens]
        grid[:, free] = np.array(missing, dtype=np.uint8)
        for i in range(k - 1, 0, -1):
            words = rng.stream_words(np.uint64(b * side + i), chain_ids, rng.TAG_INIT, seed)
            j = rng.uniform_below(words[0], i + 1)
            a, c = free[i], free[j]
            held = grid[:, a].copy()
            grid[:, a] = grid[rows, c]
            grid[rows, c] = held
    state.config[...] = grid
    r, c = np.divmod(np.arange(cells), side)
    counts = np.zeros((chains, 2 * side * side), dtype=np.int64)
    for cell in range(cells):
        np.add.at(counts, (rows, r[cell] * side + grid[:, cell]), 1)
        np.add.at(counts, (rows, (side + c[cell]) * side + grid[:, cell]), 1)
    state.counts[...] = counts
    state.cost[...] = (counts == 0).sum(axis=1)
    start_bookkeeping(state)


def _missing_change(counts, rows, bases, removed, added, moves):
    """Per chain: change of missing digits in unit ``bases`` (only where ``moves``)."""
    change = (counts[rows, bases + removed] == 1).astype(np.int64) - (counts[rows, bases + added] == 0)
    return np.where(moves, change, 0)


def advance_chains(chain_base, seed, givens, movable, boxes, n_values,
                   move_begin, move_end, plateau_begin, plateau_length, thresholds, state):
    chains = state.config.shape[0]
    side = n_values
    rows = np.arange(chains)
    chain_ids = np.arange(chain_base, chain_base + chains, dtype=np.uint64)
    for move in range(int(move_begin), int(move_end)):
        plateau = move // plateau_length - plateau_begin
        w_box, w_first, w_second, w_accept = rng.stream_words(np.uint64(move), chain_ids, rng.TAG_MOVE, seed)
        box = rng.uniform_below(w_box, len(movable))
        k = movable[box, 0].astype(np.int64)
        i = (w_first.astype(np.uint64) * k.astype(np.uint64) >> np.uint64(32)).astype(np.int64)
        j = (w_second.astype(np.uint64) * (k - 1).astype(np.uint64) >> np.uint64(32)).astype(np.int64)
        j += j >= i
        a = movable[box, 1 + i].astype(np.int64)
        c = movable[box, 1 + j].astype(np.int64)
        x = state.config[rows, a].astype(np.int64)
        y = state.config[rows, c].astype(np.int64)
        row_a, column_a = np.divmod(a, side)
        row_c, column_c = np.divmod(c, side)
        rows_move = row_a != row_c
        columns_move = column_a != column_c
        counts = state.counts
        delta = (_missing_change(counts, rows, row_a * side, x, y, rows_move)
                 + _missing_change(counts, rows, row_c * side, y, x, rows_move)
                 + _missing_change(counts, rows, (side + column_a) * side, x, y, columns_move)
                 + _missing_change(counts, rows, (side + column_c) * side, y, x, columns_move))
        accept = (delta <= 0) | (w_accept < thresholds[plateau, np.maximum(delta, 0)])
        taken = rows[accept]
        if taken.size == 0:
            continue
        state.config[taken, a[taken]] = y[taken]
        state.config[taken, c[taken]] = x[taken]
        for moves, base_a, base_c in ((rows_move, row_a * side, row_c * side),
                                      (columns_move, (side + column_a) * side, (side + column_c) * side)):
            t = taken[moves[taken]]
            # four distinct slots per chain: two units, two digits
            counts[t, base_a[t] + x[t]] -= np.uint8(1)
            counts[t, base_a[t] + y[t]] += np.uint8(1)
            counts[t, base_c[t] + y[t]] -= np.uint8(1)
            counts[t, base_c[t] + x[t]] += np.uint8(1)
        record_accepted(state, taken, delta, move)
