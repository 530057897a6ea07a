"""Plain-NumPy twin of Shikaku's move ``rect``: every chain advanced together.

Written apart from ``gpu_sa/puzzles/shikaku/moves/rect.py``; shares only the candidate tables and
the acceptance table. Both rectangles of a move belong to one clue, so they have the same
area v: the cells of each are enumerated as i = 0 .. v-1 (row i // width, column i % width),
padded to the largest area among the chains' clues and masked.
"""
from __future__ import annotations

import numpy as np

from .. import rng
from ..chains import accepts, by_puzzle, record_accepted, row_chains, seed_of, start_bookkeeping, walk


def _cells(rectangles, candidate, n_cells):
    """(rows, columns, valid) (chains, n_cells) of each chain's rectangle ``candidate``, padded and masked."""
    top, left, bottom, right = (rectangles[candidate, i].astype(np.int64)[:, None] for i in range(4))
    width = right - left + 1
    i = np.arange(n_cells)[None, :]
    valid = i < width * (bottom - top + 1)
    return top + i // width, left + i % width, valid


def _area(rectangle):
    top, left, bottom, right = (int(x) for x in rectangle)
    return (bottom - top + 1) * (right - left + 1)


def _inside(rectangles, candidate, r, c):
    top, left, bottom, right = (rectangles[candidate, i].astype(np.int64)[:, None] for i in range(4))
    return (top <= r) & (r <= bottom) & (left <= c) & (c <= right)


def init_chains(chains, tables, state):
    puzzles, chain_ids, _ = row_chains(chains, state.cost.shape[0])
    seed = seed_of(chains)
    width = int(tables.width)
    coverage = np.zeros(state.counts.shape, dtype=np.int64)
    for one, where, ids in by_puzzle(tables, puzzles, chain_ids):
        rectangles, clues = one.rectangles, one.clues
        for k in range(int(one.n_clues)):
            word = rng.stream_words(np.uint64(k), ids, rng.TAG_INIT, seed)[0]
            local = rng.uniform_below(word, int(clues[k, 1]))
            state.config[where, k] = local
            r, c, valid = _cells(rectangles, clues[k, 0] + local, _area(rectangles[clues[k, 0]]))
            for j in range(r.shape[1]):
                taken = valid[:, j]
                coverage[where[taken], r[taken, j] * width + c[taken, j]] += 1
    state.counts[...] = coverage
    state.cost[...] = np.maximum(coverage - 1, 0).sum(axis=1)
    start_bookkeeping(state, chains)


def advance_chains(chains, chunk, tables, state):
    seed = seed_of(chains)
    width = int(tables.width)

    def step(move, all_rows, all_ids, puzzles, all_thresholds):
        for one, _, rows, chain_ids, thresholds in by_puzzle(tables, puzzles, all_rows, all_ids, all_thresholds):
            rectangles, clues, movable = one.rectangles, one.clues, one.movable[:int(one.n_movable)]
            areas = (rectangles[:, 2] - rectangles[:, 0] + 1) * (rectangles[:, 3] - rectangles[:, 1] + 1)
            w_clue, w_candidate, _, w_accept = rng.stream_words(np.uint64(move), chain_ids, rng.TAG_MOVE, seed)
            k = movable[rng.uniform_below(w_clue, len(movable))].astype(np.int64)
            held = state.config[rows, k].astype(np.int64)
            local = rng.uniform_below(w_candidate, clues[k, 1].astype(np.int64) - 1)
            local += local >= held
            old = clues[k, 0] + held
            new = clues[k, 0] + local
            n_cells = int(areas[old].max())
            coverage = state.counts
            r_old, c_old, valid_old = _cells(rectangles, old, n_cells)
            r_new, c_new, valid_new = _cells(rectangles, new, n_cells)
            leaving = valid_old & ~_inside(rectangles, new, r_old, c_old)
            entering = valid_new & ~_inside(rectangles, old, r_new, c_new)
            slots_old = np.where(leaving, r_old * width + c_old, 0)
            slots_new = np.where(entering, r_new * width + c_new, 0)
            cover_old = coverage[rows[:, None], slots_old].astype(np.int64)
            cover_new = coverage[rows[:, None], slots_new].astype(np.int64)
            delta = (entering & (cover_new >= 1)).sum(axis=1) - (leaving & (cover_old >= 2)).sum(axis=1)
            accept = accepts(delta, w_accept, thresholds)
            taken = rows[accept]
            if taken.size == 0:
                continue
            # within a chain the leaving and entering cells are distinct, so plain fancy indexing is exact
            t_old = np.nonzero(leaving[accept])
            coverage[taken[t_old[0]], slots_old[accept][t_old]] -= 1
            t_new = np.nonzero(entering[accept])
            coverage[taken[t_new[0]], slots_new[accept][t_new]] += 1
            state.config[taken, k[accept]] = local[accept]
            record_accepted(state, taken, delta[accept], move)

    walk(chains, chunk, state, step)
