"""Plain-NumPy twin of move ``sirdey``: every chain advanced together, one move at a time.

This is the reference the compiled backends are checked against, bit for bit. It shares
only the tables and the acceptance table with the product; the random stream
(``cpu_ref.rng``) and the move logic are written here again, vectorised over chains.
"""
from __future__ import annotations

import numpy as np

from .. import rng
from ..chains import accepts, record_accepted, row_chains, seed_of, start_bookkeeping, walk


def _union_counts(counts, rows, offsets, digits):
    """For each chain: cells of the cell's row ∪ column ∪ box holding ``digits`` (5 gathers)."""
    gathered = counts[rows[:, None], offsets + digits[:, None]].astype(np.int64)
    return gathered[:, :3].sum(axis=1) - gathered[:, 3:].sum(axis=1)


def init_chains(chains, tables, state):
    puzzles, chain_ids, _ = row_chains(chains, state.cost.shape[0])
    seed = seed_of(chains)
    givens = tables.givens[puzzles]  # (rows, cells)
    grid = np.where(givens >= 0, givens, 0).astype(np.uint8)
    rows = np.arange(grid.shape[0])
    for j in range(tables.free_cells.shape[1]):
        has = rows[j < tables.n_free[puzzles]]
        cells = tables.free_cells[puzzles[has], j]
        words = rng.stream_words(np.uint64(j), chain_ids[has], rng.TAG_INIT, seed)
        rows_of = tables.candidates[puzzles[has], cells]  # | n | digits | ranks |
        rank = rng.uniform_below(words[0], rows_of[:, 0])
        grid[has, cells] = rows_of[np.arange(has.size), 1 + rank]
    state.config[...] = grid
    counts = np.zeros(state.counts.shape, dtype=np.int64)
    for cell in range(grid.shape[1]):
        slots = tables.unit_offsets[cell][None, :] + grid[:, cell].astype(np.int64)[:, None]
        np.add.at(counts, (rows[:, None], slots), 1)
    state.counts[...] = counts
    pairs = counts * (counts - 1) // 2
    positive = 3 * tables.n_values * tables.n_values
    state.cost[...] = pairs[:, :positive].sum(axis=1) - pairs[:, positive:].sum(axis=1)
    start_bookkeeping(state, chains)


def advance_chains(chains, chunk, tables, state):
    seed = seed_of(chains)

    def step(move, rows, chain_ids, puzzles, thresholds):
        w_cell, w_value, w_accept, _ = rng.stream_words(np.uint64(move), chain_ids, rng.TAG_MOVE, seed)
        cells = tables.free_cells[puzzles, rng.uniform_below(w_cell, tables.n_free[puzzles])]
        old = state.config[rows, cells].astype(np.int64)
        rows_of = tables.candidates[puzzles, cells].astype(np.int64)  # | n | digits | ranks |
        picks = np.arange(rows.size)
        rank = rng.uniform_below(w_value, rows_of[:, 0] - 1)
        rank += rank >= rows_of[picks, 1 + tables.n_values + old]
        new = rows_of[picks, 1 + rank]
        offsets = tables.unit_offsets[cells].astype(np.int64)
        delta = (_union_counts(state.counts, rows, offsets, new)
                 - (_union_counts(state.counts, rows, offsets, old) - 1))
        accept = accepts(delta, w_accept, thresholds)
        taken = rows[accept]
        if taken.size == 0:
            return
        state.config[taken, cells[accept]] = new[accept]
        # Each chain's five slots lie in five different sections, so no index repeats.
        state.counts[taken[:, None], offsets[accept] + old[accept, None]] -= np.uint8(1)
        state.counts[taken[:, None], offsets[accept] + new[accept, None]] += np.uint8(1)
        record_accepted(state, taken, delta[accept], move)

    walk(chains, chunk, state, step)
