"""Plain-NumPy twin of Hashiwokakero's move ``bridge``: every chain advanced together.

Written apart from ``gpu_sa/puzzles/hashi/bridge.py``; shares only the edge, island and
movable-edge tables and the acceptance table. Degrees live in counts[:, :I]; the kernel's
walk scratch (counts[:, I:]) is rebuilt here exactly as the kernel leaves it, so every
state array compares equal.
"""
from __future__ import annotations

import numpy as np

from . import rng
from .chains import record_accepted, start_bookkeeping


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


def init_chains(chain_base, seed, edges, islands, movable, n_values, state):
    chains = state.config.shape[0]
    n = int(n_values)
    chain_ids = np.arange(chain_base, chain_base + chains, dtype=np.uint64)
    config = np.zeros(state.config.shape, dtype=np.int64)
    for e, most in movable:
        word = rng.stream_words(np.uint64(e), chain_ids, rng.TAG_INIT, seed)[0]
        config[:, e] = rng.uniform_below(word, int(most) + 1)
    degrees = np.zeros((chains, n), dtype=np.int64)
    for end in range(2):
        np.add.at(degrees, (slice(None), edges[:, end]), config)
    state.config[...] = config
    state.counts[...] = 0
    state.counts[:, :n] = degrees
    cost = _local_cost(config, degrees, edges, islands)
    for row in np.flatnonzero(cost == 0):
        if not _walk(config[row], edges, islands, state.counts[row, n:]):
            cost[row] = 1
    state.cost[...] = cost
    start_bookkeeping(state)


def advance_chains(chain_base, seed, edges, islands, movable, n_values,
                   move_begin, move_end, plateau_begin, plateau_length, thresholds, state):
    chains = state.config.shape[0]
    n = int(n_values)
    rows = np.arange(chains)
    chain_ids = np.arange(chain_base, chain_base + chains, dtype=np.uint64)
    numbers = islands[:, 0].astype(np.int64)
    local = _local_cost(state.config, state.counts[:, :n], edges, islands)
    partner_table = edges[:, 3:]
    for move in range(int(move_begin), int(move_end)):
        plateau = move // plateau_length - plateau_begin
        w_edge, w_value, _, w_accept = rng.stream_words(np.uint64(move), chain_ids, rng.TAG_MOVE, seed)
        slot = rng.uniform_below(w_edge, len(movable))
        e = movable[slot, 0].astype(np.int64)
        held = state.config[rows, e].astype(np.int64)
        value = (w_value.astype(np.uint64) * movable[slot, 1].astype(np.uint64) >> np.uint64(32)).astype(np.int64)
        value += value >= held
        change = value - held
        a, b = edges[e, 0].astype(np.int64), edges[e, 1].astype(np.int64)
        degree_a = state.counts[rows, a].astype(np.int64)
        degree_b = state.counts[rows, b].astype(np.int64)
        local_delta = (np.abs(degree_a + change - numbers[a]) - np.abs(degree_a - numbers[a])
                       + np.abs(degree_b + change - numbers[b]) - np.abs(degree_b - numbers[b]))
        partners = partner_table[e]
        in_use = np.where(partners >= 0, state.config[rows[:, None], np.maximum(partners, 0)] > 0, False)
        crossing = in_use.sum(axis=1)
        local_delta += np.where(held == 0, crossing, np.where(value == 0, -crossing, 0))
        energy = local + local_delta
        for row in np.flatnonzero(energy == 0):
            bridges = state.config[row].astype(np.int64)
            bridges[e[row]] = value[row]
            if not _walk(bridges, edges, islands, state.counts[row, n:]):
                energy[row] = 1
        delta = energy - state.cost.astype(np.int64)
        accept = (delta <= 0) | (w_accept < thresholds[plateau, np.maximum(delta, 0)])
        taken = rows[accept]
        if taken.size == 0:
            continue
        state.config[taken, e[taken]] = value[taken]
        state.counts[taken, a[taken]] = degree_a[taken] + change[taken]
        state.counts[taken, b[taken]] = degree_b[taken] + change[taken]
        local[taken] += local_delta[taken]
        record_accepted(state, taken, delta, move)
