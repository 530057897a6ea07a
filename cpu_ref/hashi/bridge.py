"""Plain-NumPy twin of Hashiwokakero's move ``bridge``: every chain advanced together.

Written apart from ``gpu_sa/puzzles/hashi/moves/bridge.py``; shares only the edge, island and
movable-edge tables and the acceptance table. Degrees live in counts[:, :I]; the kernel's
walk scratch (counts[:, I:]) is rebuilt here exactly as the kernel leaves it, so every
state array compares equal.
"""
from __future__ import annotations

import numpy as np

from .. import rng
from ..chains import accepts, by_puzzle, record_accepted, row_chains, seed_of, start_bookkeeping, walk


def _local_cost(config, degrees, edges, islands):
    """(chains,) degree mismatches plus crossing pairs in use, from scratch."""
    mismatch = np.abs(degrees.astype(np.int64) - islands[:, 0][None, :]).sum(axis=1)
    used = config > 0
    pairs = 0
    for e in range(edges.shape[0]):
        for f in edges[e, 3:3 + edges[e, 2]]:
            if f > e:
                pairs = pairs + (used[:, e] & used[:, f])
    return mismatch + pairs


def _walk(bridges, edges, islands, scratch):
    """The kernel's depth-first walk from island 0 over edges with bridges, on one chain.

    Writes the kernel's stack and marks into ``scratch`` (2I,) and returns whether every
    island was reached. The visiting order (stack, each island's edges in table order)
    is the kernel's, so the leftover stack contents match too.
    """
    n = islands.shape[0]
    stack, marks = scratch[:n], scratch[n:]
    marks[:] = 0
    marks[0] = 1
    stack[0] = 0
    depth, seen = 1, 1
    while depth:
        depth -= 1
        island = int(stack[depth])
        for e in islands[island, 2:2 + islands[island, 1]]:
            if bridges[e] == 0:
                continue
            other = edges[e, 1] if edges[e, 0] == island else edges[e, 0]
            if not marks[other]:
                marks[other] = 1
                stack[depth] = other
                depth += 1
                seen += 1
    return seen == n


def _trimmed(one):
    """One puzzle's edge and island tables without the batch's padding."""
    return one.edges[:int(one.n_edges)], one.islands[:int(one.n_islands)]


def init_chains(chains, tables, state):
    puzzles, chain_ids, _ = row_chains(chains, state.cost.shape[0])
    seed = seed_of(chains)
    state.config[...] = 0
    state.counts[...] = 0
    for one, where, ids in by_puzzle(tables, puzzles, chain_ids):
        edges, islands = _trimmed(one)
        n = islands.shape[0]
        config = np.zeros((where.size, state.config.shape[1]), dtype=np.int64)
        for e, most in one.movable[:int(one.n_movable)]:
            word = rng.stream_words(np.uint64(e), ids, rng.TAG_INIT, seed)[0]
            config[:, e] = rng.uniform_below(word, int(most) + 1)
        degrees = np.zeros((where.size, n), dtype=np.int64)
        for end in range(2):
            np.add.at(degrees, (slice(None), edges[:, end]), config[:, :edges.shape[0]])
        state.config[where] = config
        state.counts[where, :n] = degrees
        cost = _local_cost(config[:, :edges.shape[0]], degrees, edges, islands)
        for i in np.flatnonzero(cost == 0):
            if not _walk(config[i], edges, islands, state.counts[where[i], n:3 * n]):
                cost[i] = 1
        state.cost[where] = cost
    start_bookkeeping(state, chains)


def advance_chains(chains, chunk, tables, state):
    seed = seed_of(chains)
    puzzles, _, running = row_chains(chains, state.cost.shape[0])
    local = np.zeros(state.cost.shape, dtype=np.int64)
    for one, where in by_puzzle(tables, puzzles[running]):
        edges, islands = _trimmed(one)
        rows = running[where]
        local[rows] = _local_cost(state.config[rows][:, :edges.shape[0]], state.counts[rows][:, :islands.shape[0]],
                                  edges, islands)

    def step(move, all_rows, all_ids, all_puzzles, all_thresholds):
        for one, _, rows, chain_ids, thresholds in by_puzzle(tables, all_puzzles, all_rows, all_ids, all_thresholds):
            edges, islands = _trimmed(one)
            movable = one.movable[:int(one.n_movable)]
            n = islands.shape[0]
            numbers = islands[:, 0].astype(np.int64)
            w_edge, w_value, _, w_accept = rng.stream_words(np.uint64(move), chain_ids, rng.TAG_MOVE, seed)
            slot = rng.uniform_below(w_edge, len(movable))
            e = movable[slot, 0].astype(np.int64)
            held = state.config[rows, e].astype(np.int64)
            value = rng.uniform_below(w_value, movable[slot, 1].astype(np.int64))
            value += value >= held
            change = value - held
            a, b = edges[e, 0].astype(np.int64), edges[e, 1].astype(np.int64)
            degree_a = state.counts[rows, a].astype(np.int64)
            degree_b = state.counts[rows, b].astype(np.int64)
            local_delta = (np.abs(degree_a + change - numbers[a]) - np.abs(degree_a - numbers[a])
                           + np.abs(degree_b + change - numbers[b]) - np.abs(degree_b - numbers[b]))
            partners = edges[e, 3:]
            in_use = np.where(partners >= 0, state.config[rows[:, None], np.maximum(partners, 0)] > 0, False)
            crossing = in_use.sum(axis=1)
            local_delta += np.where(held == 0, crossing, np.where(value == 0, -crossing, 0))
            energy = local[rows] + local_delta
            for i in np.flatnonzero(energy == 0):
                bridges = state.config[rows[i]].astype(np.int64)
                bridges[e[i]] = value[i]
                if not _walk(bridges, edges, islands, state.counts[rows[i], n:3 * n]):
                    energy[i] = 1
            delta = energy - state.cost[rows].astype(np.int64)
            accept = accepts(delta, w_accept, thresholds)
            taken = rows[accept]
            if taken.size == 0:
                continue
            state.config[taken, e[accept]] = value[accept]
            state.counts[taken, a[accept]] = degree_a[accept] + change[accept]
            state.counts[taken, b[accept]] = degree_b[accept] + change[accept]
            local[taken] += local_delta[accept]
            record_accepted(state, taken, delta[accept], move)

    walk(chains, chunk, state, step)
