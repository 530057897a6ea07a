"""Plain-NumPy twin of move ``sirdey``: every chain advanced together, one move at a time.

This is the reference the compiled backends are checked against, bit for bit. It shares
only the geometry tables and the acceptance table with the product; the random stream
(``cpu_ref.rng``) and the move logic are written here again, vectorised over chains.
"""
from __future__ import annotations

import numpy as np

from . import rng
from .chains import record_accepted, start_bookkeeping


def _union_counts(counts, rows, offsets, digits):
    """For each chain: cells of the cell's row ∪ column ∪ box holding ``digits`` (5 gathers)."""
    gathered = counts[rows[:, None], offsets + digits[:, None]].astype(np.int64)
    return gathered[:, :3].sum(axis=1) - gathered[:, 3:].sum(axis=1)


def init_chains(chain_base, seed, givens, free_cells, unit_offsets, n_values, state):
    chains = state.config.shape[0]
    chain_ids = np.arange(chain_base, chain_base + chains, dtype=np.uint64)
    grid = np.broadcast_to(np.where(givens >= 0, givens, 0).astype(np.uint8), state.config.shape).copy()
    for j, cell in enumerate(free_cells):
        words = rng.stream_words(np.uint64(j), chain_ids, rng.TAG_INIT, seed)
        grid[:, cell] = rng.uniform_below(words[0], n_values)
    state.config[...] = grid
    state.counts[...] = 0
    rows = np.arange(chains)
    for cell in range(givens.shape[0]):
        slots = unit_offsets[cell][None, :] + grid[:, cell].astype(np.int64)[:, None]
        np.add.at(state.counts, (rows[:, None], slots), 1)
    pairs = state.counts.astype(np.int64) * (state.counts.astype(np.int64) - 1) // 2
    positive = 3 * n_values * n_values
    state.cost[...] = pairs[:, :positive].sum(axis=1) - pairs[:, positive:].sum(axis=1)
    start_bookkeeping(state)


def advance_chains(chain_base, seed, givens, free_cells, unit_offsets, n_values,
                   move_begin, move_end, plateau_begin, plateau_length, thresholds, state):
    chains = state.config.shape[0]
    rows = np.arange(chains)
    chain_ids = np.arange(chain_base, chain_base + chains, dtype=np.uint64)
    n_free = len(free_cells)
    for move in range(int(move_begin), int(move_end)):
        plateau = move // plateau_length - plateau_begin
        w_cell, w_value, w_accept, _ = rng.stream_words(np.uint64(move), chain_ids, rng.TAG_MOVE, seed)
        cells = free_cells[rng.uniform_below(w_cell, n_free)]
        old = state.config[rows, cells].astype(np.int64)
        new = rng.uniform_below(w_value, n_values - 1)
        new += new >= old
        offsets = unit_offsets[cells].astype(np.int64)
        delta = _union_counts(state.counts, rows, offsets, new) - (_union_counts(state.counts, rows, offsets, old) - 1)
        accept = (delta <= 0) | (w_accept < thresholds[plateau, np.maximum(delta, 0)])
        taken = rows[accept]
        if taken.size == 0:
            continue
        state.config[taken, cells[taken]] = new[taken]
        # Each chain's five slots lie in five different sections, so no index repeats.
        state.counts[taken[:, None], offsets[taken] + old[taken, None]] -= np.uint8(1)
        state.counts[taken[:, None], offsets[taken] + new[taken, None]] += np.uint8(1)
        record_accepted(state, taken, delta, move)
