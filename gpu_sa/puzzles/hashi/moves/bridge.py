"""Move ``bridge`` for Hashiwokakero: one candidate edge takes another number of bridges.

State: 0, 1 or 2 bridges on every candidate edge (the seed's add / remove / change of an
edge, as one move). Energy, zero exactly on solutions:

    local  = sum over islands of |bridges at the island - its number|
           + pairs of crossing edges that both carry bridges
    energy = local,  or 1 when local = 0 but the bridges do not connect every island

Connectivity is not local, so it is only computed when a proposal would reach local = 0
(a walk over the islands from island 0 with the proposal applied): a chain can never
report energy 0 for a disconnected network, and the runner's independent validator checks
the reported solution again.

Each edge's values are bounded up front by safe deductions: at most min(2, a, b) bridges
between islands numbered a and b; with more than two islands, two 1s cannot be joined
(they would form a closed pair) and two 2s at most singly. Edges left with one value
never move.

Per chain (one row of each ``ChainState`` array), I islands, E edges:
  config  (E,)   uint8      bridges on each edge
  counts  (3I,)  unsigned   | bridges at each island (I) | walk stack (I) | visited marks (I) |
Tables (``BridgeTables``, see ``geometry``; per puzzle p, padded to the batch's largest):
  edges      (P, E, 3 + X) int32   [a, b, n crossing, crossing edges..., padding]
  n_edges    (P,) int32
  islands    (P, I, 6) int32       [number, n edges, edges..., padding]
  n_islands  (P,) int32
  movable    (P, M, 2) int32       [edge, most bridges], edges with at least two values
  n_movable  (P,) int32

Initial state: edge e takes (w0 * (most + 1)) >> 32 bridges, w0 from counter (e, 0, chain, TAG_INIT)
(0 for edges that never move). A proposal is one Philox call at (move, chain, TAG_MOVE):
word 0 picks the edge among the M movable ones, word 1 its new value among the others,
word 3 is the acceptance draw. |delta local| <= 4 + the edge's crossings, so
|delta energy| <= 5 + the largest crossing count.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ....engine.contract import (clock_start, clock_tick, device, item, loop_counters, native_int, note_accepted, opaque,
                      per_puzzle, set_item, store_counters, table_row)
from ....engine.rng import TAG_INIT, TAG_MOVE, philox, uniform, uniform_index

ZERO32 = np.uint32(0)
NO_EDGE = np.uint32(0xFFFFFFFF)  # for ``connected``: no edge takes another value


class BridgeTables(NamedTuple):
    edges: np.ndarray
    n_edges: np.ndarray
    islands: np.ndarray
    n_islands: np.ndarray
    movable: np.ndarray
    n_movable: np.ndarray
    SHARED = ()


def most_bridges(geo) -> np.ndarray:
    """(E,) the most bridges each edge may carry in any solution (the safe deductions above)."""
    a, b = geo.values[geo.edges[:, 0]], geo.values[geo.edges[:, 1]]
    most = np.minimum(2, np.minimum(a, b))
    if geo.islands > 2:
        most = np.where((a == 1) & (b == 1), 0, most)
        most = np.where((a == 2) & (b == 2), np.minimum(most, 1), most)
    return most.astype(np.int32)


def tables(geo) -> "BridgeTables":
    """The tables of one puzzle (``geo``: a HashiGeometry)."""
    n_edges = geo.edges.shape[0]
    partners = [[] for _ in range(n_edges)]
    for e, f in geo.crossings:
        partners[e].append(f)
        partners[f].append(e)
    width = max([len(p) for p in partners] + [0])
    edges = np.full((n_edges, 3 + width), -1, dtype=np.int32)
    edges[:, :2] = geo.edges
    for e, p in enumerate(partners):
        edges[e, 2] = len(p)
        edges[e, 3:3 + len(p)] = p
    islands = np.full((geo.islands, 6), -1, dtype=np.int32)
    islands[:, 0] = geo.values
    islands[:, 1] = (geo.incident >= 0).sum(axis=1)
    islands[:, 2:] = geo.incident
    most = most_bridges(geo)
    movable_ids = np.flatnonzero(most >= 1)
    movable = np.stack([movable_ids, most[movable_ids]], axis=1).astype(np.int32).reshape(-1, 2)
    return BridgeTables(edges=per_puzzle(edges, np.int32), n_edges=np.array([n_edges], dtype=np.int32),
                        islands=per_puzzle(islands, np.int32), n_islands=np.array([geo.islands], dtype=np.int32),
                        movable=per_puzzle(movable, np.int32), n_movable=np.array([movable.shape[0]], dtype=np.int32))


@device
def active_partners(config, edge):
    """How many of the edges crossing ``edge`` (its row of the edges table) carry bridges; ``config`` is one
    chain's row. As in every proposal loop: uint32 while loops and ``item``/``table_row`` (gpu_sa.engine.contract)."""
    found = native_int(0)
    j, end = np.uint32(3), np.uint32(3 + np.uint32(item(edge, 2)))
    while j < opaque(end):  # not unrolled (``opaque``): unrolled, it held 53 registers live at its peak
        if item(config, np.uint32(item(edge, j))) > 0:
            found = native_int(found + 1)
        j = np.uint32(j + np.uint32(1))
    return found


@device
def local_cost(config, counts, edges, islands, n_islands, n_edges):
    """The local energy from scratch: degree mismatches plus crossing pairs in use (one chain's rows, one
    puzzle's tables)."""
    total = 0
    for i in range(n_islands):
        total += abs(int(counts[i]) - int(islands[i, 0]))
    crossings = 0
    for e in range(n_edges):
        if config[e] > 0:
            crossings += active_partners(config, table_row(edges, e))
    return total + (crossings >> 1)  # each pair seen from both edges


@device
def connected(config, counts, edges, islands, n, changed, value):
    """Whether the bridges, with edge ``changed`` carrying ``value``, join every island (a walk from island 0,
    its stack and marks in the chain's counts row)."""
    stack_base, mark_base = n, np.uint32(n + n)
    i = np.uint32(0)
    while i < opaque(n):  # loops kept rolled (``opaque``): unrolled, they set the kernel's register count
        set_item(counts, np.uint32(mark_base + i), 0)
        i = np.uint32(i + np.uint32(1))
    set_item(counts, mark_base, 1)
    set_item(counts, stack_base, 0)
    depth, seen = np.uint32(1), np.uint32(1)
    while depth > 0:
        depth = np.uint32(depth - np.uint32(1))
        island = np.uint32(item(counts, np.uint32(stack_base + depth)))
        links = table_row(islands, island)  # | number | n edges | edges... |
        j, end = np.uint32(2), np.uint32(2 + np.uint32(item(links, 1)))
        while j < opaque(end):
            e = np.uint32(item(links, j))
            j = np.uint32(j + np.uint32(1))
            bridges = np.uint32(value) if e == changed else np.uint32(item(config, e))
            if bridges == 0:
                continue
            ends = table_row(edges, e)
            other = np.uint32(item(ends, 1)) if np.uint32(item(ends, 0)) == island else np.uint32(item(ends, 0))
            if item(counts, np.uint32(mark_base + other)) == 0:
                set_item(counts, np.uint32(mark_base + other), 1)
                set_item(counts, np.uint32(stack_base + depth), other)
                depth = np.uint32(depth + np.uint32(1))
                seen = np.uint32(seen + np.uint32(1))
    return seen == n


@device
def start_chain(row, chain, puzzle, key0, key1, tables, state):
    config, counts, edges, movable = state.config, state.counts, tables.edges, tables.movable
    for e in range(config.shape[1]):
        config[row, e] = 0
    for slot in range(tables.n_movable[puzzle]):
        e = movable[puzzle, slot, 0]
        w0, w1, w2, w3 = philox(np.uint32(e), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
        config[row, e] = uniform(w0, movable[puzzle, slot, 1] + 1)
    for slot in range(counts.shape[1]):
        counts[row, slot] = 0
    for e in range(tables.n_edges[puzzle]):
        for end in range(2):
            island = edges[puzzle, e, end]
            counts[row, island] = int(counts[row, island]) + int(config[row, e])
    config_row, counts_row = config[row], counts[row]
    puzzle_edges, puzzle_islands = edges[puzzle], tables.islands[puzzle]
    n_islands = np.uint32(tables.n_islands[puzzle])
    local = local_cost(config_row, counts_row, puzzle_edges, puzzle_islands, n_islands, tables.n_edges[puzzle])
    if local == 0 and not connected(config_row, counts_row, puzzle_edges, puzzle_islands, n_islands, NO_EDGE, 0):
        return 1
    return local


@device
def advance_chain(row, chain, puzzle, key0, key1, tables, move_begin, move_end, plateau_begin, plateau_length,
                  thresholds, state):
    # as in sudoku's moves: uint32 indices, this chain's rows and this puzzle's tables as views
    row = np.uint32(row)
    config, counts = state.config[row], state.counts[row]
    edges, islands, movable = tables.edges[puzzle], tables.islands[puzzle], tables.movable[puzzle]
    n_islands = np.uint32(tables.n_islands[puzzle])
    n_movable = np.uint32(tables.n_movable[puzzle])
    chain_word = np.uint32(chain)
    level = np.uint32(state.level[row])
    current, best, n_accepted = loop_counters(row, state)  # 32-bit loop state: one register each
    local = native_int(local_cost(config, counts, edges, islands, n_islands, tables.n_edges[puzzle]))
    lo, hi, in_plateau, plateau, length = clock_start(move_begin, plateau_begin, plateau_length)
    for _ in range(np.int32(move_end - move_begin)):
        w0, w1, w2, w3 = philox(lo, hi, chain_word, TAG_MOVE, key0, key1)
        choice = table_row(movable, uniform_index(w0, n_movable))  # | edge | most bridges |
        e = np.uint32(item(choice, 0))
        held = native_int(item(config, e))
        value = native_int(uniform_index(w1, np.uint32(item(choice, 1))))
        if value >= held:
            value = native_int(value + 1)
        change = native_int(value - held)
        edge = table_row(edges, e)  # | a | b | n crossing | crossing edges... |
        a, b = np.uint32(item(edge, 0)), np.uint32(item(edge, 1))
        degree_a, degree_b = native_int(item(counts, a)), native_int(item(counts, b))
        number_a = native_int(item(table_row(islands, a), 0))
        number_b = native_int(item(table_row(islands, b), 0))
        # each sum wrapped: numba widens an int32 sum to int64, which costs 64-bit arithmetic on the GPU
        missing_a, missing_b = native_int(degree_a - number_a), native_int(degree_b - number_b)
        local_delta = native_int(native_int(abs(native_int(missing_a + change)) - abs(missing_a))
                                 + native_int(abs(native_int(missing_b + change)) - abs(missing_b)))
        if held == 0 or value == 0:
            crossing = active_partners(config, edge)
            local_delta = native_int(local_delta + crossing if held == 0 else local_delta - crossing)
        energy = native_int(local + local_delta)
        if energy == 0 and not connected(config, counts, edges, islands, n_islands, e, value):
            energy = native_int(1)
        delta = native_int(energy - current)
        if delta <= 0 or w3 < thresholds[np.uint32(plateau), level, np.uint32(delta)]:
            set_item(config, e, value)
            set_item(counts, a, degree_a + change)
            set_item(counts, b, degree_b + change)
            local = native_int(local + local_delta)
            current = np.int32(energy)
            best, n_accepted = note_accepted(row, current, best, n_accepted, lo, hi, state)
        lo, hi, in_plateau, plateau = clock_tick(lo, hi, in_plateau, plateau, length)
    store_counters(row, current, best, n_accepted, state)
