"""Move ``rect`` for Shikaku: one clue takes another of its candidate rectangles.

The seed's state and neighbourhood: a chain holds one candidate per clue; a move picks a
clue with at least two candidates and gives it a different one. Cost, from per-cell
coverage counts (cells covered by the chosen rectangles):

    cost = sum over cells of max(coverage - 1, 0)        (0 exactly on solutions)

The clues sum to the area, so this also counts the uncovered cells; it is the seed's
sum of coverage^2 minus the area, halved where coverage <= 2.

Per chain (one row of each ``ChainState`` array):
  config  (K,)    unsigned   each clue's candidate, numbered within the clue
  counts  (R*C,)  unsigned   coverage of each cell, row-major
Tables (``RectTables``, see ``geometry``; per puzzle p, padded to the batch's largest):
  rectangles  (P, candidates, 4) int32  [top, left, bottom, right], grouped by clue
  clues       (P, K, 2) int32           [first candidate, number of candidates]
  n_clues     (P,) int32
  movable     (P, M) int32              the clues with at least two candidates
  n_movable   (P,) int32
  width       int                       shared: C, the grid's width

Initial state: clue k takes candidate (w0 * n_k) >> 32 with w0 from counter (k, 0, chain, TAG_INIT).
A proposal is one Philox call at (move, chain, TAG_MOVE): word 0 picks the clue among the M
movable ones, word 1 its new candidate among the n_k - 1 others, word 3 is the acceptance draw.
Both rectangles have the clue's area v, and a move changes the cost by at most v: the
cells the old one leaves (-1 where still covered twice) and the new one enters (+1 where
already covered); cells in both keep their coverage.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ....engine.contract import (clock_start, clock_tick, device, item, loop_counters, native_int, note_accepted, per_puzzle,
                      set_item, store_counters, table_row)
from ....engine.rng import TAG_INIT, TAG_MOVE, philox, uniform, uniform_index

ZERO32 = np.uint32(0)


class RectTables(NamedTuple):
    rectangles: np.ndarray
    clues: np.ndarray
    n_clues: np.ndarray
    movable: np.ndarray
    n_movable: np.ndarray
    width: int
    SHARED = ("width",)


def tables(geo) -> RectTables:
    """The tables of one puzzle (``geo``: a ShikakuGeometry)."""
    counts = np.diff(geo.first).astype(np.int32)
    clues = np.stack([geo.first[:-1], counts], axis=1).astype(np.int32)
    movable = np.flatnonzero(counts >= 2).astype(np.int32)
    return RectTables(rectangles=per_puzzle(geo.rectangles, np.int32), clues=per_puzzle(clues, np.int32),
                      n_clues=np.array([clues.shape[0]], dtype=np.int32), movable=per_puzzle(movable, np.int32),
                      n_movable=np.array([movable.size], dtype=np.int32), width=int(geo.cols))


@device
def add_rectangle(counts, row, rectangles, puzzle, candidate, width, step):
    for r in range(rectangles[puzzle, candidate, 0], rectangles[puzzle, candidate, 2] + 1):
        for c in range(rectangles[puzzle, candidate, 1], rectangles[puzzle, candidate, 3] + 1):
            counts[row, r * width + c] = int(counts[row, r * width + c]) + step


@device
def leaves(counts, rectangles, old, new, width, step, threshold):
    """Over the cells of ``old`` outside ``new``: how many have coverage >= threshold; adds ``step`` to them
    when step != 0 (the delta pass reads, the accept pass writes). ``counts`` is one chain's row and
    ``rectangles`` one puzzle's table (views); indices are uint32 in while loops (numba's range() counts in
    64 bits) and go through ``item``/``set_item``/``table_row`` (gpu_sa.engine.contract: one multiply per address on
    the GPU)."""
    inner, outer = table_row(rectangles, new), table_row(rectangles, old)
    n_top, n_left = np.uint32(item(inner, 0)), np.uint32(item(inner, 1))
    n_bottom, n_right = np.uint32(item(inner, 2)), np.uint32(item(inner, 3))
    left, bottom, right = np.uint32(item(outer, 1)), np.uint32(item(outer, 2)), np.uint32(item(outer, 3))
    threshold = native_int(threshold)
    found = native_int(0)
    r = np.uint32(item(outer, 0))
    while r <= bottom:
        inside_rows = n_top <= r and r <= n_bottom
        c, slot = left, np.uint32(r * width + left)
        while c <= right:
            if not (inside_rows and n_left <= c and c <= n_right):
                coverage = native_int(item(counts, slot))
                if coverage >= threshold:
                    found = native_int(found + 1)
                if step != 0:
                    set_item(counts, slot, coverage + step)
            c, slot = np.uint32(c + np.uint32(1)), np.uint32(slot + np.uint32(1))
        r = np.uint32(r + np.uint32(1))
    return found


@device
def start_chain(row, chain, puzzle, key0, key1, tables, state):
    config, counts, clues = state.config, state.counts, tables.clues
    for slot in range(counts.shape[1]):
        counts[row, slot] = 0
    for k in range(tables.n_clues[puzzle]):
        w0, w1, w2, w3 = philox(np.uint32(k), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
        local = uniform(w0, clues[puzzle, k, 1])
        config[row, k] = local
        add_rectangle(counts, row, tables.rectangles, puzzle, clues[puzzle, k, 0] + local, tables.width, 1)
    total = 0
    for slot in range(counts.shape[1]):
        if counts[row, slot] > 1:
            total += int(counts[row, slot]) - 1
    return total


@device
def advance_chain(row, chain, puzzle, key0, key1, tables, move_begin, move_end, plateau_begin, plateau_length,
                  thresholds, state):
    # as in sudoku's moves: uint32 indices, this chain's rows and this puzzle's tables as views
    row = np.uint32(row)
    config, counts = state.config[row], state.counts[row]
    rectangles, clues, movable = tables.rectangles[puzzle], tables.clues[puzzle], tables.movable[puzzle]
    width = np.uint32(tables.width)
    n_movable = np.uint32(tables.n_movable[puzzle])
    chain_word = np.uint32(chain)
    level = np.uint32(state.level[row])
    current, best, n_accepted = loop_counters(row, state)  # 32-bit loop state: one register each
    lo, hi, in_plateau, plateau, length = clock_start(move_begin, plateau_begin, plateau_length)
    for _ in range(np.int32(move_end - move_begin)):
        w0, w1, w2, w3 = philox(lo, hi, chain_word, TAG_MOVE, key0, key1)
        k = np.uint32(item(movable, uniform_index(w0, n_movable)))
        held = np.uint32(item(config, k))
        clue = table_row(clues, k)  # | first candidate | number of candidates |
        local = uniform_index(w1, np.uint32(np.uint32(item(clue, 1)) - np.uint32(1)))
        if local >= held:
            local = np.uint32(local + np.uint32(1))
        first = np.uint32(item(clue, 0))
        old, new = np.uint32(first + held), np.uint32(first + local)
        # + cells the new rectangle enters that are already covered, - cells the old one leaves still doubly covered
        delta = native_int(leaves(counts, rectangles, new, old, width, 0, 1)
                           - leaves(counts, rectangles, old, new, width, 0, 2))
        if delta <= 0 or w3 < thresholds[np.uint32(plateau), level, np.uint32(delta)]:
            leaves(counts, rectangles, old, new, width, -1, 1 << 30)
            leaves(counts, rectangles, new, old, width, 1, 1 << 30)
            set_item(config, k, local)
            current = np.int32(current + delta)
            best, n_accepted = note_accepted(row, current, best, n_accepted, lo, hi, state)
        lo, hi, in_plateau, plateau = clock_tick(lo, hi, in_plateau, plateau, length)
    store_counters(row, current, best, n_accepted, state)
