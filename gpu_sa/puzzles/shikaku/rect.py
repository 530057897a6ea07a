"""Move ``rect`` for Shikaku: one clue takes another of its candidate rectangles.

The seed's state and neighbourhood: a chain holds one candidate per clue; a move picks a
clue with at least two candidates and gives it a different one. Cost, from per-cell
coverage counts (cells covered by the chosen rectangles):

    cost = sum over cells of max(coverage - 1, 0)        (0 exactly on solutions)

The clues sum to the area, so this also counts the uncovered cells; it is the seed's
sum of coverage^2 minus the area, halved where coverage <= 2.

Per chain (one row of each array):
  config  (K,)    unsigned   each clue's candidate, numbered within the clue
  counts  (R*C,)  unsigned   coverage of each cell, row-major
Constant tables (see ``geometry``):
  table0 = rectangles (candidates, 4) int32 [top, left, bottom, right], grouped by clue
  table1 = clues (K, 2) int32 [first candidate, number of candidates]
  table2 = movable clues (M,) int32: the clues with at least two candidates
n_values = C, the grid's width.

Initial state: clue k takes candidate (w0 * n_k) >> 32 with w0 from counter (k, 0, chain, TAG_INIT).
A proposal is one Philox call at (move, chain, TAG_MOVE): word 0 picks the clue among the M
movable ones, word 1 its new candidate among the n_k - 1 others, word 3 is the acceptance draw.
Both rectangles have the clue's area v, and a move changes the cost by at most v: the
cells the old one leaves (-1 where still covered twice) and the new one enters (+1 where
already covered); cells in both keep their coverage.
"""
from __future__ import annotations

import numpy as np

from ... import kernels, rng

SHIFT32 = np.uint64(32)
TAG_INIT = rng.TAG_INIT
TAG_MOVE = rng.TAG_MOVE
ZERO32 = np.uint32(0)


def tables(geo):
    """(rectangles, clues, movable clues) for ``geo`` (a ShikakuGeometry)."""
    counts = np.diff(geo.first).astype(np.int32)
    clues = np.ascontiguousarray(np.stack([geo.first[:-1], counts], axis=1).astype(np.int32))
    movable = np.ascontiguousarray(np.flatnonzero(counts >= 2).astype(np.int32))
    return np.ascontiguousarray(geo.rectangles, dtype=np.int32), clues, movable


def build(target):
    """(start_chain, advance_chain) compiled for ``target``; see ``gpu_sa.kernels``."""
    jit = kernels.device_decorator(target)
    philox = rng.compiled(target)
    keep_best = kernels.keep_best(target)

    @jit
    def add_rectangle(counts, row, rectangles, candidate, width, step):
        for r in range(rectangles[candidate, 0], rectangles[candidate, 2] + 1):
            for c in range(rectangles[candidate, 1], rectangles[candidate, 3] + 1):
                counts[row, r * width + c] = int(counts[row, r * width + c]) + step

    @jit
    def leaves(counts, row, rectangles, old, new, width, step, threshold):
        """Over the cells of ``old`` outside ``new``: how many have coverage >= threshold; adds ``step`` to them
        when step != 0 (the delta pass reads, the accept pass writes)."""
        n_top, n_left, n_bottom, n_right = rectangles[new, 0], rectangles[new, 1], rectangles[new, 2], rectangles[new, 3]
        found = 0
        for r in range(rectangles[old, 0], rectangles[old, 2] + 1):
            inside_rows = n_top <= r <= n_bottom
            for c in range(rectangles[old, 1], rectangles[old, 3] + 1):
                if inside_rows and n_left <= c <= n_right:
                    continue
                slot = r * width + c
                if int(counts[row, slot]) >= threshold:
                    found += 1
                if step != 0:
                    counts[row, slot] = int(counts[row, slot]) + step
        return found

    @jit
    def start_chain(row, chain, key0, key1, rectangles, clues, movable, n_values, config, counts):
        for slot in range(counts.shape[1]):
            counts[row, slot] = 0
        for k in range(clues.shape[0]):
            w0, w1, w2, w3 = philox(np.uint32(k), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
            local = np.int64((np.uint64(w0) * np.uint64(clues[k, 1])) >> SHIFT32)
            config[row, k] = local
            add_rectangle(counts, row, rectangles, clues[k, 0] + local, n_values, 1)
        total = 0
        for slot in range(counts.shape[1]):
            if counts[row, slot] > 1:
                total += int(counts[row, slot]) - 1
        return total

    @jit
    def advance_chain(row, chain, key0, key1, rectangles, clues, movable, n_values,
                      move_begin, move_end, plateau_begin, plateau_length, thresholds,
                      config, counts, cost, accepted, best_cost, best_config, best_move):
        n_movable = np.uint64(movable.shape[0])
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
            k = movable[np.int64((np.uint64(w0) * n_movable) >> SHIFT32)]
            held = np.int64(config[row, k])
            local = np.int64((np.uint64(w1) * np.uint64(clues[k, 1] - 1)) >> SHIFT32)
            if local >= held:
                local += 1
            old = clues[k, 0] + held
            new = clues[k, 0] + local
            # + cells the new rectangle enters that are already covered, - cells the old one leaves still doubly covered
            delta = (leaves(counts, row, rectangles, new, old, n_values, 0, 1)
                     - leaves(counts, row, rectangles, old, new, n_values, 0, 2))
            if delta <= 0 or w3 < thresholds[plateau, delta]:
                leaves(counts, row, rectangles, old, new, n_values, -1, 1 << 30)
                leaves(counts, row, rectangles, new, old, n_values, 1, 1 << 30)
                config[row, k] = local
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
