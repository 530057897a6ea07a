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

Per chain (one row of each array), I islands, E edges:
  config  (E,)   uint8      bridges on each edge
  counts  (3I,)  unsigned   | bridges at each island (I) | walk stack (I) | visited marks (I) |
Constant tables (see ``geometry``):
  table0 = edges (E, 3 + X) int32   [a, b, n crossing, crossing edges..., padding]
  table1 = islands (I, 6) int32     [number, n edges, edges..., padding]
  table2 = movable edges (M, 2) int32 [edge, most bridges], edges with at least two values
n_values = I.

Initial state: edge e takes (w0 * (most + 1)) >> 32 bridges, w0 from counter (e, 0, chain, TAG_INIT)
(0 for edges that never move). A proposal is one Philox call at (move, chain, TAG_MOVE):
word 0 picks the edge among the M movable ones, word 1 its new value among the others,
word 3 is the acceptance draw. |delta local| <= 4 + the edge's crossings, so
|delta energy| <= 5 + the largest crossing count.
"""
from __future__ import annotations

import numpy as np

from ... import kernels, rng

SHIFT32 = np.uint64(32)
TAG_INIT = rng.TAG_INIT
TAG_MOVE = rng.TAG_MOVE
ZERO32 = np.uint32(0)


def most_bridges(geo) -> np.ndarray:
    """(E,) the most bridges each edge may carry in any solution (the safe deductions above)."""
    a, b = geo.values[geo.edges[:, 0]], geo.values[geo.edges[:, 1]]
    most = np.minimum(2, np.minimum(a, b))
    if geo.islands > 2:
        most = np.where((a == 1) & (b == 1), 0, most)
        most = np.where((a == 2) & (b == 2), np.minimum(most, 1), most)
    return most.astype(np.int32)


def tables(geo):
    """(edges, islands, movable edges) for ``geo`` (a HashiGeometry)."""
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
    return edges, islands, np.ascontiguousarray(movable)


def build(target):
    """(start_chain, advance_chain) compiled for ``target``; see ``gpu_sa.kernels``."""
    jit = kernels.device_decorator(target)
    philox = rng.compiled(target)
    keep_best = kernels.keep_best(target)

    @jit
    def active_partners(row, config, edges, e):
        found = 0
        for j in range(edges[e, 2]):
            if config[row, edges[e, 3 + j]] > 0:
                found += 1
        return found

    @jit
    def local_cost(row, config, counts, edges, islands):
        """The local energy from scratch: degree mismatches plus crossing pairs in use."""
        total = 0
        for i in range(islands.shape[0]):
            total += abs(int(counts[row, i]) - islands[i, 0])
        crossings = 0
        for e in range(edges.shape[0]):
            if config[row, e] > 0:
                crossings += active_partners(row, config, edges, e)
        return total + crossings // 2  # each pair seen from both edges

    @jit
    def connected(row, config, counts, edges, islands, changed, value):
        """Whether the bridges, with edge ``changed`` carrying ``value``, join every island (walk from 0)."""
        n = islands.shape[0]
        stack_base, mark_base = n, 2 * n
        for i in range(n):
            counts[row, mark_base + i] = 0
        counts[row, mark_base] = 1
        counts[row, stack_base] = 0
        depth, seen = 1, 1
        while depth > 0:
            depth -= 1
            island = int(counts[row, stack_base + depth])
            for j in range(islands[island, 1]):
                e = islands[island, 2 + j]
                bridges = value if e == changed else int(config[row, e])
                if bridges == 0:
                    continue
                other = edges[e, 1] if edges[e, 0] == island else edges[e, 0]
                if counts[row, mark_base + other] == 0:
                    counts[row, mark_base + other] = 1
                    counts[row, stack_base + depth] = other
                    depth += 1
                    seen += 1
        return seen == n

    @jit
    def start_chain(row, chain, key0, key1, edges, islands, movable, n_values, config, counts):
        for e in range(edges.shape[0]):
            config[row, e] = 0
        for slot in range(movable.shape[0]):
            e = movable[slot, 0]
            w0, w1, w2, w3 = philox(np.uint32(e), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
            config[row, e] = np.int64((np.uint64(w0) * np.uint64(movable[slot, 1] + 1)) >> SHIFT32)
        for slot in range(counts.shape[1]):
            counts[row, slot] = 0
        for e in range(edges.shape[0]):
            for end in range(2):
                counts[row, edges[e, end]] = int(counts[row, edges[e, end]]) + int(config[row, e])
        local = local_cost(row, config, counts, edges, islands)
        if local == 0 and not connected(row, config, counts, edges, islands, -1, 0):
            return 1
        return local

    @jit
    def advance_chain(row, chain, key0, key1, edges, islands, movable, n_values,
                      move_begin, move_end, plateau_begin, plateau_length, thresholds,
                      config, counts, cost, accepted, best_cost, best_config, best_move):
        n_movable = np.uint64(movable.shape[0])
        chain_word = np.uint32(chain)
        current = int(cost[row])
        local = local_cost(row, config, counts, edges, islands)
        best = int(best_cost[row])
        n_accepted = accepted[row]
        plateau = move_begin // plateau_length
        in_plateau = move_begin - plateau * plateau_length
        plateau -= plateau_begin
        move = move_begin
        while move < move_end:
            w0, w1, w2, w3 = philox(np.uint32(move & 0xFFFFFFFF), np.uint32(move >> 32), chain_word,
                                    TAG_MOVE, key0, key1)
            slot = np.int64((np.uint64(w0) * n_movable) >> SHIFT32)
            e = movable[slot, 0]
            held = int(config[row, e])
            value = np.int64((np.uint64(w1) * np.uint64(movable[slot, 1])) >> SHIFT32)
            if value >= held:
                value += 1
            change = value - held
            a = edges[e, 0]
            b = edges[e, 1]
            degree_a = int(counts[row, a])
            degree_b = int(counts[row, b])
            local_delta = (abs(degree_a + change - islands[a, 0]) - abs(degree_a - islands[a, 0])
                           + abs(degree_b + change - islands[b, 0]) - abs(degree_b - islands[b, 0]))
            if held == 0 or value == 0:
                crossing = active_partners(row, config, edges, e)
                local_delta += crossing if held == 0 else -crossing
            energy = local + local_delta
            if energy == 0 and not connected(row, config, counts, edges, islands, e, value):
                energy = 1
            delta = energy - current
            if delta <= 0 or w3 < thresholds[plateau, delta]:
                config[row, e] = value
                counts[row, a] = degree_a + change
                counts[row, b] = degree_b + change
                local += local_delta
                current = energy
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
