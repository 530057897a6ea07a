"""Plain-NumPy twin of move ``tabu``: every chain advanced together, one move at a time.

Written again from the move's definition (``gpu_sa.puzzles.sudoku.moves.tabu``'s docstring), not from its
code: each move recomputes every chain's peer conflicts (gamma), its conflicting cells and every
choice from scratch over whole arrays, where the kernel keeps them incrementally. The kernel's state
must come out the same: grid, gamma, the sorted conflict list, flags, tabu marks, counters.
"""
from __future__ import annotations

import numpy as np

from .. import rng
from ..chains import accepts, by_puzzle, record_accepted, row_chains, seed_of, start_bookkeeping, walk

MAX_TENURE = 1 << 20
MAX_SEGMENT = 1 << 30
# memory: conflicting cells, best-move moves left, segment moves left, segment length, journal length, snapshot
# changed, the chain's segment length L; then the list, flags, marks (F*N), snapshot (F), journal (F)
SEGMENT_LEFT, SEGMENT_LENGTH, JOURNAL_LENGTH, SNAPSHOT_CHANGED, SEGMENT_BASE = 2, 3, 4, 5, 6
LIST_BASE = 7
MASK32 = np.uint64(0xFFFFFFFF)
NEVER = np.int64(1) << 62  # larger than any (score, key) pair below


def key(x, w):
    """The move's tie-break key, in 64-bit arithmetic masked to 32 bits."""
    h = ((np.asarray(x, dtype=np.uint64) * np.uint64(0x9E3779B1)) & MASK32) ^ np.asarray(w, dtype=np.uint64)
    h = (h * np.uint64(0x85EBCA6B)) & MASK32
    return (h ^ (h >> np.uint64(16))).astype(np.int64)


def _gamma(one, grid):
    """(rows, F, N): free peers of each free cell holding each digit, for grids (rows, cells)."""
    side, width = one.n_values, one.free_cells.shape[0]
    digits = np.where(one.free_cells >= 0, grid[:, np.maximum(one.free_cells, 0)], 0).astype(np.int64)
    gathered = digits[:, np.maximum(one.peers, 0)]  # (rows, F, P)
    counted = (one.peers >= 0)[None, :, :] & (gathered >= 0) & (gathered < side)
    # one count over (row, cell, digit) bins, flattened, in place of one pass over every peer per digit
    bins = np.arange(grid.shape[0] * width).reshape(grid.shape[0], width, 1) * side + gathered
    gamma = np.bincount(bins[counted], minlength=grid.shape[0] * width * side)
    return gamma.astype(np.int64).reshape(grid.shape[0], width, side), digits


def _candidate_mask(one):
    """(F, N) bool: the candidate digits of each free cell."""
    side = one.n_values
    listed = one.candidates[:, 1:].astype(np.int64)
    rank = np.arange(side)[None, :]
    mask = np.zeros((one.candidates.shape[0], side), dtype=bool)
    for j in range(side):
        rows = np.flatnonzero(j < one.candidates[:, 0])
        mask[rows, listed[rows, j]] = True
    del rank
    return mask


def _derived(one, grid, memory):
    """Write the derived part of ``memory`` (the conflict count and the sorted list) and return
    (gamma, digits of the free cells, their own conflicts) for grids (rows, cells)."""
    gamma, digits = _gamma(one, grid)
    width = one.free_cells.shape[0]
    own = np.take_along_axis(gamma, digits[:, :, None], axis=2)[:, :, 0]
    own[:, one.n_free:] = 0
    memory[:, 0] = (own > 0).sum(axis=1)
    memory[:, LIST_BASE:LIST_BASE + width] = 0
    for r in range(grid.shape[0]):
        listed = np.flatnonzero(own[r] > 0)
        memory[r, LIST_BASE:LIST_BASE + listed.size] = listed
    return gamma, digits, own


def _segment_length(one, chains):
    """Chain c's segment length L: the table's length c mod R."""
    return one.segment_moves[np.asarray(chains) % one.segment_moves.size].astype(np.int64)


def _snapshot_base(one):
    width = one.free_cells.shape[0]
    return LIST_BASE + 2 * width + width * one.n_values


def _settle(one, grid, memory):
    """A move of this chain (grid (cells,), memory (slots,)) ended at its best cost: the snapshot takes the
    journaled cells' digits, or every free cell's after an overflow; the journal empties."""
    width, snapshot = one.free_cells.shape[0], _snapshot_base(one)
    journal = snapshot + width
    length = memory[JOURNAL_LENGTH]
    cells = np.arange(one.n_free) if length > width else memory[journal:journal + length]
    digits = grid[one.free_cells[cells]]
    if (memory[snapshot + cells] != digits).any():
        memory[SNAPSHOT_CHANGED] = 1
    memory[snapshot + cells] = digits
    memory[JOURNAL_LENGTH] = 0


def _restart(one, grid, memory, chain):
    """The chain's segment ended: its snapshot back in the grid (tabu marks kept), flags up, normal mode, an
    empty journal, the next segment's length."""
    width, snapshot = one.free_cells.shape[0], _snapshot_base(one)
    grid[one.free_cells[:one.n_free]] = memory[snapshot:snapshot + one.n_free]
    memory[LIST_BASE + width:LIST_BASE + width + one.n_free] = 1
    memory[1] = 0
    memory[JOURNAL_LENGTH] = 0
    own = int(_segment_length(one, chain))
    if memory[SNAPSHOT_CHANGED]:
        length = own
    else:
        length = min(memory[SEGMENT_LENGTH] + one.segment_growth * own, MAX_SEGMENT)
    memory[SEGMENT_LENGTH] = memory[SEGMENT_LEFT] = length
    memory[SNAPSHOT_CHANGED] = 0


def init_chains(chains, tables, state):
    puzzles, chain_ids, _ = row_chains(chains, state.cost.shape[0])
    seed = seed_of(chains)
    grid = np.where(tables.givens[puzzles] >= 0, tables.givens[puzzles], 0).astype(np.uint8)
    rows = np.arange(grid.shape[0])
    for f in range(tables.free_cells.shape[1]):
        has = rows[f < tables.n_free[puzzles]]
        cells = tables.free_cells[puzzles[has], f]
        listed = tables.candidates[puzzles[has], f]
        words = rng.stream_words(np.uint64(f), chain_ids[has], rng.TAG_INIT, seed)
        grid[has, cells] = listed[np.arange(has.size), 1 + rng.uniform_below(words[0], listed[:, 0])]
    state.config[...] = grid
    state.memory[...] = 0
    for one, where in by_puzzle(tables, puzzles):
        memory = np.zeros((where.size, state.memory.shape[1]), dtype=np.int64)
        gamma, _, own = _derived(one, grid[where], memory)
        width = one.free_cells.shape[0]
        memory[:, LIST_BASE + width:LIST_BASE + width + one.n_free] = 1
        snapshot = _snapshot_base(one)
        free = one.free_cells[:one.n_free]
        memory[:, snapshot:snapshot + one.n_free] = grid[where][:, free]
        memory[:, SEGMENT_LEFT] = memory[:, SEGMENT_LENGTH] = memory[:, SEGMENT_BASE] = _segment_length(
            one, chain_ids[where])
        state.memory[where] = memory
        state.counts[where] = 0
        state.counts[where, :gamma[0].size] = gamma.reshape(where.size, -1)
        state.cost[where] = own.sum(axis=1) // 2
    start_bookkeeping(state, chains)


def advance_chains(chains, chunk, tables, state):
    seed = seed_of(chains)

    def step(move, rows, chain_ids, puzzles, thresholds):
        lo = np.int64(move & 0xFFFFFFFF)
        for one, where, rows_p, chains_p, thresholds_p in by_puzzle(tables, puzzles, rows, chain_ids, thresholds):
            _step(one, move, lo, rows_p, chains_p, thresholds_p)

    def _step(one, move, lo, rows, chain_ids, thresholds):
        side, width = one.n_values, one.free_cells.shape[0]
        flags, marks = LIST_BASE + width, LIST_BASE + 2 * width
        memory = state.memory[rows].astype(np.int64)
        gamma, digits, own = _derived(one, state.config[rows], memory.copy())
        searching = memory[:, 0] > 0
        if not searching.any():
            return
        w0, w1, w2, w3 = (w.astype(np.int64) for w in rng.stream_words(np.uint64(move), chain_ids, rng.TAG_MOVE, seed))
        current = state.cost[rows].astype(np.int64)
        best = state.best_cost[rows].astype(np.int64)
        conflicting = own > 0  # (R, F)
        candidate = _candidate_mask(one)[None, :, :] & (np.arange(side)[None, None, :] != digits[:, :, None])
        score = gamma - own[:, :, None]  # (R, F, N)
        expiry = memory[:, marks:marks + width * side].reshape(-1, width, side)
        left = (expiry - lo) % (1 << 32)
        tabu = (left >= 1) & (left <= MAX_TENURE)
        allowed = candidate & (~tabu | (current[:, None, None] + score < best[:, None, None]))
        tenure = ((w2 * int(one.tenure_span)) >> 32) + ((int(one.tenure_q8) * memory[:, 0]) >> 8)
        tenure = np.minimum(tenure, MAX_TENURE)
        R = rows.size
        v = np.full(R, -1)
        b = np.zeros(R, dtype=np.int64)
        change = np.zeros(R, dtype=np.int64)
        take = np.zeros(R, dtype=bool)
        best_mode = searching & (memory[:, 1] > 0)
        normal = searching & ~best_mode
        memory[best_mode, 1] -= 1
        # best-move mode: the lowest (score, key(f * N + d, w0)) over conflicting cells' allowed digits
        pairs = np.arange(width * side).reshape(width, side)
        for r in np.flatnonzero(best_mode):
            ok = allowed[r] & conflicting[r][:, None]
            if not ok.any():
                continue
            order = np.where(ok, (score[r] + 1024) * (1 << 32) + key(pairs, w0[r]), NEVER)
            v[r], b[r] = np.unravel_index(np.argmin(order), order.shape)
            change[r] = score[r, v[r], b[r]]
            take[r] = True
        for r in np.flatnonzero(normal):
            eligible = conflicting[r] & (memory[r, flags:flags + width] != 0)
            if not eligible.any():
                eligible = conflicting[r]
            most = own[r][eligible].max()
            chosen = eligible & (own[r] == most)
            v[r] = np.argmin(np.where(chosen, key(np.arange(width), w0[r]), NEVER))
            ok = allowed[r, v[r]]
            a = digits[r, v[r]]
            mark = marks + v[r] * side + a
            found = ok.any()
            if found:
                order = np.where(ok, (score[r, v[r]] + 1024) * (1 << 32) + key(np.arange(side), w1[r]), NEVER)
                b[r] = np.argmin(order)
                change[r] = score[r, v[r], b[r]]
                take[r] = accepts(change[r:r + 1], w3[r:r + 1].astype(np.uint32), thresholds[r:r + 1])[0]
            if not take[r]:
                if tabu[r, v[r], a]:
                    memory[r, 1] = one.flag_moves
                else:
                    memory[r, mark] = (lo + tenure[r]) % (1 << 32)
                    memory[r, flags + v[r]] = 0
        journal = _snapshot_base(one) + width
        for r in np.flatnonzero(take):
            a = digits[r, v[r]]
            memory[r, marks + v[r] * side + a] = (lo + tenure[r]) % (1 << 32)
            memory[r, flags + v[r]] = 0
            near = one.peers[v[r]][one.peers[v[r]] >= 0]
            memory[r, flags + near[digits[r, near] == b[r]]] = 1
            state.config[rows[r], one.free_cells[v[r]]] = b[r]
            if memory[r, JOURNAL_LENGTH] < width:
                memory[r, journal + memory[r, JOURNAL_LENGTH]] = v[r]
                memory[r, JOURNAL_LENGTH] += 1
            else:
                memory[r, JOURNAL_LENGTH] = width + 1
        taken = np.flatnonzero(take)
        record_accepted(state, rows[taken], change[taken], move)
        for r in taken[state.cost[rows[taken]] == state.best_cost[rows[taken]]]:
            _settle(one, state.config[rows[r]], memory[r])
        gamma, _, _ = _derived(one, state.config[rows], memory)  # and the conflicting cells after the move
        counting = searching & (memory[:, SEGMENT_LEFT] != 0) & (state.best_cost[rows] <= one.segment_cost)
        memory[counting, SEGMENT_LEFT] -= 1
        returning = np.flatnonzero(counting & (memory[:, SEGMENT_LEFT] == 0) & (memory[:, 0] > 0))
        for r in returning:
            grid = state.config[rows[r]].copy()
            _restart(one, grid, memory[r], chain_ids[r])
            state.config[rows[r]] = grid
            state.cost[rows[r]] = state.best_cost[rows[r]]
        if returning.size:
            gamma, _, _ = _derived(one, state.config[rows], memory)
        state.memory[rows] = memory
        state.counts[rows, :gamma[0].size] = gamma.reshape(R, -1)

    walk(chains, chunk, state, step)
